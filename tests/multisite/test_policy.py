"""Hand-made situations for AFCFS, local and grid migration and aging
(Papazachos09 §3.2, §3.3)."""

import pytest

from gangviz.multisite import policy
from gangviz.multisite.changes import GangStarted, TaskMigrated, TaskReserved
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.dispatch import jsq
from gangviz.multisite.state import GangInfo, MultiSiteState


def _state(sites, procs, gangs, queues, running=(), **kw):
    st = MultiSiteState(MultiSiteConfig(sites=sites, procs=procs, migrate=True, **kw))
    for gid, size, site in gangs:
        st.gangs[gid] = GangInfo(gid, size, site, 0.0, 1.0)
    for p, q in queues.items():
        st.queues[p] = list(q)
    for p, t in running:
        st.running[p] = t
    return st


def _collect(state):
    out = []

    def emit(c):
        c.apply(state)
        out.append(c)
    return out, emit


def test_jsq_picks_shortest_distinct_queues_lowest_index_on_ties():
    assert jsq([2, 0, 1, 0, 3], 3) == [1, 3, 2]
    assert jsq([1, 1, 1], 2) == [0, 1]
    with pytest.raises(ValueError, match="does not fit 3 processors"):
        jsq([0, 0, 0], 4)


def test_afcfs_overtakes_a_blocked_gang_but_strict_fifo_does_not():
    # P1 runs G0; G1 waits at P1 and P2 (blocked by P1); G2 waits behind G1 at P2 and at P3.
    queues = {0: [(1, 0)], 1: [(1, 1), (2, 0)], 2: [(2, 1)]}
    gangs = [(0, 1, 0), (1, 2, 0), (2, 2, 0)]
    st = _state(1, 3, gangs, queues, running=[(0, (0, 0))])
    out, emit = _collect(st)
    assert policy.afcfs(st, 1.0, emit) == [2]
    assert out == [GangStarted(2, 1.0, ((0, 0, 1), (1, 0, 2)), indices=(1, 0))]
    st = _state(1, 3, gangs, queues, running=[(0, (0, 0))], afcfs_overtake=False)
    assert policy.afcfs(st, 1.0, _collect(st)[1]) == []


def test_local_migration_takes_the_gang_needing_fewest_migrations_first():
    # Site of 5: G0 runs on P1, P2. G2 (3 tasks) heads idle P5, two tasks behind busy P1, P2
    # -> 2 moves. G9 (2 tasks) heads idle P4, one task behind busy P2 -> 1 move: it goes first
    # although it arrived later, to the empty P3 (shortest queue), not to P5.
    queues = {0: [(2, 0)], 1: [(2, 1), (9, 0)], 3: [(9, 1)], 4: [(2, 2)]}
    st = _state(1, 5, [(0, 2, 0), (2, 3, 0), (9, 2, 0)], queues,
                running=[(0, (0, 0)), (1, (0, 1))])
    out, emit = _collect(st)
    moved = policy.local_migration(st, 0, emit)
    assert moved == [(9, 0.05)]
    assert out == [TaskMigrated(9, 0, 0, 1, 1, 0, 2, 0.05, ()), TaskReserved(9, 1, 0, 3, 0)]
    assert st.reserved[2] == (9, 0) and st.reserved[3] == (9, 1)
    # G2 would now need 2 targets but only its own P5 is available: it keeps waiting.
    assert st.queues[4] == [(2, 2)] and st.reserved[4] is None


def test_grid_migration_uses_idle_processors_of_the_other_site():
    # Site 1 (procs 0..2): P1, P2 busy; G5 (3 tasks) heads idle P3, two tasks behind busy ones.
    # Site 2 (procs 3..5): all idle, P5 has a waiting task of G6 (which gets bypassed).
    queues = {0: [(5, 0)], 1: [(5, 1)], 2: [(5, 2)], 4: [(6, 0)]}
    st = _state(2, 3, [(0, 2, 0), (5, 3, 0), (6, 2, 1)], queues,
                running=[(0, (0, 0)), (1, (0, 1))])
    out, emit = _collect(st)
    assert policy.local_migration(st, 0, emit) == []
    assert policy.grid_migration(st, 0, emit) == [(5, 0.1)]
    migs = [c for c in out if isinstance(c, TaskMigrated)]
    assert [(c.task, c.dst_site, c.dst_proc) for c in migs] == [(0, 1, 0), (1, 1, 2)]
    assert migs[0].describe().startswith("G5.1 migrates to site 2, P1 (overhead 0.1 slices)")
    assert all(c.is_grid for c in migs)
    assert st.reserved[2] == (5, 2)


def test_aging_closes_a_queue_whose_task_was_bypassed_k_times():
    # P1 busy; G1 heads idle P3, G7 heads idle P2; each has a second task behind busy P1 and
    # could take the other's idle processor, but both waiting tasks were bypassed k = 2 times.
    queues = {0: [(1, 0), (7, 1)], 2: [(1, 1)], 1: [(7, 0)]}
    st = _state(1, 3, [(0, 1, 0), (1, 2, 0), (7, 2, 0)], queues, running=[(0, (0, 0))], aging_k=2)
    st.bypass[(7, 0)] = 2
    st.bypass[(1, 1)] = 2
    assert st.aging_blocked(1) and st.aging_blocked(2)
    out, emit = _collect(st)
    assert policy.local_migration(st, 0, emit) == []
    st.bypass[(7, 0)] = 1
    assert policy.local_migration(st, 0, emit) == [(1, 0.05)]
    assert st.bypass[(7, 0)] == 2
