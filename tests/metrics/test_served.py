"""What a run served: jobs completed, jobs stopped at their estimate, the work never run, and
the utilisation of the work delivered [Zhang01 eq. 1 with t_e the time a job ran]; a comparison
of policies that served different work marks no best value and says how to compare them."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from gangviz.experiments.compare import run_policies
from gangviz.factory import run
from gangviz.metrics.ibm import ibm_metrics_of_columns
from gangviz.results.figures import run_figures
from gangviz.workloads.source import load_source

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def test_utilisation_counts_the_work_delivered_and_the_requested_beside_it():
    # two jobs on 4 processors: one ran its 10, one of 2 processors was stopped after 5 of 20
    m = ibm_metrics_of_columns([0, 0], [0, 0], [10, 5], [10, 20], [2, 2], 4, executed=[10, 5])
    assert m["utilization"] == pytest.approx((2 * 10 + 2 * 5) / (10 * 4))
    assert m["utilization_requested"] == pytest.approx((2 * 10 + 2 * 20) / (10 * 4))
    assert (m["jobs_completed"], m["jobs_killed"]) == (1, 1)
    assert m["work_unserved"] == pytest.approx(2 * 15)
    whole = ibm_metrics_of_columns([0, 0], [0, 0], [10, 20], [10, 20], [2, 2], 4)
    assert whole["jobs_killed"] == 0 and whole["utilization"] == whole["utilization_requested"]


@pytest.fixture(scope="module")
def kth():
    return load_source(str(KTH))


def test_easy_reports_the_jobs_it_stopped_and_the_work_it_delivered(kth):
    done = run(kth, "easy")
    v = run_figures(done).values
    over = [j for j in kth.jobs if j.estimate is not None and 0 < j.estimate < j.work]
    assert v["jobs_killed"] == len(over) > 0
    assert v["jobs_completed"] == len(kth.jobs) - len(over)
    assert v["work_unserved"] == pytest.approx(sum(j.size * (j.work - j.estimate) for j in over))
    finish = max(r.finish for r in done.result.records) - min(j.arrival for j in kth.jobs)
    delivered = sum(j.size * min(j.work, j.estimate if j in over else j.work) for j in kth.jobs)
    assert v["utilization"] == pytest.approx(delivered / (finish * kth.processors))
    assert v["utilization_requested"] > v["utilization"]
    exact = run_figures(run(kth, "easy:estimates=exact")).values
    assert exact["jobs_killed"] == 0 and exact["utilization"] == exact["utilization_requested"]


def test_the_columns_run_and_the_records_run_report_the_same_service(kth, capsys):
    from gangviz.cli import main

    assert main(["run", str(KTH), "--policy", "easy", "--json"]) == 0
    import json

    columns = json.loads(capsys.readouterr().out)["metrics"]
    records = run_figures(run(kth, "easy")).values
    for k in ("jobs_completed", "jobs_killed", "work_unserved", "utilization", "utilization_requested"):
        assert columns[k] == pytest.approx(records[k], rel=1e-12)


def test_a_comparison_of_different_work_marks_no_best_and_says_how_to_compare(kth):
    from gangviz.experiments.compare import comparison_of_policy_runs

    mixed = comparison_of_policy_runs(kth.title, run_policies(kth, ["gs", "easy"]))
    assert mixed.best == {}
    assert "different work" in mixed.note and "--policy easy:estimates=exact" in mixed.note
    assert mixed.note in mixed.to_text() and "*" not in mixed.to_text().split("\n")[1]
    alike = comparison_of_policy_runs(kth.title, run_policies(kth, ["gs", "easy:estimates=exact"]))
    assert alike.note == "" and alike.best["wait"]
    # EASY and conservative stop the same jobs at the same estimates: the same work
    both = comparison_of_policy_runs(kth.title, run_policies(kth, ["easy", "conservative"]))
    assert both.note == "" and both.best["wait"]


def test_per_job_files_carry_the_state_and_the_time_served(kth, tmp_path):
    path = tmp_path / "jobs.csv"
    run_policies(kth, ["gs", "easy"], jobs_out={"easy": str(path)})
    rows = list(csv.DictReader(path.open()))
    v = run_figures(run(kth, "easy")).values
    killed = [r for r in rows if r["final_state"] == "COMPLETED_KILLED"]
    assert len(killed) == v["jobs_killed"]
    for r in killed:
        assert float(r["served"]) == float(r["requested_time"]) < float(r["work"])
    whole = [r for r in rows if r["final_state"] == "COMPLETED_SUCCESSFULLY"]
    assert all(float(r["served"]) == float(r["work"]) for r in whole)
    served = np.array([float(r["served"]) * int(r["requested_number_of_resources"]) for r in rows])
    asked = np.array([float(r["work"]) * int(r["requested_number_of_resources"]) for r in rows])
    assert math.isclose(float((asked - served).sum()), v["work_unserved"], rel_tol=1e-12)
