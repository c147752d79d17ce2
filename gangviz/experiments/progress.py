"""Progress of long commands on stderr: a bar for runs done, and the one-time compile notice.

:class:`ProgressBar` shows runs done of total, percentage, elapsed time and ETA. On a terminal it
redraws itself on one line (carriage return); otherwise (a log file, CI) it prints plain lines,
at most one per 5 % of the runs, so the log stays short. The ETA extrapolates the mean time per
run *of this invocation* (runs reused by ``--resume`` do not count, see :meth:`ProgressBar.begin`);
it is "?" until a run has finished.

:func:`compile_fast_loop` compiles the numba loop of :mod:`gangviz.fast` once in this process,
before worker processes start, so they load it from numba's cache instead of each compiling it
again, and says so when it takes a while ("compiling the fast loop once, about 20 s").
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

#: Seconds the first compile of the fast loop takes: 13-17 s on an idle core of the 2-core
#: development machine, 35-60 s of wall time while other work keeps its cores busy.
COMPILE_SECONDS = 20


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
