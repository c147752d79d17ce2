"""Long gang-scheduling runs on the compiled loop, a stretch of the workload at a time.

Zhang01 §2-§4 (GS, BGS, MGS, MBGS) as :func:`gangviz.fast.gang.run_gang` runs them, for
workloads too long to hold the loop's per-job arrays all at once. A stretch runs until the
machine is empty at a decision and the next job arrives later (no row, no job waiting, nothing
booked): what follows depends on nothing before but the clock and the running totals, which the
next stretch takes over (``simulate_gang``'s ``init``, the :class:`~gangviz.fast.gang_kernel.Totals`). So every job gets the finish time the
whole run gives it, bit for bit, and the totals are added in the same order (a property test
compares the two). Memory is that of the columns given plus the loop's arrays for one stretch.

:func:`zhou_metrics_of_columns` turns the finish times into the Zhou00 §4.3 figures of
:func:`gangviz.metrics.zhou.zhou_metrics_of`, summing in its order, also a block at a time.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from gangviz.fast.gang import JobArrays, _check, loop_config
from gangviz.fast.jobchecks import check_job_arrays

if TYPE_CHECKING:
    from gangviz.metrics.ibm import CapacityLog

__all__ = ["ChunkedRun", "run_gang_chunks", "zhou_metrics_of_columns"]

#: Jobs handed to the loop at once before it looks for an empty machine to stop at.
STRETCH = 1 << 16


@dataclass(frozen=True)
class ChunkedRun:
    """The finish time of every job (in the order given), the end time, the most rows at once
    and rows x time (``Simulation.slot_time``); ``stretches`` is how many runs of the loop it took.
    The rest are :class:`gangviz.fast.gang.GangRun`'s: each job's ``start`` (an empty array
    when not asked for), the policy's ``migrated_tasks`` and ``migration_overhead``, and the
    node-time lost while jobs waited (eq. 3 with delta: all, small, large)."""

    finish: np.ndarray
    time: float
    max_rows: int
    slot_time: float
    stretches: int
    start: np.ndarray = field(default_factory=lambda: np.empty(0))
    migrated_tasks: int = 0
    migration_overhead: float = 0.0
    lost: float = 0.0
    lost_small: float = 0.0
    lost_large: float = 0.0

    def capacity(self) -> CapacityLog:
        """Return the lost capacity as a :class:`gangviz.metrics.ibm.CapacityLog`."""
        from gangviz.metrics.ibm import CapacityLog

        return CapacityLog(self.lost, self.lost_small, self.lost_large)


def run_gang_chunks(arrival: np.ndarray, size: np.ndarray, work: np.ndarray, policy: str,
                    params: dict[str, Any] | None, processors: int, *,
                    stretch: int | None = None, starts: bool = False,
                    estimate: np.ndarray | None = None) -> ChunkedRun:
    """Simulate jobs ``0 .. n-1`` (job ``i`` arrives at ``arrival[i]``, non-decreasing) under
    GS, BGS, MGS or MBGS on the compiled loop, ``stretch`` jobs (default :data:`STRETCH`) or a
    little more at a time; return a :class:`ChunkedRun` equal to
    :func:`gangviz.fast.gang.run_gang`'s. With ``starts`` every job's start is kept too (one
    more float per job). ``estimate`` are the users' estimates (``nan`` or <= 0: none, the
    work is used, as :class:`~gangviz.fast.gang.JobArrays` says; default: none at all).

    Raises ``ValueError`` as :func:`~gangviz.fast.gang.run_gang` does, and for arrivals out of
    order or a ``stretch`` below 1.
    """
    from gangviz.fast.gang_kernel import NO_TOTALS, Jobs, simulate_gang

    n = len(arrival)
    stretch = STRETCH if stretch is None else stretch
    if stretch < 1:
        raise ValueError(f"stretch must be a whole number >= 1, got {stretch}")
    if n and np.any(arrival[1:] < arrival[:-1]):
        raise ValueError("job arrivals must be in order (job i arrives no later than job i + 1)")
    params = dict(params or {})
    gang = _check(_arrays(arrival[:1], size[:1], work[:1]), policy, params, processors, 0.0)
    finish = np.empty(n)
    start = np.empty(n if starts else 0)
    totals = NO_TOTALS
    a, extra, stretches = 0, stretch, 0
    while a < n:
        b = min(n, a + stretch + extra)
        jobs = _arrays(arrival[a:b], size[a:b], work[a:b], None if estimate is None else estimate[a:b])
        check_job_arrays(jobs.ids + a, jobs.arrival, jobs.size, jobs.work, processors, arrival_from_zero=True,
                         ids_unique=True)
        stop_at = stretch if b < n else b - a
        result = simulate_gang(Jobs(jobs.arrival, jobs.size, jobs.work, jobs.estimate, jobs.ids),  # ids: arrival order
                               loop_config(gang, processors, stop_at=stop_at), totals, np.zeros(1))
        took = int(result.jobs_taken)
        stretches += 1
        if b < n and took >= b - a:  # no empty machine before the jobs given ran out: give more
            extra *= 2
            continue
        finish[a:a + took] = result.finish[:took]
        if starts:
            start[a:a + took] = result.start[:took]
        totals = result.totals
        a += took
        extra = stretch
    return ChunkedRun(finish, float(totals.time), int(totals.max_rows), float(totals.slot_time), stretches, start,
                      int(totals.migrated_tasks), float(totals.migration_overhead), float(totals.lost),
                      float(totals.lost_small), float(totals.lost_large))


def _arrays(arrival: np.ndarray, size: np.ndarray, work: np.ndarray,
            estimate: np.ndarray | None = None) -> JobArrays:
    """The loop's inputs of a stretch: ids 0.. (the stretch's own, in arrival order), int64
    sizes, float64 work, and the estimates the loop uses (the work where there is none, as
    :func:`~gangviz.fast.gang.run_gang` does)."""
    work = np.asarray(work, dtype=np.float64)
    est = work
    if estimate is not None:
        with np.errstate(invalid="ignore"):
            est = np.where(np.asarray(estimate, dtype=np.float64) > 0, estimate, work)
    return JobArrays(np.arange(len(arrival), dtype=np.int64), np.asarray(arrival, dtype=np.float64),
                     np.asarray(size, dtype=np.int64), work, est)


def _blocks(n: int, block: int) -> Iterator[slice]:
    for lo in range(0, n, block):
        yield slice(lo, lo + block)


def zhou_metrics_of_columns(arrival: np.ndarray, size: np.ndarray, work: np.ndarray,
                            finish: np.ndarray, processors: int, elapsed: float, max_slots: int,
                            slot_time: float, *, block: int = 1 << 16) -> dict[str, float]:
    """Return :func:`gangviz.metrics.zhou.zhou_metrics_of` of the jobs given as columns in
    order of arrival, then id; the same sums in the same order (one ``sum`` each, fed a block at
    a time), so the same figures to the bit."""
    from gangviz.metrics.zhou import MEDIUM_WORK_MAX, SMALL_WORK_MAX

    n = len(arrival)
    total_work = sum(chain.from_iterable(
        (size[s].astype(np.float64) * work[s]).tolist() for s in _blocks(n, block)))

    def turnarounds(lo: float, hi: float) -> Iterator[float]:
        for s in _blocks(n, block):
            w = work[s]
            keep = (w > lo) & (w <= hi)
            yield from (finish[s][keep] - arrival[s][keep]).tolist()

    classes = ((-math.inf, SMALL_WORK_MAX), (SMALL_WORK_MAX, MEDIUM_WORK_MAX), (MEDIUM_WORK_MAX, math.inf))
    counts = [int(np.count_nonzero((work > lo) & (work <= hi))) for lo, hi in classes]
    means = [sum(turnarounds(lo, hi)) / c if c else math.nan for (lo, hi), c in zip(classes, counts)]
    everyone = sum(chain.from_iterable(turnarounds(lo, hi) for lo, hi in classes)) / n if n else math.nan
    return {
        "r_a": total_work / (processors * elapsed) if elapsed > 0 else 0.0,
        "n_l": max_slots,
        "n_a": slot_time / elapsed if elapsed > 0 else 0.0,
        "t_ta": everyone,
        "t_sa": means[0],
        "t_ma": means[1],
        "t_la": means[2],
    }
