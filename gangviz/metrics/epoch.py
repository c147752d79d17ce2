"""The figures of the epoch model (McCann94) from a finished (or paused) closed-system run.

* ``response``: mean response time (departure - arrival) of the departed jobs (§5.2, the
  measure of Fig. 12-14); ``departed`` counts them.
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
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np
import numpy.typing as npt

from gangviz.metrics.reduce import last, ordered_figures
from gangviz.metrics.table import EPOCH

if TYPE_CHECKING:  # pragma: no cover  (annotations only: the figures read records, not models)
    from gangviz.core.record import Step

#: the ``kind`` of the change record of a rebuilt schedule (gangviz.epoch.records.ScheduleRebuilt)
REBUILT_KIND = "schedule_rebuilt"


class Departed(Protocol):
    """What the figures read of a departed job (gangviz.epoch.records.FinishedJob)."""

    @property
    def departure(self) -> float: ...
    @property
    def response(self) -> float: ...


class Departures(Protocol):
    """What the figures read of the model's state: the departed jobs, in departure order."""

    @property
    def finished(self) -> Sequence[Departed]: ...


class Costed(Protocol):
    """What the figures read of a schedule: its overhead, reallocations per quantum."""

    @property
    def overhead(self) -> int: ...


class Rebuilt(Protocol):
    """What the figures read of a rebuilt schedule's record (gangviz.epoch.records.ScheduleRebuilt):
    the schedule put in force, ``None`` when it was cleared."""

    @property
    def after(self) -> Costed | None: ...


class EpochRun(Protocol):
    """What the figures read of an epoch simulation (gangviz.epoch.sim.EpochSimulation): its
    steps, departed jobs, N, T and current time."""

    @property
    def steps(self) -> Sequence[Step]: ...
    @property
    def state(self) -> Departures: ...
    @property
    def nodes(self) -> int: ...
    @property
    def quantum(self) -> float: ...
    @property
    def time(self) -> float: ...


def epoch_figures(responses: Iterable[float], schedules: Iterable[tuple[float, float, int]],
                  nodes: int, quantum: float, elapsed: float) -> dict[str, float]:
    """Return ``{"response", "departed", "reallocations", "overhead"}`` of a run.

    ``responses`` are the departed jobs' response times in departure order; ``schedules`` are
    ``(start, end, overhead)`` of every schedule that was in force (overhead = sum_j A_j, the
    reallocations of one quantum); ``elapsed`` is the run's length. The mean response and the
    departures are the table of figures' reductions (:func:`gangviz.metrics.reduce.ordered_figures`),
    the reallocations and the overhead the family's own.
    """
    reduced = last(ordered_figures(EPOCH, {"response": np.array(list(responses), dtype=np.float64)}))
    realloc = sum(cost * (end - start) / quantum for start, end, cost in schedules)
    quanta = elapsed / quantum
    return {
        **reduced,
        "reallocations": realloc,
        "overhead": realloc / (nodes * quanta) if quanta > 0 else math.nan,
    }


def _schedules(sim: EpochRun) -> list[tuple[float, float, int]]:
    """``(start, end, overhead)`` of every schedule of ``sim`` up to its current time."""
    spans: list[tuple[float, float, int]] = []
    since, cost = 0.0, 0
    for step in sim.steps:
        for change in step.changes:
            if change.kind == REBUILT_KIND:
                after = cast("Rebuilt", change).after
                spans.append((since, step.time, cost))
                since = step.time
                cost = 0 if after is None else after.overhead
    spans.append((since, sim.time, cost))
    return [s for s in spans if s[1] > s[0]]


def simulation_figures(sim: EpochRun) -> dict[str, float]:
    """Return :func:`epoch_figures` of an :class:`~gangviz.epoch.sim.EpochSimulation` at its
    current step."""
    return epoch_figures((f.response for f in sim.state.finished), _schedules(sim),
                         sim.nodes, sim.quantum, sim.time)


def simulation_series(sim: EpochRun) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:

    """Return the running figures of ``sim`` up to its current step as ``key -> (times, values)``:
    the mean response after each departure, and the reallocations and overhead so far at each
    step (at time 0 the overhead is the first schedule's). The last value of each equals
    :func:`simulation_figures`."""
    finished = sim.state.finished
    dep_t = np.array([f.departure for f in finished], dtype=float)
    resp = np.array([f.response for f in finished], dtype=float)
    running = ordered_figures(EPOCH, {"response": resp})["response"]
    spans = _schedules(sim)
    t = [0.0]
    realloc = [0.0]
    for start, end, cost in spans:
        t.append(end)
        realloc.append(realloc[-1] + cost * (end - start) / sim.quantum)
    if spans:
        realloc[-1] = epoch_figures((), spans, sim.nodes, sim.quantum, sim.time)["reallocations"]
    times = np.array(t)
    reallocs = np.array(realloc)
    with np.errstate(divide="ignore", invalid="ignore"):
        overhead = reallocs / (sim.nodes * times / sim.quantum)
    # at time 0 the mean is the first schedule's own normalised overhead (its limit)
    overhead[0] = spans[0][2] / sim.nodes if spans else math.nan
    if spans:
        overhead[-1] = simulation_figures(sim)["overhead"]
    return {"response": (dep_t, running), "reallocations": (times, reallocs),
            "overhead": (times, overhead)}
