"""The figures of the epoch model (McCann94) from a finished (or paused) closed-system run.

* the core figures of the table of figures an epoch job has (:mod:`gangviz.metrics.table`):
  ``response``, the mean response time (departure - arrival) of the departed jobs (§5.2, the
  measure of Fig. 12-14), the makespan, the throughput and ``jobs``, the departed jobs, also
  under the paper's name ``departed``; summed in departure order
  (:mod:`gangviz.metrics.completions`).
* ``reallocations``: node reallocations over the run. A schedule of one quantum costs
  sum_j A_j reallocations (its overhead, §2.3); a schedule in force for time d lasts d / T
  quanta, so the run costs the sum of overhead x d / T over its schedules.
* ``overhead``: the normalised overhead of the run, reallocations per node per quantum (§5.1):
  ``reallocations / (N x elapsed / T)``, the time-weighted mean of the schedules' normalised
  overheads.

A schedule applies from the step that built it to the next rebuild (or the current time).
Before any time has passed the overhead is ``nan``; so is the mean response before the first
departure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from gangviz.metrics.completions import Completion, applied_changes, finals, running
from gangviz.metrics.table import EPOCH

#: the ``kind`` of the change record of a rebuilt schedule (gangviz.epoch.records.ScheduleRebuilt)
REBUILT_KIND = "schedule_rebuilt"

if TYPE_CHECKING:  # pragma: no cover  (a shape for annotations, as Completed is)
    from gangviz.metrics.completions import Completed

    class EpochRun(Completed, Protocol):
        """What the figures read of an epoch simulation (gangviz.epoch.sim.EpochSimulation)
        besides its departed jobs, time, steps and N: the quantum T."""

        @property
        def quantum(self) -> float: ...


def epoch_figures(departed: Iterable[Completion], schedules: Iterable[tuple[float, float, int]],
                  nodes: int, quantum: float, elapsed: float) -> dict[str, float]:
    """Return the epoch family's figures of a run: the core's (``response``, ``makespan``,
    ``throughput``, ``jobs``), ``departed``, ``reallocations`` and ``overhead``.

    ``departed`` are the departed jobs in departure order; ``schedules`` are
    ``(start, end, overhead)`` of every schedule that was in force (overhead = sum_j A_j, the
    reallocations of one quantum); ``elapsed`` is the run's length. The figures of the jobs
    are the table of figures' reductions (:func:`gangviz.metrics.completions.finals`), the
    reallocations and the overhead the family's own.
    """
    realloc = sum(cost * (end - start) / quantum for start, end, cost in schedules)
    quanta = elapsed / quantum
    return {
        **finals(EPOCH, departed, nodes),
        "reallocations": realloc,
        "overhead": realloc / (nodes * quanta) if quanta > 0 else math.nan,
    }


def _schedules(sim: EpochRun) -> list[tuple[float, float, int]]:
    """``(start, end, overhead)`` of every schedule of ``sim`` up to its current time."""
    spans: list[tuple[float, float, int]] = []
    since, cost = 0.0, 0
    for _, time, change in applied_changes(sim, REBUILT_KIND):
        spans.append((since, time, cost))
        since = time  # the schedule put in force, None when it was cleared
        cost = 0 if change.after is None else change.after.overhead
    spans.append((since, sim.time, cost))
    return [s for s in spans if s[1] > s[0]]


def simulation_figures(sim: EpochRun) -> dict[str, float]:
    """Return :func:`epoch_figures` of an :class:`~gangviz.epoch.sim.EpochSimulation` at its
    current step."""
    return epoch_figures(sim.completions(), _schedules(sim), sim.real_processors, sim.quantum, sim.time)


def simulation_series(sim: EpochRun) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Return the running figures of ``sim`` up to its current step as ``key -> (times, values)``:
    the figures of the departed jobs after each departure, and the reallocations and overhead so
    far at each step (at time 0 the overhead is the first schedule's). The last value of each
    equals :func:`simulation_figures`."""
    done = sim.completions()
    dep_t = np.array([c[1] for c in done], dtype=float)
    curves = {k: (dep_t, v.astype(float)) for k, v in running(EPOCH, done, sim.real_processors).items()}
    nodes = sim.real_processors
    spans = _schedules(sim)
    t = [0.0]
    realloc = [0.0]
    for start, end, cost in spans:
        t.append(end)
        realloc.append(realloc[-1] + cost * (end - start) / sim.quantum)
    if spans:
        realloc[-1] = epoch_figures((), spans, nodes, sim.quantum, sim.time)["reallocations"]
    times = np.array(t)
    reallocs = np.array(realloc)
    with np.errstate(divide="ignore", invalid="ignore"):
        overhead = reallocs / (nodes * times / sim.quantum)
    # at time 0 the mean is the first schedule's own normalised overhead (its limit)
    overhead[0] = spans[0][2] / nodes if spans else math.nan
    if spans:
        overhead[-1] = simulation_figures(sim)["overhead"]
    return {**curves, "reallocations": (times, reallocs), "overhead": (times, overhead)}
