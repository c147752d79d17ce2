"""The statistics ``repro zhang-table1`` prints beside Zhang et al.'s Table 1: each cell's spread
over the samples, whether it agrees with the paper, which cells are saturated, the median split
of §5.6 and the bands of the sensitivity runs.

A *cell* is one policy on one workload; its value is the mean bounded slowdown of one sample,
and a sample is one seed (every policy and workload of a sample share it).

* Agreement: the paper's value lies within the samples' range, or within :data:`AGREE_FACTOR`
  (1.5x) of their mean either way.
* Saturation (Zhang01 §2.3: "A system is in a saturated state when increasing the load does not
  result in an increase in utilization"): a policy is saturated at a workload when its mean
  utilisation rises from the workload below by less than :data:`SATURATION_STEP` (half) of the
  rise of the offered load, and at every workload above one where it is. A saturated cell's
  slowdown grows with the run's length, so it is no quantity to compare; it is reported with its
  growth over longer runs instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: how far from the mean (as a factor either way) the paper's value may lie for a cell to agree
AGREE_FACTOR = 1.5
#: a cell is saturated when its utilisation rises by less than this share of the offered load's rise
SATURATION_STEP = 0.5

#: Two-sided 95% quantiles of Student's t by degrees of freedom (larger df: the next lower key).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
         10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000, 120: 1.980}


def t975(df: int) -> float:
    """Return the two-sided 95% quantile of Student's t with ``df`` >= 1 degrees of freedom
    (rounded down to the nearest tabulated df, so never too small). Raises ``ValueError`` for df < 1."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    return _T975[max(k for k in _T975 if k <= df)]


@dataclass(frozen=True)
class Spread:
    """A cell over its samples: mean, 95% confidence half-width of the mean (NaN for one
    sample), smallest and largest value, number of samples."""

    mean: float
    half: float
    low: float
    high: float
    n: int

    def agrees(self, paper: float) -> bool:
        """Whether ``paper`` lies within [low, high] or within :data:`AGREE_FACTOR` of the mean."""
        inside = self.low <= paper <= self.high
        near = self.mean / AGREE_FACTOR <= paper <= self.mean * AGREE_FACTOR
        return inside or near


def spread(values: Sequence[float]) -> Spread:
    """Return the :class:`Spread` of one cell's values. Raises ``ValueError`` for no values."""
    v = np.asarray(values, dtype=np.float64)
    if not len(v):
        raise ValueError("a cell needs at least one sample")
    half = t975(len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v)) if len(v) > 1 else math.nan
    return Spread(float(v.mean()), half, float(v.min()), float(v.max()), len(v))


def saturated(utilisation: Sequence[float], loads: Sequence[float]) -> list[bool]:
    """Return, per workload (in ascending load), whether the policy whose mean utilisations are
    ``utilisation`` is saturated there (module docstring). The lowest workload never is."""
    out = [False]
    for w in range(1, len(utilisation)):
        rise, step = utilisation[w] - utilisation[w - 1], loads[w] - loads[w - 1]
        out.append(out[-1] or rise < SATURATION_STEP * step)
    return out


def in_range(value: float, band: tuple[float, float], rounding: float = 0.005) -> bool:
    """Whether ``value`` lies in ``band`` widened by ``rounding`` each side (the paper prints two
    decimals)."""
    return band[0] - rounding <= value <= band[1] + rounding


def split_summary(runs: Sequence[dict[str, Any]]) -> dict[str, Spread]:
    """Return the :class:`Spread` of ``median_run_time``, ``short_slowdown`` and
    ``long_slowdown`` over the runs of one cell (Zhang01 §5.6's median split)."""
    return {k: spread([r[k] for r in runs]) for k in ("median_run_time", "short_slowdown", "long_slowdown")}


def band(means: Sequence[float]) -> tuple[float, float]:
    """Return (lowest, highest) of one cell's means under the sensitivity variants."""
    return float(min(means)), float(max(means))


def fmt(x: float) -> str:
    """Return a slowdown or time with three significant digits and no exponent ("0.93", "12.4",
    "406", "5,942")."""
    if math.isnan(x):
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"
