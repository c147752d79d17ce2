"""The bounded slowdown's threshold Γ in the notebook API (``bsld_threshold``), in the
per-job files' sidecar and in a comparison over seeds, as ``--bsld-threshold`` sets it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import gangviz
from gangviz.cli import main

KTH = str(Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")


def test_simulate_and_compare_take_the_threshold_and_keep_it(capsys):
    plain = gangviz.simulate(KTH, "easy")
    wide = gangviz.simulate(KTH, "easy", bsld_threshold=60)
    assert plain.bsld_threshold == 10 and wide.bsld_threshold == 60
    assert wide.metrics["bounded_slowdown"] < plain.metrics["bounded_slowdown"]
    assert wide.metrics["wait"] == plain.metrics["wait"]
    assert np.nanmean(wide.jobs["bounded_slowdown"]) == pytest.approx(wide.metrics["bounded_slowdown"])
    assert main(["run", KTH, "--policy", "easy", "--bsld-threshold", "60", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert wide.metrics["bounded_slowdown"] == pytest.approx(cli["metrics"]["bounded_slowdown"])
    both = gangviz.compare(KTH, ["easy", "gs"], bsld_threshold=60)
    assert {r.bsld_threshold for r in both.values()} == {60}
    assert both["easy"].metrics["bounded_slowdown"] == pytest.approx(wide.metrics["bounded_slowdown"])


@pytest.mark.parametrize("value, error", [("10", TypeError), (True, TypeError), (0, ValueError),
                                          (-1.0, ValueError), (float("nan"), ValueError),
                                          (float("inf"), ValueError)])
def test_a_threshold_that_is_not_a_positive_number_is_refused_by_name(value, error):
    with pytest.raises(error, match="bsld_threshold"):
        gangviz.simulate(KTH, "easy", bsld_threshold=value)
    with pytest.raises(error, match="bsld_threshold"):
        gangviz.compare(KTH, ["easy", "gs"], bsld_threshold=value)


def test_the_api_per_job_file_uses_the_threshold(tmp_path):
    out = gangviz.simulate(KTH, "easy", bsld_threshold=60).write_jobs(tmp_path / "jobs.csv")
    values = [float(r["bounded_slowdown"]) for r in csv.DictReader(out.open())]
    assert np.mean(values) == pytest.approx(gangviz.simulate(KTH, "easy", bsld_threshold=60).metrics["bounded_slowdown"])


@pytest.mark.parametrize("policy", ["easy", "gs"])
def test_the_sidecar_states_the_threshold(tmp_path, capsys, policy):
    out = tmp_path / "jobs.csv"
    assert main(["run", KTH, "--policy", policy, "--bsld-threshold", "60", "--jobs-out", str(out)]) == 0
    assert json.loads((tmp_path / "jobs.csv.json").read_text())["bsld_threshold"] == 60
    assert main(["run", KTH, "--policy", policy, "--jobs-out", str(out), "--force"]) == 0
    assert json.loads((tmp_path / "jobs.csv.json").read_text())["bsld_threshold"] == 10


def test_a_comparison_over_seeds_states_the_threshold(capsys):
    argv = ["compare", "downey", "--jobs", "40", "--policy", "gs", "--policy", "easy", "--seeds", "2",
            "--bsld-threshold", "3", "--workers", "1"]  # in this process: the figures do not depend on it
    assert main(argv) == 0
    assert "bounded slowdown threshold Γ = 3 slices (--bsld-threshold)" in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bsld_threshold"] == 3
