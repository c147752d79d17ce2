"""The compiled passes of :mod:`gangviz.fast.intervals` (numba), in one module for the reason
:mod:`gangviz.fast.buddy_kernel` gives (numba's on-disk cache is keyed by source file)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _replay_to(t, time, entries, k, n, matrix):
    """Apply the log's entries from ``k`` up to time ``t`` to ``matrix`` (``n`` rows in use).
    Returns the next entry and the row count then."""
    k_end = entries.shape[0]
    while k < k_end and time[k] <= t:
        r = entries[k, 0]
        if r < 0:
            n = entries[k, 1]
        else:
            v = entries[k, 3]
            row = matrix[r]
            for p in range(entries[k, 1], entries[k, 2]):
                row[p] = v
        k += 1
    return k, n


@njit(cache=True)
def _mark_job(j, entries, by_job, job_begin, k, n, matrix, mark, stamp, processors):
    """Set ``mark[p] = stamp`` on each processor ``p`` that job ``j`` holds in ``matrix``
    (replayed to entry ``k``, ``n`` rows), looking only among the job's own entries. Returns
    ``(lo, hi)``: no marked processor lies outside ``lo..hi-1``."""
    lo = processors
    hi = 0
    for x in range(job_begin[j], job_begin[j + 1]):
        e = by_job[x]
        if e >= k:
            break  # the job's entries are in log order: the rest come later
        r = entries[e, 0]
        if r >= n:
            continue
        row = matrix[r]
        for p in range(entries[e, 1], entries[e, 2]):
            if row[p] == j:
                mark[p] = stamp
        lo = min(lo, entries[e, 1])
        hi = max(hi, entries[e, 2])
    return lo, hi


@njit(cache=True)
def first_columns_of(time, entries, rows, processors, first, order, by_job, job_begin):
    """:func:`gangviz.fast.intervals.first_columns`: replay the log once, the jobs taken by
    their first slice (``order``); each job's cells are looked for among its own entries
    (``by_job[job_begin[j]:job_begin[j + 1]]``, in log order). Returns ``(cols, begins)``."""
    n_jobs = first.shape[0]
    matrix = np.full((rows, processors), -1, np.int32)
    n = 0
    k = 0
    mark = np.zeros(processors, np.int64)
    stamp = 0
    cols = np.empty(1024, np.int64)
    begins = np.zeros(n_jobs + 1, np.int64)
    count = np.zeros(n_jobs, np.int64)
    start_of = np.zeros(n_jobs, np.int64)
    used = 0
    for j in order:
        k, n = _replay_to(first[j], time, entries, k, n, matrix)
        stamp += 1
        lo, hi = _mark_job(j, entries, by_job, job_begin, k, n, matrix, mark, stamp, processors)
        if used + processors > cols.shape[0]:
            grown = np.empty(max(2 * cols.shape[0], used + processors), np.int64)
            grown[:used] = cols[:used]
            cols = grown
        start_of[j] = used
        for p in range(lo, hi):
            if mark[p] == stamp:
                cols[used] = p
                used += 1
        count[j] = used - start_of[j]
    # the lists in job order
    out = np.empty(used, np.int64)
    w = 0
    for j in range(n_jobs):
        begins[j] = w
        out[w:w + count[j]] = cols[start_of[j]:start_of[j] + count[j]]
        w += count[j]
    begins[n_jobs] = w
    return out, begins


@njit(cache=True)
def _digits(v):
    """The decimal digits of ``v`` >= 0."""
    d = 1
    while v >= 10:
        v //= 10
        d += 1
    return d


@njit(cache=True)
def _put_text(out, w, v):
    """Write ``v``'s digits into ``out`` from ``w`` (room made by the caller); return the
    position after them."""
    d = _digits(v)
    for i in range(d - 1, -1, -1):
        out[w + i] = 48 + v % 10
        v //= 10
    return w + d


@njit(cache=True)
def _put_interval(out, w, start, p, q):
    """Write the interval ``p``-``q`` (``p`` alone when ``q == p``) into ``out`` from ``w``,
    after a space unless it is the first of a text that starts at ``start`` (room made by the
    caller); return the position after it."""
    if w > start:
        out[w] = 32
        w += 1
    w = _put_text(out, w, p)
    if q > p:
        out[w] = 45
        w = _put_text(out, w + 1, q)
    return w


@njit(cache=True)
def _room(buf, used, more):
    """Return ``buf`` with room for ``more`` bytes after ``used`` (twice as long when short)."""
    if used + more <= buf.shape[0]:
        return buf
    grown = np.empty(max(2 * buf.shape[0], used + more), np.uint8)
    grown[:used] = buf[:used]
    return grown


@njit(cache=True)
def _reorder(text, start_of, length):
    """The texts ``text[start_of[j]:start_of[j] + length[j]]`` in job order: ``(data, offsets)``."""
    n = length.shape[0]
    offsets = np.zeros(n + 1, np.int64)
    for j in range(n):
        offsets[j + 1] = offsets[j] + length[j]
    data = np.empty(offsets[n], np.uint8)
    for j in range(n):
        data[offsets[j]:offsets[j + 1]] = text[start_of[j]:start_of[j] + length[j]]
    return data, offsets


@njit(cache=True)
def first_texts_of(time, entries, rows, processors, first, order, by_job, job_begin):
    """:func:`gangviz.fast.intervals.first_texts`: the log replayed as :func:`first_columns_of`
    replays it, each job's processors written straight as their interval set (no list of
    processors). Returns ``(data, offsets)``, the texts in job order."""
    n_jobs = first.shape[0]
    matrix = np.full((rows, processors), -1, np.int32)
    n = 0
    k = 0
    mark = np.zeros(processors + 1, np.int64)
    stamp = 0
    text = np.empty(1 << 16, np.uint8)
    start_of = np.zeros(n_jobs, np.int64)
    length = np.zeros(n_jobs, np.int64)
    used = 0
    widest = 2 * _digits(max(processors, 1)) + 2  # one interval and its space
    for j in order:
        k, n = _replay_to(first[j], time, entries, k, n, matrix)
        stamp += 1
        lo, hi = _mark_job(j, entries, by_job, job_begin, k, n, matrix, mark, stamp, processors)
        start_of[j] = used
        p = lo
        while p < hi:
            if mark[p] != stamp:
                p += 1
                continue
            q = p
            while q + 1 < hi and mark[q + 1] == stamp:
                q += 1
            text = _room(text, used, widest)
            used = _put_interval(text, used, start_of[j], p, q)
            p = q + 1
        length[j] = used - start_of[j]
    return _reorder(text, start_of, length)


@njit(cache=True)
def range_texts_of(lo, hi, ran):
    """:func:`gangviz.fast.intervals.range_texts`: ``"lo-(hi-1)"`` (``"lo"`` for one
    processor) where ``ran``, else nothing. Returns ``(data, offsets)``."""
    n = lo.shape[0]
    offsets = np.zeros(n + 1, np.int64)
    for j in range(n):
        size = 0
        if ran[j] and hi[j] > lo[j]:
            size = _digits(lo[j])
            if hi[j] - lo[j] > 1:
                size += 1 + _digits(hi[j] - 1)
        offsets[j + 1] = offsets[j] + size
    data = np.empty(offsets[n], np.uint8)
    for j in range(n):
        if offsets[j + 1] > offsets[j]:
            _put_interval(data, offsets[j], offsets[j], lo[j], hi[j] - 1)
    return data, offsets


@njit(cache=True)
def list_texts_of(cols, begins):
    """:func:`gangviz.fast.intervals.list_texts`: the interval set of each flat list
    ``cols[begins[j]:begins[j + 1]]`` (ascending, each processor once). Returns
    ``(data, offsets)``."""
    n = begins.shape[0] - 1
    offsets = np.zeros(n + 1, np.int64)
    text = np.empty(1 << 16, np.uint8)
    used = 0
    top = cols.max() if cols.shape[0] else 0
    widest = 2 * _digits(top) + 2  # one interval and its space
    for j in range(n):
        start = used
        x = begins[j]
        while x < begins[j + 1]:
            y = x
            while y + 1 < begins[j + 1] and cols[y + 1] == cols[y] + 1:
                y += 1
            text = _room(text, used, widest)
            used = _put_interval(text, used, start, cols[x], cols[y])
            x = y + 1
        offsets[j + 1] = used
    return text[:used].copy(), offsets
