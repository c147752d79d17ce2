"""The closed-system simulation: step/record interface, invertible changes, exact service."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.record import Change, Step
from gangviz.epoch.records import ScheduleRebuilt, Served
from gangviz.epoch.sim import EpochSimulation, _ran, _reach
from gangviz.epoch.speedup import s_dynamic, s_static, static_factor

POLICIES = ["BUDDY*", "HYBRID(1)", "EQUI-EPOCH", "OPT-EPOCH(1)", "HEURISTIC(2)"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(POLICIES), st.integers(1, 9), st.integers(0, 10_000), st.booleans(),
       st.integers(1, 12))
def test_apply_then_invert_restores_the_state(policy, jobs, seed, static, steps):
    sim = EpochSimulation(16, jobs, policy, static=static, seed=seed, quantum=10.0)
    snapshots = [sim.state.snapshot()]
    for _ in range(steps):
        step = sim.step()
        assert isinstance(step, Step)
        assert all(isinstance(c, Change) for c in step.changes)
        assert len(step.narration) == len(step.changes)
        snapshots.append(sim.state.snapshot())
    # each change of the last step: invert undoes exactly that change
    last = sim.steps[-1]
    for change in reversed(last.changes):
        after = sim.state.snapshot()
        change.invert().apply(sim.state)
        change.apply(sim.state)
        assert sim.state.snapshot() == after
        change.invert().apply(sim.state)
    snapshots.pop()
    assert sim.state.snapshot() == snapshots[-1]
    sim.steps.pop()
    while sim.steps:
        sim.step_back()
        snapshots.pop()
        assert sim.state.snapshot() == snapshots[-1]
    assert sim.step_back() is None


def test_steps_replay_identically_after_stepping_back():
    sim = EpochSimulation(32, 4, "OPT-EPOCH(1)", seed=3)
    for _ in range(6):
        sim.step()
    times = [s.time for s in sim.steps]
    sim.step_back()
    sim.step_back()
    sim.step()
    sim.step()
    assert [s.time for s in sim.steps] == times


def test_each_step_keeps_j_jobs_and_records_a_schedule():
    sim = EpochSimulation(128, 7, "HEURISTIC(1)", static=True, seed=2, departures=20)
    sim.run()
    assert len(sim.state.finished) == 20 and sim.peek() == math.inf and sim.step() is None
    for step in sim.steps[1:]:
        kinds = [c.kind for c in step.changes]
        assert kinds == ["served", "job_departed", "job_arrived", "schedule_rebuilt"]
    assert len(sim.state.jobs) == 7 and sorted(sim.schedule.jobs) == sorted(sim.state.jobs)
    assert sim.steps[-1].changes[-1].to_dict()["after"]["nodes"] == 128


def test_service_matches_the_schedule_exactly():
    # one job on the whole machine, piece [0, 1): completes at work / S_dynamic(N)
    sim = EpochSimulation(8, 1, "EQUI-EPOCH", seed=5, quantum=10.0)
    sim.step()
    work = sim.state.jobs[0].work
    beta = sim.state.jobs[0].beta
    assert sim.peek() == pytest.approx(work / s_dynamic(8, beta))


def _cum(u, a, b):
    """The running time of piece [a, b) over quantum time [0, u]."""
    return _ran(math.floor(u), u - math.floor(u), a, b)


def test_piece_time_helpers_invert_each_other():
    for a, b in [(0.0, 1.0), (0.25, 0.5), (0.5, 1.0)]:
        for target in [0.1, 0.25, 0.7, 3.0, 5.123]:
            u = _reach(target, a, b)
            assert _cum(u, a, b) == pytest.approx(target)
            assert _cum(u - 1e-9, a, b) < target


def test_static_speedup_matches_the_formula():
    assert s_static(16, 100.0, 128) == s_dynamic(16, 100.0)
    # N = 128 on n = 48 nodes: 32 nodes hold 3 threads, 16 hold 2 -> efficiency (2/3*16 + 32)/48
    assert s_static(48, 100.0, 128) == pytest.approx(s_dynamic(48, 100.0) * (2 / 3 * 16 + 32) / 48)
    with pytest.raises(ValueError):
        s_static(0, 100.0, 128)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 512), st.data())
def test_static_factor_is_the_busy_fraction_and_bounded(nodes, data):
    n = data.draw(st.integers(1, nodes))
    f = static_factor(n, nodes)
    ceil = -(-nodes // n)
    assert f == pytest.approx(nodes / (n * ceil))  # N threads on n nodes: busy fraction
    assert (f == 1.0) == (nodes % n == 0)
    if 2 * n <= nodes:
        assert f > nodes / (nodes + n) >= 2 / 3  # the bound behind the "90%" finding
    else:
        assert f == pytest.approx(1.0 if n == nodes else nodes / (2 * n))


def test_static_jobs_run_at_the_static_speed_of_their_width():
    # N = 128, 3 jobs of M = 40: OPT-EPOCH(1) gives widths 43, 43, 42 in one epoch; the job on 42
    # nodes runs at S_dynamic(42) * 128 / (42 * 4) = 0.76 S_dynamic(42)
    from gangviz.epoch.workload import ClosedWorkload, EpochJobSpec

    class Fixed(ClosedWorkload):
        def job(self, index):
            return EpochJobSpec(index, 40, 1000.0 * (index + 1), 100.0, "long")

    sim = EpochSimulation(128, 3, "OPT-EPOCH(1)", static=True,
                          workload=Fixed(128, 3, 1.0, 0), departures=1)
    sim.step()
    widths = sim.schedule.allocation()
    assert sorted(widths.values()) == [42, 43, 43]
    assert sim.peek() == pytest.approx(min(
        1000.0 * (j + 1) / s_static(w, 100.0, 128) for j, w in widths.items()))
    assert s_static(42, 100.0, 128) == pytest.approx(s_dynamic(42, 100.0) * 128 / 168)


def test_bad_parameters_raise():
    with pytest.raises(ValueError, match="does not apply"):
        EpochSimulation(100, 4, "BUDDY*")
    with pytest.raises(ValueError, match="departures"):
        EpochSimulation(16, 4, "EQUI-EPOCH").run()
    with pytest.raises(ValueError, match="quantum"):
        EpochSimulation(16, 4, "EQUI-EPOCH", quantum=0)


def test_records_reject_mismatched_state():
    sim = EpochSimulation(16, 2, "EQUI-EPOCH", seed=1)
    sim.step()
    with pytest.raises(ValueError):
        ScheduleRebuilt(None, None).apply(sim.state)
    with pytest.raises(ValueError):
        Served(99.0, 100.0, (), ()).apply(sim.state)
