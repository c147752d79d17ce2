"""The multi-site model's headless loop, compiled (numba): metrics only, no change records.

Source: Papazachos09 §2-§4. Every rule, event order and tie-break is that of
:func:`gangviz.multisite.fast.run_fast`, the reference loop in plain Python, and both return
bit-identical metrics for one seed (a hypothesis test compares them over random
configurations). What differs is bookkeeping only:

* a task is a node ``offset[g] + i`` (task ``i`` of gang ``g``); each processor's queue is a
  doubly linked list of nodes, so appending and taking a task out of the middle cost O(1);
* ``usable[g]``, the number of ``g``'s waiting tasks that could run where they are, is kept up to
  date as processors change state and queues change heads, instead of being recounted for every
  candidate gang at every event;
* completions wait in a binary heap keyed by (time, gang): gangs are pushed once, so the pop
  order is the reference's whatever the heap's layout;
* the bypass counts of aging are per node.

All the compiled functions live in this one module but the short sort they share with the
other loops (:mod:`gangviz.sort_kernel`), by which their cache entries are keyed too
(:func:`gangviz.jitcache.cached_with`): numba's on-disk cache is keyed by source file, and a
function cached with another module's functions compiled into it would otherwise not be
recompiled when only that other module changes.
"""

from __future__ import annotations

import numpy as np

from gangviz import sort_kernel
from gangviz.jitcache import cached_with
from gangviz.sort_kernel import insertion_sort

jit = cached_with(sort_kernel)

#: The loop stopped because it needs gangs beyond the arrays it was given.
NEED_MORE = 1


@jit
def _set_free(p, state, qhead, nnext, ngang, usable, overtake):
    """Make processor ``p`` available: the gangs its queue lets run there gain one usable task."""
    state[p] = -1
    node = qhead[p]
    if overtake:
        while node >= 0:
            usable[ngang[node]] += 1
            node = nnext[node]
    elif node >= 0:
        usable[ngang[node]] += 1


@jit
def _set_busy(p, g, state, qhead, nnext, ngang, usable, overtake):
    """Give processor ``p`` to gang ``g`` (running or reserved); undo ``_set_free``'s counts."""
    if state[p] < 0:
        node = qhead[p]
        if overtake:
            while node >= 0:
                usable[ngang[node]] -= 1
                node = nnext[node]
        elif node >= 0:
            usable[ngang[node]] -= 1
    state[p] = g


@jit
def _append(p, node, state, qhead, qtail, qlen, nnext, nprev, ngang, usable, overtake):
    """Put ``node`` at the tail of ``p``'s queue."""
    tail = qtail[p]
    if tail >= 0:
        nnext[tail] = node
    else:
        qhead[p] = node
    nprev[node] = tail
    nnext[node] = -1
    qtail[p] = node
    qlen[p] += 1
    if state[p] < 0 and (overtake or tail < 0):
        usable[ngang[node]] += 1


@jit
def _unlink(p, node, state, qhead, qtail, qlen, nnext, nprev, ngang, usable, overtake):
    """Take ``node`` out of ``p``'s queue; under strict FIFO a new head at an idle ``p`` gains."""
    a, b = nprev[node], nnext[node]
    if a >= 0:
        nnext[a] = b
    else:
        qhead[p] = b
        if not overtake and b >= 0 and state[p] < 0:
            usable[ngang[b]] += 1
    if b >= 0:
        nprev[b] = a
    else:
        qtail[p] = a
    qlen[p] -= 1


@jit
def _precedes(ta, ga, tb, gb):
    """Return True when heap entry ``(ta, ga)`` comes strictly before ``(tb, gb)``: earlier
    time, ties to the lower gang."""
    return ta < tb or (ta == tb and ga < gb)


