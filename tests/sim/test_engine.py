"""The engine: exact time slicing, fast-forward, history, determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core import registry
from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.policies import make_policy
from gangviz.sim.engine import CHANGE_BYTES, STEP_BYTES, ScriptEvent, Simulation
from gangviz.sim.intake import plain_times
from gangviz.workloads.synthetic import uniform_log

#: the time-slot policies that decide at slice boundaries (Zhou99, Zhou00), as the registry says
POLICY_NAMES = [e.name for e in registry.entries(registry.MATRIX) if e.decides == "boundary"]


@st.composite
def workloads(draw, procs: int = 8, max_jobs: int = 12):
    n = draw(st.integers(1, max_jobs))
    jobs, t = [], 0.0
    for i in range(n):
        t += draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.5, 7.0]))
        size = draw(st.integers(1, procs))
        work = draw(st.sampled_from([1.0, 2.0, 3.0, 0.5, 1.5, 4.25, 9.0]))
        jobs.append(JobSpec(i, f"J{i}", t, size, work))
    return jobs


def records(sim):
    return [(r.spec.id, r.start, r.finish) for r in sim.records()]


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(POLICY_NAMES), st.sampled_from([0.0, 0.2]))
def test_fast_forward_and_slice_by_slice_give_identical_records(jobs, name, overhead):
    fast = Simulation(jobs, make_policy(name), 8, overhead=overhead)
    fast.run()
    slow = Simulation(jobs, make_policy(name), 8, overhead=overhead, watch=True)
    slow.run()
    assert records(fast) == records(slow)
    assert fast.slot_time == slow.slot_time and fast.max_slots == slow.max_slots
    assert fast.time == slow.time


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(POLICY_NAMES))
def test_invariants_hold_at_every_step(jobs, name):
    sim = Simulation(jobs, make_policy(name), 8, watch=True)
    last = -math.inf
    while (step := sim.step()) is not None:
        assert step.time >= last  # time never runs backwards
        last = step.time
        sim.matrix.check()  # a gang's processes share each of its rows; WLV/WLT exact
    for rec in sim.records():
        # every job ran, no earlier than it arrived, and not faster than its work allows
        assert rec.start is not None and rec.start >= rec.spec.arrival
        assert rec.finish is not None and rec.finish >= rec.start + rec.spec.work - 1e-9
        assert sim.served(rec.spec.id) == rec.spec.work  # work is conserved
    assert sim.matrix.n_rows == 0 or name in ("bc", "firstfit", "random")


@settings(max_examples=40, deadline=None)
@given(workloads(), st.sampled_from(POLICY_NAMES))
def test_repacking_never_moves_a_process_to_another_processor(jobs, name):
    sim = Simulation(jobs, make_policy(name), 8)
    cols_of: dict[int, tuple] = {}
    while (step := sim.step()) is not None:
        for change in step.changes:
            if change.kind == "job_placed":
                assert change.job not in cols_of  # placed once, never re-placed elsewhere
                cols_of[change.job] = tuple(change.cols)
                assert len(change.cols) >= sim.jobs[change.job].spec.size
            elif change.kind in ("job_replicated", "job_unreplicated", "job_removed"):
                assert tuple(change.cols) == cols_of[change.job]
            assert change.kind != "job_migrated"
        for job in sim.matrix.jobs():
            assert tuple(sim.matrix.job_cols(job)) == cols_of[job]


def test_a_job_in_k_of_n_rows_runs_k_over_n_of_the_time():
    # Three rows; A holds two of them (home + extra), B and C one each.
    m = OusterhoutMatrix.from_rows([[0, 0], [1, 1], [0, 0]])
    m.insert_row(3)
    m.delete_row(3)
    jobs = [JobSpec(0, "A", 0, 2, 20.0), JobSpec(1, "B", 0, 2, math.inf)]
    sim = Simulation(jobs, make_policy("firstfit"), 2, initial=m)
    sim.run(until=30)
    # A gets 2 slices of every 3 (rows S1 and S3): 20 slices of work take 30 slices.
    assert sim.jobs[0].finish == 30


def test_arrivals_between_boundaries_wait_for_the_next_boundary():
    jobs = [JobSpec(0, "A", 0.4, 1, 2.0), JobSpec(1, "B", 3.0, 1, 1.0)]
    sim = Simulation(jobs, make_policy("repack"), 4)
    sim.run()
    assert sim.jobs[0].start == 1 and sim.jobs[0].finish == 3
    assert sim.jobs[1].start == 3 and sim.jobs[1].finish == 4


def test_a_job_finishes_inside_its_last_slice():
    sim = Simulation([JobSpec(0, "A", 0, 1, 2.5)], make_policy("repack"), 4)
    sim.run()
    assert sim.jobs[0].finish == 2.5
    assert sim.time == 3  # its processor is released at the next boundary


def test_empty_machine_has_zero_slots_so_n_a_drops_below_one():
    jobs = [JobSpec(0, "A", 0, 1, 1.0), JobSpec(1, "B", 10, 1, 1.0)]
    sim = Simulation(jobs, make_policy("br"), 4)
    sim.run()
    assert sim.slot_time == 2 and sim.time == 11


def test_context_switch_overhead_slows_service():
    sim = Simulation([JobSpec(0, "A", 0, 1, 2.0)], make_policy("repack"), 1, overhead=0.5)
    sim.run()
    assert sim.jobs[0].finish == 4.0  # each slice gives half a slice of service


def test_step_back_and_forward_again_is_identical():
    wl = uniform_log(60, 0.8, procs=32, seed=3)
    sim = Simulation(wl.jobs, make_policy("brmms"), 32)
    sim.run(max_steps=80)
    pictures = {}
    for i in range(len(sim.steps) + 1):
        sim.go_to(i)
        pictures[i] = (sim.matrix.state_key(), records(sim), sim.time)
    for i in [79, 40, 3, 0, 55, 80]:
        sim.go_to(i)
        assert (sim.matrix.state_key(), records(sim), sim.time) == pictures[i]
    sim.go_to(80)
    for i in range(80, 70, -1):
        assert sim.step_back() is not None
        assert (sim.matrix.state_key(), records(sim), sim.time) == pictures[i - 1]


def test_stepping_back_inverts_the_matrix_changes_exactly():
    wl = uniform_log(40, 0.9, procs=16, seed=5)
    sim = Simulation(wl.jobs, make_policy("br"), 16)
    before = []
    for _ in range(50):
        before.append(sim.matrix.copy())
        if sim.step() is None:
            break
    for k in range(len(sim.steps) - 1, -1, -1):
        after = sim.matrix.copy()
        for change in reversed(sim.steps[k].changes):
            change.invert().apply(after)
        assert after.state_key() == before[k].state_key()
        sim.step_back()


def test_same_seed_same_result_and_simulations_live_side_by_side():
    wl = uniform_log(300, 0.7, procs=64, seed=11)
    a = Simulation(wl.jobs, make_policy("brmms"), 64, record=False)
    b = Simulation(wl.jobs, make_policy("brmms"), 64, record=False)
    while a.step() is not None:  # interleave the two
        b.step()
    b.run()
    assert records(a) == records(b)


def test_history_memory_grows_with_changes_not_steps_times_matrix():
    wl = uniform_log(100, 0.5, procs=128, seed=2)
    sim = Simulation(wl.jobs, make_policy("br"), 128, watch=True)
    sim.run()
    changes = sum(len(s.changes) for s in sim.steps)
    assert len(sim.steps) > 500
    log_bytes = CHANGE_BYTES * changes + STEP_BYTES * len(sim.steps)
    # (the estimate counts the cells a snapshot stands for; stored, they are run-length encoded)
    snapshot_bytes = [4 * int(np.prod(snap.matrix[2][0])) + 4096 for snap in sim._history.snapshots.values()]
    # A snapshot is only taken once the records since the last one outweigh its size, so the
    # snapshots together stay within the size of the change log (plus the first and the last).
    assert sum(snapshot_bytes) <= log_bytes + 2 * max(snapshot_bytes)
    assert len(sim._history.snapshots) < len(sim.steps) / 10


def test_what_if_terminate_and_submit_are_steps_that_replay():
    sim = Simulation([JobSpec(0, "A", 0, 2, 50.0), JobSpec(1, "B", 0, 2, 50.0)], make_policy("repack"), 2, watch=True)
    sim.run(max_steps=3)
    step = sim.terminate_now(0)
    assert step.cause == "user" and 0 not in sim.matrix
    sim.submit_now(1, 2.0, name="W")
    n = len(sim.steps)
    sim.go_to(1)
    sim.go_to(n)
    assert sim.jobs[0].terminated and any(r.spec.name == "W" for r in sim.records())
    with pytest.raises(ValueError, match="1..2"):
        sim.submit_now(3, 1.0)


def test_bad_parameters_say_what_is_allowed():
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        Simulation([], make_policy("repack"), 4, overhead=1.5)
    with pytest.raises(ValueError, match="power-of-two"):
        Simulation([], make_policy("br"), 100)
    with pytest.raises(ValueError, match="1..4"):
        Simulation([JobSpec(0, "A", 0, 5, 1.0)], make_policy("repack"), 4)
    with pytest.raises(ValueError, match="unknown policy"):
        make_policy("nope")


def test_script_terminates_and_submits():
    m = OusterhoutMatrix.from_rows([[0, 0, 1, 1]])
    m.names.update({0: "X", 1: "Y"})
    jobs = [JobSpec(0, "X", 0, 2, math.inf), JobSpec(1, "Y", 0, 2, math.inf)]
    script = [ScriptEvent(0, terminate=("X",)), ScriptEvent(2, submit=(("N", 2, 3.0),))]
    sim = Simulation(jobs, make_policy("repack"), 4, initial=m, script=script)
    sim.run()
    assert sim.jobs[0].terminated and sim.jobs[0].finish == 0
    new = next(r for r in sim.records() if r.spec.name == "N")
    assert new.start == 2 and new.finish == 5
    assert sim.done


def test_buddy_schemes_accept_jobs_drawn_off_their_block_boundary():
    # J3 on P6..P8 (not aligned): its buddy block is P5..P8.
    m = OusterhoutMatrix.from_rows([[0, 0, 1, 1, -1, 2, 2, 2]])
    jobs = [JobSpec(0, "J1", 0, 2, 5.0), JobSpec(1, "J2", 0, 2, 3.0), JobSpec(2, "J3", 0, 3, 4.0)]
    for name in ("brms", "brmms"):
        sim = Simulation(jobs, make_policy(name), 8, initial=m)
        sim.run()
        assert all(r.finish is not None for r in sim.records())


def _replicas_after_first_completion(extra_slots_on: str) -> tuple[int, int]:
    """J1 and J2 share P1..P2 in two slots; J2 ends first; J4 arrives later on P5..P8. Return
    (J1's rows after J2's completion step, J1's rows after J4's arrival step)."""
    idle = -1
    m = OusterhoutMatrix.from_rows([[0, 0, 2, 2] + [idle] * 4, [1, 1, 2, 2] + [idle] * 4])
    jobs = [JobSpec(0, "J1", 0, 2, 20.0), JobSpec(1, "J2", 0, 2, 1.0), JobSpec(2, "J3", 0, 2, 20.0),
            JobSpec(3, "J4", 6, 4, 20.0)]
    sim = Simulation(jobs, make_policy("brms", extra_slots_on=extra_slots_on), 8, initial=m)
    while not any(c.kind == "job_removed" for c in sim.step().changes):
        pass
    after_completion = len(sim.matrix.job_rows(0))
    while sim.time < 6:
        sim.step()
    return after_completion, len(sim.matrix.job_rows(0))


def test_brms_extra_slots_on_decides_when_freed_processors_are_handed_out():
    # Every decision point: J2's completion frees P1..P2 in S2 and J1 takes it at once
    # (Fig. 1(b) of 001). Arrival only: the freed cells wait for J4's arrival at t=6.
    assert _replicas_after_first_completion("decision") == (2, 2)
    assert _replicas_after_first_completion("arrival") == (1, 2)
    # BRMS waits for an arrival unless told otherwise (Zhou00 §4.3); BRMMS hands them out at once.
    assert make_policy("brms").extra_slots_on == "arrival"
    assert make_policy("brmms").extra_slots_on == "decision"
    with pytest.raises(ValueError, match="extra_slots_on"):
        make_policy("brmms", extra_slots_on="never")


def test_recorded_history_is_compact_and_exact():
    """Snapshots keep their cells run-length encoded and steps tell their sentences from their
    change records; both give back exactly what a step recorded."""
    from gangviz.core.matrix import OusterhoutMatrix, pack_cells, unpack_cells

    wl = uniform_log(150, 0.8, procs=64, seed=4)
    sim = Simulation(wl.jobs, make_policy("repack"), 64, watch=True)
    sim.run()
    for snap in list(sim._history.snapshots.values())[1:6]:
        packed = snap.matrix[2]
        cells = unpack_cells(packed)
        assert cells.shape == packed[0] and (unpack_cells(pack_cells(cells)) == cells).all()
        assert packed[1].nbytes + packed[2].nbytes < max(cells.nbytes, 64)
        m = OusterhoutMatrix.from_snapshot(snap.matrix)
        assert (m.cells == cells).all()
    names = sim.matrix.names
    for step in sim.steps[:200]:
        assert step.narration == [c.describe(names) for c in step.changes] + list(step.extra)
    # stepping back and forth replays the same sentences
    told = [list(s.narration) for s in sim.steps[:120]]
    sim.go_to(40)
    sim.go_to(120)
    assert [list(s.narration) for s in sim.steps[:120]] == told


def _matrix_scenarios():
    from gangviz.resources import list_scenarios
    from gangviz.workloads.scenario import load_scenario

    return [p.stem for p in list_scenarios() if load_scenario(p).model == "matrix"]


@pytest.mark.parametrize("name", _matrix_scenarios())
def test_samples_mean_turnaround_equals_the_metrics(name):
    # The window plots the samples; gangviz run reports zhou_metrics. Scripted terminations
    # (Fig. 2's J' and J'') count in neither, so the two agree on every built-in scenario.
    from gangviz.factory import build
    from gangviz.metrics.zhou import zhou_metrics
    from gangviz.workloads.source import load_source

    sim = build(load_source(name).scenario, None)
    while sim.step() is not None:
        pass
    t_ta = zhou_metrics(sim)["t_ta"]
    last = sim.samples[-1]
    if math.isnan(t_ta):
        assert last.finished == 0
    else:
        assert last.mean_turnaround == pytest.approx(t_ta)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0, 1, 2.5, 3, 3.0, 7.25, 1e6]),
                       st.one_of(st.floats(1e-6, 1e9), st.integers(1, 10**9), st.just(math.inf))),
             min_size=1, max_size=30),
    st.sampled_from([0.0, 0.1, 0.3, 0.77]),
    st.randoms(use_true_random=False),
)
def test_bulk_setup_matches_job_by_job_setup(pairs, overhead, rnd):
    """Plain int/float times take the bulk path; one numpy value forces the job-by-job path:
    both must give the same order, work and need of every job."""
    ids = list(range(len(pairs)))
    rnd.shuffle(ids)
    jobs = [JobSpec(i, f"J{i}", a, 1, w) for i, (a, w) in zip(ids, pairs)]
    rnd.shuffle(jobs)
    slow_jobs = list(jobs)
    j0 = slow_jobs[0]
    slow_jobs[0] = JobSpec(j0.id, j0.name, np.float64(j0.arrival), j0.size, j0.work)
    fast = Simulation(jobs, make_policy("repack"), 4, overhead=overhead)
    slow = Simulation(slow_jobs, make_policy("repack"), 4, overhead=overhead)
    assert plain_times(list(jobs), fast.overhead) is not None and plain_times(slow_jobs, slow.overhead) is None
    assert [s.id for s in fast._pending] == [s.id for s in slow._pending]
    assert fast._need_arr.tolist() == slow._need_arr.tolist()
    assert fast._work_arr.tolist() == slow._work_arr.tolist()


def test_bulk_setup_still_names_the_first_bad_job():
    jobs = [JobSpec(0, "A", 0, 1, 2.0), JobSpec(1, "B", 1, 1, 2.0**41), JobSpec(2, "C", 2, 1, 2.0)]
    with pytest.raises(ValueError, match="job B: work"):  # beyond the clock limit
        Simulation(jobs, make_policy("repack"), 4)
    jobs[1] = JobSpec(1, "B", 1, 1, 2.0)
    with pytest.raises(ValueError, match="duplicate job id 1"):
        Simulation(jobs + [JobSpec(1, "D", 3, 1, 1.0)], make_policy("repack"), 4)
    with pytest.raises(ValueError, match="job size must be in 1..4"):
        Simulation(jobs + [JobSpec(3, "E", 3, 5, 1.0)], make_policy("repack"), 4)


def test_packed_samples_read_back_exactly_and_follow_step_back():
    from gangviz.sim.engine import Sample, SampleLog

    log = SampleLog()
    made = [Sample(0.5 * i, i, 2 * i, 3, 1 / (i + 1), i // 2, 7.25 * i) for i in range(6)]
    for s in made:
        log.append(s)
    assert len(log) == 6 and list(log) == made and log[-1] == made[-1] and log[2:4] == made[2:4]
    assert isinstance(log[1].slots, int) and log.column("waiting").tolist() == [2.0 * i for i in range(6)]
    del log[4:]
    assert list(log) == made[:4]
    with pytest.raises(TypeError):
        del log[1:2]
    wl = uniform_log(120, 0.8, procs=32, seed=3)
    sim = Simulation(wl.jobs, make_policy("repack"), 32)
    sim.run()
    whole = list(sim.samples)
    assert len(whole) == len(sim.steps)
    sim.go_to(len(sim.steps) // 3)
    assert list(sim.samples) == whole[:len(sim.steps)]
    sim.run()
    assert list(sim.samples) == whole


def test_bulk_setup_keeps_fractional_needs_of_event_driven_policies():
    # the IBM gang policies count fractions of a slice; the bulk set-up must not round them up
    jobs = [JobSpec(i, f"J{i}", 0.5 * i, 1, w) for i, w in enumerate([0.3, 1.0, 2.25, 7.0])]
    slow_jobs = [JobSpec(j.id, j.name, np.float64(j.arrival), j.size, j.work) for j in jobs]
    fast = Simulation(jobs, make_policy("gs"), 4, overhead=0.1)
    slow = Simulation(slow_jobs, make_policy("gs"), 4, overhead=0.1)
    assert fast.event_driven and plain_times(list(jobs), fast.overhead) is not None
    assert fast._need_arr.tolist() == slow._need_arr.tolist()
    assert fast._need_arr[0] == pytest.approx(0.3 / 0.9)
