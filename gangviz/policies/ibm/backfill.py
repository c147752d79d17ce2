"""Former home of the backfilling simulator; it now lives in :mod:`gangviz.spacesharing.backfill`."""

from gangviz.spacesharing.backfill import (  # noqa: F401
    ESTIMATES, MODES, BackfillRecord, BackfillResult, Decision, simulate_backfill)

__all__ = ["BackfillRecord", "BackfillResult", "Decision", "simulate_backfill", "MODES", "ESTIMATES"]
