"""Means and Student-t confidence intervals for replicated runs.

Every cell of a sweep reports the mean of its replications and the half-width of a two-sided
confidence interval (95 % by default) from Student's t distribution with n - 1 degrees of
freedom: mean +- t_{(1+level)/2, n-1} * s / sqrt(n), with s the sample standard deviation.
The papers report plain means over their job sets (Zhou00 §4.3, 20 sets of 200
jobs); the interval is what gangviz adds so that two policies can be told apart honestly.

The t quantile is computed here (no SciPy): the CDF through the regularised incomplete beta
function (continued fraction, modified Lentz), inverted by bisection to full double precision.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Return the regularised incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(ln_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Return P(T <= t) for Student's t with ``df`` > 0 degrees of freedom."""
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """Return the ``p`` quantile of Student's t with ``df`` degrees of freedom.

    Raises ``ValueError`` unless 0 < p < 1 and df > 0.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {p!r}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df!r}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def mean_ci(values: Iterable[float], level: float = 0.95) -> tuple[float, float, int]:
    """Return ``(mean, half_width, n)`` over the finite ``values``.

    Non-finite values (a metric undefined in one replication, e.g. the mean turnaround of large
    jobs when none ran) are left out and ``n`` counts only the values used. The half-width is
    ``nan`` for n < 2 and the mean is ``nan`` for n == 0. Raises ``ValueError`` for a level
    outside (0, 1).
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level!r}")
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    mean = math.fsum(xs) / n
    if n == 1:
        return mean, math.nan, 1
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, t_quantile(0.5 + level / 2.0, n - 1) * math.sqrt(var / n), n
