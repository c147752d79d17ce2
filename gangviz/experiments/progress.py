"""A terminal progress bar: runs done of total, percentage, elapsed time and ETA, on stderr.

On a terminal the bar redraws itself on one line (carriage return); otherwise (a log file, CI)
it prints plain lines, one per completed run for up to 100 runs and one per 5 % beyond that, so
the log stays short. The ETA extrapolates the mean time per run *of this invocation* (runs
reused by ``--resume`` do not count); it is blank until a run has finished.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO


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
        return (f"[{bar}] {self.done}/{self.total} {self.label} {frac * 100:3.0f}%  "
                f"elapsed {format_duration(elapsed)}  ETA {eta}")

    def update(self, done: int) -> None:
        """Record ``done`` runs finished (of :attr:`total`) and redraw or print."""
        self.done = done
        if self.tty:
            self.stream.write("\r" + self.text())
            self.stream.flush()
            return
        step = done if self.total <= 100 else (done * 20) // max(self.total, 1)
        if step != self._last_step or done == self.total:
            self._last_step = step
            self.stream.write(self.text() + "\n")
            self.stream.flush()

    def close(self) -> None:
        """Finish the bar's line on a terminal."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
