"""Progress of long commands on stderr: a bar for runs done, and the one-time compile notice.

:class:`ProgressBar` shows runs done of total, percentage, elapsed time and ETA. On a terminal it
redraws itself on one line (carriage return); otherwise (a log file, CI) it prints plain lines,
at most one per 5 % of the runs, so the log stays short. The ETA extrapolates the mean time per
run *of this invocation* (runs reused by ``--resume`` do not count, see :meth:`ProgressBar.begin`);
it is "?" until a run has finished.

:func:`compile_fast_loop` compiles the numba loop of :mod:`gangviz.fast` once in this process,
before worker processes start, so they load it from numba's cache instead of each compiling it
again, and says so when it takes a while ("compiling the fast loop once, about 35-50 s").
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

#: Seconds the first compile of a fast loop takes on an idle core: the buddy loop about 35 s,
#: the time-slot (gang) loop about 45 s; two to three times that while other work keeps the
#: cores busy.
COMPILE_SECONDS = "35-50"


def format_duration(seconds: float) -> str:
    """Return ``H:MM:SS`` (or ``M:SS`` under an hour) for a duration in seconds."""
    s = max(0, int(round(seconds)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


class ProgressBar:
    """Call :meth:`update` with the number of runs done; :meth:`close` ends the line."""

    def __init__(self, total: int, *, start: int = 0, stream: IO[str] | None = None,
                 tty: bool | None = None, width: int = 30, label: str = "runs",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.start = start
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.width = width
        self.label = label
        self.clock = clock
        self.t0 = clock()
        self.done = start
        self._last_step = -1

    def text(self) -> str:
        """Return the current progress line (without line ending)."""
        frac = self.done / self.total if self.total else 1.0
        fill = int(round(frac * self.width))
        elapsed = self.clock() - self.t0
        new = self.done - self.start
        eta = format_duration(elapsed / new * (self.total - self.done)) if new > 0 else "?"
        bar = "#" * fill + "." * (self.width - fill)
        return (f"[{bar}] {self.done:,}/{self.total:,} {self.label} {frac * 100:3.0f}%  "
                f"elapsed {format_duration(elapsed)}  ETA {eta}")

    def begin(self, done: int) -> None:
        """Start counting from ``done`` runs already finished (e.g. reused ones), now; the ETA
        then extrapolates only the runs finished after this call. Draws the bar."""
        self.start = done
        self.t0 = self.clock()
        self.update(done)

    def update(self, done: int) -> None:
        """Record ``done`` runs finished (of :attr:`total`) and redraw or print."""
        self.done = done
        if self.tty:
            self.stream.write("\r" + self.text())
            self.stream.flush()
            return
        step = (done * 20) // max(self.total, 1)
        if step != self._last_step:
            self._last_step = step
            self.stream.write(self.text() + "\n")
            self.stream.flush()

    def close(self) -> None:
        """Finish the bar's line on a terminal."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


class RunTicker:
    """A bar of jobs finished for one run on the reference engine, shown once the run has taken
    longer than ``delay`` seconds: call it with the simulation now and then (it is the ``tick``
    of :func:`gangviz.factory.run`), and :meth:`close` it at the end."""

    def __init__(self, total: int, *, label: str = "jobs finished", delay: float = 2.0,
                 stream: IO[str] | None = None) -> None:
        self.total, self.label, self.delay, self.stream = total, label, delay, stream
        self.started = time.monotonic()
        self.bar: ProgressBar | None = None

    def __call__(self, sim: Any) -> None:
        """Look at ``sim`` (its finished jobs) and draw the bar once it is due."""
        if self.bar is None and time.monotonic() - self.started > self.delay:
            self.bar = ProgressBar(self.total, stream=self.stream, label=self.label, clock=time.monotonic)
            self.bar.t0 = self.started
        if self.bar is not None:
            finish = getattr(sim.jobs, "finish", None)  # the engine's job table: a column
            done = (int((finish == finish).sum()) if finish is not None  # NaN: not finished
                    else sum(1 for r in sim.jobs.values() if r.finish is not None))
            self.bar.update(done)

    def close(self) -> None:
        """End the bar's line, if it was drawn."""
        if self.bar is not None:
            self.bar.close()


