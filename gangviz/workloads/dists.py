"""Distributions behind the synthetic workload models, with their exact moments.

Each distribution here knows its exact pmf or moments, so that a model can set its arrival rate
from exact means (not sample means) and tests can check samples against exact values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


def uniform_log_pmf(hi: int, lo: int = 1) -> npt.NDArray[np.float64]:
    """Return the pmf of round(X) for X uniform in log space on [lo, hi], over k = lo..hi.

    Zhou00 §4.2: sizes and run times are "distributed uniformly in log space"
    and run times "rounded to the number of time slots". Rounding is to the nearest integer, so
    P(k) = (ln min(k + 1/2, hi) - ln max(k - 1/2, lo)) / (ln hi - ln lo). ``pmf[i]`` is P(lo + i).
    For ``lo == hi`` the distribution is the single point ``lo``. Raises ``ValueError`` unless
    1 <= lo <= hi.
    """
    if not (1 <= lo <= hi):
        raise ValueError(f"uniform-log range must satisfy 1 <= lo <= hi, got lo={lo}, hi={hi}")
    if lo == hi:
        return np.ones(1)
    k = np.arange(lo, hi + 1, dtype=np.float64)
    upper = np.log(np.minimum(k + 0.5, hi))
    lower = np.log(np.maximum(k - 0.5, lo))
    return (upper - lower) / (math.log(hi) - math.log(lo))


def sample_uniform_log(rng: np.random.Generator, n: int, hi: int, lo: int = 1) -> npt.NDArray[np.int64]:
    """Return ``n`` draws of round(X), X uniform in log space on [lo, hi] (int64 array).

    Rounding is half-to-even (numpy's ``rint``); the halves have probability zero.
    """
    x = np.exp(rng.uniform(math.log(lo), math.log(hi), size=n))
    return np.clip(np.rint(x), lo, hi).astype(np.int64)


def bounded_normal_pmf(hi: int, mean: float, sigma: float, *, lo: int = 1,
                       bound: str = "resample") -> npt.NDArray[np.float64]:
    """Return the pmf over k = lo..hi of a normal(mean, sigma) rounded to an integer and bounded.

    Papazachos09 §2 uses a "bounded" normal distribution of gang sizes in [1..P] but
    does not say how the bound is enforced. ``bound="resample"`` (the default, and the natural
    reading: a truncated normal, which the figure captions call it) redraws values outside the
    range, so P(k) is proportional to Phi((k + 1/2 - mean)/sigma) - Phi((k - 1/2 - mean)/sigma).
    ``bound="clip"`` moves the mass outside the range onto the end points instead. Raises
    ``ValueError`` for ``sigma <= 0``, an empty range, or an unknown ``bound``.
    """
    if not (sigma > 0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma}")
    if not (1 <= lo <= hi):
        raise ValueError(f"size range must satisfy 1 <= lo <= hi, got lo={lo}, hi={hi}")
    if bound not in ("resample", "clip"):
        raise ValueError(f"bound must be 'resample' or 'clip', got {bound!r}")
    edges = np.arange(lo - 0.5, hi + 1.0, 1.0)
    cdf = np.array([0.5 * math.erfc(-(e - mean) / (sigma * math.sqrt(2))) for e in edges])
    if bound == "clip":
        cdf[0], cdf[-1] = 0.0, 1.0
    pmf: npt.NDArray[np.float64] = np.diff(cdf)
    total = float(pmf.sum())
    if not total > 0:
        raise ValueError(f"a normal({mean}, {sigma}) has no mass on {lo}..{hi}")
    return pmf / total


def pmf_moments(pmf: npt.NDArray[np.float64], lo: int = 1) -> tuple[float, float]:
    """Return (mean, variance) of a pmf over lo, lo + 1, ...."""
    k = np.arange(lo, lo + len(pmf), dtype=np.float64)
    mean = float(np.dot(k, pmf))
    return mean, float(np.dot((k - mean) ** 2, pmf))


def phi_overestimation(rng: np.random.Generator, n: int, phi: float) -> npt.NDArray[np.float64]:
    """Return ``n`` over-estimation factors (estimate / actual run time) of the Phi model.

    Zhang01 §2.1: with y uniform on [0, 1), the factor is 1 when y < Phi and
    (1 - Phi) / (1 - y) otherwise. So a fraction Phi of jobs end exactly at their estimate and
    the rest end at a fraction 1/factor of it that is uniform on (0, 1]. Raises ``ValueError``
    unless 0 <= phi <= 1.
    """
    if not (0.0 <= phi <= 1.0):
        raise ValueError(f"phi must lie in [0, 1], got {phi}")
    y = rng.random(n)
    factor = np.ones(n)
    hit = y >= phi
    factor[hit] = (1.0 - phi) / (1.0 - y[hit])
    return np.maximum(factor, 1.0)


@dataclass(frozen=True)
class HyperErlang:
    """A hyper-Erlang distribution of common order: with probability ``p`` an Erlang of
    ``order`` stages of mean ``scale1`` each, else of ``order`` stages of mean ``scale2``.

    Zhang01 §2.1 fits this family (after Jann et al., its reference [11]) to the
    first three moments of inter-arrival and service times. Erlang(n, stage mean a) has raw
    moments E[X^k] = n (n + 1) ... (n + k - 1) a^k, so a two-branch mixture of common order n
    matches three moments exactly when (a, b, p) is the two-point distribution with moments
    m_k / (n (n + 1) ... (n + k - 1)), k = 1..3 (see :meth:`fit`).
    """

    order: int
    p: float
    scale1: float
    scale2: float

    def moment(self, k: int) -> float:
        """Return the exact raw moment E[X^k]."""
        rising = math.prod(self.order + i for i in range(k))
        return rising * (self.p * self.scale1**k + (1 - self.p) * self.scale2**k)

    def moments(self) -> tuple[float, float, float]:
        """Return the exact first three raw moments (E[X], E[X^2], E[X^3])."""
        return self.moment(1), self.moment(2), self.moment(3)

    def sample(self, rng: np.random.Generator, n: int) -> npt.NDArray[np.float64]:
        """Return ``n`` independent draws."""
        scale = np.where(rng.random(n) < self.p, self.scale1, self.scale2)
        return rng.gamma(self.order, scale)

    def scaled(self, factor: float) -> HyperErlang:
        """Return the distribution of ``factor * X`` (same order and branch probabilities)."""
        return HyperErlang(self.order, self.p, self.scale1 * factor, self.scale2 * factor)

    @staticmethod
    def _check(m1: float, m2: float, m3: float) -> tuple[float, float]:
        for name, v in (("m1", m1), ("m2", m2), ("m3", m3)):
            if not (math.isfinite(v) and v > 0):
                raise ValueError(f"moment {name} must be a finite number > 0, got {v}")
        c2 = m2 / (m1 * m1) - 1.0
        r = m2 * m2 / (m1 * m3)
        if not c2 > 0:
            raise ValueError(f"moments need m2 > m1^2 (positive variance); got m1={m1}, m2={m2}")
        if not r < 1:
            raise ValueError(f"moments need m1*m3 > m2^2 (Cauchy-Schwarz); got m1={m1}, m2={m2}, m3={m3}")
        return c2, r

    @staticmethod
    def feasible(m1: float, m2: float, m3: float, order: int) -> bool:
        """Return True when common order ``order`` can match the moments (see :meth:`min_order`).

        Both conditions are required with a relative margin of 1e-9, so that a fit at the
        boundary (where one branch degenerates to an atom at 0) is refused rather than returned
        with rounding noise.
        """
        c2, r = HyperErlang._check(m1, m2, m3)
        n = order
        return n >= 1 and n * c2 > 1 + 1e-9 and (n + 1) / (n + 2) > r * (1 + 1e-9)

    @staticmethod
    def min_order(m1: float, m2: float, m3: float) -> int:
        """Return the smallest common order n for which the three moments can be matched.

        With c^2 = m2 / m1^2 - 1 and r = m2^2 / (m1 m3), order n works iff n c^2 > 1 (the
        two-point variance is positive) and (n + 1) / (n + 2) > r (its Hankel determinant is
        positive, so both atoms are positive). Raises ``ValueError`` when no order works (the
        moments are not those of a non-degenerate positive random variable).
        """
        c2, r = HyperErlang._check(m1, m2, m3)
        n = max(1, math.floor(1.0 / c2) + 1, math.floor((2 * r - 1) / (1 - r)) + 1)
        # The closed form is exact in real arithmetic; settle float rounding at the boundary.
        for _ in range(4):
            if HyperErlang.feasible(m1, m2, m3, n):
                break
            n += 1
        while n > 1 and HyperErlang.feasible(m1, m2, m3, n - 1):
            n -= 1
        return n

    @classmethod
    def fit(cls, m1: float, m2: float, m3: float, *, order: int | None = None,
            max_order: int = 100_000) -> HyperErlang:
        """Return the hyper-Erlang of common order matching the raw moments m1, m2, m3 exactly.

        ``order=None`` picks the smallest feasible order (:meth:`min_order`), the most
        dispersed member of the family, as in Jann et al.; a given ``order`` is used as is.
        ``scale1 >= scale2`` (branch 1 is the long one). Raises ``ValueError`` when the moments
        are infeasible, when the given order cannot match them, or when matching needs an order
        above ``max_order`` (near-deterministic data).
        """
        n = cls.min_order(m1, m2, m3) if order is None else int(order)
        if n > max_order:
            raise ValueError(f"matching these moments needs order {n} > {max_order} "
                             f"(coefficient of variation {math.sqrt(m2 / m1**2 - 1):.3g} is too small)")
        if not cls.feasible(m1, m2, m3, n):
            raise ValueError(f"order {n} cannot match these moments; the smallest that can is "
                             f"{cls.min_order(m1, m2, m3)}")
        mu1 = m1 / n
        mu2 = m2 / (n * (n + 1))
        mu3 = m3 / (n * (n + 1) * (n + 2))
        var = mu2 - mu1 * mu1
        s = (mu3 - mu1 * mu2) / var
        q = s * mu1 - mu2
        root = math.sqrt(max(s * s - 4 * q, 0.0))
        # The atoms are the roots of x^2 - s x + q. The smaller one is taken as q / a, not
        # (s - root) / 2, which cancels catastrophically when one branch is rare and long (p
        # is then computed from mu1 - b, and its error would be multiplied a million times).
        a = (s + root) / 2
        b = q / a
        p = (mu1 - b) / (a - b)
        return cls(n, p, a, b)
