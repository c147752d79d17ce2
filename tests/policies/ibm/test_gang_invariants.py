"""Property tests of GS, BGS, MGS and MBGS in the engine (Zhang01 §4-§5)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.matrix import IDLE
from gangviz.policies.ibm import BGS, GS, MBGS, MGS
from gangviz.sim.engine import Simulation

from .strategies import workloads


def _run_checked(policy, procs, jobs, overhead=0.0):
    sim = Simulation(jobs, policy, procs, overhead=overhead, record=True)
    while (step := sim.step()) is not None:
        m = sim.matrix
        m.check()  # every job's cells in each of its rows are exactly its columns
        assert m.n_rows <= policy.mpl
        for r in range(m.n_rows):
            assert np.count_nonzero(m.cells[r] != IDLE) <= procs
            for j in m.row_jobs(r):
                assert np.count_nonzero(m.cells[r] == j) == sim.jobs[j].spec.size
        for j in m.jobs():
            assert len(m.job_cols(j)) == sim.jobs[j].spec.size
        if policy.backfill:
            assert policy.reservation_violations(sim) == []
            waiting = set(sim.waiting)
            assert set(policy.reservations) <= waiting
        migrated = [c for c in step.changes if c.kind == "job_migrated"]
        tasks = sum(len(c.dst_cols) for c in migrated)
        if policy.q is not None:
            assert tasks <= policy.q
        ids = [c.job for c in migrated]
        assert len(ids) == len(set(ids)), "a job migrated twice in one matrix (ping-pong)"
        if not policy.migrate:
            assert not migrated
    return sim


def _conserved(sim, jobs, overhead=0.0):
    for spec in jobs:
        rec = sim.jobs[spec.id]
        assert rec.start is not None and rec.finish is not None
        assert rec.start >= spec.arrival
        # a job cannot get more than one slice of service per slice of time
        assert rec.finish - rec.start >= spec.work - 1e-9
        assert sim.remaining(spec.id) == 0


@settings(max_examples=40, deadline=None)
@given(workloads(), st.integers(1, 4))
def test_gs_invariants_and_fcfs(wl, mpl):
    procs, jobs = wl
    sim = _run_checked(GS(mpl), procs, jobs)
    _conserved(sim, jobs)
    # GS schedules in FCFS order and stops at the first job that does not fit
    order = sorted(jobs, key=lambda j: (j.arrival, j.id))
    starts = [sim.jobs[j.id].start for j in order]
    assert starts == sorted(starts)


@settings(max_examples=40, deadline=None)
@given(workloads(), st.integers(1, 4))
def test_bgs_invariants(wl, mpl):
    procs, jobs = wl
    _conserved(_run_checked(BGS(mpl), procs, jobs), jobs)


@settings(max_examples=40, deadline=None)
@given(workloads(), st.integers(1, 4), st.one_of(st.none(), st.integers(0, 8)))
def test_mgs_invariants(wl, mpl, q):
    procs, jobs = wl
    _conserved(_run_checked(MGS(mpl, q=q, migration_cost=0.05), procs, jobs), jobs)


@settings(max_examples=40, deadline=None)
@given(workloads(), st.integers(1, 4), st.one_of(st.none(), st.integers(0, 8)),
       st.sampled_from([0.0, 0.05]))
def test_mbgs_invariants(wl, mpl, q, overhead):
    procs, jobs = wl
    _conserved(_run_checked(MBGS(mpl, q=q), procs, jobs, overhead), jobs, overhead)


@settings(max_examples=25, deadline=None)
@given(workloads(), st.integers(1, 3))
def test_q_zero_never_migrates(wl, mpl):
    procs, jobs = wl
    sim = _run_checked(MGS(mpl, q=0), procs, jobs)
    assert all(c.kind != "job_migrated" for s in sim.steps for c in s.changes)
    assert sim.policy.migrated_tasks == 0


@settings(max_examples=20, deadline=None)
@given(workloads())
def test_mpl_one_is_space_sharing(wl):
    procs, jobs = wl
    sim = _run_checked(GS(1), procs, jobs)
    assert sim.max_slots <= 1


@settings(max_examples=15, deadline=None)
@given(workloads(), st.integers(1, 3))
def test_steps_invert_exactly(wl, mpl):
    procs, jobs = wl
    sim = Simulation(jobs, MBGS(mpl), procs)
    before = sim.matrix.copy()
    while (step := sim.step()) is not None:
        after = sim.matrix.copy()
        work = after.copy()
        for c in reversed(step.changes):
            c.invert().apply(work)
        assert work.state_key() == before.state_key()
        before = after
