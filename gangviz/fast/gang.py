"""GS, BGS, MGS and MBGS and the event-driven engine as one compiled loop, for headless runs.

Zhang01 §4.2, §5.1-§5.5 on the time model of :mod:`gangviz.sim.engine` with decisions at every
arrival and departure (``decides_at == "event"``, the policies' default). This is the reference
(:class:`gangviz.sim.engine.Simulation` with :class:`gangviz.policies.ibm.gs.IBMGang`) written
again without change records, history or narration: every phase, order and tie-break is the
reference's and the floating-point operations are the same, so both give the same start, first
slice and finish for every job, the same migration counts and the same lost capacity (eq. 3),
hence the same metrics of :mod:`gangviz.metrics.ibm` (a property test compares them on random
workloads for all four policies). Its use is the long runs: Table 1 of Zhang01 is 36 runs of
10,000 jobs per replication.

Limits (:func:`covers` says whether a run is within them): decisions at events, not at slice
boundaries; no scripted events, no starting matrix, a linear array; finite work. Any number of
processors, any MPL, Q, migration cost and context-switch overhead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gangviz.fast.jobchecks import check_job_arrays
from gangviz.fast.placed_run import PlacedRun

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.core.jobs import JobSpec
    from gangviz.fast.gang_kernel import Config
    from gangviz.metrics.ibm import CapacityLog
    from gangviz.policies.ibm.gs import IBMGang

__all__ = ["gang_policy", "GangRun", "JobArrays", "job_arrays", "covers", "run_gang", "ibm_metrics_compiled",
           "zhou_metrics_compiled", "warm_up"]

def gang_policy(policy: str) -> tuple[bool, bool, frozenset[str]] | None:
    """Return (backfill, migrate, parameters) of an IBM gang policy of the registry
    (:mod:`gangviz.core.registry`, group ``ibm``), or ``None`` for any other name."""
    from gangviz.core.registry import REGISTRY

    entry = REGISTRY.get(str(policy).lower())
    if entry is None or entry.group != "ibm":
        return None
    return "backfill" in entry.traits, "migrate" in entry.traits, frozenset(entry.declared)


@dataclass(frozen=True)
class JobArrays:
    """A workload as arrays (any order; ids unique): id, arrival, size, work and the user's
    estimate (``nan`` or <= 0 where there is none: the work is used, as
    :func:`gangviz.policies.ibm.bgs.job_estimate` does). Times in slices."""

    ids: np.ndarray
    arrival: np.ndarray
    size: np.ndarray
    work: np.ndarray
    estimate: np.ndarray


def job_arrays(jobs: Iterable[JobSpec]) -> JobArrays:
    """Return the :class:`JobArrays` of :class:`~gangviz.core.jobs.JobSpec` objects."""
    jobs = list(jobs)
    return JobArrays(np.array([j.id for j in jobs], dtype=np.int64),
                     np.array([j.arrival for j in jobs], dtype=np.float64),
                     np.array([j.size for j in jobs], dtype=np.int64),
                     np.array([j.work for j in jobs], dtype=np.float64),
                     np.array([math.nan if j.estimate is None else j.estimate for j in jobs], dtype=np.float64))


@dataclass(frozen=True)
class GangRun(PlacedRun):
    """What a headless run returns, per job in the order given: ``start`` (the decision that
    placed it, the engine's ``JobRecord.start``), ``first_run`` (its first slice, as
    ``Simulation.run_stats``) and ``finish``; then the end time, the most rows at once, the
    policy's ``migrated_tasks`` and ``migration_overhead`` (processor-slices), the node-time
    lost while jobs waited (eq. 3 with delta, node-slices: all, small jobs waiting, large jobs
    waiting; :class:`gangviz.metrics.ibm.CapacityLog`) and rows x time (``slot_time``, as
    ``Simulation.slot_time``); with :func:`run_gang`'s ``placement``, the fields of
    :class:`~gangviz.fast.placed_run.PlacedRun`."""

    start: np.ndarray
    first_run: np.ndarray
    finish: np.ndarray
    time: float
    max_rows: int
    migrated_tasks: int
    migration_overhead: float
    lost: float
    lost_small: float
    lost_large: float
    slot_time: float

    def capacity(self) -> CapacityLog:
        """Return the lost capacity as a :class:`gangviz.metrics.ibm.CapacityLog`."""
        from gangviz.metrics.ibm import CapacityLog

        return CapacityLog(self.lost, self.lost_small, self.lost_large)


def covers(policy: str, params: dict[str, Any] | None = None, decides_at: str | None = None, *,
           ring: bool = False, initial: object = None, script: Sequence[object] = (),
           record: bool = False, jobs: Iterable[JobSpec] | None = None) -> bool:
    """Return whether :func:`run_gang` runs ``policy`` with ``params`` exactly as the reference
    engine would: one of GS, BGS, MGS, MBGS; parameters among their own; decisions at events
    (``decides_at``, else ``params["decide"]``, default ``"event"``); nothing recorded; no
    starting matrix, no script, a linear array; and, when ``jobs`` (JobSpecs) are given, finite
    work for every job. Never raises."""
    name = str(policy).lower()
    params = dict(params or {})
    known = gang_policy(name)
    if known is None or not set(params) <= known[2]:
        return False
    decide = decides_at if decides_at is not None else params.get("decide", "event")
    if decide != "event" or params.get("decide", "event") != "event":
        return False
    if record or ring or initial is not None or script:
        return False
    if jobs is not None and not all(math.isfinite(j.work) for j in jobs):
        return False
    return True


def _check(jobs: JobArrays, policy: str, params: dict[str, Any], processors: int,
           overhead: float) -> IBMGang:
    """Validate the inputs as the reference would; return the policy's settings."""
    from gangviz.core.registry import REGISTRY, names
    from gangviz.policies.ibm.gs import IBMGang

    name = str(policy).lower()
    known = gang_policy(name)
    if known is None:
        raise ValueError(f"policy must be one of {', '.join(names(group='ibm'))}, got {policy!r}")
    params = REGISTRY[name].coerce(params)  # the reference's types and ranges
    backfill, migrate, _ = known
    gang = IBMGang(**{"mpl": 5, **params}, backfill=backfill, migrate=migrate)
    if gang.decides_at != "event":
        raise ValueError("the compiled loop runs decisions at events only (decide=event)")
    if isinstance(processors, bool) or not isinstance(processors, (int, np.integer)) or processors < 1:
        raise ValueError(f"processors must be a whole number >= 1, got {processors!r}")
    if not 0.0 <= overhead < 1.0:
        raise ValueError(f"overhead must be in [0, 1) of a slice, got {overhead}")
    check_job_arrays(jobs.ids, jobs.arrival, jobs.size, jobs.work, processors, arrival_from_zero=True)
    return gang


