"""The checks every compiled loop makes of the jobs it is handed, with the reference engine's
messages (a compiled loop must refuse what the engine refuses, in the same words)."""

from __future__ import annotations

import numpy as np


def check_job_arrays(ids: np.ndarray, arrival: np.ndarray, size: np.ndarray, work: np.ndarray,
                     processors: int, *, arrival_from_zero: bool = False, ids_unique: bool = False) -> None:
    """Raise ``ValueError`` naming the first job at fault for repeated ids (unless the caller
    made them unique: ``ids_unique``), a size outside ``1..processors``, work that is not finite
    and positive, or an arrival that is not finite (and, with ``arrival_from_zero``, negative).
    Returns nothing when every job is usable."""
    if not ids_unique and len(np.unique(ids)) != len(ids):
        raise ValueError("job ids must be unique")
    bad = np.flatnonzero((size < 1) | (size > processors))
    if len(bad):
        raise ValueError(f"job size must be in 1..{processors} processors, got {size[bad[0]]} (job {ids[bad[0]]})")
    bad = np.flatnonzero(~(np.isfinite(work) & (work > 0)))
    if len(bad):
        raise ValueError(f"job work must be finite and > 0 slices, got {work[bad[0]]} (job {ids[bad[0]]})")
    usable = np.isfinite(arrival) & (arrival >= 0) if arrival_from_zero else np.isfinite(arrival)
    bad = np.flatnonzero(~usable)
    if len(bad):
        what = "a finite time >= 0" if arrival_from_zero else "a finite time"
        raise ValueError(f"job arrival must be {what}, got {arrival[bad[0]]} (job {ids[bad[0]]})")