def compile_fast_loop(stream: IO[str] | None = None, *, quiet_for: float = 1.0,
                      warm: Callable[[], None] | None = None) -> None:
    """Compile (or load from numba's cache) the loop of :mod:`gangviz.fast` in this process
    (the buddy loop, or what ``warm`` runs).

    When that takes longer than ``quiet_for`` seconds (a compile, not a cache load), writes
    "compiling the fast loop once, about N s" to ``stream`` (default stderr) and, when done, how
    long it took. Worker processes started afterwards load the compiled loop from the cache.
    """
    stream = stream if stream is not None else sys.stderr
    done = threading.Event()
    started = time.monotonic()

    def announce() -> None:
        if not done.wait(quiet_for):
            stream.write(f"compiling the fast loop once, about {COMPILE_SECONDS} s on an idle core "
                         "(later runs load it from the cache)\n")
            stream.flush()

    notice = threading.Thread(target=announce, daemon=True)
    notice.start()
    try:
        if warm is not None:
            warm()
        else:
            from gangviz.fast.buddy import run_buddy

            run_buddy([1, 2], [0.0, 1.0], [2, 4], [3.0, 2.0], "BR", 8, "size", None)
    finally:
        done.set()
        notice.join()
    took = time.monotonic() - started
    if took > quiet_for:
        stream.write(f"compiled in {took:.0f} s\n")
        stream.flush()


def run_with_progress(sim: Any, total: int, *, delay: float = 2.0, chunk: int = 1000,
                      stream: IO[str] | None = None, label: str = "jobs finished") -> None:
    """Run ``sim`` (a :class:`~gangviz.sim.engine.Simulation`) to its end; once it has taken
    longer than ``delay`` seconds, show a bar of its ``total`` jobs finished on ``stream``
    (default stderr), named ``label``. Steps ``chunk`` steps between looks at the clock."""
    started = time.monotonic()
    bar = None
    while not sim.done:
        sim.run(max_steps=chunk)
        if bar is None and time.monotonic() - started > delay:
            bar = ProgressBar(total, stream=stream, label=label, clock=time.monotonic)
            bar.t0 = started
        if bar is not None:
            bar.update(sum(1 for r in sim.jobs.values() if r.finish is not None))
        if math.isinf(sim.peek()):
            break
    if bar is not None:
        bar.close()


def announce_compiled(source: Any, specs: Sequence[str], *, ring: bool | None = None, stream: IO[str] | None = None,
                      jobs: bool = False) -> None:
    """Compile (or load from numba's cache) the compiled loop each policy spec of ``specs``
    will run on ``source`` (the variant that keeps what a per-job table needs, with ``jobs``),
    announcing a compile on ``stream`` (default stderr) as
    :func:`compile_fast_loop` does; a spec no compiled loop covers, or a malformed one, is left
    to the run itself. Every command that may run a compiled loop calls this first, so the first
    compile is never silent."""
    from gangviz.core.jobs import JobSpec
    from gangviz.factory.compiled import compiled_runner
    from gangviz.factory.policy import resolve
    from gangviz.workloads.source import Source

    warm = []
    for spec in specs:
        try:
            choice = resolve(source, spec)
            on_ring = source.ring if ring is None else ring
            runner = compiled_runner(source, choice.name, choice.params, bool(on_ring))
        except (ValueError, TypeError):
            continue
        if runner is not None:
            warm.append((runner, choice.name, choice.params))
    if not warm:
        return
    tiny = Source("model", "tiny", 8, [JobSpec(0, "a", 0.0, 2, 3.0, 3.0), JobSpec(1, "b", 1.0, 4, 2.0, 2.0)])

    def run_tiny() -> None:
        for runner, name, params in warm:
            try:
                runner.run(tiny, name, params, jobs=jobs)
            except ValueError:
                pass  # the parameters do not suit the tiny machine: the run compiles it then

    # a load from numba's cache takes about a second on a busy machine; a compile, tens
    compile_fast_loop(stream, warm=run_tiny, quiet_for=3.0)
