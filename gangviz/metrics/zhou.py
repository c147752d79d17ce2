"""The figures of the matrix family, Zhou00 §4.3, from a finished (or paused) simulation.

* ``r_a`` average processor active ratio: processor-slices spent computing divided by N times the
  elapsed time. A job of size p and work w computes for exactly p * w processor-slices (buddy
  internal fragmentation and idle replicas do not count), so r_a = sum(p * w) / (N * T).
* ``n_l`` the largest number of slots seen; ``n_a`` the time average of the number of slots,
  sum(i * t_i) / sum(t_i), where an empty machine counts as zero slots.
* ``t_ta`` mean turnaround (completion - arrival) of all jobs; ``t_sa``, ``t_ma``, ``t_la`` the
  same for small (1-12 time slots of work), medium (13-60) and large (> 60) jobs: Zhou00 §4.3
  classes jobs by their *work* in slots (:data:`SMALL_WORK_MAX`, :data:`MEDIUM_WORK_MAX`), where
  the IBM study classes them by their *size* in nodes (:data:`gangviz.metrics.ibm.SMALL_NODES_MAX`).

T is the time of the last decision point (the boundary at or just after the last completion).
Only jobs that completed count; terminated jobs and endless scenario jobs are left out.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence

    from gangviz.metrics.ibm import FinishedJob
    from gangviz.sim.engine import Simulation

#: Zhou00 §4.3: a small job has 1-12 time slots of work, a medium one 13-60, a large one more.
SMALL_WORK_MAX = 12
MEDIUM_WORK_MAX = 60


class BackfillRun(Protocol):
    """What the figures read of a backfilling run (the backfill simulator's ``BackfillResult``):
    its records by job id and its end time."""

    @property
    def records(self) -> Sequence[FinishedJob]: ...
    @property
    def end(self) -> float: ...


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def zhou_metrics(sim: Simulation) -> dict[str, float]:
    """Return ``{"r_a", "n_l", "n_a", "t_ta", "t_sa", "t_ma", "t_la"}`` for ``sim`` at its
    current step (the figures ``gangviz run --json`` prints and the window's panels show).

    Means over an empty class are ``nan``.
    """
    jobs = sim.jobs
    spec, finish = jobs.spec, jobs.finish.tolist()
    done = [(s.arrival, s.size, s.work, finish[j]) for j, s in ((j, spec(j)) for j in jobs.completed())]
    return zhou_metrics_of(
        done,
        getattr(sim, "real_processors", sim.processors), sim.time, sim.max_slots, sim.slot_time,
    )


def zhou_metrics_of(done: Sequence[tuple[float, int, float, float]], processors: int,
                    elapsed: float, max_slots: int, slot_time: float) -> dict[str, float]:
    """The metrics of :func:`zhou_metrics` from ``(arrival, size, work, finish)`` of every
    completed job and the run's end time, largest slot count and slots x time. Give the jobs
    in order of arrival, then id (the simulation's order), for sums equal to the bit."""
    work = sum(size * w for _, size, w, _ in done)
    small: list[float] = []
    medium: list[float] = []
    large: list[float] = []
    for arrival, _, w, finish in done:
        ta = finish - arrival
        (small if w <= SMALL_WORK_MAX else medium if w <= MEDIUM_WORK_MAX else large).append(ta)
    return {
        "r_a": work / (processors * elapsed) if elapsed > 0 else 0.0,
        "n_l": max_slots,
        "n_a": slot_time / elapsed if elapsed > 0 else 0.0,
        "t_ta": _mean(small + medium + large),
        "t_sa": _mean(small),
        "t_ma": _mean(medium),
        "t_la": _mean(large),
    }


def zhou_metrics_of_result(res: BackfillRun, processors: int) -> dict[str, float]:
    """Return the §4.3 metrics of Zhou00 for a backfilling run ``res`` (a
    :class:`~gangviz.spacesharing.backfill.BackfillResult`: its records and end time).

    The machine is one row: ``n_l`` is 1 when any job ran, ``n_a`` the share of time some job
    runs; the run ends at the last completion.
    """
    recs = sorted(res.records, key=lambda r: (r.spec.arrival, r.spec.id))
    done = [(r.spec.arrival, r.spec.size, r.spec.work, r.finish) for r in recs if r.finish is not None]
    spans = sorted((r.start, r.finish) for r in recs if r.start is not None and r.finish is not None)
    busy, cur_a = 0.0, 0.0
    cur_b: float | None = None  # the busy span being merged: [cur_a, cur_b]

    for a, b in spans:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                busy += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        busy += cur_b - cur_a
    end = res.end
    return zhou_metrics_of(done, processors, end, 1 if spans else 0, busy)