def run_gang(jobs: JobArrays, policy: str, params: dict[str, Any] | None, processors: int, *,
             overhead: float = 0.0, small_max: int | None = None, placement: bool = False,
             progress: np.ndarray | None = None) -> GangRun:
    """Simulate ``jobs`` under GS, BGS, MGS or MBGS (``policy``, any case) with the compiled
    loop; return a :class:`GangRun` equal to the reference engine's run.

    ``params`` are the policy's own (``mpl``, and for MGS/MBGS ``q``, ``migration_cost``,
    ``charge_migration``; ``decide`` must be ``"event"``); ``overhead`` is the engine's
    context-switch cost; ``small_max`` the largest small job of the lost-capacity split
    (default :data:`gangviz.metrics.ibm.SMALL_NODES_MAX`); ``placement`` also keeps where every
    job ran (the run's figures are the same either way); ``progress``, a one-element float64
    array, gets the simulated time after every decision, for another thread to read while the
    loop runs (it holds no GIL). Raises ``ValueError`` for an unknown policy
    or parameter, a value out of range, repeated ids, a job size outside ``1..processors``,
    work that is not finite and positive, or an arrival that is not a finite time >= 0.
    """
    from gangviz.fast.gang_kernel import NO_TOTALS, Jobs, simulate_gang, simulate_gang_placed

    params = dict(params or {})
    gang = _check(jobs, policy, params, processors, overhead)
    ids = np.asarray(jobs.ids, dtype=np.int64)
    by_id = np.argsort(ids, kind="stable")
    arrival = np.asarray(jobs.arrival, dtype=np.float64)[by_id]
    work = np.asarray(jobs.work, dtype=np.float64)[by_id]
    size = np.asarray(jobs.size, dtype=np.int64)[by_id]
    est = np.asarray(jobs.estimate, dtype=np.float64)[by_id]
    with np.errstate(invalid="ignore"):
        est = np.where(est > 0, est, work)  # job_estimate: the work when there is no estimate
    aorder = np.lexsort((ids[by_id], arrival)).astype(np.int64)
    loop = simulate_gang_placed if placement else simulate_gang
    result = loop(Jobs(arrival, size, work, est, aorder),
                  loop_config(gang, processors, overhead=overhead, small_max=small_max, stop_at=len(by_id)),
                  NO_TOTALS, np.zeros(1) if progress is None else progress)
    back = np.empty_like(by_id)
    back[by_id] = np.arange(len(by_id))
    placed = rows_held = extra = None
    if placement:
        from gangviz.fast.placement import PlacementLog

        placed = PlacementLog.of_loop(result.log_t, result.log_e, gang.mpl, int(processors), jobs=by_id)
        rows_held, extra = result.rows_held[back], result.extra_slices[back]
    totals = result.totals
    return GangRun(result.start[back], result.first_run[back], result.finish[back], float(totals.time),
                   int(totals.max_rows), int(totals.migrated_tasks), float(totals.migration_overhead),
                   float(totals.lost), float(totals.lost_small), float(totals.lost_large), float(totals.slot_time),
                   placement=placed, rows_held=rows_held, extra_slices=extra)


