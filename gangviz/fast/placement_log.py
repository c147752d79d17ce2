"""The placement log's encoder, compiled, shared by the compiled loops.

Both loops (:mod:`gangviz.fast.gang_kernel`, :mod:`gangviz.fast.buddy_kernel`) keep a matrix
without change records and write, after every decision, what changed in it since the last
decision: :func:`log_changes` compares the matrix with a ``shadow`` copy, row by row, and
appends each run of processors that now hold one job (or ``IDLE``) other than the shadow held.
:class:`gangviz.fast.placement.PlacementLog` reads the log back.

**The marks.** A loop need not have the whole matrix compared after every decision: each
change of a row ``r`` on processors ``first .. end - 1`` goes through :func:`touch`, which
keeps ``SPAN - first`` (the smallest first processor changed) in ``mark_first[r]`` and ``end``
(the largest end) in ``mark_end[r]``: both only grow, ``mark_end[r] == 0`` says nothing
changed, and :func:`log_changes` reads and clears them.

Callers compile these functions into their own, so they key their numba cache by this file
too (:func:`gangviz.jitcache.cached_with`); this module calls no jitted code of any other.
"""

from __future__ import annotations

import numpy as np
from numba import njit

IDLE = -1
#: ``mark_first[r]`` holds ``SPAN - first`` of the first processor of row ``r`` changed
SPAN = 1 << 40
#: entries a placement log starts with room for (it doubles when full)
LOG_START = 1024


@njit(cache=True)
def touch(mark_first, mark_end, r, first, end):
    """Note that processors ``first .. end - 1`` of row ``r`` changed (the module docstring,
    "The marks")."""
    if SPAN - first > mark_first[r]:
        mark_first[r] = SPAN - first
    if end > mark_end[r]:
        mark_end[r] = end


@njit(cache=True)
def log_room(log_t, log_e, k):
    """Return the log's arrays with room for entry ``k`` (twice as long when full)."""
    if k < log_t.shape[0]:
        return log_t, log_e
    grown_t = np.empty(2 * log_t.shape[0])
    grown_t[:k] = log_t[:k]
    grown_e = np.empty((2 * log_t.shape[0], 4), np.int32)
    grown_e[:k] = log_e[:k]
    return grown_t, grown_e


@njit(cache=True)
def _append(log_t, log_e, k, t, a, b, c, d):
    log_t, log_e = log_room(log_t, log_e, k)
    log_t[k] = t
    log_e[k, 0] = a
    log_e[k, 1] = b
    log_e[k, 2] = c
    log_e[k, 3] = d
    return log_t, log_e, k + 1


@njit(cache=True)
def log_changes(cells, n, shadow, n_shadow, t, log_t, log_e, k, mark_first, mark_end):
    """Append to the placement log (``log_t``, ``log_e``, ``k`` entries) what changed in the
    matrix since the last call, at time ``t``. ``cells[r, c]`` is the job in row ``r`` (``n``
    rows), processor ``c``, ``shadow`` (``n_shadow`` rows, indexed the same way: a view of
    either layout) the matrix as the log last saw it. Per row below ``max(n, n_shadow)``, each
    run of processors that now hold one job (or ``IDLE``, also for the rows above ``n``) other
    than ``shadow`` held goes in as ``(t, [row, first, end, job])``; then ``(t, [-1, n, 0, 0])``
    when the row count changed. ``shadow`` becomes the matrix. In the rows both have, only the
    processors the marks name are scanned (the module docstring); every mark read is cleared.
    Returns the log arrays (grown by doubling when full) and its length."""
    width = shadow.shape[1]
    both = min(n, n_shadow)
    for r in range(max(n, n_shadow)):
        c, end = 0, width
        if r < both:
            if mark_end[r] == 0:
                continue
            c, end = SPAN - mark_first[r], mark_end[r]
        mark_first[r] = 0
        mark_end[r] = 0
        # one row at a time, as 1-D views, with the test of r < n out of the cell loops: the
        # same runs as a cell-by-cell scan of the matrix, several times faster
        sh = shadow[r]
        row = cells[r] if r < n else cells[0]  # (cells[0] not read: the rows above n are idle)
        while c < end:
            if r < n:
                while c < end and row[c] == sh[c]:
                    c += 1
            else:
                while c < end and sh[c] == IDLE:
                    c += 1
            if c >= end:
                break
            v = row[c] if r < n else IDLE
            c0 = c
            if r < n:
                while c < width and row[c] == v and sh[c] != v:
                    sh[c] = v
                    c += 1
            else:
                while c < width and sh[c] != v:
                    sh[c] = v
                    c += 1
            log_t, log_e, k = _append(log_t, log_e, k, t, r, c0, c, v)
    if n != n_shadow:
        log_t, log_e, k = _append(log_t, log_e, k, t, -1, n, 0, 0)
    return log_t, log_e, k
