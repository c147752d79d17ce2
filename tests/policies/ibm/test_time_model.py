"""The time model of the IBM gang policies (Zhang01 §4.2, eq. 3): the phases
run at every arrival and departure, rows still rotate one slice at a time; ``decide="boundary"``
keeps the model where the phases run only at slice boundaries."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.factory import parse_policy_spec
from gangviz.policies import make_policy
from gangviz.policies.ibm import BGS, GS, MBGS, MGS
from gangviz.sim.engine import Simulation

from .strategies import workloads

POLICIES = [GS, BGS, MGS, MBGS]


def _jobs(specs):
    return [JobSpec(i, f"J{i}", a, s, w, w) for i, (a, s, w) in enumerate(specs)]


def _run(specs, mpl, decide, procs=4):
    sim = Simulation(_jobs(specs), GS(mpl, decide=decide), procs)
    sim.run()
    return [(r.start, r.finish) for r in sim.records()], sim


def test_event_is_the_default_and_the_spec_selects_boundary():
    for cls in POLICIES:
        assert cls(3).decides_at == "event"
    name, params = parse_policy_spec("gs:decide=boundary")
    assert make_policy(name, **params).decides_at == "boundary"
    assert make_policy("mbgs", decide="boundary", q=4).decides_at == "boundary"
    with pytest.raises(ValueError, match="'event' or 'boundary'"):
        GS(3, decide="slice")


def test_freed_processors_are_used_at_the_departure_not_the_next_boundary():
    # MPL 1: J1 (4 of 4 processors, arriving at 0.2) waits for J0, which ends at 1.5.
    assert _run([(0, 4, 1.5), (0.2, 4, 1.0)], 1, "event")[0] == [(0.0, 1.5), (1.5, 2.5)]
    assert _run([(0, 4, 1.5), (0.2, 4, 1.0)], 1, "boundary")[0] == [(0.0, 1.5), (2.0, 3.0)]


def test_rows_still_rotate_every_slice():
    # Two rows take turns: J0 runs [0,1), [2,3), [4,4.5); J1 [1,2), [3,4), then alone from 4.5.
    assert _run([(0, 4, 2.5), (0, 4, 2.5)], 2, "event")[0] == [(0.0, 4.5), (0.0, 5.0)]
    assert _run([(0, 4, 2.5), (0, 4, 2.5)], 2, "boundary")[0] == [(0.0, 4.5), (0.0, 5.5)]


def test_an_arrival_cuts_the_slice_and_the_next_row_runs():
    # J0 (row 1) runs [0, 0.3); J2 arrives at 0.3 and opens row 3; the cut slice hands the turn to
    # row 2 (J1: [0.3, 1.3)), then row 3 (J2: [1.3, 1.8)).
    recs, sim = _run([(0, 4, 10.0), (0, 4, 10.0), (0.3, 4, 0.5)], 3, "event")
    assert recs[2] == (0.3, pytest.approx(1.8))
    assert [s.time for s in sim.steps][:3] == [0.0, 0.3, pytest.approx(1.8)]
    # J0 had 0.3 of service before the cut, then every other slice from 1.8: 9 more slices
    # end at 18.8 + ... J1 needs 9 slices after 1.8 and ends at 19.8; J0's last 0.7 follows.
    assert recs[1][1] == pytest.approx(19.8) and recs[0][1] == pytest.approx(20.5)


def _check_event_run(sim, jobs):
    events = {j.arrival for j in jobs}
    last = -math.inf
    while (step := sim.step()) is not None:
        assert step.time >= last  # time never runs backwards
        last = step.time
        sim.matrix.check()  # a gang's processes share one set of columns in each of its rows
        assert sim.matrix.n_rows <= sim.policy.mpl
        for j in sim.matrix.jobs():
            assert sim.served(j) <= sim.jobs[j].spec.work + 1e-9
    finishes = {r.finish for r in sim.records()}
    for rec in sim.records():
        spec = rec.spec
        assert rec.start is not None and rec.finish is not None
        assert rec.start >= spec.arrival
        # no more than one slice of service per slice of time; all work is served
        assert rec.finish - rec.start >= spec.work - 1e-9
        assert sim.remaining(spec.id) == 0
        # a job starts only at a scheduling event: an arrival or a departure
        assert rec.start in events or rec.start in finishes
    return sim


@settings(max_examples=30, deadline=None)
@given(workloads(), st.integers(1, 4), st.sampled_from(POLICIES), st.sampled_from([0.0, 0.05]))
def test_event_model_invariants(wl, mpl, cls, overhead):
    procs, jobs = wl
    _check_event_run(Simulation(jobs, cls(mpl), procs, overhead=overhead, record=False), jobs)


@settings(max_examples=30, deadline=None)
@given(workloads(), st.integers(1, 4), st.sampled_from(POLICIES), st.sampled_from([0.0, 0.05]))
def test_slice_by_slice_equals_event_jumps(wl, mpl, cls, overhead):
    # watch mode also stops at every slice boundary; the records must not change (but for
    # rounding: the two add up the same times in different pieces)
    procs, jobs = wl
    fast = Simulation(jobs, cls(mpl), procs, overhead=overhead, record=False)
    fast.run()
    slow = Simulation(jobs, cls(mpl), procs, overhead=overhead, watch=True, record=False)
    slow.run()
    rec = lambda s: [(r.spec.id, r.start, r.finish) for r in s.records()]
    assert [(i, pytest.approx(a), pytest.approx(b)) for i, a, b in rec(fast)] == rec(slow)


@settings(max_examples=25, deadline=None)
@given(workloads(), st.integers(1, 3), st.sampled_from(POLICIES))
def test_boundary_model_decides_only_at_integers(wl, mpl, cls):
    procs, jobs = wl
    sim = Simulation(jobs, cls(mpl, decide="boundary"), procs, record=False)
    sim.run()
    for rec in sim.records():
        assert rec.start == math.ceil(rec.start)


def test_step_back_replays_an_event_run_exactly():
    jobs = _jobs([(0, 3, 2.3), (0.4, 2, 1.7), (1.1, 4, 0.6), (1.15, 1, 3.2), (2.7, 2, 0.9)])
    sim = Simulation(jobs, MBGS(3), 4)
    sim.run()
    end = [(r.start, r.finish) for r in sim.records()]
    n = len(sim.steps)
    sim.go_to(2)
    sim.go_to(n)
    assert [(r.start, r.finish) for r in sim.records()] == end


def test_run_command_takes_the_time_model_as_a_policy_parameter(capsys):
    from pathlib import Path

    from gangviz.cli import main

    trace = str(Path(__file__).resolve().parents[3] / "resources/workloads/KTH-SP2-1996-2.1-cln-first300.swf")
    outs = {}
    for spec in ("gs", "gs:decide=event", "gs:decide=boundary"):
        assert main(["run", trace, "--policy", spec, "--slice", "200", "--json"]) == 0
        outs[spec] = __import__("json").loads(capsys.readouterr().out)["metrics"]
    assert outs["gs"] == outs["gs:decide=event"] != outs["gs:decide=boundary"]


@settings(max_examples=25, deadline=None)
@given(workloads(), st.integers(1, 4), st.sampled_from(POLICIES))
def test_event_runs_keep_the_per_job_statistics(wl, mpl, cls):
    # every job's first slice is known, no earlier than its start, and nothing stays "unstarted"
    procs, jobs = wl
    sim = Simulation(jobs, cls(mpl), procs, record=False)
    sim.run()
    first, held, _extra = sim.run_stats()
    assert not sim._s.unstarted
    for rec in sim.records():
        assert not math.isnan(first[rec.spec.id])
        assert rec.start - 1e-9 <= first[rec.spec.id] <= rec.finish + 1e-9
        assert held[rec.spec.id] >= 1


def test_compaction_into_a_wholly_idle_row_under_bgs():
    """A case the property test found: BGS at the boundary model compacts into a row that is
    idle on every processor; nothing is blocked then (it used to index an empty array)."""
    sizes_works = [(7, 6.0), (7, 4.0), (3, 1.0), (4, 8.0), (1, 3.0), (3, 5.0), (5, 1.0)] + [(1, 1.0)] * 9
    jobs = [JobSpec(i, f"J{i}", 0.0, s, w, 12.0 if i == 0 else w) for i, (s, w) in enumerate(sizes_works)]
    sim = Simulation(jobs, BGS(3, decide="boundary"), 7, record=False)
    sim.run()
    assert all(r.finish is not None and r.start == math.ceil(r.start) for r in sim.records())
