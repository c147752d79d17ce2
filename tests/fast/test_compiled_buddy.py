"""The compiled headless loop gives what the reference engine gives, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.experiments.repro.zhou import run_one
from gangviz.fast.buddy import run_buddy
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.synthetic import uniform_log

SETUPS = [("BC", None), ("BR", None)] + [(s, e) for s in ("BRMS", "BRMMS") for e in (None, "arrival", "decision")]


@st.composite
def workloads(draw):
    """Return ``(processors, jobs)``: 2-32 processors, up to 40 jobs with arrival ties, arrivals
    between slice boundaries, ids not in arrival order and fractional work."""
    procs = draw(st.sampled_from([2, 4, 8, 16, 32]))
    n = draw(st.integers(1, 60))
    # Mostly short gaps: many jobs at once make many slots, and ties between them.
    gaps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.3, 0.5, 1.0, 2.0, 9.0]), min_size=n, max_size=n))
    ids = draw(st.permutations(range(100, 100 + n)))
    jobs = []
    t = 0.0
    for i, gap in enumerate(gaps):
        t += gap
        size = draw(st.integers(1, procs))
        work = draw(st.sampled_from([1.0, 2.0, 3.0, 7.0, 30.0, 60.0, 0.5, 2.25]))
        jobs.append(JobSpec(ids[i], f"J{ids[i]}", t, size, work))
    return procs, jobs


def reference(jobs, scheme, procs, occupy, extra_slots_on):
    options = {"occupy": occupy}
    if extra_slots_on is not None:
        options["extra_slots_on"] = extra_slots_on
    sim = Simulation(jobs, make_policy(scheme, **options), procs, record=False)
    sim.run()
    by_id = {r.spec.id: r for r in sim.records()}
    return ([by_id[j.id].start for j in jobs], [by_id[j.id].finish for j in jobs],
            sim.time, sim.max_slots, sim.slot_time, sim.busy_time)


def compiled(jobs, scheme, procs, occupy, extra_slots_on):
    run = run_buddy([j.id for j in jobs], [j.arrival for j in jobs], [j.size for j in jobs],
                    [j.work for j in jobs], scheme, procs, occupy, extra_slots_on)
    return run.start.tolist(), run.finish.tolist(), run.time, run.max_slots, run.slot_time, run.busy_time


@settings(max_examples=150, deadline=None, derandomize=True)
@given(workloads(), st.sampled_from(SETUPS), st.sampled_from(["size", "block"]))
def test_the_compiled_loop_gives_the_reference_engines_records(workload, setup, occupy):
    procs, jobs = workload
    scheme, extra_slots_on = setup
    assert compiled(jobs, scheme, procs, occupy, extra_slots_on) == reference(jobs, scheme, procs, occupy, extra_slots_on)


@st.composite
def backlogs(draw):
    """Return ``(processors, jobs)`` that pile up: 4-16 processors, 80-200 jobs arriving faster
    than they finish (bursts at one time, gaps of at most one slice), long work next to short,
    so the matrix reaches tens of slots, jobs take and give up extra slots at most decision
    points, and slots come and go while many jobs are present."""
    procs = draw(st.sampled_from([4, 8, 16]))
    n = draw(st.integers(80, 200))
    gaps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.0, 0.4, 1.0]), min_size=n, max_size=n))
    ids = draw(st.permutations(range(n)))
    jobs = []
    t = 0.0
    for i, gap in enumerate(gaps):
        t += gap
        size = draw(st.integers(1, procs))
        work = draw(st.sampled_from([1.0, 3.5, 12.0, 40.0, 150.0, 400.0]))
        jobs.append(JobSpec(ids[i], f"J{ids[i]}", t, size, work))
    return procs, jobs


@settings(max_examples=25, deadline=None, derandomize=True)
@given(backlogs(), st.sampled_from(SETUPS), st.sampled_from(["size", "block"]))
def test_a_growing_backlog_gives_the_reference_engines_records(workload, setup, occupy):
    # The compiled loop keeps per-slot run counts, per-slot first completions and the slot
    # lists of replicated jobs up to date as slots come and go; a backlog exercises all of it.
    procs, jobs = workload
    scheme, extra_slots_on = setup
    args = (jobs, scheme, procs, occupy, extra_slots_on)
    assert compiled(*args) == reference(*args)


@st.composite
def wide_backlogs(draw):
    """Return ``(processors, jobs)`` on 64 or 128 processors that pile up: small jobs next to
    blocks of 33-64 and 65-128 processors, so a slot's busy processors span several words of the
    loop's per-slot bits and blocks start and end inside and at the edges of words, while long
    work keeps dozens of jobs present, each taking and giving up extra slots."""
    procs = draw(st.sampled_from([64, 128]))
    n = draw(st.integers(60, 140))
    gaps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    ids = draw(st.permutations(range(n)))
    jobs = []
    t = 0.0
    for i, gap in enumerate(gaps):
        t += gap
        size = draw(st.sampled_from([1, 2, 3, 5, 8, 13, 31, 33, 40, 64, procs // 2 + 1, procs]))
        work = draw(st.sampled_from([1.0, 4.5, 20.0, 90.0, 300.0]))
        jobs.append(JobSpec(ids[i], f"J{ids[i]}", t, min(size, procs), work))
    return procs, jobs


@settings(max_examples=12, deadline=None, derandomize=True)
@given(wide_backlogs(), st.sampled_from(SETUPS[2:]), st.sampled_from(["size", "block"]))
def test_a_wide_machine_with_a_backlog_gives_the_reference_engines_records(workload, setup, occupy):
    # The loop answers "is this block free in that slot" and "how far does this idle run reach"
    # from per-slot bits, 32 processors a word, and closes WLT nodes as extra slots fill them:
    # on 64 and 128 processors both cross words, which the small machines above never do.
    procs, jobs = workload
    scheme, extra_slots_on = setup
    args = (jobs, scheme, procs, occupy, extra_slots_on)
    assert compiled(*args) == reference(*args)


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("occupy", ["size", "block"])
def test_a_crowded_machine_gives_the_reference_engines_records(setup, occupy):
    # 300 jobs at rho 0.9 on 32 processors: dozens of slots, where every tie-break of the
    # re-packing (which row, which partner, which plan) shows in the finish times.
    workload = uniform_log(300, 0.9, procs=32, seed=4)
    scheme, extra_slots_on = setup
    args = (workload.jobs, scheme, 32, occupy, extra_slots_on)
    assert compiled(*args) == reference(*args)


@pytest.mark.parametrize("scheme", ["BC", "BR", "BRMS", "BRMMS"])
@pytest.mark.parametrize("load", [0.5, 0.9])
def test_a_table_2_run_gives_the_same_metrics_on_both_engines(scheme, load):
    # 600 jobs at rho 0.9 reach dozens of slots and hundreds of extra slots under BRMS.
    for extra_slots_on in ([None, "decision", "arrival"] if scheme in ("BRMS", "BRMMS") else [None]):
        task = (scheme, load, 600, 11, "size", extra_slots_on)
        python, fast = run_one(task + ("python",)), run_one(task + ("compiled",))
        assert python.keys() == fast.keys()
        for key in python:
            assert python[key] == fast[key] or (math.isnan(python[key]) and math.isnan(fast[key])), key


def test_many_slots_grow_the_compiled_matrix():
    # Under BRMS at rho 0.9 the matrix passes its first capacity (64 slots) many times over.
    workload = uniform_log(1500, 0.9, procs=128, seed=5)
    got = compiled(workload.jobs, "BRMS", 128, "size", "decision")
    assert got[3] > 64
    assert got == reference(workload.jobs, "BRMS", 128, "size", "decision")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scheme": "XX"}, "scheme must be one of BC, BR, BRMS, BRMMS"),
        ({"processors": 12}, "power-of-two number of processors, got 12"),
        ({"occupy": "half"}, "occupy must be 'block' or 'size'"),
        ({"extra_slots_on": "never"}, "extra_slots_on must be 'arrival' or 'decision'"),
        ({"size": [1, 9]}, r"job size must be in 1..8 processors, got 9 \(job 1\)"),
        ({"work": [1.0, 0.0]}, r"job work must be finite and > 0 slices, got 0.0 \(job 1\)"),
        ({"work": [math.inf, 1.0]}, r"job work must be finite and > 0 slices, got inf \(job 0\)"),
        ({"arrival": [0.0, math.nan]}, r"job arrival must be a finite time, got nan \(job 1\)"),
        ({"ids": [3, 3]}, "job ids must be unique"),
    ],
)
def test_bad_input_is_refused_with_the_allowed_range(kwargs, message):
    args = {"ids": [0, 1], "arrival": [0.0, 1.0], "size": [1, 2], "work": [1.0, 2.0],
            "scheme": "BR", "processors": 8}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        run_buddy(**args)


def test_an_empty_workload_ends_at_time_zero():
    run = run_buddy([], [], [], [], "BRMMS", 8)
    assert (run.time, run.max_slots, run.slot_time, len(run.finish)) == (0.0, 0, 0.0, 0)
    assert np.array_equal(run.start, np.empty(0))


@pytest.mark.parametrize(
    ("workload", "workload_params", "policy", "policy_params"),
    [
        ("downey", {"jobs": 400, "load": 0.9, "procs": 64}, "brms", {}),
        ("downey", {"jobs": 400, "load": 0.9, "procs": 64}, "brmms", {"extra_slots_on": "arrival", "occupy": "block"}),
        ("downey", {"jobs": 400, "load": 0.7}, "bc", {}),
        ("resources/workloads/KTH-SP2-1996-2.1-cln-first300.swf", {"procs": 128}, "br", {}),
        ("resources/workloads/KTH-SP2-1996-2.1-cln-first300.swf", {"procs": 128}, "brms", {}),
    ],
)
def test_a_sweep_run_of_a_buddy_scheme_gives_the_reference_metrics(workload, workload_params, policy, policy_params):
    from gangviz.experiments.tasks import RunTask, build_jobs, run_task
    from gangviz.factory.compiled import compiled_runner

    task = RunTask.make(workload, policy, 7, workload_params=workload_params, policy_params=policy_params)
    assert compiled_runner(build_jobs(workload, workload_params, 7), policy, policy_params, False)
    fast, python = run_task(task), run_task(task, engine="python")
    assert fast.keys() == python.keys()
    for key in fast:
        assert fast[key] == python[key] or (math.isnan(fast[key]) and math.isnan(python[key])), key


def test_runs_the_compiled_loop_does_not_cover_go_to_the_reference_engine():
    from gangviz.experiments.tasks import build_jobs
    from gangviz.factory.compiled import compiled_runner

    # a starting matrix and a script; a ring; a policy no loop runs
    assert compiled_runner(build_jobs("zhou-multislot-brms", {}, 1), "brms", {}, False) is None
    assert compiled_runner(build_jobs("downey", {}, 1), "br", {}, True) is None
    assert compiled_runner(build_jobs("downey", {}, 1), "repack", {}, False) is None
