"""Workloads of the IBM study (Zhang01 §2.1, §2.2).

The paper fits hyper-Erlang distributions of common order, per power-of-two size class, to
LLNL ASCI Blue-Pacific data but does not publish the fitted parameters. The defaults below are
documented stand-ins chosen to match what the paper does say:

* 320 nodes, job sizes 1..256, classes bounded by powers of two (§2.1 step 1). How sizes
  spread inside a class is not published; ``pow2_share`` of a class's jobs take the class's
  top size (its power of two) and the rest are uniform over the class.
* Large jobs (> 32 nodes) are 30% of the jobs and more than 80% of the work (§2.2): the class
  shares :data:`CLASS_SHARES` give 30% large jobs and about 86% of the work to them.
* Service times: a hyper-Erlang per class with coefficient of variation ``service_cv`` and
  third moment ``service_skew`` x m_2^2 / m (raw moments m, (1 + cv^2) m^2, k m_2^2 / m: the
  over-dispersive shape of §2.1). The class means
  grow as (class top size)^``service_growth`` and average ``service_mean`` seconds over the
  jobs at multiplier 1.
* Inter-arrival times per class: hyper-Erlang with coefficient of variation
  ``interarrival_cv``, the means set so that the offered load is rho = 0.55 on 320 nodes (§2.2
  baseline) at multiplier 1.0.
* The nine workloads multiply every service time by 1.0, 1.1, ..., 1.8 (§2.2), giving offered
  loads 0.55 .. 0.99.
* Estimates follow the Phi model with Phi = 0.2 (§5.3), :func:`gangviz.workloads.dists.phi_overestimation`.
* One sample's offered load (:func:`offered_load`) scatters widely around the nominal one: the
  per-class arrival streams are bursty and the service times heavy-tailed, so with the earlier
  choices (inter-arrival CV 2, run-time CV 3) 1500 jobs gave a baseline of about 0.45..0.75,
  and even 10,000 jobs 0.52..0.66.
  The paper's baseline sample "corresponds to a system utilization of rho = 0.55" (§2.2), so
  ``calibrate=True`` stretches or squeezes the sample's arrival times (one factor, the same for
  all nine multipliers) until its offered load is exactly ``rho x multiplier``.

Times of the returned jobs are in slices of ``slice_seconds`` (200 s in §5.3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from gangviz.core.jobs import JobSpec, checked_specs
from gangviz.workloads.dists import HyperErlang
from gangviz.workloads.model import Workload
from gangviz.workloads.synthetic import JobClass, hyper_erlang

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.workloads.source import Source

__all__ = [
    "PROCESSORS", "SLICE_SECONDS", "POW2_SHARE", "CLASS_SHARES", "MEDIAN_RUN_TIME", "BASELINE_RHO", "MULTIPLIERS",
    "CHOICE_NAMES", "ZhangChoices", "zhang_classes", "zhang_workload", "clip_to_estimates", "mean_size", "mean_work",
    "large_work_share", "offered_load", "zhang_source",
]

PROCESSORS = 320
SLICE_SECONDS = 200.0
BASELINE_RHO = 0.55
#: the median run time at workload 5, seconds (Zhang01 §5.6)
MEDIAN_RUN_TIME = 680.0
#: workload 5's service multiplier
WORKLOAD5 = 1.5
SERVICE_CV = 1.5
INTERARRIVAL_CV = 1.75
SERVICE_GROWTH = 0.0
SERVICE_SKEW = 1.55
#: (lo, hi, share of jobs) per power-of-two class; 70% of jobs have <= 32 nodes.
CLASS_SHARES = (
    (1, 1, 0.20), (2, 2, 0.10), (3, 4, 0.10), (5, 8, 0.10), (9, 16, 0.10), (17, 32, 0.10),
    (33, 64, 0.12), (65, 128, 0.10), (129, 256, 0.08),
)
POW2_SHARE = 0.0
MULTIPLIERS = tuple(round(1.0 + 0.1 * k, 1) for k in range(9))


@dataclass(frozen=True)
class ZhangChoices:
    """The stand-in's choices the paper leaves unpublished, each within what its text allows.

    Zhang01 §2.1 fits hyper-Erlang distributions "for each class" to three moments of the LLNL
    ASCI Blue-Pacific log but publishes none of them; §2.2 gives only the size range, the share
    of large jobs and of their work, the baseline load and, in §5.6, "the median (680
    seconds)" of the run times at workload 5. Fields:

    * ``pow2_share``: the share of each size class's jobs that take the class's top size.
      §2.1: "Each class is a bin in which the upper boundary is a power of 2"; how sizes spread
      inside a bin is not said (0: uniform over the bin; 1: every job at its power of two).
    * ``interarrival_cv``: the coefficient of variation of each class's inter-arrival times.
      §2.1: "both job interarrival time distribution and job service time [...] distribution
      have coefficients of variation that are greater than one".
    * ``service_cv``: the same for the service times, by the same sentence.
    * ``median_run_time``: the median run time in seconds at workload 5 (multiplier 1.5), the
      run-time scale: the mean follows from it and the shapes (:meth:`service_mean`). The load is
      fixed by the arrival rate, so this sets run times against the 200 s slice and the 10 s
      Gamma of the slowdown. §5.6: "the jobs with running time shorter than the median (680
      seconds)" at workload 5.
    * ``service_growth``: the class means grow as (class top size) ** ``service_growth``
      (0: one run-time distribution for every class). §2.1 step 2 models "the service time
      distribution for each class", so the classes may differ.
    * ``service_skew``: the run times' third raw moment over m_2^2 / m (m, m_2 the first two).
      §2.1 fits the hyper-Erlang to "the first three moments of the observed service time"
      and says they "carry the information on the mean, variance, and skewness"; none is
      published. It sets how the two branches of the fit share the jobs at a given mean and
      coefficient of variation: near its least value for order 1, 1.5, the short branch holds
      many jobs well below the median and the long branch few jobs of many hours (run times
      spread over more decades); larger values make the long branch rarer and the bulk one
      exponential around the median. Above 1.5 the fit has order 1 (the most dispersed
      member of the family, as Jann et al.'s); the interarrival times keep 2.

    The defaults are anchored to what §5.6 publishes of workload 5 beyond its load: the median
    run time (680 s) and the mean slowdowns of the jobs shorter and longer than it under BGS
    (18.9, 4.8) and MGS (104.8, 4.1). Under FCFS gang scheduling a job's wait does not depend
    on its run time, so the ratio of the two halves' slowdowns is mostly the ratio of their
    mean 1/t: a property of the run-time distribution's shape, which the policies cannot
    change. With a bulk exponential around the median (CV 3, third moment 2 m_2^2 / m, the
    earlier choice) that ratio is about 14, and MGS's long jobs came out 2.2x the paper's;
    two branches of similar weight (CV 1.5, ``service_skew`` 1.55: 43% of the jobs around
    200 s, 57% around 4,000 s at workload 5) raise it to about 38 and bring all four within
    1.5x, with inter-arrival CV 1.75 (2 lifts BGS's short jobs past 1.5x of the paper's).

    Raises ``ValueError`` for a value out of range.
    """

    pow2_share: float = POW2_SHARE
    interarrival_cv: float = INTERARRIVAL_CV
    service_cv: float = SERVICE_CV
    median_run_time: float = MEDIAN_RUN_TIME
    service_growth: float = SERVICE_GROWTH
    service_skew: float = SERVICE_SKEW

    def __post_init__(self) -> None:
        if not 0.0 <= self.pow2_share <= 1.0:
            raise ValueError(f"pow2_share must lie in 0..1, got {self.pow2_share}")
        for name in ("interarrival_cv", "service_cv"):
            v = getattr(self, name)
            if not 0.5 <= v <= 10.0:
                raise ValueError(f"{name} must lie in 0.5..10, got {v}")
        if not 1.0 <= self.median_run_time <= 1e6:
            raise ValueError(f"median_run_time must lie in 1..1e6 seconds, got {self.median_run_time}")
        if not -2.0 <= self.service_growth <= 2.0:
            raise ValueError(f"service_growth must lie in -2..2, got {self.service_growth}")
        if not 1.51 <= self.service_skew <= 20.0:
            raise ValueError(f"service_skew must lie in 1.51..20, got {self.service_skew}")

    def describe(self) -> str:
        """Return the choices as ``name=value`` pairs, for titles and headers."""
        return ", ".join(f"{k}={getattr(self, k):g}" for k in CHOICE_NAMES)

    def service_mean(self) -> float:
        """Return the mean run time in seconds at multiplier 1 whose median at workload 5 is
        ``median_run_time`` (the median of the mixture of the classes' run-time distributions)."""
        unit = [HyperErlang.fit(*_moments(m, self.service_cv, self.service_skew))
                for m in _relative_means(self.service_growth)]
        shares = [share for _, _, share in CLASS_SHARES]
        return self.median_run_time / (WORKLOAD5 * _mixture_median(unit, shares))


#: the fields of :class:`ZhangChoices`, in order (each is also an option of :func:`zhang_workload`)
CHOICE_NAMES = ("pow2_share", "interarrival_cv", "service_cv", "median_run_time", "service_growth", "service_skew")


def _moments(mean: float, cv: float, skew: float = 2.0) -> tuple[float, float, float]:
    m2 = (1.0 + cv * cv) * mean * mean
    return mean, m2, skew * m2 * m2 / mean


def _class_mean_sizes(pow2_share: float) -> list[float]:
    return [pow2_share * hi + (1 - pow2_share) * (lo + hi) / 2 for lo, hi, _ in CLASS_SHARES]


def _relative_means(growth: float) -> list[float]:
    """Per class, the mean run time relative to the job-weighted mean: proportional to
    (top size) ** growth."""
    raw = [hi ** growth for _, hi, _ in CLASS_SHARES]
    norm = sum(share * r for (_, _, share), r in zip(CLASS_SHARES, raw))
    return [r / norm for r in raw]


def _erlang_cdf(order: int, scale: float, x: float) -> float:
    y = x / scale
    term, total = 1.0, 1.0
    for i in range(1, order):
        term *= y / i
        total += term
    return 1.0 - math.exp(-y) * total


def _mixture_median(dists: list[HyperErlang], shares: list[float]) -> float:
    """Return the median of the mixture of ``dists`` with weights ``shares`` (bisection on the
    exact distribution function, to a relative 1e-9)."""
    def cdf(x: float) -> float:
        return sum(w * (d.p * _erlang_cdf(d.order, d.scale1, x) + (1 - d.p) * _erlang_cdf(d.order, d.scale2, x))
                   for d, w in zip(dists, shares)) / sum(shares)
    lo, hi = 0.0, 1.0
    while cdf(hi) < 0.5:
        hi *= 2.0
    while hi - lo > 1e-9 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < 0.5 else (lo, mid)
    return (lo + hi) / 2


def _class_service_means(choices: ZhangChoices) -> list[float]:
    """Per class, the mean run time in seconds at multiplier 1."""
    mean = choices.service_mean()
    return [mean * r for r in _relative_means(choices.service_growth)]


def mean_size(choices: ZhangChoices | None = None) -> float:
    """Return the mean job size of :data:`CLASS_SHARES` under ``choices`` (default the defaults)."""
    c = choices or ZhangChoices()
    return sum(share * m for (_, _, share), m in zip(CLASS_SHARES, _class_mean_sizes(c.pow2_share)))


def mean_work(choices: ZhangChoices | None = None) -> float:
    """Return the mean node-seconds of work per job at multiplier 1."""
    c = choices or ZhangChoices()
    return sum(share * m * t for (_, _, share), m, t in
               zip(CLASS_SHARES, _class_mean_sizes(c.pow2_share), _class_service_means(c)))


def large_work_share(choices: ZhangChoices | None = None) -> float:
    """Return the expected share of the work done by jobs of more than 32 nodes (§2.2: "more than
    80%")."""
    c = choices or ZhangChoices()
    parts = [share * m * t for (_, _, share), m, t in
             zip(CLASS_SHARES, _class_mean_sizes(c.pow2_share), _class_service_means(c))]
    return sum(p for (lo, _, _), p in zip(CLASS_SHARES, parts) if lo > 32) / sum(parts)


def zhang_classes(rho: float = BASELINE_RHO, processors: int = PROCESSORS,
                  choices: ZhangChoices | None = None) -> list[JobClass]:
    """Return the size classes (times in seconds) whose offered load is ``rho`` on
    ``processors`` nodes at service multiplier 1. Raises ``ValueError`` unless 0 < rho."""
    if not rho > 0:
        raise ValueError(f"rho must be > 0, got {rho}")
    c = choices or ZhangChoices()
    rate = rho * processors / mean_work(c)  # jobs per second, all classes
    return [
        JobClass(lo, hi, HyperErlang.fit(*_moments(1.0 / (rate * share), c.interarrival_cv)),
                 HyperErlang.fit(*_moments(mean, c.service_cv, c.service_skew)))
        for (lo, hi, share), mean in zip(CLASS_SHARES, _class_service_means(c))
    ]


def offered_load(jobs: list[JobSpec], processors: int = PROCESSORS) -> float:
    """Return ``sum(n_i t_e_i) / (N x (last arrival - first arrival))``, the load a sample offers
    over its arrival span (``inf`` when all jobs arrive at once). Raises ``ValueError`` for no jobs."""
    if not jobs:
        raise ValueError("offered_load needs at least one job")
    arrivals = [j.arrival for j in jobs]
    span = max(arrivals) - min(arrivals)
    work = sum(j.size * j.work for j in jobs)
    return work / (processors * span) if span > 0 else float("inf")


def zhang_workload(n_jobs: int = 10_000, multiplier: float = 1.0, *, phi: float = 0.2, seed: int = 0,
                   slice_seconds: float = SLICE_SECONDS, rho: float = BASELINE_RHO,
                   calibrate: bool = False, choices: ZhangChoices | None = None) -> Workload:
    """Return one workload of §2.2: ``n_jobs`` jobs, service times x ``multiplier``.

    ``choices`` (:class:`ZhangChoices`, default its defaults) are the unpublished parameters.

    Times are in slices of ``slice_seconds``; estimates follow the Phi model (``phi``). With
    ``calibrate`` the arrival times are scaled so that :func:`offered_load` is exactly
    ``rho x multiplier`` (the same scale for every multiplier of one seed, so the nine workloads
    keep common random numbers). Raises ``ValueError`` for a bad parameter.
    """
    if not slice_seconds > 0:
        raise ValueError(f"slice_seconds must be > 0, got {slice_seconds}")
    if calibrate and n_jobs < 2:
        raise ValueError(f"calibrate needs n_jobs >= 2 (an arrival span), got {n_jobs}")
    c = choices or ZhangChoices()
    w = hyper_erlang(n_jobs, procs=PROCESSORS, classes=zhang_classes(rho, choices=c), service_factor=multiplier,
                     phi=phi, seed=seed)
    k = 1.0 / slice_seconds
    rng = np.random.default_rng([seed, 2])
    snap = rng.random(len(w.jobs)) < c.pow2_share
    top = np.zeros(PROCESSORS + 1, dtype=np.int64)
    for lo, hi, _ in CLASS_SHARES:
        top[lo:hi + 1] = hi
    # column arithmetic, element by element as the scalar one, so the jobs are the same to the bit
    size = np.array([j.size for j in w.jobs], dtype=np.int64)
    size = np.where(snap, top[size], size)
    arrival = np.array([j.arrival for j in w.jobs], dtype=np.float64) * k
    work = np.array([j.work for j in w.jobs], dtype=np.float64) * k
    estimate: list[float | None] = [None if j.estimate is None else j.estimate * k for j in w.jobs]
    header = dict(w.header)
    header["Multiplier"] = repr(multiplier)
    header["Choices"] = c.describe()
    if calibrate:
        sizes, works = size.tolist(), work.tolist()
        span = float(arrival.max() - arrival.min())
        offered = sum(n * t for n, t in zip(sizes, works)) / (PROCESSORS * span) if span > 0 else float("inf")
        stretch = offered / (rho * multiplier)
        arrival = arrival * stretch
        header["Calibrated"] = f"arrival times x {stretch:.6g} for offered load {rho * multiplier:g}"
    jobs = checked_specs([j.id for j in w.jobs], [j.name for j in w.jobs], arrival.tolist(), size.tolist(),
                         work.tolist(), estimate, [j.min_nodes for j in w.jobs], [j.extra for j in w.jobs])
    return Workload(jobs, PROCESSORS, f"zhang(n_jobs={n_jobs}, multiplier={multiplier}, phi={phi}, seed={seed}, "
                    f"{c.describe()}"
                    + (", calibrated)" if calibrate else ")"),
                    header, list(w.warnings), slice_seconds=slice_seconds)


def zhang_source(n_jobs: int = 10_000, multiplier: float = 1.0, *, seed: int = 0, calibrate: bool = True,
                 choices: ZhangChoices | None = None) -> Source:
    """Return :func:`zhang_workload` as a :class:`~gangviz.workloads.source.Source` (320 nodes,
    times in 200 s slices), for :func:`gangviz.simulate`, ``gangviz.compare`` or a sweep (model
    ``zhang``). Raises ``ValueError`` as :func:`zhang_workload`."""
    from gangviz.workloads.source import Source

    w = zhang_workload(n_jobs, multiplier, seed=seed, calibrate=calibrate, choices=choices)
    return Source("model", w.source, PROCESSORS, w.jobs, slice_seconds=SLICE_SECONDS)


def clip_to_estimates(jobs: list[JobSpec]) -> list[JobSpec]:
    """Return ``jobs`` with each run time cut to its estimate (Zhang01 §2.1: a job is killed when it
    reaches its estimate); jobs without an estimate are unchanged."""
    return [j if j.estimate is None or not j.estimate > 0 or j.work <= j.estimate else replace(j, work=j.estimate)
            for j in jobs]
