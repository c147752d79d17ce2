"""Per-job processor lists of a whole run at once (numba), for the per-job tables.

A per-job table names the processors each job held (Batsim's ``allocated_resources``, in the
interval syntax of :func:`gangviz.results.placement.interval_set`). Built job by job in Python
this costs more than a compiled run itself; here every list of a run is found and written in
one compiled pass:

* :func:`first_columns`: the processors each job of a compiled time-slot run held when it
  first ran, replayed from the run's placement log (:mod:`gangviz.fast.placement`);
* :func:`placed_counts`: the processors a space-sharing schedule's jobs are given after the
  run, by the rule of :func:`gangviz.results.placement.place_counts`;
* :func:`interval_cells`: lists of processors as the bytes of their interval sets.

A list of processors is kept flat: job ``j``'s are ``cols[begins[j]:begins[j + 1]]``, ascending,
each once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gangviz.fast.intervals_kernel import (
    first_columns_of,
    interval_fill,
    interval_lengths,
    placed_counts_of,
)

__all__ = ["first_columns", "interval_cells", "placed_counts"]


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


def placed_counts(start: npt.ArrayLike, finish: npt.ArrayLike, size: npt.ArrayLike,
                  processors: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(cols, begins)``: the processors of each job of a space-sharing schedule as
    :func:`gangviz.results.placement.place_counts` chooses them (releases before takes at one
    instant, then by job; the lowest-numbered free processors); none for a job that has not
    started (``start`` ``nan``). Raises ``ValueError`` when the schedule runs more than
    ``processors`` at some instant."""
    st = np.asarray(start, dtype=np.float64)
    fi = np.asarray(finish, dtype=np.float64)
    sz = np.asarray(size, dtype=np.int64)
    ran = np.flatnonzero(~np.isnan(st))
    ends = np.where(np.isnan(fi), np.inf, fi)
    times = np.concatenate((ends[ran], st[ran]))
    kinds = np.concatenate((np.zeros(len(ran), np.int8), np.ones(len(ran), np.int8)))
    jobs = np.concatenate((ran, ran))
    order = np.lexsort((jobs, kinds, times))
    took = np.where(np.isnan(st), 0, sz)
    begins = np.concatenate(([0], np.cumsum(took))).astype(np.int64)
    cols = np.empty(int(begins[-1]), np.int64)
    short = placed_counts_of(times[order], kinds[order], jobs[order].astype(np.int64), sz, ends, begins, cols,
                           int(processors))
    if short >= 0:
        raise ValueError(f"the schedule runs more than {processors} processors at time "
                         f"{float(times[order][short]):g}")
    return cols, begins


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
