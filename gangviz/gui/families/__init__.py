"""The views of the families that are not a matrix — space sharing's Gantt strip with its queue,
the multi-site lanes and per-processor queues, the epoch model's quantum rectangle — and
:mod:`~gangviz.gui.families.table`, which picks the views for a simulation by its ``family``."""
