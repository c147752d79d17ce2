"""The figures of finished (or paused) runs, one module per paper family.

* :mod:`~gangviz.metrics.zhou`: the Ousterhout-matrix runs of Zhou99/Zhou00 (r_a, n_l, n_a,
  t_ta, t_sa, t_ma, t_la; Zhou00 §4.3);
* :mod:`~gangviz.metrics.ibm`: the IBM study, Zhang01 §2.3 (wait, response, bounded slowdown,
  utilisation, loss of capacity), for space-sharing and gang runs alike;
* :mod:`~gangviz.metrics.multisite`: the core figures a gang has, Papazachos09 §4.1 (RT, WRT,
  SLD, WSLD, D_*), and the migrations of a run;
* :mod:`~gangviz.metrics.epoch`: the core figures an epoch job has, McCann94 §5 (reallocations,
  overhead);
* :mod:`~gangviz.metrics.completions`: the finished jobs of those two models, in completion
  order, and their figures of the table;
* :mod:`~gangviz.metrics.table`: every figure above declared once (key, unit, goal,
  definition, families, reduction), and :mod:`~gangviz.metrics.reduce`, each reduction
  computed once.

:func:`figures` gives a simulation's figures by its ``family`` (what ``gangviz run --json``
prints under ``metrics`` and the window's panels show); :func:`series` gives the same figures
as running curves for the panels of every family (the matrix family's draw the engine's own
samples besides, and the core's mean wait and bounded slowdown from its jobs). The window reaches both through the
simulation's :attr:`~gangviz.sim.protocol.Simulation.measures`, which the factory binds to them
(:func:`gangviz.factory.finished.measures_of`). The modules read finished jobs and
change records only, never the simulators' code, so every model can use them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gangviz.metrics import epoch, ibm, multisite, table, zhou

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.sim.protocol import Simulation

__all__ = ["FIGURES", "SERIES", "figures", "series", "json_ready"]


def matrix_figures(sim: Any) -> dict[str, Any]:
    """Return the figures of a time-slot simulation at its current step: Zhou00 §4.3's
    (:func:`gangviz.metrics.zhou.zhou_metrics`), then the core's means of the jobs finished so
    far that its panels show (:data:`MATRIX_CORE`, in slices; none before the first finish)."""
    out = dict(zhou.zhou_metrics(sim))
    try:
        core = ibm.ibm_metrics(sim.records(), sim.processors)
    except ValueError:  # no job finished yet
        return out
    return {**out, **{k: core[k] for k in MATRIX_CORE}}


def matrix_series(sim: Any) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Return the running core figures of a time-slot simulation (:func:`gangviz.metrics.ibm.core_series`
    of its jobs, a terminated job left out as the figures leave it out), in slices."""
    kept = [r for r in sim.records() if not r.terminated]
    return ibm.core_series(kept, sim.time)


#: the core figures a time-slot simulation's panels show as it runs, those its live panel names
#: (:data:`gangviz.metrics.table.PANELS`; the loss of capacity needs the whole run: ``gangviz
#: run`` gives it)
MATRIX_CORE = tuple(k for panel in table.PANELS[table.MATRIX] for k in panel.figures
                    if k in table.keys(table.SPACE_SHARING))

#: family -> the function giving a simulation's figures at its current step
FIGURES: dict[str, Callable[..., dict[str, Any]]] = {
    "matrix": matrix_figures,
    "space-sharing": ibm.space_sharing_figures,
    "multisite": multisite.simulation_figures,
    "epoch": epoch.simulation_figures,
}

#: family -> the function giving a simulation's running figures (``key -> (times, values)``)
SERIES: dict[str, Callable[..., dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]]] = {
    "matrix": matrix_series,
    "space-sharing": ibm.space_sharing_series,
    "multisite": multisite.simulation_series,
    "epoch": epoch.simulation_series,
}


def figures(sim: Simulation) -> dict[str, Any]:
    """Return the figures of ``sim`` at its current step, chosen by ``sim.family``.

    Raises ``KeyError`` for a family without figures, ``ValueError`` for a space-sharing run
    in which no job has finished yet (its figures are means over finished jobs).
    """
    return FIGURES[sim.family](sim)


def series(sim: Simulation) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Return the running figures of ``sim`` up to its current step, chosen by ``sim.family``.

    Raises ``KeyError`` for a family whose curves come from the simulation's own samples.
    """
    return SERIES[sim.family](sim)


def json_ready(value: object) -> object:

    """Return ``value`` (a figure, or a dict of them, nested) with ``nan`` as ``None``."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    return None if isinstance(value, float) and math.isnan(value) else value