@jit
def _heap_push(ht, hg, n, t, g):
    """Push ``(t, g)`` on the heap of ``n`` entries; return the new size."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if _precedes(ht[parent], hg[parent], t, g):
            break
        ht[i], hg[i] = ht[parent], hg[parent]
        i = parent
    ht[i], hg[i] = t, g
    return n + 1


@jit
def _heap_pop(ht, hg, n):
    """Remove the least ``(t, g)`` of the heap of ``n`` entries (the caller read it at 0)."""
    n -= 1
    t, g = ht[n], hg[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _precedes(ht[c + 1], hg[c + 1], ht[c], hg[c]):
            c += 1
        if _precedes(t, g, ht[c], hg[c]):
            break
        ht[i], hg[i] = ht[c], hg[c]
        i = c
    ht[i], hg[i] = t, g
    return n


@jit
def _sort_by_key(a, n, key):
    """Sort ``a[:n]`` by ``key[a[i]]`` in place, stably (equal keys keep their order)."""
    for i in range(1, n):
        v = a[i]
        kv = key[v]
        j = i - 1
        while j >= 0 and key[a[j]] > kv:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@jit
def completion_sums(done_gang, done_time, arr, size, svc):
    """Return the sums the metrics of Papazachos09 §4.1 are made of,
    ``(sum RT, sum n*RT, sum SLD, sum n*SLD, sum n)``, over the gangs that completed: gang
    ``done_gang[i]`` at ``done_time[i]``, summed in that (completion) order. Both headless loops
    (:func:`run_loop` and :func:`gangviz.multisite.fast.run_fast`) make their figures here."""
    sr = 0.0
    spr = 0.0
    ss = 0.0
    sps = 0.0
    sp = 0
    for i in range(done_gang.shape[0]):
        g = done_gang[i]
        n = size[g]
        r = done_time[i] - arr[g]
        s_ = r / svc[g]
        sr += r
        spr += n * r
        ss += s_
        sps += n * s_
        sp += n
    return sr, spr, ss, sps, sp


@jit
def run_loop(arr, size, svc, site, sites, procs, migrate, k, local_ov, grid_ov,  # noqa: C901
             overtake, n_gangs):
    """Simulate until ``n_gangs`` gangs have completed, reading gangs from the four arrays.

    Returns ``(status, done, sum RT, sum n*RT, sum SLD, sum n*SLD, sum n)``; ``status`` is
    :data:`NEED_MORE` (the other figures meaningless) when the arrays ran out before the
    ``n_gangs``-th completion, else 0.
    """
    S, P = sites, procs
    NP = S * P
    L = arr.shape[0]
    offset = np.zeros(L + 1, np.int64)
    for g in range(L):
        offset[g + 1] = offset[g] + size[g]
    n_nodes = offset[L]
    nnext = np.full(n_nodes, -1, np.int64)
    nprev = np.full(n_nodes, -1, np.int64)
    ngang = np.empty(n_nodes, np.int64)
    nproc = np.full(n_nodes, -1, np.int64)
    byp = np.zeros(n_nodes, np.int64)
    for g in range(L):
        for node in range(offset[g], offset[g + 1]):
            ngang[node] = g
    usable = np.zeros(L, np.int64)
    qhead = np.full(NP, -1, np.int64)
    qtail = np.full(NP, -1, np.int64)
    qlen = np.zeros(NP, np.int64)
    state = np.full(NP, -1, np.int64)
    nsat = np.zeros(NP, np.int64)
    ht = np.empty(NP + 1, np.float64)
    hg = np.empty(NP + 1, np.int64)
    hn = 0
    # scratch
    seen = np.zeros(L, np.int64)  # stamp of the last candidate list a gang entered
    stamp = 0
    cand = np.empty(max(L, NP), np.int64)
    lens = np.empty(P, np.int64)
    order = np.empty(P, np.int64)
    avail = np.empty(P, np.int64)
    tg = np.empty(P, np.int64)
    bt = np.empty(P, np.int64)
    newp = np.empty(P, np.int64)
    mark = np.zeros(NP, np.int64)
    mstamp = 0

    done = 0
    done_gang = np.empty(n_gangs, np.int64)  # the gangs in completion order, and when
    done_time = np.empty(n_gangs, np.float64)
    nxt = 0
    t_next = arr[0]
    t = 0.0

    while done < n_gangs:
        if hn > 0 and ht[0] <= t_next:
            t = ht[0]
            g = hg[0]
            hn = _heap_pop(ht, hg, hn)
            for node in range(offset[g], offset[g + 1]):
                _set_free(nproc[node], state, qhead, nnext, ngang, usable, overtake)
            # candidates: gangs waiting at the freed processors that can now start (starts
            # only take processors, so a gang not startable now cannot become so below)
            stamp += 1
            nc = 0
            for node in range(offset[g], offset[g + 1]):
                q = qhead[nproc[node]]
                while q >= 0:
                    h = ngang[q]
                    if seen[h] != stamp:
                        seen[h] = stamp
                        if usable[h] == size[h]:
                            cand[nc] = h
                            nc += 1
                    if not overtake:
                        break
                    q = nnext[q]
            insertion_sort(cand, nc)
            for ci in range(nc):
                h = cand[ci]
                if usable[h] == size[h]:
                    hn = _start(h, t, offset, nproc, state, qhead, qtail, qlen, nnext, nprev, ngang, usable,
                                overtake, migrate, byp, nsat, k, svc, ht, hg, hn)
            done_gang[done] = g
            done_time[done] = t
            done += 1
        else:
            t = t_next
            g = nxt
            nxt += 1
            if nxt >= L:
                return NEED_MORE, 0, 0.0, 0.0, 0.0, 0.0, 0
            t_next = arr[nxt]
            n = size[g]
            base = site[g] * P
            for i in range(P):
                lens[i] = qlen[base + i] + (1 if state[base + i] >= 0 else 0)
                order[i] = i
            _sort_by_key(order, P, lens)
            for i in range(n):
                node = offset[g] + i
                p = base + order[i]
                nproc[node] = p
                _append(p, node, state, qhead, qtail, qlen, nnext, nprev, ngang, usable, overtake)
            if usable[g] == n:
                hn = _start(g, t, offset, nproc, state, qhead, qtail, qlen, nnext, nprev, ngang, usable,
                            overtake, migrate, byp, nsat, k, svc, ht, hg, hn)
        if not migrate:
            continue
        # Local migration, site by site (policy.local_migration).
        for s in range(S):
            lo = s * P
            while True:
                na = 0
                for p in range(lo, lo + P):
                    if state[p] < 0:
                        avail[na] = p
                        na += 1
                if na == 0:
                    break
                stamp += 1
                nh = 0
                for i in range(na):
                    q = qhead[avail[i]]
                    if q >= 0:
                        h = ngang[q]
                        if seen[h] != stamp:
                            seen[h] = stamp
                            cand[nh] = h
                            nh += 1
                insertion_sort(cand, nh)
                best = -1
                bm = 0
                nbt = 0
                for ci in range(nh):
                    h = cand[ci]
                    u = usable[h]
                    m = size[h] - u
                    if best >= 0 and m >= bm:
                        continue
                    if m > na - u:
                        continue
                    mstamp += 1
                    for node in range(offset[h], offset[h + 1]):
                        mark[nproc[node]] = mstamp
                    ntg = 0
                    for i in range(na):
                        p = avail[i]
                        if nsat[p] == 0 and mark[p] != mstamp:
                            tg[ntg] = p
                            ntg += 1
                    if ntg >= m:
                        best, bm, nbt = h, m, ntg
                        bt[:ntg] = tg[:ntg]
                if best < 0:
                    break
                hn = _move(best, bt, nbt, t + local_ov, offset, nproc, state, qhead, qtail, qlen,
                           nnext, nprev, ngang, usable, overtake, byp, nsat, k, NP, newp, svc,
                           ht, hg, hn)
        # Grid migration from each site (policy.grid_migration).
        for si in range(S):
            lo = si * P
            while True:
                stamp += 1
                nh = 0
                for p in range(lo, lo + P):
                    q = qhead[p]
                    if state[p] < 0 and q >= 0:
                        h = ngang[q]
                        if seen[h] != stamp:
                            seen[h] = stamp
                            cand[nh] = h
                            nh += 1
                if nh == 0:
                    break
                insertion_sort(cand, nh)
                nbt = 0
                for so in range(S):
                    if so == si:
                        continue
                    ntg = 0
                    for p in range(so * P, so * P + P):
                        if state[p] < 0 and nsat[p] == 0:
                            tg[ntg] = p
                            ntg += 1
                    if ntg > nbt:
                        nbt = ntg
                        bt[:ntg] = tg[:ntg]
                best = -1
                bm = 0
                for ci in range(nh):
                    h = cand[ci]
                    m = size[h] - usable[h]
                    if m <= nbt and (best < 0 or m < bm):
                        best, bm = h, m
                if best < 0:
                    break
                hn = _move(best, bt, nbt, t + grid_ov, offset, nproc, state, qhead, qtail, qlen,
                           nnext, nprev, ngang, usable, overtake, byp, nsat, k, NP, newp, svc,
                           ht, hg, hn)
    sr, spr, ss, sps, sp = completion_sums(done_gang, done_time, arr, size, svc)
    return 0, done, sr, spr, ss, sps, sp


@jit
def _start(g, t, offset, nproc, state, qhead, qtail, qlen, nnext, nprev, ngang, usable, overtake, migrate,
           byp, nsat, k, svc, ht, hg, hn):
    """Start gang ``g`` at ``t`` where its tasks are queued: each task leaves its queue (with
    migration on, its bypass count is cleared) and takes its processor; its completion is
    pushed at ``t`` + service. Returns the heap's new size."""
    for node in range(offset[g], offset[g + 1]):
        p = nproc[node]
        _unlink(p, node, state, qhead, qtail, qlen, nnext, nprev, ngang, usable, overtake)
        if migrate:
            if byp[node] >= k:
                nsat[p] -= 1
            byp[node] = 0
        _set_busy(p, g, state, qhead, nnext, ngang, usable, overtake)
    return _heap_push(ht, hg, hn, t + svc[g], g)


