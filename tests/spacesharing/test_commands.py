"""fcfs, easy and conservative wherever a policy is named: run, compare, sweep, the step-by-step
simulation."""

from __future__ import annotations

import json
import math
import re

import pytest

from gangviz.cli import main
from gangviz.policies import make_policy
from gangviz.resources import RESOURCES
from gangviz.spacesharing.checker import check_schedule
from gangviz.spacesharing.simulation import SpaceSharingSimulation
from gangviz.workloads.source import load_source

KTH = str(RESOURCES / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")


def test_run_easy_json_matches_the_rule(capsys, tmp_path):
    import csv

    out = tmp_path / "jobs.csv"
    assert main(["run", KTH, "--policy", "easy", "--json", "--jobs-out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["policy"]["name"] == "easy" and doc["policy"]["family"] == "space-sharing"
    assert "jobs" not in doc and "steps" not in doc  # a summary: per-job rows go to --jobs-out
    src = load_source(KTH)
    rows = list(csv.DictReader(out.open()))
    starts = {i: float(r["starting_time"]) for i, r in enumerate(rows)}
    assert check_schedule(src.jobs, starts, src.processors, "easy") == []
    waits = [float(r["waiting_time"]) for r in rows]
    assert doc["metrics"]["wait"] == pytest.approx(sum(waits) / len(waits))
    assert 0 < doc["metrics"]["utilization"] <= 1 and doc["metrics"]["loss_of_capacity"] >= 0


def test_run_parameters_and_errors(capsys):
    assert main(["run", KTH, "--policy", "conservative:estimates=exact", "--json"]) == 0
    policy = json.loads(capsys.readouterr().out)["policy"]
    assert policy["name"] == "conservative" and policy["label"] == "conservative:estimates=exact"
    assert policy["parameters"] == {"estimates": "exact", "kill": True}
    assert main(["run", KTH, "--policy", "easy:estimates=soon"]) != 0
    assert "estimates must be one of requested, exact" in capsys.readouterr().err


def test_compare_mixes_gang_and_space_sharing_in_one_ibm_table(capsys):
    assert main(["compare", KTH, "--policy", "easy", "--policy", "fcfs", "--policy", "gs", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    from gangviz.results.figures import CORE_KEYS, ZHOU_KEYS

    assert list(doc["metrics"]["gs"]) == list(CORE_KEYS + ZHOU_KEYS)
    assert list(doc["metrics"]["easy"]) == list(CORE_KEYS)
    assert doc["lacks"] == {"easy": list(ZHOU_KEYS), "fcfs": list(ZHOU_KEYS), "gs": []}
    m = {lab: {k: v for k, v in figs.items() if k in CORE_KEYS} for lab, figs in doc["metrics"].items()}
    assert m["easy"]["wait"] < m["fcfs"]["wait"]  # backfilling helps on this trace
    assert all(v is not None for lab in m for v in m[lab].values())
    assert doc["goals"]["utilization"] == "max"


def test_sweep_task_runs_space_sharing():
    from gangviz.experiments.tasks import RunTask, run_task

    out = run_task(RunTask.make("downey", "easy", 3, workload_params={"jobs": 60, "procs": 32}))
    assert out["n_l"] == 1 and 0 < out["r_a"] <= 1 and out["t_ta"] > 0


@pytest.mark.parametrize("mode", ["fcfs", "easy", "conservative"])
def test_simulation_steps_back_to_the_same_picture(mode):
    src = load_source(KTH)
    sim = SpaceSharingSimulation(src.jobs, src.processors, make_policy(mode))
    pictures = []
    while True:
        st = sim.state
        pictures.append((st.time, dict(st.running), list(st.waiting), dict(st.reservations), st.free))
        assert st.free == src.processors - sum(st.sizes[j] for j in st.running)
        if sim.step() is None:
            break
    assert sim.done and not sim.state.running and not sim.state.waiting
    for k in range(len(pictures) - 1, -1, -3):
        sim.go_to(k)
        st = sim.state
        assert (st.time, dict(st.running), list(st.waiting), dict(st.reservations), st.free) == pictures[k]
    with pytest.raises(ValueError, match="no job finished"):
        sim.ibm_metrics()  # at the start
    sim.go_to(len(pictures))
    assert sim.ibm_metrics()["wait"] == pytest.approx(
        sum(r.start - r.spec.arrival for r in sim.result.records) / len(sim.result.records))


def test_narration_says_why_a_job_backfills():
    src = load_source(KTH)
    sim = SpaceSharingSimulation(src.jobs, src.processors, make_policy("easy"))
    sim.run()
    lines = [line for s in sim.steps for line in s.narration]
    assert any(" backfills: it ends at " in line and "'s reservation at " in line for line in lines)
    assert any("heads the queue: reservation at" in line for line in lines)
    assert not math.isnan(sim.ibm_metrics()["loss_of_capacity"])


def test_narration_writes_times_in_the_runs_clock():
    """A model's narration speaks in slices, as its clock, log and axes do; a trace's as its
    clock writes a time (``04:21:09``), as the Gantt view's header, axis and queue do."""
    from gangviz.factory import build

    def narration(sim):
        sim.run()
        return [line for s in sim.steps for line in s.narration]

    model = narration(build(load_source("downey", jobs=30, procs=16), "easy"))
    arrivals = [line for line in model if " arrives: " in line]
    assert arrivals and all(line.endswith(" slices.") or line.endswith(" slice.") for line in arrivals)
    assert not any(line.endswith(" s.") or " s)" in line for line in model)
    trace = narration(build(load_source(KTH), "easy"))
    times = [line.rsplit(" ", 1)[1] for line in trace if " arrives: " in line]
    assert times and all(re.fullmatch(r"\d\d:\d\d:\d\d\.", t) for t in times), times[:5]
    assert not any(line.endswith((" s.", " min.", " h.")) or " h)" in line for line in trace)


def test_window_source_builds_a_space_sharing_simulation():
    from gangviz.factory import build

    sim = build(load_source(KTH), "conservative")
    assert sim.family == "space-sharing"


def test_scenarios_and_endless_jobs_get_one_line_messages(capsys):
    from gangviz.core.jobs import JobSpec
    from gangviz.spacesharing.backfill import simulate_backfill

    assert main(["run", "fig2-repacking", "--policy", "easy"]) != 0
    err = capsys.readouterr().err
    assert "space-sharing policy" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="runs forever"):
        simulate_backfill([JobSpec(0, "J0", 0.0, 1, math.inf)], 4)
    with pytest.raises(ValueError, match="space-sharing"):
        from gangviz.experiments.compare import compare

        compare(load_source("fig2-repacking"), ["easy", "repack"])


def test_samples_follow_the_steps_for_the_metric_panels():
    src = load_source(KTH)
    sim = SpaceSharingSimulation(src.jobs, src.processors, make_policy("easy"))
    sim.run()
    assert len(sim.samples) == len(sim.steps)
    last = sim.samples[-1]
    assert last.finished == len(src.jobs) and last.running == 0 and last.waiting == 0
    assert last.mean_turnaround == pytest.approx(
        sum(r.finish - r.spec.arrival for r in sim.result.records) / len(src.jobs))
    assert max(s.active_ratio for s in sim.samples) <= 1.0
