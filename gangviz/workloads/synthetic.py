"""Seedable synthetic workload models, each returning a :class:`Workload`.

* :func:`uniform_log` (CLI ``downey``): Zhou00 §4.2.
* :func:`hyper_erlang`: Zhang01 §2.1, hyper-Erlang inter-arrival and service
  times per size class, with the Phi model of over-estimation for estimates.
* :func:`gangs`: Papazachos09 §2, bounded-normal or uniform gang sizes with
  exponential service and arrivals.
* :func:`min_nodes`: McCann94 §5 and Table 3, uniform minimum node requirements.

Common choices: times are in slices (the model's time unit); the same seed gives the same
workload, bit for bit (numpy's ``default_rng``); job ``i`` is named ``J<i + 1>``. For open
models the first job arrives at time 0 and later ones after exponential (or hyper-Erlang) gaps,
so ``n`` jobs span ``n - 1`` gaps and an SWF round trip keeps every arrival.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gangviz.core.jobs import JobSpec
from gangviz.core.limits import MAX_JOBS, MAX_PROCESSORS, MAX_SLICES, LimitError
from gangviz.workloads.dists import (
    HyperErlang,
    bounded_normal_pmf,
    phi_overestimation,
    pmf_moments,
    sample_uniform_log,
    uniform_log_pmf,
)
from gangviz.workloads.model import Workload

#: Upper limits of the whole-number parameters (sizes and run times allocate a pmf of that
#: length; see :mod:`gangviz.core.limits`).
_INT_LIMITS = {"procs": MAX_PROCESSORS, "nodes": MAX_PROCESSORS, "site_procs": MAX_PROCESSORS,
               "max_size": MAX_PROCESSORS, "max_work": MAX_PROCESSORS, "n_jobs": MAX_JOBS,
               "count": MAX_JOBS, "jobs": MAX_JOBS, "sites": 1 << 10}


def _positive_int(name: str, value: int, lo: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{name} must be a whole number >= {lo}, got {value!r}")
    limit = _INT_LIMITS.get(name)
    if limit is not None and value > limit:
        raise LimitError(f"{name} {int(value)} is over the limit of {limit:,}")
    return int(value)


def _positive(name: str, value: float) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _arrivals_from_gaps(gaps: np.ndarray) -> np.ndarray:
    """First job at 0, job i at the sum of the first i gaps."""
    out = np.zeros(len(gaps))
    if len(gaps) > 1:
        np.cumsum(gaps[:-1], out=out[1:])
    return out


def _make(arrival: np.ndarray, size: np.ndarray, work: np.ndarray, *,
          estimate: np.ndarray | None = None, min_nodes: np.ndarray | None = None,
          extras: list[dict[str, Any]] | None = None) -> list[JobSpec]:
    n = len(arrival)
    est = [None] * n if estimate is None else estimate.tolist()
    mins = [None] * n if min_nodes is None else min_nodes.tolist()
    ext = [{} for _ in range(n)] if extras is None else extras
    return [
        JobSpec(i, f"J{i + 1}", a, s, w, e, m, x)
        for i, (a, s, w, e, m, x) in enumerate(
            zip(arrival.tolist(), size.tolist(), work.tolist(), est, mins, ext))
    ]


def _describe(name: str, params: Mapping[str, object]) -> tuple[str, dict[str, str]]:
    text = ", ".join(f"{k}={v}" for k, v in params.items())
    header = {"Model": name, "ModelParameters": text}
    return f"{name}({text})", header


# ------------------------------------------------------------------------- 001: uniform-log


def uniform_log_means(procs: int, max_work: int) -> tuple[float, float]:
    """Return the exact (E[size], E[work]) of :func:`uniform_log`'s rounded distributions."""
    return pmf_moments(uniform_log_pmf(procs))[0], pmf_moments(uniform_log_pmf(max_work))[0]


