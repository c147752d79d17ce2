"""Conservative backfilling as a compiled loop (numba), for headless runs.

:func:`conservative_compiled` takes the same decisions as ``_conservative`` of
:mod:`gangviz.spacesharing.backfill`, in the same order and with the same floating-point
operations, so the two give the same start and finish times bit for bit (a property test
compares them on random workloads and on the shipped traces). The booking profile mirrors
:class:`~gangviz.spacesharing.profile.Profile` on growable arrays; completions are a binary
heap ordered by ``(time, job)`` as :mod:`heapq` orders the tuples.

The step-by-step simulation (the window) keeps using the Python loop, which can log decisions.
When the optional C extension is built, ``conservative`` of :mod:`gangviz.spacesharing._easyloop`
(a line-by-line translation of :func:`_run`) runs instead and this module is not imported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gangviz.jitcache import cached_with
from gangviz.spacesharing import profile_kernel
from gangviz.spacesharing.profile_kernel import earliest_fit

__all__ = ["conservative_compiled"]

#: compiled with the shared earliest fit, so cached by its source too
jit = cached_with(profile_kernel)


@jit
def _heap_push(ht, hj, n, t, j):
    i = n
    ht[i] = t
    hj[i] = j
    while i > 0:
        p = (i - 1) // 2
        if ht[p] < ht[i] or (ht[p] == ht[i] and hj[p] <= hj[i]):
            break
        ht[p], ht[i] = ht[i], ht[p]
        hj[p], hj[i] = hj[i], hj[p]
        i = p
    return n + 1


@jit
def _heap_pop(ht, hj, n):
    n -= 1
    ht[0] = ht[n]
    hj[0] = hj[n]
    i = 0
    while True:
        lo = i
        a = 2 * i + 1
        b = a + 1
        if a < n and (ht[a] < ht[lo] or (ht[a] == ht[lo] and hj[a] < hj[lo])):
            lo = a
        if b < n and (ht[b] < ht[lo] or (ht[b] == ht[lo] and hj[b] < hj[lo])):
            lo = b
        if lo == i:
            break
        ht[lo], ht[i] = ht[i], ht[lo]
        hj[lo], hj[i] = hj[i], hj[lo]
        i = lo
    return n


@jit
def _bp(times, usage, k_n, t):
    """Breakpoint at ``t``: return (index, new count); the arrays have room for one more."""
    k = np.searchsorted(times[:k_n], t)
    if k < k_n and times[k] == t:
        return k, k_n
    for m in range(k_n, k, -1):
        times[m] = times[m - 1]
        usage[m] = usage[m - 1]
    times[k] = t
    usage[k] = usage[k - 1] if k > 0 else 0
    return k, k_n + 1


@jit
def _grow(times, usage, k_n, cap_k, spare):
    """Return ``(times, usage, capacity)``: the profile's arrays as they are while ``k_n +
    spare`` is below the capacity ``cap_k``, else copies of their ``k_n`` breakpoints in arrays
    of twice the capacity."""
    if k_n + spare < cap_k:
        return times, usage, cap_k
    cap_k *= 2
    nt = np.empty(cap_k)
    nu = np.zeros(cap_k, dtype=np.int64)
    nt[:k_n] = times[:k_n]
    nu[:k_n] = usage[:k_n]
    return nt, nu, cap_k


@jit
def _book(times, usage, k_n, now, a, b, delta):
    """Add ``delta`` processors to the profile's usage over ``[max(a, now), b)``, with
    breakpoints at both ends (:func:`_bp`); return ``(new count of breakpoints, whether the
    interval was non-empty)``: an interval that ends by ``now`` changes nothing."""
    a = a if a > now else now
    if b > a:
        ia, k_n = _bp(times, usage, k_n, a)
        ib, k_n = _bp(times, usage, k_n, b)
        for m in range(ia, ib):
            usage[m] += delta
        return k_n, True
    return k_n, False


@jit
def _earliest(times, usage, k_n, room, duration, limit, oa, ob, osz):
    """The earliest start before ``limit`` with ``room`` for ``duration``, the booking
    ``[oa, ob)`` of ``osz`` processors taken out (:func:`~gangviz.spacesharing.profile_kernel.earliest_fit`)."""
    ia = np.searchsorted(times[:k_n], oa)
    ib = np.searchsorted(times[:k_n], ob)
    return earliest_fit(times, usage, k_n, room, duration, limit, ia, ib, osz)


@jit
def _run(arrival, size, est, run, P, small_max):  # noqa: C901 - a compiled kernel: one event loop
    n = arrival.shape[0]
    start = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    first_res = np.full(n, np.nan)
    res = np.full(n, np.nan)
    start_of = np.zeros(n)
    ht = np.empty(n + 1)
    hj = np.empty(n + 1, dtype=np.int64)
    h_n = 0
    cap_k = 64
    times = np.empty(cap_k)
    usage = np.zeros(cap_k, dtype=np.int64)
    k_n = 1
    now = arrival[0] if n else 0.0
    times[0] = now
    queue = np.empty(n, dtype=np.int64)
    q_n = 0
    low = np.empty(cap_k, dtype=np.int64)
    tried = np.full(n, -1, dtype=np.int64)  # the release count when the job last failed to move
    releases = 0
    free = P
    nxt = 0
    t_prev = 0.0
    finished = 0
    n_small = 0
    n_large = 0
    lost = 0.0
    lost_small = 0.0
    lost_large = 0.0
    while finished < n:
        t_arr = arrival[nxt] if nxt < n else math.inf
        t_done = ht[0] if h_n else math.inf
        t = t_arr if t_arr < t_done else t_done
        if q_n and t > t_prev:
            amount = free * (t - t_prev)
            if n_small > 0 or n_large > 0:
                lost += amount
            if n_small > 0:
                lost_small += amount
            if n_large > 0:
                lost_large += amount
        t_prev = t
        # advance the profile
        if t > now:
            k = int(np.searchsorted(times[:k_n], t, side="right")) - 1
            if k > 0:
                for m in range(k, k_n):
                    times[m - k] = times[m]
                    usage[m - k] = usage[m]
                k_n -= k
            times[0] = t
            now = t
        # make sure two breakpoints and a job's worth of bookings fit
        times, usage, cap_k = _grow(times, usage, k_n, cap_k, 4)
        while h_n and ht[0] <= t:
            fin = ht[0]
            j = hj[0]
            h_n = _heap_pop(ht, hj, h_n)
            finish[j] = fin
            free += size[j]
            finished += 1
            k_n, released = _book(times, usage, k_n, now, t, start_of[j] + est[j], -size[j])
            if released:
                releases += 1
            times, usage, cap_k = _grow(times, usage, k_n, cap_k, 4)
        while nxt < n and arrival[nxt] <= t:
            queue[q_n] = nxt
            q_n += 1
            if size[nxt] <= small_max:
                n_small += 1
            else:
                n_large += 1
            nxt += 1
        # Drop the breakpoints where the usage does not change (released bookings leave them):
        # a job's earliest start is never such a point (the segment before it has the same room
        # and an earlier window ends sooner), so the answers stay the same and every scan of the
        # profile gets shorter.
        kept = 1
        for m in range(1, k_n):
            if usage[m] != usage[kept - 1]:
                times[kept] = times[m]
                usage[kept] = usage[m]
                kept += 1
        k_n = kept
        w = 0
        # low[m] = min(usage[0..m]), rebuilt only after the profile changed: most waiting jobs
        # cannot start before their reservation, and this answers that without a scan
        low_ok = False
        for r in range(q_n):
            j = queue[r]
            e = est[j]
            sz = size[j]
            room = P - sz
            old = res[j]
            times, usage, cap_k = _grow(times, usage, k_n, cap_k, 6)
            if low.shape[0] < cap_k:
                low = np.empty(cap_k, dtype=np.int64)
                low_ok = False
            if math.isnan(old):
                when = _earliest(times, usage, k_n, room, e, math.inf, math.inf, math.inf, 0)
                k_n, booked = _book(times, usage, k_n, now, when, when + e, sz)
                if booked:
                    low_ok = False
            else:
                move = False
                # Since this job last failed to move, the profile has only gained bookings
                # and lost its past unless something was released: it still cannot move.
                if old > t and tried[j] != releases:
                    kk = np.searchsorted(times[:k_n], old)
                    if kk > 0:
                        if not low_ok:
                            cur = usage[0]
                            for m in range(k_n):
                                if usage[m] < cur:
                                    cur = usage[m]
                                low[m] = cur
                            low_ok = True
                        move = low[kk - 1] <= room
                when = old
                if old > t and not move:
                    tried[j] = releases
                if move:
                    cand = _earliest(times, usage, k_n, room, e, old, old, old + e, sz)
                    if cand < old:
                        when = cand
                        low_ok = False
                        k_n, released = _book(times, usage, k_n, now, old, old + e, -sz)
                        if released:
                            releases += 1
                        k_n, _ = _book(times, usage, k_n, now, when, when + e, sz)
            if when <= t:
                free -= sz
                start_of[j] = t
                start[j] = t
                h_n = _heap_push(ht, hj, h_n, t + run[j], j)
                res[j] = np.nan
                if sz <= small_max:
                    n_small -= 1
                else:
                    n_large -= 1
            else:
                if when == old and move:
                    tried[j] = releases  # _earliest found nothing before old
                res[j] = when
                if math.isnan(first_res[j]):
                    first_res[j] = when
                queue[w] = j
                w += 1
        q_n = w
    return start, finish, first_res, lost, lost_small, lost_large, t_prev


def conservative_compiled(
    arrival: Sequence[float], size: Sequence[int], est: Sequence[float], run: Sequence[float],
    processors: int, small_max: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
           tuple[float, float, float], float]:
    """Run conservative backfilling on jobs in priority order (lists of arrival, size, estimate,
    run time); return ``(start, finish, first reservation, (lost, lost_small, lost_large), end)``
    with ``nan`` for no reservation."""
    out = _run(np.asarray(arrival, dtype=np.float64), np.asarray(size, dtype=np.int64),
               np.asarray(est, dtype=np.float64), np.asarray(run, dtype=np.float64),
               int(processors), int(small_max))
    start, finish, first_res, l0, l1, l2, end = out
    return start, finish, first_res, (l0, l1, l2), end
