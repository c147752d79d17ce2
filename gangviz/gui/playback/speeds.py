"""Play speeds in a run's own time units, and the one a run starts at.

A speed is simulated time per second of wall time, kept in slices per second. On an SWF trace
the control reads in the trace's clock (``1 h/s``, ``2 d/s``: :func:`gangviz.timefmt.format_time`
of the slices per second); on a synthetic model or a scenario, which have no unit of their own,
in slices (``50 slices/s``). The ladder runs from one second (one slice) per second to a month
(ten million slices) per second, so a run of any length has a speed that plays it whole in a few
minutes; :func:`default_index` picks the slowest one that does. Qt-free.
"""

from __future__ import annotations

import math

from gangviz.timefmt import format_time

__all__ = ["TRACE_PLAY_SECONDS", "PLAY_SECONDS", "rates", "rate_text", "default_index", "play_text"]

#: a trace starts at the slowest speed that plays it whole in at most this many seconds
TRACE_PLAY_SECONDS = 180.0
#: a model's or a scenario's run (hundreds of jobs, shown step by step) in at most this many
PLAY_SECONDS = 40.0

#: seconds of a trace per second of wall time: 1-2-5 steps in the units a clock reads
_TRACE_SECONDS = (1, 2, 5, 10, 20, 30, 60, 2 * 60, 5 * 60, 10 * 60, 20 * 60, 30 * 60,
                  3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600,
                  86400, 2 * 86400, 5 * 86400, 10 * 86400, 30 * 86400)
#: slices per second of wall time for a source without a clock
_SLICES = tuple(m * 10**k for k in range(7) for m in (1, 2, 5)) + (10**7,)


def rates(slice_seconds: float | None) -> list[float]:
    """Return the speeds offered, in slices per second, slowest first: a trace's in its clock
    (``slice_seconds`` seconds per slice), else in slices."""
    if slice_seconds is None:
        return [float(r) for r in _SLICES]
    return [s / slice_seconds for s in _TRACE_SECONDS]


def rate_text(rate: float, slice_seconds: float | None) -> str:
    """Return speed ``rate`` (slices per second) as the control shows it: ``"2 d/s"``,
    ``"50 slices/s"`` (a trace's speed in the largest unit that counts it whole)."""
    if slice_seconds is not None:
        secs = rate * slice_seconds
        for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
            n = secs / size
            if n >= 1 and abs(n - round(n)) < 1e-9:
                return f"{round(n):,} {unit}/s"
    return f"{format_time(rate, slice_seconds)}/s"


def default_index(end: float, offered: list[float], seconds: float) -> int:
    """Return the index in ``offered`` (ascending) of the slowest speed that plays times
    0..``end`` in at most ``seconds`` of wall time (the fastest when none does)."""
    want = max(float(end), 0.0) / seconds
    return next((i for i, r in enumerate(offered) if r >= want), len(offered) - 1)


def play_text(end: float, rate: float) -> str:
    """Return how long playing times 0..``end`` takes at ``rate`` slices per second, as the
    window says it: ``"whole run in 2 min 47 s"``."""
    if rate <= 0 or not math.isfinite(end) or end <= 0:
        return ""
    secs = end / rate
    if secs < 1:
        return "whole run in under 1 s"
    if secs < 120:
        return f"whole run in {secs:.0f} s"
    if secs < 2 * 3600:
        return f"whole run in {int(secs // 60)} min {int(secs % 60):02d} s"
    return f"whole run in {secs / 3600:.1f} h"