def uniform_log(n_jobs: int, load: float, procs: int = 128, max_work: int = 120,
                seed: int = 0) -> Workload:
    """Return the workload model of Zhou00 §4.2 (after Downey, its ref. [1]).

    Sizes are uniform in log space on 1..``procs`` and run times uniform in log space on
    1..``max_work`` slices, both rounded to the nearest integer, independent of each other.
    Inter-arrival times are exponential with rate lambda = load * procs / (E[p] * E[t]),
    where E[p] and E[t] are the exact means of the *rounded* distributions
    (:func:`uniform_log_means`), so that the offered load rho = lambda E[p] E[t] / P of §4.3
    equals ``load``. The first job arrives at 0. Raises ``ValueError`` naming the allowed range
    of a bad parameter.
    """
    cols = uniform_log_columns(n_jobs, load, procs, max_work, seed)
    source, header = _describe("downey", dict(n_jobs=cols.n, load=cols.load, procs=cols.procs,
                                              max_work=cols.max_work, seed=seed))
    header["ArrivalRate"] = repr(cols.rate)
    return Workload(_make(cols.arrival, cols.size, cols.work.astype(np.float64)), cols.procs, source, header)


@dataclass(frozen=True)
class ModelColumns:
    """The jobs of :func:`uniform_log` as columns: job ``i`` (id ``i``) arrives at
    ``arrival[i]`` (non-decreasing), on ``size[i]`` processors, for ``work[i]`` slices
    (whole numbers, stored as int32 to halve the memory of long runs)."""

    n: int
    load: float
    procs: int
    max_work: int
    rate: float
    arrival: np.ndarray
    size: np.ndarray
    work: np.ndarray


#: Jobs drawn at once by :func:`uniform_log_columns`: numpy's draws come one after another, so
#: drawing a stream a block at a time gives the numbers one call for the whole stream gives.
DRAW_BLOCK = 1 << 20


def uniform_log_columns(n_jobs: int, load: float, procs: int = 128, max_work: int = 120,
                        seed: int = 0) -> ModelColumns:
    """Return the jobs of :func:`uniform_log` (the same draws, bit for bit) as
    :class:`ModelColumns`, drawn a block at a time so that no temporary array is longer than
    :data:`DRAW_BLOCK`. Raises ``ValueError`` as :func:`uniform_log` does."""
    n = _positive_int("n_jobs", n_jobs)
    procs = _positive_int("procs", procs)
    max_work = _positive_int("max_work", max_work)
    load = _positive("load", load)
    rng = np.random.default_rng(seed)
    ep, et = uniform_log_means(procs, max_work)
    lam = load * procs / (ep * et)
    if lam == 0 or (n - 1) / lam > 100 * MAX_SLICES:  # far past the limit: refuse before drawing
        _check_arrivals(n, load, ep * et / procs, math.inf)
    size = np.empty(n, np.int32)
    work = np.empty(n, np.int32)
    for out, hi in ((size, procs), (work, max_work)):
        for lo in range(0, n, DRAW_BLOCK):
            out[lo:lo + DRAW_BLOCK] = sample_uniform_log(rng, min(DRAW_BLOCK, n - lo), hi)
    # _arrivals_from_gaps block by block: each block's running sum starts from the last arrival
    arrival = np.zeros(n)
    last = 0.0
    for lo in range(0, n, DRAW_BLOCK):
        gaps = rng.exponential(1.0 / lam, size=min(DRAW_BLOCK, n - lo))
        if lo + len(gaps) == n:
            gaps = gaps[:-1]  # the last gap follows the last job
        sums = np.cumsum(np.concatenate(([last], gaps)))
        arrival[lo + 1:lo + 1 + len(gaps)] = sums[1:]
        last = float(sums[-1])
    _check_arrivals(n, load, ep * et / procs, last)
    return ModelColumns(n, load, procs, max_work, lam, arrival, size, work)


def _check_arrivals(n: int, load: float, gap: float, last: float) -> None:
    """Raise :class:`~gangviz.core.limits.LimitError` when the last of ``n`` arrivals drawn at
    ``load`` (``gap``: the mean gap between arrivals at load 1) lies past :data:`~gangviz.core.limits.MAX_SLICES`, naming
    the smallest load that keeps the arrivals within it (gaps scale as 1 / load, so every
    engine and policy gets the same refusal instead of a run that never ends or a makespan
    of hundreds of digits)."""
    if last <= MAX_SLICES:
        return
    # the draws scale exactly with 1 / load; past float's range, use the expected last arrival
    need = load * last / MAX_SLICES if math.isfinite(last) else (n - 1) * gap / MAX_SLICES
    need = float(f"{need * 1.01:.2g}") if math.isfinite(need) else float("inf")
    late = (n - 1) * gap / load
    when = (f"t={last:.3g} slices" if math.isfinite(last) else f"about t={late:.3g} slices"
            if math.isfinite(late) else "a time past any number")
    raise LimitError(f"load {load:g} is too small for {n:,} jobs: the last would arrive at "
                     f"{when}, over the limit of {MAX_SLICES:.4g} slices (2**40); "
                     f"the load must be at least {need:g} here (set by --load)")


