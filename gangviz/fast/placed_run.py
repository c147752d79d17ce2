"""What a compiled run keeps of where its jobs ran, shared by the gang and buddy runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PlacedRun"]


@dataclass(frozen=True, kw_only=True)
class PlacedRun:
    """The fields of a compiled run that say where its jobs ran, when asked (keyword fields,
    after the run's own): the :class:`gangviz.fast.placement.PlacementLog` (jobs in the order
    given), and per job the most rows it held in a slice it ran and the slices it ran in rows
    other than its home row (``Simulation.run_stats``)."""

    placement: Any = None
    rows_held: np.ndarray | None = None
    extra_slices: np.ndarray | None = None