@jit
def _move(g, targets, n_targets, t_start, offset, nproc, state, qhead, qtail, qlen, nnext, nprev, ngang,
          usable, overtake, byp, nsat, k, NP, newp, svc, ht, hg, hn):
    """Migrate gang ``g``: each task that cannot run where it is goes to the next of the first
    ``n_targets`` of ``targets``, shortest queue first (whose waiting tasks are bypassed once
    more), every task leaves its queue, and the gang's processors are reserved; its completion
    is pushed at ``t_start`` + service. Returns the heap's new size."""
    _sort_by_key(targets, n_targets, qlen)
    ti = 0
    lo = offset[g]
    for node in range(lo, offset[g + 1]):
        p = nproc[node]
        if not (state[p] < 0 and (overtake or qhead[p] == node)):
            dst = targets[ti]
            ti += 1
            q = qhead[dst]
            while q >= 0:
                byp[q] += 1
                if byp[q] == k:
                    nsat[dst] += 1
                q = nnext[q]
            newp[node - lo] = dst
        else:
            newp[node - lo] = p
        _unlink(p, node, state, qhead, qtail, qlen, nnext, nprev, ngang, usable, overtake)
        if byp[node] >= k:
            nsat[p] -= 1
        byp[node] = 0
    for node in range(lo, offset[g + 1]):
        p = newp[node - lo]
        nproc[node] = p
        _set_busy(p, g, state, qhead, nnext, ngang, usable, overtake)
    return _heap_push(ht, hg, hn, t_start + svc[g], g)