# ------------------------------------------------------------------------- 003: hyper-Erlang

#: Illustrative moments (inter-arrival mean 100, CV 2; service mean 1000, CV 3), both with
#: m3 = 2 m2^2 / m1. The paper fits LLNL data but does not print the fitted values.
DEFAULT_INTERARRIVAL = (100.0, 5.0e4, 5.0e7)
DEFAULT_SERVICE = (1000.0, 1.0e7, 2.0e11)


@dataclass(frozen=True)
class JobClass:
    """One size class of :func:`hyper_erlang`: sizes ``lo..hi`` and its two distributions."""

    lo: int
    hi: int
    interarrival: HyperErlang
    service: HyperErlang


def power_of_two_classes(max_size: int) -> list[tuple[int, int]]:
    """Return the size bins of Zhang01 §2.1 step 1: upper boundaries powers of two, (1), (2), (3..4),
    (5..8), ..., the last one ending at ``max_size``."""
    bins, lo, hi = [], 1, 1
    while lo <= max_size:
        bins.append((lo, min(hi, max_size)))
        lo, hi = hi + 1, hi * 2
    return bins


def fit_classes(workload: Workload, *, min_jobs: int = 10) -> tuple[list[tuple[int, int, int]], list[JobClass]]:
    """Fit one :class:`JobClass` per power-of-two size bin of ``workload`` (Zhang01 §2.1 step 2).

    For each bin, the first three raw moments of the gaps between successive arrivals of that
    bin's jobs, and of their work, are matched by :meth:`HyperErlang.fit`. Bins with fewer than
    ``min_jobs`` jobs, or whose moments no hyper-Erlang can match (e.g. all gaps equal), are left
    out. Returns (the bins left out as (lo, hi, job count), the fitted classes). Raises
    ``ValueError`` when no bin can be fitted.
    """
    sizes, arrivals, works = workload.sizes(), workload.arrivals(), workload.works()
    left, classes = [], []
    for lo, hi in power_of_two_classes(int(sizes.max())):
        sel = (sizes >= lo) & (sizes <= hi)
        count = int(sel.sum())
        if count < max(min_jobs, 3):
            if count:
                left.append((lo, hi, count))
            continue
        gaps = np.diff(np.sort(arrivals[sel]))
        try:
            ia = HyperErlang.fit(*(float(np.mean(gaps**k)) for k in (1, 2, 3)))
            sv = HyperErlang.fit(*(float(np.mean(works[sel] ** k)) for k in (1, 2, 3)))
        except ValueError:
            left.append((lo, hi, count))
            continue
        classes.append(JobClass(lo, hi, ia, sv))
    if not classes:
        raise ValueError(f"no size class of {workload.source} has {min_jobs} or more jobs with "
                         "moments a hyper-Erlang can match")
    return left, classes


