"""Per-job processor lists of a whole run at once (numba), for the per-job tables.

A per-job table names the processors each job held (Batsim's ``allocated_resources``, in the
interval syntax of :func:`gangviz.results.placement.interval_set`). Built job by job in Python
this costs more than a compiled run itself; here every list of a run is found and written in
one compiled pass:

* :func:`first_columns`: the processors each job of a compiled time-slot run held when it
  first ran, replayed from the run's placement log (:mod:`gangviz.fast.placement`);
* :func:`list_texts`: flat lists of processors as the text of their interval sets;
* :func:`first_texts` and :func:`range_texts`: the interval sets of the processors each job
  held when it first ran, straight as text (one byte buffer and its offsets), without a list
  of processors: what the per-job files write.

A list of processors is kept flat: job ``j``'s are ``cols[begins[j]:begins[j + 1]]``, ascending,
each once.
"""

from __future__ import annotations

import numpy as np

from gangviz.fast.intervals_kernel import (
    first_columns_of,
    first_texts_of,
    list_texts_of,
    range_texts_of,
)

__all__ = ["first_columns", "first_texts", "list_texts", "range_texts"]


def first_columns(time: np.ndarray, entries: np.ndarray, rows: int, processors: int,
                  first_run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(cols, begins)``: for each job ``j`` (numbered as in the log), the processors
    it held in any row of the matrix after every decision at or before ``first_run[j]`` (the
    log's ``time`` and ``entries``, :class:`~gangviz.fast.placement.PlacementLog`); none for a
    job whose ``first_run`` is ``nan``."""
    first = np.asarray(first_run, dtype=np.float64)
    entries = np.asarray(entries, dtype=np.int32).reshape(-1, 4)
    cols, begins = first_columns_of(np.asarray(time, dtype=np.float64), entries, int(rows), int(processors),
                                    first, *_by_first_run(entries, first))
    return np.asarray(cols), np.asarray(begins)


def first_texts(time: np.ndarray, entries: np.ndarray, rows: int, processors: int,
                first_run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(data, offsets)``: job ``j``'s processors as :func:`first_columns` finds them,
    written as their interval set (``"0-2 5"``) in ``data[offsets[j]:offsets[j + 1]]`` (ASCII
    bytes, ``uint8``; ``offsets`` ``int64``, one more than the jobs): the texts
    :func:`list_texts` gives of :func:`first_columns`, without the list of processors."""
    first = np.asarray(first_run, dtype=np.float64)
    entries = np.asarray(entries, dtype=np.int32).reshape(-1, 4)
    data, offsets = first_texts_of(np.asarray(time, dtype=np.float64), entries, int(rows), int(processors),
                                   first, *_by_first_run(entries, first))
    return np.asarray(data), np.asarray(offsets)


def _by_first_run(entries: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The jobs that ran by their first slice, and each job's entries (``by_job`` from
    ``job_begin[j]``), in log order, for the replay."""
    n_jobs = len(first)
    owner = np.where((entries[:, 0] >= 0) & (entries[:, 3] >= 0), entries[:, 3], n_jobs)
    by_job = np.argsort(owner, kind="stable").astype(np.int64)
    job_begin = np.searchsorted(owner[by_job], np.arange(n_jobs + 1)).astype(np.int64)
    ran = np.flatnonzero(~np.isnan(first))
    order = ran[np.argsort(first[ran], kind="stable")].astype(np.int64)
    return order, by_job, job_begin


def range_texts(lo: np.ndarray, hi: np.ndarray, first_run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(data, offsets)`` as :func:`first_texts` does for jobs that each held one run of
    processors, ``lo[j] .. hi[j] - 1`` (a buddy placement), from their first slice: none for a
    job whose ``first_run`` is ``nan``."""
    ran = ~np.isnan(np.asarray(first_run, dtype=np.float64))
    data, offsets = range_texts_of(np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64), ran)
    return np.asarray(data), np.asarray(offsets)


def list_texts(cols: np.ndarray, begins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(data, offsets)`` as :func:`first_texts` does, text ``j`` the interval set of the
    flat list ``cols[begins[j]:begins[j + 1]]`` (ascending, each processor once): ``"0-2 5"`` for
    ``0, 1, 2, 5``, nothing for an empty list."""
    data, offsets = list_texts_of(np.asarray(cols, dtype=np.int64), np.asarray(begins, dtype=np.int64))
    return np.asarray(data), np.asarray(offsets)
