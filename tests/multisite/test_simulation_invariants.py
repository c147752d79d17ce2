"""Property tests of the multi-site model (Papazachos09 §3): the invariants of the
issue, checked after every step of random small runs of the step-able simulation."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.multisite.changes import GangFinished, GangStarted, TaskMigrated
from gangviz.multisite.simulation import MultiSiteSimulation

from .strategies import configs


def _tasks_everywhere(state):
    c = Counter()
    for q in state.queues:
        c.update(q)
    c.update(t for t in state.running if t is not None)
    c.update(t for t in state.reserved if t is not None)
    return c


def _run(cfg, seed, n):
    sim = MultiSiteSimulation(cfg, seed, max_gangs=n)
    return sim


@settings(max_examples=40, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 10**6), n=st.integers(1, 30))
def test_invariants_hold_after_every_step(cfg, seed, n):
    sim = _run(cfg, seed, n)
    started: dict[int, int] = {}
    steps = 0
    while (step := sim.step()) is not None:
        steps += 1
        st_ = sim.state
        k = cfg.aging_k
        for c in step.changes:
            if isinstance(c, GangStarted):
                # A gang's tasks start together: one record, every task, one time.
                assert c.gang not in started
                started[c.gang] = len(c.placements)
                assert sorted(t for t, _, _ in c.placements) == list(range(st_.gangs[c.gang].size))
                assert c.time == step.time
            if isinstance(c, TaskMigrated):
                assert c.overhead == (cfg.grid_overhead if c.is_grid else cfg.local_overhead)
        # A processor never runs two tasks at once: one task per processor, and the tasks
        # running are exactly those of started, unfinished gangs, each on its own processor.
        run = [t for t in st_.running if t is not None]
        assert len(run) == len(set(run))
        for gang in started:
            if gang in st_.finish:
                continue
            on = [t for t in st_.running if t is not None and t[0] == gang]
            assert len(on) == st_.gangs[gang].size
        # No task is lost or duplicated by migration.
        everywhere = _tasks_everywhere(st_)
        assert all(v == 1 for v in everywhere.values())
        for gang, info in st_.gangs.items():
            have = {t for (g, t) in everywhere if g == gang}
            if gang in st_.finish:
                assert have == set()
            else:
                assert have == set(range(info.size))
        # Siblings never share a queue.
        for q in st_.queues:
            gangs = [g for g, _ in q]
            assert len(gangs) == len(set(gangs))
        # Aging bounds how often a waiting task is bypassed.
        for q in st_.queues:
            for t in q:
                assert st_.bypass.get(t, 0) <= k
        # AFCFS leaves no startable gang behind after an arrival or a completion.
        if step.cause != "migration end":
            for gang in {g for q in st_.queues for g, _ in q}:
                locs = [(p, i) for p, q in enumerate(st_.queues) for i, (g, _) in enumerate(q) if g == gang]
                usable = [st_.is_idle(p) and (i == 0 or cfg.afcfs_overtake) for p, i in locs]
                assert not (len(locs) == st_.gangs[gang].size and all(usable))
    assert len(st_.completed) == n
    assert steps == len(sim.steps)


@settings(max_examples=25, deadline=None)
@given(cfg=configs(migrate=True), seed=st.integers(0, 10**6), n=st.integers(5, 30))
def test_migrations_never_target_an_aged_queue_and_overtakers_are_counted(cfg, seed, n):
    sim = _run(cfg, seed, n)
    while True:
        before = dict(sim.state.bypass)
        queues = [list(q) for q in sim.state.queues]
        step = sim.step()
        if step is None:
            break
        for c in step.changes:
            if isinstance(c, TaskMigrated):
                dst = c.dst_site * cfg.procs + c.dst_proc
                assert all(before.get(t, 0) < cfg.aging_k for t in queues[dst])
                assert list(c.bypassed) == queues[dst]
                for t in c.bypassed:
                    before[t] = before.get(t, 0) + 1
                queues[dst] = []


@settings(max_examples=25, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 10**6), n=st.integers(1, 25))
def test_processor_busy_intervals_never_overlap(cfg, seed, n):
    sim = _run(cfg, seed, n)
    sim.run()
    spans: dict[int, list[tuple[float, float]]] = {}
    open_: dict[int, float] = {}
    for step in sim.steps:
        for c in step.changes:
            if isinstance(c, (GangStarted, GangFinished)):
                for _, s, p in c.placements:
                    g = s * cfg.procs + p
                    if isinstance(c, GangStarted):
                        assert g not in open_
                        open_[g] = c.time
                    else:
                        spans.setdefault(g, []).append((open_.pop(g), c.time))
    assert not open_
    for iv in spans.values():
        iv.sort()
        assert all(a[1] <= b[0] for a, b in zip(iv, iv[1:]))


@settings(max_examples=25, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 10**6), n=st.integers(1, 20), back=st.integers(0, 200))
def test_step_back_restores_and_redo_replays(cfg, seed, n, back):
    sim = _run(cfg, seed, n)
    snaps = [sim.state.snapshot()]
    while sim.step() is not None:
        snaps.append(sim.state.snapshot())
    total = len(sim.steps)
    back = min(back, total)
    for i in range(back):
        assert sim.step_back() is sim.steps[total - 1 - i]
        assert sim.state.snapshot() == snaps[total - 1 - i]
        assert sim.time == (sim.steps[sim.cursor - 1].time if sim.cursor else 0.0)
    for _ in range(back):
        sim.step()
    assert sim.state.snapshot() == snaps[-1]
    assert len(sim.steps) == total
