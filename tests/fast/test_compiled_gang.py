"""The compiled GS/BGS/MGS/MBGS loop gives what the reference engine gives, job for job."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.fast.gang import covers, ibm_metrics_compiled, job_arrays, run_gang
from gangviz.metrics.ibm import ibm_metrics, run_with_capacity
from gangviz.policies.ibm.gs import BGS, GS, MBGS, MGS
from gangviz.sim.engine import Simulation
from gangviz.workloads.ibm import clip_to_estimates, zhang_workload
from gangviz.workloads.swf import read_swf

CLASSES = {"gs": GS, "bgs": BGS, "mgs": MGS, "mbgs": MBGS}


def reference(jobs, policy, params, procs, overhead=0.0):
    pol = CLASSES[policy](**params)
    sim = Simulation(jobs, pol, procs, overhead=overhead, record=False)
    cap = run_with_capacity(sim)
    by_id = {r.spec.id: r for r in sim.records()}
    first = sim.run_stats()[0]
    return {"start": [by_id[j.id].start for j in jobs], "finish": [by_id[j.id].finish for j in jobs],
            "first_run": [float(first[j.id]) for j in jobs], "time": sim.time, "max_rows": sim.max_slots,
            "migrated_tasks": pol.migrated_tasks, "migration_overhead": pol.migration_overhead,
            "lost": (cap.lost, cap.lost_small, cap.lost_large), "slot_time": sim.slot_time}


def compiled(jobs, policy, params, procs, overhead=0.0):
    run = run_gang(job_arrays(jobs), policy, params, procs, overhead=overhead)
    return {"start": run.start.tolist(), "finish": run.finish.tolist(), "first_run": run.first_run.tolist(),
            "time": run.time, "max_rows": run.max_rows, "migrated_tasks": run.migrated_tasks,
            "migration_overhead": run.migration_overhead, "lost": (run.lost, run.lost_small, run.lost_large),
            "slot_time": run.slot_time}


def same(a, b) -> bool:
    """Equal, or within 1e-9 relative for sums whose terms may be added in another order."""
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def assert_same(jobs, policy, params, procs, overhead=0.0):
    ref = reference(jobs, policy, params, procs, overhead)
    got = compiled(jobs, policy, params, procs, overhead)
    for key in ("start", "finish", "first_run", "time", "max_rows", "migrated_tasks"):
        assert got[key] == ref[key] or same(got[key], ref[key]) and key == "first_run", key
    for key in ("migration_overhead", "lost", "slot_time"):
        assert same(got[key], ref[key]), key


@st.composite
def workloads(draw):
    """``(processors, jobs)``: 1-13 processors (most not powers of two), up to 30 jobs with
    arrival ties, ids not in arrival order, fractional work and estimates above or without."""
    procs = draw(st.integers(1, 13))
    n = draw(st.integers(1, 30))
    gaps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.25, 0.5, 1.0, 1.7, 3.0, 12.0]), min_size=n, max_size=n))
    ids = draw(st.permutations(range(50, 50 + n)))
    jobs, t = [], 0.0
    for i, gap in enumerate(gaps):
        t += gap
        work = draw(st.sampled_from([0.3, 1.0, 2.0, 2.5, 5.0, 9.75, 20.0]))
        est = draw(st.sampled_from([None, 1.0, 1.5, 4.0]))
        jobs.append(JobSpec(ids[i], f"J{ids[i]}", t, draw(st.integers(1, procs)), work,
                            None if est is None else work * est))
    return procs, jobs


@st.composite
def settings_of(draw):
    """A policy with its parameters, and the context-switch overhead."""
    policy = draw(st.sampled_from(sorted(CLASSES)))
    params = {"mpl": draw(st.integers(1, 5))}
    if policy in ("mgs", "mbgs"):
        params["q"] = draw(st.sampled_from([None, 0, 2, 6]))
        params["migration_cost"] = draw(st.sampled_from([0.0, 0.05, 0.5]))
        params["charge_migration"] = draw(st.booleans())
    return policy, params, draw(st.sampled_from([0.0, 0.0, 0.1]))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(workloads(), settings_of())
def test_the_compiled_loop_gives_the_reference_engines_jobs(workload, setup):
    procs, jobs = workload
    policy, params, overhead = setup
    assert_same(jobs, policy, params, procs, overhead)


@pytest.mark.parametrize("policy", sorted(CLASSES))
def test_a_crowded_zhang_workload_gives_the_reference_engines_jobs(policy):
    # 400 jobs at offered load 0.88 on 320 nodes: all five rows full, long queues, reservations
    # and migrations at almost every event.
    w = zhang_workload(400, 1.6, seed=3, calibrate=True)
    assert_same(w.jobs, policy, {"mpl": 5}, 320)


@pytest.mark.parametrize("policy", ["mgs", "mbgs"])
def test_charged_migrations_with_a_bound_give_the_reference_engines_jobs(policy):
    w = zhang_workload(300, 1.4, seed=5, calibrate=True)
    assert_same(w.jobs, policy, {"mpl": 4, "q": 64, "migration_cost": 0.05}, 320, overhead=0.02)


WORKLOADS = Path(__file__).resolve().parents[2] / "resources" / "workloads"
TRACES = ["KTH-SP2-1996-2.1-cln-first300.swf", "downey-200-load0.5-seed1.swf", "papazachos-normal3-300.swf"]


@pytest.mark.parametrize("trace", TRACES)
@pytest.mark.parametrize("policy", sorted(CLASSES))
def test_the_shipped_traces_give_the_reference_engines_metrics(trace, policy):
    w = read_swf(WORKLOADS / trace, slice_seconds=200.0)
    jobs = clip_to_estimates(w.jobs)
    sim = Simulation(jobs, CLASSES[policy](5), w.processors, record=False)
    cap = run_with_capacity(sim)
    ref = ibm_metrics(sim.records(), w.processors, time_unit=200.0, capacity=cap)
    got, _run = ibm_metrics_compiled(jobs, policy, {"mpl": 5}, w.processors, time_unit=200.0)
    assert got.keys() == ref.keys()
    for key in ref:
        assert same(got[key] if key != "std" else sorted(got[key].items()),
                    ref[key] if key != "std" else sorted(ref[key].items())) or key == "std" and all(
            same(got["std"][k], ref["std"][k]) for k in ref["std"]), key


def test_covers_only_what_it_runs_exactly():
    assert covers("GS", {"mpl": 5})
    assert covers("mbgs", {"mpl": 3, "q": 4, "migration_cost": 0.05, "charge_migration": False})
    assert covers("bgs", {}, "event")
    assert not covers("gs", {"decide": "boundary"})
    assert not covers("gs", {}, "boundary")
    assert not covers("gs", {"q": 3})  # GS takes no Q
    assert not covers("br", {})
    assert not covers("gs", {}, record=True)
    assert not covers("gs", {}, ring=True)
    assert not covers("gs", {}, script=("x",))
    assert not covers("gs", {}, jobs=[JobSpec(0, "J0", 0.0, 1, math.inf)])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"policy": "BC"}, "policy must be one of GS, BGS, MGS, MBGS"),
        ({"params": {"q": 2}}, "unknown parameter 'q'"),
        ({"params": {"mpl": 0}}, "mpl must be a whole number in 1..65,536"),
        ({"params": {"decide": "boundary"}}, "decisions at events only"),
        ({"processors": 0}, "processors must be a whole number >= 1"),
        ({"size": [1, 9]}, r"job size must be in 1..8 processors, got 9 \(job 1\)"),
        ({"work": [1.0, math.inf]}, r"job work must be finite and > 0 slices, got inf \(job 1\)"),
        ({"arrival": [0.0, math.nan]}, r"job arrival must be a finite time >= 0, got nan \(job 1\)"),
        ({"ids": [3, 3]}, "job ids must be unique"),
    ],
)
def test_bad_input_is_refused_with_the_allowed_range(kwargs, message):
    import numpy as np

    from gangviz.fast.gang import JobArrays

    a = {"ids": [0, 1], "arrival": [0.0, 1.0], "size": [1, 2], "work": [1.0, 2.0], "policy": "gs",
         "params": {}, "processors": 8}
    a.update(kwargs)
    jobs = JobArrays(np.array(a["ids"]), np.array(a["arrival"], dtype=float), np.array(a["size"]),
                     np.array(a["work"], dtype=float), np.full(2, math.nan))
    with pytest.raises(ValueError, match=message):
        run_gang(jobs, a["policy"], a["params"], a["processors"])


def test_an_empty_workload_ends_at_time_zero():
    run = run_gang(job_arrays([]), "mbgs", {}, 8)
    assert run.time == 0.0 and run.max_rows == 0 and len(run.finish) == 0


@pytest.mark.parametrize("policy", ["GS", "BGS", "MGS", "MBGS"])
def test_a_zhang_cell_gives_the_same_figures_on_both_engines(policy):
    from gangviz.experiments.repro.zhang import run_cell

    for cost, q in ((0.0, None), (10.0, 64)):
        args = (policy, 1.5, 300, 2, True, cost, q, "event")
        python, fast = run_cell(*args, engine="python"), run_cell(*args, engine="compiled")
        assert python.keys() == fast.keys()
        for key in python:
            if key == "std":
                assert same(sorted(fast[key].items()), sorted(python[key].items()))
            else:
                assert same(fast[key], python[key]), key


@pytest.mark.parametrize("policy", ["gs", "bgs", "mgs", "mbgs"])
def test_a_sweep_task_gives_the_same_metrics_on_both_engines(policy):
    from gangviz.experiments.tasks import RunTask, _run, run_task

    task = RunTask.make("downey", policy, 7, workload_params={"jobs": 150, "load": 0.8, "procs": 24})
    assert _run(task, engine="auto").engine == "compiled:gang"
    fast, python = run_task(task), run_task(task, engine="python")
    assert fast.keys() == python.keys()
    for key in fast:
        assert same(fast[key], python[key]), key
    boundary = RunTask.make("downey", policy, 7, workload_params={"jobs": 20}, policy_params={"decide": "boundary"})
    assert _run(boundary, engine="auto").engine == "reference"