def hyper_erlang(
    n_jobs: int,
    *,
    procs: int = 320,
    interarrival: Sequence[float] = DEFAULT_INTERARRIVAL,
    service: Sequence[float] = DEFAULT_SERVICE,
    max_size: int = 256,
    classes: Sequence[JobClass] | None = None,
    arrival_factor: float = 1.0,
    service_factor: float = 1.0,
    phi: float | None = None,
    seed: int = 0,
) -> Workload:
    """Return a workload of the model of Zhang01 §2.1.

    Each size class has its own arrival stream with hyper-Erlang gaps and hyper-Erlang work,
    fitted to three moments (:meth:`HyperErlang.fit`). ``classes`` gives them explicitly
    (e.g. from :func:`fit_classes`); otherwise one class of sizes 1..``max_size`` uses the raw
    moments ``interarrival`` and ``service``. Within a class, sizes are uniform on lo..hi (the
    paper does not say; this is the plainest reading of a bin). The class streams are merged
    and the first ``n_jobs`` arrivals kept (ties: lower class first), then shifted so the first
    job arrives at 0. As in §2.1, ``arrival_factor`` multiplies the arrival rate (divides the
    gaps) and ``service_factor`` multiplies the service times. With ``phi`` set, each job's
    estimate is its work times a factor of the Phi model (:func:`phi_overestimation`);
    otherwise estimates are ``None``. Raises ``ValueError`` for a bad parameter or moments no
    hyper-Erlang can match.
    """
    n = _positive_int("n_jobs", n_jobs)
    procs = _positive_int("procs", procs)
    af = _positive("arrival_factor", arrival_factor)
    sf = _positive("service_factor", service_factor)
    if classes is None:
        max_size = _positive_int("max_size", max_size)
        if max_size > procs:
            raise ValueError(f"max_size must lie in 1..procs ({procs}), got {max_size}")
        classes = [JobClass(1, max_size, HyperErlang.fit(*interarrival), HyperErlang.fit(*service))]
    if not classes:
        raise ValueError("hyper_erlang needs at least one job class")
    rng = np.random.default_rng(seed)
    times, sizes, works = [], [], []
    for c in classes:
        if not 1 <= c.lo <= c.hi <= procs:
            raise ValueError(f"class sizes {c.lo}..{c.hi} must lie within 1..procs ({procs})")
        times.append(np.cumsum(c.interarrival.sample(rng, n)) / af)
        sizes.append(rng.integers(c.lo, c.hi + 1, size=n))
        works.append(c.service.sample(rng, n) * sf)
    t, s, w = np.concatenate(times), np.concatenate(sizes), np.concatenate(works)
    order = np.argsort(t, kind="stable")[:n]
    arrival = t[order] - t[order[0]]
    size, work = s[order], w[order]
    work = np.maximum(work, np.finfo(float).tiny)  # a gamma draw can underflow to 0
    estimate = None
    if phi is not None:
        estimate = work * phi_overestimation(rng, n, phi)
    params = dict(n_jobs=n, procs=procs, classes=len(classes), arrival_factor=af,
                  service_factor=sf, phi=phi, seed=seed)
    source, header = _describe("hyper-erlang", params)
    for i, c in enumerate(classes):
        header[f"Class{i + 1}"] = (f"sizes {c.lo}..{c.hi}; interarrival {c.interarrival}; "
                                   f"service {c.service}")
    return Workload(_make(arrival, size, work, estimate=estimate), procs, source, header)


# ------------------------------------------------------------------------- 002: gang sizes


def gangs(
    n_jobs: int,
    *,
    sizes: str = "normal",
    sigma: float = 3.0,
    lam: float = 2.4,
    mu: float = 1.0,
    site_procs: int = 16,
    sites: int = 2,
    bound: str = "resample",
    seed: int = 0,
) -> Workload:
    """Return a workload of Papazachos09 §2 and §4.2.

    Gang sizes are ``"normal"`` (bounded normal on 1..P with mean (1 + P) / 2 and standard
    deviation ``sigma``; see :func:`bounded_normal_pmf` for ``bound``) or ``"uniform"`` on
    1..P, with P = ``site_procs``. Service times are exponential with mean 1 / ``mu``;
    inter-arrival times exponential with mean 1 / ``lam``; the first gang arrives at 0. The
    machine has ``sites * site_procs`` processors (the paper: 2 sites of 16); the header's
    ``Sites`` and ``SiteProcs`` keep the split. Sizes are drawn exactly from the pmf (the same
    law as redrawing out-of-range normals). Raises ``ValueError`` for a bad parameter.
    """
    n = _positive_int("n_jobs", n_jobs)
    p = _positive_int("site_procs", site_procs)
    nsites = _positive_int("sites", sites)
    lam, mu = _positive("lam", lam), _positive("mu", mu)
    if sizes == "normal":
        pmf = bounded_normal_pmf(p, (1 + p) / 2, _positive("sigma", sigma), bound=bound)
    elif sizes == "uniform":
        pmf = np.full(p, 1.0 / p)
    else:
        raise ValueError(f"sizes must be 'normal' or 'uniform', got {sizes!r}")
    rng = np.random.default_rng(seed)
    size = rng.choice(np.arange(1, p + 1), size=n, p=pmf)
    work = rng.exponential(1.0 / mu, size=n)
    work = np.maximum(work, np.finfo(float).tiny)
    arrival = _arrivals_from_gaps(rng.exponential(1.0 / lam, size=n))
    params = dict(n_jobs=n, sizes=sizes, lam=lam, mu=mu, site_procs=p, sites=nsites, seed=seed)
    if sizes == "normal":
        params.update(sigma=sigma, bound=bound)
    source, header = _describe("gangs", params)
    header.update(Sites=str(nsites), SiteProcs=str(p))
    return Workload(_make(arrival, size, work), nsites * p, source, header)


