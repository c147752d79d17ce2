"""Multi-site gang scheduling with local and grid migration.

Source: Papazachos09 (Papazachos and Karatza, *Scheduling Gangs with Different
Distributions in Gangs' Degree of Parallelism in a Multi-Site System*). Modules:

* :mod:`~gangviz.multisite.config` — :class:`MultiSiteConfig` (sites, P, lambda, sizes, overheads, k)
* :mod:`~gangviz.multisite.workload` — seedable gang stream (sizes, service, site)
* :mod:`~gangviz.multisite.dispatch` — Join-the-Shortest-Queue local dispatch
* :mod:`~gangviz.multisite.state`, :mod:`~gangviz.multisite.changes` — state and change records
* :mod:`~gangviz.multisite.policy` — AFCFS and the migration planners
* :mod:`~gangviz.multisite.simulation` — step-able :class:`MultiSiteSimulation`
* :mod:`~gangviz.multisite.fast` — :func:`run_fast`, the headless path in Python (identical metrics)
* :mod:`~gangviz.multisite.kernel`, :mod:`~gangviz.multisite.compiled` — the same loop compiled
  (numba), :func:`run_compiled` (identical metrics)
* :mod:`~gangviz.metrics.multisite` — RT, WRT, SLD, WSLD and D_*
* :mod:`~gangviz.multisite.batch` — replications over a process pool
"""

from gangviz.metrics.multisite import Metrics, mean_metrics, relative_decrease
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.fast import run_fast
from gangviz.multisite.simulation import MultiSiteSimulation
from gangviz.multisite.snapshot import QueueSnapshot

__all__ = [
    "MultiSiteConfig",
    "MultiSiteSimulation",
    "Metrics",
    "QueueSnapshot",
    "mean_metrics",
    "relative_decrease",
    "run_fast",
]
