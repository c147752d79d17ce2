"""Workloads of the IBM study (Zhang01 §2.1, §2.2).

The paper fits hyper-Erlang distributions of common order, per power-of-two size class, to
LLNL ASCI Blue-Pacific data but does not publish the fitted parameters. The defaults below are
documented stand-ins chosen to match what the paper does say:

* 320 nodes, job sizes 1..256, classes bounded by powers of two (§2.1 step 1); within a class
  sizes are uniform (the generator's reading of a bin).
* Large jobs (> 32 nodes) are 30% of the jobs and more than 80% of the work (§2.2): the class
  shares :data:`CLASS_SHARES` give 30% large jobs and about 86% of the work to them.
* Service times: one hyper-Erlang for all classes with mean 3000 s and coefficient of
  variation 3 (raw moments m, 10 m^2, 200 m^3: the over-dispersive shape of §2.1).
* Inter-arrival times per class: hyper-Erlang with coefficient of variation 2, the means set so
  that the offered load is rho = 0.55 on 320 nodes (§2.2 baseline) at multiplier 1.0.
* The nine workloads multiply every service time by 1.0, 1.1, ..., 1.8 (§2.2), giving offered
  loads 0.55 .. 0.99.
* Estimates follow the Phi model with Phi = 0.2 (§5.3), :func:`gangviz.workloads.dists.phi_overestimation`.
* One sample's offered load (:func:`offered_load`) scatters widely around the nominal one: the
  per-class arrival streams are bursty (CV 2) and the service times heavy-tailed (CV 3), so with
  1500 jobs the baseline ranges over about 0.45..0.75, and even 10,000 jobs give 0.52..0.66.
  The paper's baseline sample "corresponds to a system utilization of rho = 0.55" (§2.2), so
  ``calibrate=True`` stretches or squeezes the sample's arrival times (one factor, the same for
  all nine multipliers) until its offered load is exactly ``rho x multiplier``.

Times of the returned jobs are in slices of ``slice_seconds`` (200 s in §5.3).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gangviz.core.jobs import JobSpec
from gangviz.workloads.dists import HyperErlang
from gangviz.workloads.model import Workload
from gangviz.workloads.synthetic import JobClass, hyper_erlang

__all__ = [
    "PROCESSORS", "SLICE_SECONDS", "POW2_SHARE", "CLASS_SHARES", "SERVICE_MEAN", "BASELINE_RHO", "MULTIPLIERS",
    "zhang_classes", "zhang_workload", "clip_to_estimates", "mean_size", "offered_load",
]

PROCESSORS = 320
SLICE_SECONDS = 200.0
BASELINE_RHO = 0.55
SERVICE_MEAN = 3000.0
SERVICE_CV = 3.0
INTERARRIVAL_CV = 2.0
#: (lo, hi, share of jobs) per power-of-two class; 70% of jobs have <= 32 nodes.
CLASS_SHARES = (
    (1, 1, 0.20), (2, 2, 0.10), (3, 4, 0.10), (5, 8, 0.10), (9, 16, 0.10), (17, 32, 0.10),
    (33, 64, 0.12), (65, 128, 0.10), (129, 256, 0.08),
)
POW2_SHARE = 0.75
MULTIPLIERS = tuple(round(1.0 + 0.1 * k, 1) for k in range(9))


def _moments(mean: float, cv: float) -> tuple[float, float, float]:
    m2 = (1.0 + cv * cv) * mean * mean
    return mean, m2, 2.0 * m2 * m2 / mean


def mean_size() -> float:
    """Return the mean job size of :data:`CLASS_SHARES` (uniform sizes within a class)."""
    return sum(share * (POW2_SHARE * hi + (1 - POW2_SHARE) * (lo + hi) / 2) for lo, hi, share in CLASS_SHARES)


def zhang_classes(rho: float = BASELINE_RHO, processors: int = PROCESSORS) -> list[JobClass]:
    """Return the size classes (times in seconds) whose offered load is ``rho`` on
    ``processors`` nodes at service multiplier 1. Raises ``ValueError`` unless 0 < rho."""
    if not rho > 0:
        raise ValueError(f"rho must be > 0, got {rho}")
    rate = rho * processors / (mean_size() * SERVICE_MEAN)  # jobs per second, all classes
    service = HyperErlang.fit(*_moments(SERVICE_MEAN, SERVICE_CV))
    return [
        JobClass(lo, hi, HyperErlang.fit(*_moments(1.0 / (rate * share), INTERARRIVAL_CV)), service)
        for lo, hi, share in CLASS_SHARES
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
                   calibrate: bool = False) -> Workload:
    """Return one workload of §2.2: ``n_jobs`` jobs, service times x ``multiplier``.

    Times are in slices of ``slice_seconds``; estimates follow the Phi model (``phi``). With
    ``calibrate`` the arrival times are scaled so that :func:`offered_load` is exactly
    ``rho x multiplier`` (the same scale for every multiplier of one seed, so the nine workloads
    keep common random numbers). Raises ``ValueError`` for a bad parameter.
    """
    if not slice_seconds > 0:
        raise ValueError(f"slice_seconds must be > 0, got {slice_seconds}")
    if calibrate and n_jobs < 2:
        raise ValueError(f"calibrate needs n_jobs >= 2 (an arrival span), got {n_jobs}")
    w = hyper_erlang(n_jobs, procs=PROCESSORS, classes=zhang_classes(rho), service_factor=multiplier,
                     phi=phi, seed=seed)
    k = 1.0 / slice_seconds
    rng = np.random.default_rng([seed, 2])
    snap = rng.random(len(w.jobs)) < POW2_SHARE
    upper = {size: hi for lo, hi, _ in CLASS_SHARES for size in range(lo, hi + 1)}
    jobs = [replace(j, arrival=j.arrival * k, work=j.work * k, size=upper[j.size] if up else j.size,
                    estimate=None if j.estimate is None else j.estimate * k)
            for j, up in zip(w.jobs, snap.tolist())]
    header = dict(w.header)
    header["Multiplier"] = repr(multiplier)
    if calibrate:
        stretch = offered_load(jobs) / (rho * multiplier)
        jobs = [replace(j, arrival=j.arrival * stretch) for j in jobs]
        header["Calibrated"] = f"arrival times x {stretch:.6g} for offered load {rho * multiplier:g}"
    return Workload(jobs, PROCESSORS, f"zhang(n_jobs={n_jobs}, multiplier={multiplier}, phi={phi}, seed={seed}"
                    + (", calibrated)" if calibrate else ")"),
                    header, list(w.warnings), slice_seconds=slice_seconds)


def clip_to_estimates(jobs: list[JobSpec]) -> list[JobSpec]:
    """Return ``jobs`` with each run time cut to its estimate (Zhang01 §2.1: a job is killed when it
    reaches its estimate); jobs without an estimate are unchanged."""
    return [j if j.estimate is None or not j.estimate > 0 or j.work <= j.estimate else replace(j, work=j.estimate)
            for j in jobs]
