"""Metrics of Papazachos09 §4.1 and Table 1.

For the m gangs that completed, with response time r_j (arrival at the grid dispatcher to
completion), execution time e_j (the gang's service demand; migration overhead counts as
waiting, not execution) and size p_j:

* RT = mean r_j;  WRT = sum p_j r_j / sum p_j
* SLD = mean s_j with s_j = r_j / e_j;  WSLD = sum p_j s_j / sum p_j
* D_X = 100 (X_AFCFS - X_AFCFSwM) / X_AFCFS, the relative (%) decrease when migrations are used.
* migrations: the tasks moved to another processor (local or grid, §3.3) so far.

The paper prints the WSLD formula under the label "average slowdown"; SLD is the plain mean of
s_j as Table 1 defines it. A run's metrics cover the first ``n`` gangs to complete (§4.2: a run
ends upon the completion of 64,000 gangs). Sums are accumulated in completion order by
:class:`Accumulator`, which both simulators use, so equal runs give bit-equal metrics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np
import numpy.typing as npt

from gangviz.metrics.reduce import last, ordered_figures
from gangviz.metrics.table import MULTISITE

if TYPE_CHECKING:  # pragma: no cover  (annotations only: the figures read records, not models)
    from gangviz.core.record import Step

METRIC_NAMES = ("RT", "WRT", "SLD", "WSLD")
#: the ``kind`` of the change record of a task migration (gangviz.multisite.changes.TaskMigrated)
MIGRATION_KIND = "task_migrated"


class Gang(Protocol):
    """What the figures read of an arrived gang (gangviz.multisite.state.GangInfo)."""

    @property
    def size(self) -> int: ...
    @property
    def arrival(self) -> float: ...
    @property
    def service(self) -> float: ...


class Completions(Protocol):
    """What the figures read of the model's state: every arrived gang by id, the finish time of
    each finished one, and the finished ids in completion order."""

    @property
    def gangs(self) -> Mapping[int, Gang]: ...
    @property
    def finish(self) -> Mapping[int, float]: ...
    @property
    def completed(self) -> Sequence[int]: ...


class Undoable(Protocol):
    """What the figures read of a migration's change record (gangviz.multisite.changes.TaskMigrated):
    whether it is the record that undoes one."""

    @property
    def undo(self) -> bool: ...


class MultiSiteRun(Protocol):
    """What the figures read of a multi-site simulation
    (gangviz.multisite.simulation.MultiSiteSimulation): its state, its steps, how many of them
    are applied (``cursor``) and the current time."""

    @property
    def state(self) -> Completions: ...
    @property
    def steps(self) -> Sequence[Step]: ...
    @property
    def cursor(self) -> int: ...
    @property
    def time(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Metrics:
    """RT, WRT, SLD and WSLD of one run (or a mean of runs) over ``n`` completed gangs."""

    rt: float
    wrt: float
    sld: float
    wsld: float
    n: int

    def as_dict(self) -> dict[str, float]:
        """Return ``{"RT": ..., "WRT": ..., "SLD": ..., "WSLD": ...}``."""
        return {"RT": self.rt, "WRT": self.wrt, "SLD": self.sld, "WSLD": self.wsld}


class Accumulator:
    """Running sums over completed gangs; :meth:`add` one gang, :meth:`metrics` at the end."""

    __slots__ = ("n", "r", "pr", "s", "ps", "p")

    def __init__(self) -> None:
        self.n = 0
        self.r = self.pr = self.s = self.ps = 0.0
        self.p = 0

    def add(self, response: float, service: float, size: int) -> None:
        """Add one completed gang."""
        s = response / service
        self.n += 1
        self.r += response
        self.pr += size * response
        self.s += s
        self.ps += size * s
        self.p += size

    def metrics(self) -> Metrics:
        """Return the metrics so far; raise ValueError when no gang has completed."""
        return from_sums(self.n, self.r, self.pr, self.s, self.ps, self.p)


def from_sums(n: int, r: float, pr: float, s: float, ps: float, p: int) -> Metrics:
    """Return the metrics of ``n`` gangs from their sums; raise ValueError when ``n`` is 0."""
    if n <= 0:
        raise ValueError("no gang has completed; metrics need at least one")
    return Metrics(r / n, pr / p, s / n, ps / p, n)


def mean_metrics(runs: list[Metrics]) -> Metrics:
    """Return the average of independent replications (each metric averaged over the runs)."""
    if not runs:
        raise ValueError("no runs to average")
    k = len(runs)
    return Metrics(sum(m.rt for m in runs) / k, sum(m.wrt for m in runs) / k,
                   sum(m.sld for m in runs) / k, sum(m.wsld for m in runs) / k,
                   sum(m.n for m in runs))


def relative_decrease(base: Metrics, new: Metrics) -> dict[str, float]:
    """Return D_RT, D_WRT, D_SLD, D_WSLD in percent: 100 (base - new) / base (§4.1, Table 1)."""
    b, n = base.as_dict(), new.as_dict()
    return {f"D_{k}": 100.0 * (b[k] - n[k]) / b[k] for k in METRIC_NAMES}


def _columns(completed: Iterable[tuple[float, float, int]]) -> dict[str, npt.NDArray[Any]]:
    """The per-gang columns the table's reductions read, in completion order: ``response``,
    ``size`` and ``slowdown`` (response / execution)."""
    rows = list(completed)
    response = np.array([r for r, _, _ in rows], dtype=np.float64)
    service = np.array([s for _, s, _ in rows], dtype=np.float64)
    size = np.array([p for _, _, p in rows], dtype=np.int64)
    return {"response": response, "size": size, "slowdown": response / service}


def multisite_figures(completed: Iterable[tuple[float, float, int]],
                      migrations: int) -> dict[str, float]:
    """Return ``{"RT", "WRT", "SLD", "WSLD", "gangs", "migrations"}`` of a run: the multi-site
    family's figures of the table of figures (:mod:`gangviz.metrics.table`), reduced by
    :func:`gangviz.metrics.reduce.ordered_figures`.

    ``completed`` yields ``(response, service, size)`` of every completed gang in completion
    order (the order the sums are made in, as :class:`Accumulator` does); ``migrations`` is the
    number of task migrations. The four means are ``nan`` before the first completion.
    """
    return {**last(ordered_figures(MULTISITE, _columns(completed))), "migrations": migrations}


def state_metrics(state: Completions) -> Metrics:
    """Return the :class:`Metrics` of the gangs ``state`` completed, from the same reductions as
    :func:`multisite_figures`. Raises ValueError when no gang has completed."""
    done = [(state.finish[g] - state.gangs[g].arrival, state.gangs[g].service, state.gangs[g].size)
            for g in state.completed]
    figures = multisite_figures(done, 0)
    if not done:
        raise ValueError("no gang has completed; metrics need at least one")
    return Metrics(figures["RT"], figures["WRT"], figures["SLD"], figures["WSLD"], len(done))


def _completed(sim: MultiSiteRun) -> list[tuple[float, float, float, int]]:
    """``(finish, response, service, size)`` of the completed gangs of ``sim``, in completion order."""
    st = sim.state
    out: list[tuple[float, float, float, int]] = []
    for gang in st.completed:
        info = st.gangs[gang]
        out.append((st.finish[gang], st.finish[gang] - info.arrival, info.service, info.size))
    return out


def _migration_steps(sim: MultiSiteRun) -> list[tuple[float, int]]:
    """``(time, task migrations)`` of every applied step of ``sim`` that migrated a task."""
    out: list[tuple[float, int]] = []
    for step in sim.steps[:sim.cursor]:
        moved = sum(1 for c in step.changes
                    if c.kind == MIGRATION_KIND and not cast("Undoable", c).undo)
        if moved:
            out.append((step.time, moved))
    return out


def simulation_figures(sim: MultiSiteRun) -> dict[str, float]:
    """Return :func:`multisite_figures` of a :class:`~gangviz.multisite.simulation.MultiSiteSimulation`
    at its current step (after :meth:`step_back` too)."""
    done = _completed(sim)
    return multisite_figures(((r, s, p) for _, r, s, p in done),
                             sum(n for _, n in _migration_steps(sim)))


def simulation_series(sim: MultiSiteRun) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Return the running figures of ``sim`` up to its current step, as ``key -> (times, values)``:
    RT, WRT and SLD after each completion, and the migrations counted so far after each step
    that migrated (and at the current time). The last value of each equals :func:`simulation_figures`."""
    done = _completed(sim)
    times = np.array([f for f, _, _, _ in done], dtype=float)
    running = ordered_figures(MULTISITE, _columns((r, s, p) for _, r, s, p in done))
    moves = _migration_steps(sim)
    mt = np.array([0.0] + [time for time, _ in moves] + [sim.time])
    counts = [n for _, n in moves]
    mc = np.cumsum([0] + counts + [0]).astype(float)
    return {"RT": (times, running["RT"]), "WRT": (times, running["WRT"]),
            "SLD": (times, running["SLD"]), "migrations": (mt, mc)}
