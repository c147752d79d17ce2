"""How output writes counts and estimates: "1 node", "3 nodes"; "218 ± 110"."""

from __future__ import annotations

import math


def plural(n: int, word: str, many: str | None = None) -> str:
    """Return ``"1 node"`` or ``"3 nodes"`` (``many`` for an irregular plural); ``n`` is
    written with thousands separators."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def mean_ci(mean: float, half: float) -> str:
    """Return ``mean ± half`` with the half-width to two significant digits and the mean to the
    same decimal place (``"218 ± 110"``, ``"0.512 ± 0.012"``); just the mean when ``half`` is
    NaN, ``"-"`` when the mean is NaN."""
    if math.isnan(mean):
        return "-"
    if math.isnan(half) or half == 0:
        return f"{mean:.4g}"
    places = max(0, 1 - math.floor(math.log10(abs(half))))
    return f"{mean:.{places}f} ± {half:.{places}f}"


def number(v: object) -> str:
    """Return a metric as output writes it: integers as they are, floats to four significant
    digits, and from 1,000 up as whole numbers with thousands separators (``17,690``)."""
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    return f"{v:,}" if isinstance(v, int) else str(v)
