"""The compiled loops' placement log gives back the reference engine's Ousterhout matrix, cell
for cell, after every decision: re-packing, MGS migration and replicas included."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.fast.buddy import run_buddy
from gangviz.fast.gang import job_arrays, run_gang
from gangviz.fast.placement import CHECKPOINT, PlacementLog
from gangviz.policies import make_policy
from gangviz.policies.ibm.gs import GS, MGS
from gangviz.sim.engine import Simulation
from tests.fast.test_compiled_buddy import workloads as buddy_workloads
from tests.fast.test_compiled_gang import workloads as gang_workloads


def reference_matrices(jobs, policy, procs) -> dict[float, np.ndarray]:
    """The reference engine's matrix after the last step at each time it stepped to."""
    sim = Simulation(jobs, policy, procs, record=False)
    states = {0.0: np.zeros((0, procs), np.int64)}
    while sim.step() is not None:
        states[float(sim.time)] = np.array(sim.matrix.cells, dtype=np.int64)
    return states


def assert_same_matrices(log: PlacementLog, ids: np.ndarray, states: dict[float, np.ndarray]) -> None:
    for t, want in states.items():
        got = log.matrix_at(t)
        got = np.where(got >= 0, ids[np.maximum(got, 0)], -1)
        assert got.shape == want.shape and (got == want).all(), (t, got, want)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(gang_workloads(), st.sampled_from(["gs", "mgs"]), st.sampled_from([1, 2, 3]))
def test_gs_and_mgs_matrices_are_the_reference_engines(workload, policy, mpl):
    procs, jobs = workload
    ids = np.array([j.id for j in jobs])
    run = run_gang(job_arrays(jobs), policy, {"mpl": mpl}, procs, placement=True)
    plain = run_gang(job_arrays(jobs), policy, {"mpl": mpl}, procs)
    assert run.finish.tolist() == plain.finish.tolist() and run.start.tolist() == plain.start.tolist()
    pol = (GS if policy == "gs" else MGS)(mpl=mpl)
    assert_same_matrices(run.placement, ids, reference_matrices(jobs, pol, procs))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(buddy_workloads(), st.sampled_from(["BC", "BRMS"]))
def test_buddy_matrices_are_the_reference_engines(workload, scheme):
    procs, jobs = workload
    ids = np.array([j.id for j in jobs])
    args = ([j.id for j in jobs], [j.arrival for j in jobs], [j.size for j in jobs], [j.work for j in jobs],
            scheme, procs)
    run = run_buddy(*args, placement=True)
    assert run.finish.tolist() == run_buddy(*args).finish.tolist()
    assert_same_matrices(run.placement, ids, reference_matrices(jobs, make_policy(scheme), procs))


def random_log(seed: int, k: int, rows: int, width: int, jobs: int) -> np.ndarray:
    """Return ``k`` random log entries on ``rows`` rows of ``width`` processors, with changes
    of the rows in use (to ``rows``, and to 2 where ``rows`` allows) among them."""
    rng = np.random.default_rng(seed)
    entries = np.zeros((k, 4), np.int32)
    entries[:, 0] = rng.integers(0, rows, k)
    entries[:, 1] = rng.integers(0, width - 3, k)
    entries[:, 2] = entries[:, 1] + rng.integers(1, 4, k)
    entries[:, 3] = rng.integers(-1, jobs, k)
    entries[::97, :] = (-1, rows, 0, 0)
    entries[5, :] = (-1, rows, 0, 0)
    if rows > 2:
        entries[::211, :] = (-1, 2, 0, 0)
    return entries


def replayed_from_zero(entries: np.ndarray, times: np.ndarray, t: float, rows: int, width: int) -> np.ndarray:
    """Return the matrix after every entry at or before ``t``, replayed one by one from the start."""
    want = np.full((rows, width), -1, np.int32)
    n = 0
    for (r, a, b, j), tt in zip(entries.tolist(), times.tolist()):
        if tt > t:
            break
        if r < 0:
            n = a
        else:
            want[r, a:b] = j
    return want[:n]


def test_a_long_log_is_read_through_its_copies():
    """More entries than one copy's stride: the matrix at any time is the replay from zero."""
    k = 3 * CHECKPOINT + 17
    entries = random_log(3, k, 3, 10, 50)
    times = np.repeat(np.arange(k // 2 + 1, dtype=float), 2)[:k]
    log = PlacementLog(times, entries, 3, 10)
    for t in (0.0, 7.0, CHECKPOINT / 2, CHECKPOINT / 2 + 0.5, k / 2 - 1, float(k)):
        assert np.array_equal(log.matrix_at(t), replayed_from_zero(entries, times, t, 3, 10)), t


@settings(max_examples=20, deadline=None, derandomize=True)
@given(gang_workloads(), st.sampled_from(["gs", "mgs"]), st.booleans())
def test_the_gang_loop_writes_its_time_to_the_progress_cell_and_runs_the_same(workload, policy, placement):
    """The cell holds the time of the last decision (the run's end) and the run is the one
    without a cell, bit for bit."""
    procs, jobs = workload
    cell = np.zeros(1)
    run = run_gang(job_arrays(jobs), policy, {"mpl": 2}, procs, placement=placement, progress=cell)
    plain = run_gang(job_arrays(jobs), policy, {"mpl": 2}, procs, placement=placement)
    assert cell[0] == run.time
    assert run.finish.tolist() == plain.finish.tolist() and run.time == plain.time


@settings(max_examples=20, deadline=None, derandomize=True)
@given(buddy_workloads(), st.sampled_from(["BC", "BRMMS"]), st.booleans())
def test_the_buddy_loop_writes_its_time_to_the_progress_cell_and_runs_the_same(workload, scheme, placement):
    procs, jobs = workload
    args = ([j.id for j in jobs], [j.arrival for j in jobs], [j.size for j in jobs], [j.work for j in jobs],
            scheme, procs)
    cell = np.zeros(1)
    run = run_buddy(*args, placement=placement, progress=cell)
    assert cell[0] == run.time
    assert run.finish.tolist() == run_buddy(*args, placement=placement).finish.tolist()


def test_times_asked_in_any_order_give_the_matrix_replayed_from_zero():
    """A query goes on from the last matrix answered when it can; forwards, backwards, across
    copies and after a caller wrote into an answer, each answer is the replay from zero."""
    k = 2 * CHECKPOINT + 300
    entries = random_log(5, k, 4, 16, 40)
    times = np.arange(k, dtype=float)
    log = PlacementLog(times, entries, 4, 16)
    asked = [3.0, 10.0, 10.0, 4000.0, 4100.0, 5.0, float(CHECKPOINT), CHECKPOINT + 1.0, 8300.0, 0.5, 8500.0]
    asked += np.random.default_rng(6).uniform(0, k, 30).tolist()
    for t in asked:
        got = log.matrix_at(t)
        assert np.array_equal(got, replayed_from_zero(entries, times, t, 4, 16)), t
        got[...] = 99  # the answer is the caller's: the next one is not changed by it