# ------------------------------------------------------------------------- 004: minimum nodes


def min_nodes_upper(nodes: int, jobs: int, load: float) -> int:
    """Return the top of 004's uniform minimum node requirement, 2 L N / J - 1, within 1..N.

    Table 3 prints the range as "Uniform(1 ... 2^{L*N/J} - 1)", which for the defaults
    (N = 128, J = 8, L = 100%) would be 1..65535, far beyond the machine. The reading that
    makes the load factor L = J * E[M_j] / N (§5) hold is 1 .. 2 L N / J - 1, whose mean is
    L N / J. The bound is rounded to the nearest integer and clipped to 1..N (a requirement
    cannot exceed the machine; with clipping the mean falls below L N / J).
    """
    return int(min(nodes, max(1, round(2 * load * nodes / jobs) - 1)))


def min_nodes(
    jobs: int = 8,
    *,
    nodes: int = 128,
    load: float = 1.0,
    count: int | None = None,
    short_work: float = 400.0,
    long_work: float = 4000.0,
    p_long: float = 0.5,
    beta: tuple[float, float] = (30.0, 300.0),
    seed: int = 0,
) -> Workload:
    """Return jobs of McCann94 (Table 3 and §5.2).

    Minimum node requirements M_j are uniform on 1..:func:`min_nodes_upper` (each job's
    ``size`` and ``min_nodes`` are M_j). Work is the total CPU service: exponential with mean
    ``short_work`` or ``long_work`` (400 / 4000 units), each class with probability 1/2 by
    default. Each job carries its speedup parameter beta, uniform on ``beta`` (30..300), and
    its class in ``extra`` (``{"beta": ..., "class": "short" | "long"}``). The paper's
    experiments are closed: J jobs are present and each completion starts a new job. So all
    ``count`` jobs (default ``jobs``) arrive at 0, the first ``jobs`` form the initial
    population and later ones are the replacements in order; the header's ``Population`` says
    J. Raises ``ValueError`` for a bad parameter.
    """
    j = _positive_int("jobs", jobs)
    n_nodes = _positive_int("nodes", nodes)
    total = j if count is None else _positive_int("count", count)
    load = _positive("load", load)
    sw, lw = _positive("short_work", short_work), _positive("long_work", long_work)
    if not 0 <= p_long <= 1:
        raise ValueError(f"p_long must lie in [0, 1], got {p_long}")
    b_lo, b_hi = beta
    if not (0 < b_lo <= b_hi and math.isfinite(b_hi)):
        raise ValueError(f"beta range must satisfy 0 < lo <= hi, got {beta}")
    upper = min_nodes_upper(n_nodes, j, load)
    rng = np.random.default_rng(seed)
    m = rng.integers(1, upper + 1, size=total)
    is_long = rng.random(total) < p_long
    work = rng.exponential(np.where(is_long, lw, sw))
    work = np.maximum(work, np.finfo(float).tiny)
    betas = rng.uniform(b_lo, b_hi, size=total)
    extras = [{"beta": b, "class": "long" if lg else "short"}
              for b, lg in zip(betas.tolist(), is_long.tolist())]
    params = dict(jobs=j, nodes=n_nodes, load=load, count=total, seed=seed)
    source, header = _describe("min-nodes", params)
    header.update(Population=str(j), MinNodesRange=f"1..{upper}")
    return Workload(_make(np.zeros(total), m, work, min_nodes=m, extras=extras), n_nodes,
                    source, header)
