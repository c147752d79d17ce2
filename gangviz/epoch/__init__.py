"""Memory-constrained epoch scheduling (McCann & Zahorjan, McCann94).

Modules: :mod:`~gangviz.epoch.model` (pieces, schedules, overhead), :mod:`~gangviz.epoch.buddy`
(BUDDY, BUDDY*, HYBRID(k)), :mod:`~gangviz.epoch.epochs` (EQUI-EPOCH, OPT-EPOCH(k),
HEURISTIC-EPOCH(k)), :mod:`~gangviz.epoch.policies` (by name), :mod:`~gangviz.epoch.exhaustive`
(references), :mod:`~gangviz.epoch.partitions` (Table 1), :mod:`~gangviz.epoch.speedup`,
:mod:`~gangviz.epoch.records` and :mod:`~gangviz.epoch.sim` (the closed system, step by step),
:mod:`~gangviz.experiments.repro.mccann_runs` (§5).
"""