def loop_config(gang: IBMGang, processors: int, *, overhead: float = 0.0, small_max: int | None = None,
                stop_at: int) -> Config:
    """Return the compiled loop's :class:`~gangviz.fast.gang_kernel.Config` of a checked
    policy (:func:`_check`): ``small_max`` default :data:`gangviz.metrics.ibm.SMALL_NODES_MAX`,
    ``stop_at`` the arrivals after which the run may stop at an empty machine."""
    from gangviz.fast.gang_kernel import Config
    from gangviz.metrics.ibm import SMALL_NODES_MAX

    return Config(int(processors), gang.mpl, gang.backfill, gang.migrate, -1 if gang.q is None else gang.q,
                  gang.migration_cost, gang.charge_migration, float(overhead),
                  SMALL_NODES_MAX if small_max is None else int(small_max), stop_at, gang.cut_at_departure,
                  gang.after_cut == "same")


@dataclass(frozen=True, slots=True)
class _Done:
    """A finished job as :func:`gangviz.metrics.ibm.ibm_metrics` reads it."""

    spec: Any
    start: float
    finish: float


def ibm_metrics_compiled(jobs: Iterable[JobSpec], policy: str, params: dict[str, Any] | None,
                         processors: int, *, time_unit: float = 1.0,
                         overhead: float = 0.0) -> tuple[dict[str, Any], GangRun]:
    """Run ``jobs`` (:class:`~gangviz.core.jobs.JobSpec`) with :func:`run_gang`; return
    ``(ibm_metrics of the run with its lost capacity, the run)``, the same figures as
    :func:`gangviz.metrics.ibm.ibm_metrics` of the reference engine's records with
    :func:`~gangviz.metrics.ibm.run_with_capacity`. Raises ``ValueError`` as :func:`run_gang`."""
    from gangviz.metrics.ibm import ibm_metrics

    specs = sorted(jobs, key=lambda j: j.id)  # Simulation.records(): by job id
    run = run_gang(job_arrays(specs), policy, params, processors, overhead=overhead)
    records = [_Done(s, a, f) for s, a, f in zip(specs, run.start.tolist(), run.finish.tolist())]
    return ibm_metrics(records, processors, time_unit=time_unit, capacity=run.capacity()), run


def zhou_metrics_compiled(jobs: Iterable[JobSpec], policy: str, params: dict[str, Any] | None,
                          processors: int, *,
                          overhead: float = 0.0) -> dict[str, float]:
    """Run ``jobs`` (:class:`~gangviz.core.jobs.JobSpec`) with :func:`run_gang`; return
    :func:`gangviz.metrics.zhou_metrics` of the run (Zhou00 §4.3, the sweeps' columns), equal to
    the reference engine's. Raises ``ValueError`` as :func:`run_gang`."""
    from gangviz.metrics.zhou import zhou_metrics_of

    specs = sorted(jobs, key=lambda j: (j.arrival, j.id))  # the reference engine's job order
    run = run_gang(job_arrays(specs), policy, params, processors, overhead=overhead)
    done = [(j.arrival, j.size, j.work, f) for j, f in zip(specs, run.finish.tolist())]
    return zhou_metrics_of(done, processors, run.time, run.max_rows, run.slot_time)


def warm_up() -> None:
    """Compile (or load from numba's cache) the loop of every policy in this process, so that
    worker processes started afterwards only load it."""
    from gangviz.core.jobs import JobSpec

    jobs = [JobSpec(i, f"J{i}", 0.5 * i, 1 + i % 3, 1.5) for i in range(6)]
    from gangviz.core.registry import entries

    for name in (e.name for e in entries(group="ibm")):
        run_gang(job_arrays(jobs), name, {"mpl": 2}, 4)
