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
ends upon the completion of 64,000 gangs).

A run reports the core figures of the table of figures a gang has (mean wait, response,
bounded slowdown, utilisation, makespan, throughput, jobs; :mod:`gangviz.metrics.table`), then
the paper's: RT is the table's ``response`` and ``gangs`` its ``jobs`` under the paper's names.
Every sum is made in completion order (:mod:`gangviz.metrics.completions`); the compiled loops
keep the same sums in their own kernels and give :class:`Metrics` through :func:`from_sums`, so
equal runs give bit-equal metrics.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from gangviz.metrics.completions import Completion, applied_changes, finals, running
from gangviz.metrics.table import MULTISITE

if TYPE_CHECKING:  # pragma: no cover
    from gangviz.metrics.completions import Completed

METRIC_NAMES = ("RT", "WRT", "SLD", "WSLD")
#: the ``kind`` of the change record of a task migration (gangviz.multisite.changes.TaskMigrated)
MIGRATION_KIND = "task_migrated"


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


def from_sums(n: int, r: float, pr: float, s: float, ps: float, p: int) -> Metrics:
    """Return the metrics of ``n`` gangs from their sums of response, size x response, slowdown,
    size x slowdown and size (a compiled loop's); raise ValueError when ``n`` is 0."""
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


def multisite_figures(completed: Iterable[Completion], migrations: int,
                      processors: int) -> dict[str, float]:
    """Return the multi-site family's figures of the table of figures
    (:mod:`gangviz.metrics.table`) of a run: the core's, RT, WRT, SLD, WSLD, ``gangs`` and
    ``migrations``.

    ``completed`` are the completed gangs in completion order (the order the sums are made
    in); ``migrations`` is the number of task migrations; ``processors`` every site's together.
    The means are ``nan`` before the first completion.
    """
    return {**finals(MULTISITE, completed, processors), "migrations": migrations}


def metrics_of(completed: Iterable[Completion]) -> Metrics:
    """Return the :class:`Metrics` of the gangs ``completed``, from the same reductions as
    :func:`multisite_figures`. Raises ValueError when no gang has completed."""
    figures = multisite_figures(completed, 0, 1)
    if not figures["gangs"]:
        raise ValueError("no gang has completed; metrics need at least one")
    return Metrics(figures["RT"], figures["WRT"], figures["SLD"], figures["WSLD"], int(figures["gangs"]))


def _migration_steps(sim: Completed) -> list[tuple[float, int]]:
    """``(time, task migrations)`` of every applied step of ``sim`` that migrated a task."""
    moved: dict[int, tuple[float, int]] = {}
    for step, time, change in applied_changes(sim, MIGRATION_KIND):
        if not change.undo:
            moved[step] = (time, moved[step][1] + 1 if step in moved else 1)
    return list(moved.values())


def simulation_figures(sim: Completed) -> dict[str, float]:
    """Return :func:`multisite_figures` of a :class:`~gangviz.multisite.simulation.MultiSiteSimulation`
    at its current step (after :meth:`step_back` too)."""
    return multisite_figures(sim.completions(), sum(n for _, n in _migration_steps(sim)),
                             sim.real_processors)


def simulation_series(sim: Completed) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Return the running figures of ``sim`` up to its current step, as ``key -> (times, values)``:
    the figures of the table after each completion, and the migrations counted so far after each
    step that migrated (and at the current time). The last value of each equals
    :func:`simulation_figures`."""
    done = sim.completions()
    times = np.array([c[1] for c in done], dtype=float)
    curves = {k: (times, v.astype(float)) for k, v in running(MULTISITE, done, sim.real_processors).items()}
    moves = _migration_steps(sim)
    mt = np.array([0.0] + [time for time, _ in moves] + [sim.time])
    counts = [n for _, n in moves]
    mc = np.cumsum([0] + counts + [0]).astype(float)
    return {**curves, "migrations": (mt, mc)}
