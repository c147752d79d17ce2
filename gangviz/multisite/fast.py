"""Fast headless runner of the multi-site model: metrics only, no change records.

Source: Papazachos09 §2-§4. The rules are those of :mod:`gangviz.multisite.policy`
and :class:`gangviz.multisite.simulation.MultiSiteSimulation` (same workload stream, same event
order, same tie-breaks), so for one seed :func:`run_fast` returns bit-identical metrics; a test
checks it. What differs is bookkeeping only:

* queues hold gang ids (siblings never share a queue), processors hold -1 (available) or the
  gang running on / reserved for them;
* AFCFS examines only the gangs a change can have unblocked: the arriving gang, or the gangs
  waiting in the queues of the processors a completion frees (a pass leaves no startable gang
  behind, and migrations only take processors away);
* a migrating gang's completion is scheduled at once (start = decision time + overhead), since
  the end of a migration triggers no scheduling pass in either simulator;
* aging keeps, per queue, the number of waiting tasks already bypassed ``aging_k`` times.

The loop keeps the gangs in the order they complete; their metrics are summed by
:func:`gangviz.multisite.kernel.completion_sums`, the compiled loop's own sums, so the two loops
differ in their scheduling only.
"""

from __future__ import annotations

from collections import deque
from heapq import heappop, heappush

import numpy as np

from gangviz.metrics.multisite import Metrics, from_sums
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.workload import GangStream


# One function on purpose: the hot loop keeps its state in locals; calls per event would cost
# more than the whole bookkeeping.
def run_fast(cfg: MultiSiteConfig, seed: int | np.random.SeedSequence, n_gangs: int) -> Metrics:  # noqa: C901
    """Simulate until ``n_gangs`` gangs have completed; return their RT, WRT, SLD, WSLD.

    ``seed`` seeds the workload stream (int or numpy SeedSequence). Raises ValueError when
    ``n_gangs`` is not a positive integer.
    """
    if isinstance(n_gangs, bool) or not isinstance(n_gangs, int) or n_gangs < 1:
        raise ValueError(f"n_gangs must be a positive integer, got {n_gangs!r}")
    S, P = cfg.sites, cfg.procs
    NP = S * P
    migrate = cfg.migrate
    k = cfg.aging_k
    local_ov, grid_ov = cfg.local_overhead, cfg.grid_overhead
    stream = GangStream(cfg, seed)
    stream.extend()
    arr, size, svc, gsite = stream.arrival, stream.size, stream.service, stream.site

    overtake = cfg.afcfs_overtake
    queues: list[deque[int]] = [deque() for _ in range(NP)]
    state = [-1] * NP
    procs: list[list[int]] = []
    nsat = [0] * NP
    byp: dict[int, int] = {}
    heap: list[tuple[float, int, int]] = []
    site_ranges = [range(s * P, s * P + P) for s in range(S)]
    locals_ = range(P)

    done = 0
    done_gang: list[int] = []  # the gangs in completion order, and when
    done_time: list[float] = []
    nxt = 0
    t_next = arr[0]

    def usable(g: int) -> int:
        """Return how many of g's waiting tasks could run where they are."""
        if overtake:
            return sum(1 for p in procs[g] if state[p] < 0)
        return sum(1 for p in procs[g] if state[p] < 0 and queues[p][0] == g)

    def take(g: int, p: int) -> None:
        q = queues[p]
        if q[0] == g:
            q.popleft()
        else:
            q.remove(g)
        if migrate and byp.pop(g * NP + p, 0) >= k:
            nsat[p] -= 1

    def start(g: int, t: float) -> None:
        for p in procs[g]:
            take(g, p)
            state[p] = g
        heappush(heap, (t + svc[g], 0, g))

    def move(g: int, targets: list[int], t_start: float) -> None:
        pl = procs[g]
        new = list(pl)
        ti = 0
        for i, p in enumerate(pl):
            if not (state[p] < 0 and (overtake or queues[p][0] == g)):
                dst = targets[ti]
                ti += 1
                for h in queues[dst]:
                    key = h * NP + dst
                    c = byp.get(key, 0) + 1
                    byp[key] = c
                    if c == k:
                        nsat[dst] += 1
                new[i] = dst
            take(g, p)
        for p in new:
            state[p] = g
        procs[g] = new
        heappush(heap, (t_start + svc[g], 0, g))

    while done < n_gangs:
        if heap and heap[0][0] <= t_next:
            t, _, g = heappop(heap)
            pl = procs[g]
            for p in pl:
                state[p] = -1
            cands: set[int] = set()
            for p in pl:
                q = queues[p]
                if q:
                    if overtake:
                        cands.update(q)
                    else:
                        cands.add(q[0])
            if cands:
                for h in sorted(cands):
                    if usable(h) == size[h]:
                        start(h, t)
            done_gang.append(g)
            done_time.append(t)
            done += 1
        else:
            t = t_next
            g = nxt
            nxt += 1
            if nxt >= len(arr):
                stream.extend()
            t_next = arr[nxt]
            n = size[g]
            base = gsite[g] * P
            lens = [len(queues[base + i]) + (state[base + i] >= 0) for i in locals_]
            pl = [base + i for i in sorted(locals_, key=lens.__getitem__)[:n]]
            for p in pl:
                queues[p].append(g)
            procs.append(pl)
            if usable(g) == n:
                start(g, t)
        if not migrate:
            continue
        # Local migration, site by site (policy.local_migration).
        for rng in site_ranges:
            while True:
                avail = [p for p in rng if state[p] < 0]
                if not avail:
                    break
                heads = sorted({queues[p][0] for p in avail if queues[p]})
                best = -1
                bm = 0
                bt: list[int] = []
                na = len(avail)
                for g in heads:
                    h = usable(g)
                    m = size[g] - h
                    if best >= 0 and m >= bm:
                        continue
                    if m > na - h:
                        continue
                    gp = procs[g]
                    tg = [p for p in avail if not nsat[p] and p not in gp]
                    if len(tg) >= m:
                        best, bm, bt = g, m, tg
                if best < 0:
                    break
                bt.sort(key=lambda p: len(queues[p]))
                move(best, bt[:bm], t + local_ov)
        # Grid migration from each site (policy.grid_migration).
        for si, rng in enumerate(site_ranges):
            while True:
                heads = sorted({queues[p][0] for p in rng if state[p] < 0 and queues[p]})
                if not heads:
                    break
                bt = []
                for so, orng in enumerate(site_ranges):
                    if so != si:
                        tg = [p for p in orng if state[p] < 0 and not nsat[p]]
                        if len(tg) > len(bt):
                            bt = tg
                nb = len(bt)
                best = -1
                bm = 0
                for g in heads:
                    m = size[g] - usable(g)
                    if m <= nb and (best < 0 or m < bm):
                        best, bm = g, m
                if best < 0:
                    break
                bt.sort(key=lambda p: len(queues[p]))
                move(best, bt[:bm], t + grid_ov)
    from gangviz.multisite.kernel import completion_sums

    sums = completion_sums(np.asarray(done_gang, np.int64), np.asarray(done_time, np.float64),
                           np.asarray(arr, np.float64), np.asarray(size, np.int64),
                           np.asarray(svc, np.float64))
    return from_sums(done, *sums)
