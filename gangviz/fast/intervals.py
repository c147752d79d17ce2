"""Per-job processor lists of a whole run at once (numba), for the per-job tables.

A per-job table names the processors each job held (Batsim's ``allocated_resources``, in the
interval syntax of :func:`gangviz.results.placement.interval_set`). Built job by job in Python
this costs more than a compiled run itself; here every list of a run is found and written in
one compiled pass:

* :func:`first_columns`: the processors each job of a compiled time-slot run held when it
  first ran, replayed from the run's placement log (:mod:`gangviz.fast.placement`);
* :func:`interval_cells`: lists of processors as the bytes of their interval sets.

A list of processors is kept flat: job ``j``'s are ``cols[begins[j]:begins[j + 1]]``, ascending,
each once.
"""

from __future__ import annotations

import numpy as np

from gangviz.fast.intervals_kernel import (
    first_columns_of,
    interval_fill,
    interval_lengths,
)

__all__ = ["first_columns", "interval_cells"]


def first_columns(time: np.ndarray, entries: np.ndarray, rows: int, processors: int,
                  first_run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(cols, begins)``: for each job ``j`` (numbered as in the log), the processors
    it held in any row of the matrix after every decision at or before ``first_run[j]`` (the
    log's ``time`` and ``entries``, :class:`~gangviz.fast.placement.PlacementLog`); none for a
    job whose ``first_run`` is ``nan``."""
    first = np.asarray(first_run, dtype=np.float64)
    entries = np.asarray(entries, dtype=np.int32).reshape(-1, 4)
    n_jobs = len(first)
    owner = np.where((entries[:, 0] >= 0) & (entries[:, 3] >= 0), entries[:, 3], n_jobs)
    by_job = np.argsort(owner, kind="stable").astype(np.int64)
    job_begin = np.searchsorted(owner[by_job], np.arange(n_jobs + 1)).astype(np.int64)
    ran = np.flatnonzero(~np.isnan(first))
    order = ran[np.argsort(first[ran], kind="stable")].astype(np.int64)
    cols, begins = first_columns_of(np.asarray(time, dtype=np.float64), entries, int(rows), int(processors),
                                  first, order, by_job, job_begin)
    return np.asarray(cols), np.asarray(begins)


def interval_cells(cols: np.ndarray, begins: np.ndarray) -> np.ndarray:
    """Return the interval set of each list (``"0-2 5"`` for ``0, 1, 2, 5``; nothing for an
    empty list) as an ``(n, width)`` array of ASCII bytes, zero-padded, ``width`` the longest."""
    cols = np.asarray(cols, dtype=np.int64)
    begins = np.asarray(begins, dtype=np.int64)
    lengths = interval_lengths(cols, begins)
    width = int(lengths.max()) if len(lengths) else 0
    out = np.zeros((len(lengths), width), np.uint8)
    interval_fill(cols, begins, out)
    return out
