"""Times as people read them: in the trace's units (s, min, h, d), never ``2.96138e+06``.

A simulation counts time in slices. For an SWF trace one slice is ``slice_seconds`` seconds of
the trace (1 by default), so its times are shown in seconds, minutes, hours or days; synthetic
models and scenarios have no unit of their own and show slices, with thousands separators.
"""

from __future__ import annotations

import math

#: (unit, seconds in it, below how many seconds it is used)
_UNITS = (("s", 1.0, 120.0), ("min", 60.0, 2 * 3600.0), ("h", 3600.0, 2 * 86400.0), ("d", 86400.0, math.inf))


def _num(x: float) -> str:
    if abs(x) >= 100 or float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:.3g}" if abs(x) < 10 else f"{x:.1f}"


def format_time(t: float, slice_seconds: float | None = None) -> str:
    """Return time ``t`` (in slices) as text: ``"34.3 d"`` when ``slice_seconds`` is given,
    else ``"2,961,380 slices"`` (``"12.5 slices"`` for small fractional times)."""
    if t is None or not math.isfinite(t):
        return "—"
    if slice_seconds is None:
        return f"{_num(t)} slice{'' if t == 1 else 's'}"
    secs = t * slice_seconds
    for unit, size, below in _UNITS:
        if abs(secs) < below:
            return f"{_num(secs / size)} {unit}"
    return f"{_num(secs / 86400.0)} d"  # pragma: no cover - the last unit has no bound


def time_unit(span: float, slice_seconds: float | None = None) -> tuple[str, float]:
    """Return ``(unit name, slices per unit)`` for an axis covering ``span`` slices:
    ``("slices", 1)`` without ``slice_seconds``, else the unit in which ``span`` reads best."""
    if slice_seconds is None:
        return "slices", 1.0
    secs = span * slice_seconds
    for unit, size, below in _UNITS:
        if secs < below:
            return unit, size / slice_seconds
    return "d", 86400.0 / slice_seconds


def clock_text(t: float, slice_seconds: float | None = None) -> str:
    """Return time ``t`` (in slices) as a clock reads it: ``"31 d 04:12:09"`` (``"04:12:09"``
    under a day) when ``slice_seconds`` is given, else ``"2,961,380 slices"``; ``"—"`` for a
    time that is not finite."""
    if t is None or not math.isfinite(t):
        return "—"
    if slice_seconds is None:
        return format_time(t)
    secs = int(round(t * slice_seconds))
    sign, secs = ("-" if secs < 0 else ""), abs(secs)
    days, rest = divmod(secs, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return f"{sign}{days:,} d {h:02d}:{m:02d}:{s:02d}" if days else f"{sign}{h:02d}:{m:02d}:{s:02d}"
