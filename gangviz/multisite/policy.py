"""AFCFS and AFCFS with migration (AFCFSwM) as planners over a :class:`MultiSiteState`.

Source: Papazachos09 §3.2 (Adapted FCFS) and §3.3 (migration). The planners emit
change records and apply each one at once, so a later decision sees the earlier ones. The fast
runner (:mod:`gangviz.multisite.fast`) implements exactly the same rules without records; a
test checks that both give identical metrics.

Rules, with the choices made where the paper is open. A task is *usable* when its processor is
available (idle and unreserved) and, under strict FIFO (``cfg.afcfs_overtake`` False), it is at
the head of that processor's queue; with overtaking (the default, the paper's wording of AFCFS)
any waiting position will do.

* **AFCFS** (§3.2): gangs are examined in arrival (gang-id) order; a gang whose tasks are all
  usable starts, and blocked gangs are passed over.
* A *scheduling pass* runs after every arrival and every completion, not when a migration
  ends (that frees nothing): AFCFS at every site, then (AFCFSwM) local migration at each site
  in site order, then grid migration from each site in site order.
* **Local migration** (§3.3): candidates are gangs with at least one task at the head of an
  available processor's queue of the site. A candidate keeps its h usable tasks where they are
  and needs m = size - h migrations. Targets are the other available processors of the site
  whose queue holds no task of the gang (siblings never share a queue, §3.1) and is not closed
  by aging. A gang is feasible when it has at least m targets (hence size <= available
  processors, the paper's exclusion rule). The feasible gang with the fewest migrations goes
  first (tie: lower gang id, i.e. earlier arrival); then the candidates are re-examined until
  none is feasible.
* **Grid migration** (§3.3): the same candidates at a site; the h usable tasks stay, and the
  other m = size - h tasks move to available processors of one other site, which must have at
  least m targets open under aging. The target site is the one with the most such processors
  (tie: lower site index); the gang with the fewest migrations goes first (tie: lower gang id).
  Grid and local migration are not mixed within one gang.
* Targets are taken shortest queue first (empty queues first, so as few tasks as possible are
  bypassed; tie: lower processor index); the moving tasks are taken in task order. A migrating
  gang's processors, including those its staying tasks hold, are reserved at once; the gang
  starts when the overhead (0.05 local, 0.1 grid; all moves run in parallel) has elapsed.
* **Aging** (§3.3, §4.2): a migrated task put at the head of a queue bypasses every task
  waiting there; a queue is closed to migrations while one of its tasks has been bypassed
  ``aging_k`` (= 3) times. Overtaking by AFCFS or by a staying task is not a bypass (Table 1:
  k counts "tasks which migrate to the same queue").
"""

from __future__ import annotations

from collections.abc import Callable

from gangviz.core.record import Change
from gangviz.multisite.changes import GangStarted, TaskMigrated, TaskReserved
from gangviz.multisite.state import MultiSiteState

Emit = Callable[[Change], None]


def _available(state: MultiSiteState, site: int) -> list[int]:
    return [g for g in state.site_procs(site) if state.is_idle(g)]


def _heads(state: MultiSiteState, avail: list[int]) -> list[int]:
    return sorted({state.queues[g][0][0] for g in avail if state.queues[g]})


def _locate(state: MultiSiteState, site: int, gang: int) -> list[tuple[int, int, int]]:
    """Return the waiting tasks of ``gang`` at ``site`` as (task, processor, index), task order."""
    out = []
    for g in state.site_procs(site):
        for idx, (gg, task) in enumerate(state.queues[g]):
            if gg == gang:
                out.append((task, g, idx))
                break
    out.sort()
    return out


def _usable(state: MultiSiteState, g: int, idx: int) -> bool:
    return state.is_idle(g) and (idx == 0 or state.cfg.afcfs_overtake)


def afcfs(state: MultiSiteState, time: float, emit: Emit) -> list[int]:
    """Start every gang whose tasks are all usable (§3.2), in gang-id order; return their ids."""
    started = []
    P = state.cfg.procs
    for site in range(state.cfg.sites):
        waiting = sorted({t[0] for g in state.site_procs(site) for t in state.queues[g]})
        for gang in waiting:
            tasks = _locate(state, site, gang)
            if len(tasks) == state.gangs[gang].size and all(_usable(state, g, i) for _, g, i in tasks):
                emit(GangStarted(gang, time, tuple((t, g // P, g % P) for t, g, _ in tasks),
                                 indices=tuple(i for _, _, i in tasks)))
                started.append(gang)
    return started


def _targets(state: MultiSiteState, candidates: list[int], gang: int | None) -> list[int]:
    out = [g for g in candidates if not state.aging_blocked(g)
           and (gang is None or all(t[0] != gang for t in state.queues[g]))]
    out.sort(key=lambda g: (len(state.queues[g]), g))
    return out


def _migrate(state: MultiSiteState, site: int, gang: int, targets: list[int], overhead: float,
             emit: Emit) -> None:
    P = state.cfg.procs
    tasks = _locate(state, site, gang)
    stay = [(t, g, i) for t, g, i in tasks if _usable(state, g, i)]
    move = [(t, g, i) for t, g, i in tasks if not _usable(state, g, i)]
    for (task, src, idx), dst in zip(move, targets, strict=True):
        emit(TaskMigrated(gang, task, src // P, src % P, idx, dst // P, dst % P, overhead,
                          tuple(state.queues[dst])))
    for task, g, idx in stay:
        emit(TaskReserved(gang, task, g // P, g % P, idx))


def _usable_count(state: MultiSiteState, site: int, gang: int) -> int:
    return sum(1 for _, g, i in _locate(state, site, gang) if _usable(state, g, i))


def local_migration(state: MultiSiteState, site: int, emit: Emit) -> list[tuple[int, float]]:
    """Run the local-migration loop at ``site`` (§3.3); return [(gang, overhead)] in order."""
    done: list[tuple[int, float]] = []
    while True:
        avail = _available(state, site)
        best = None
        for gang in _heads(state, avail):
            h = _usable_count(state, site, gang)
            m = state.gangs[gang].size - h
            if best is not None and m >= best[0]:
                continue
            if m > len(avail) - h:
                continue
            targets = _targets(state, avail, gang)
            if len(targets) >= m:
                best = (m, gang, targets[:m])
        if best is None:
            return done
        _, gang, targets = best
        ov = state.cfg.local_overhead
        _migrate(state, site, gang, targets, ov, emit)
        done.append((gang, ov))


def grid_migration(state: MultiSiteState, site: int, emit: Emit) -> list[tuple[int, float]]:
    """Run the grid-migration loop from ``site`` (§3.3); return [(gang, overhead)] in order."""
    done: list[tuple[int, float]] = []
    while True:
        heads = _heads(state, _available(state, site))
        if not heads:
            return done
        best_targets: list[int] = []
        for other in range(state.cfg.sites):
            if other != site:
                targets = _targets(state, _available(state, other), None)
                if len(targets) > len(best_targets):
                    best_targets = targets
        best = None
        for gang in heads:
            m = state.gangs[gang].size - _usable_count(state, site, gang)
            if m <= len(best_targets) and (best is None or m < best[0]):
                best = (m, gang)
        if best is None:
            return done
        m, gang = best
        ov = state.cfg.grid_overhead
        _migrate(state, site, gang, best_targets[:m], ov, emit)
        done.append((gang, ov))
