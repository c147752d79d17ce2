"""The bounded slowdown's threshold Γ is an option (``--bsld-threshold``, 10 s by default
[Zhang01 §2.3]) that every output states, and every path applies."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from gangviz.cli import main

KTH = str(Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("policy", ["gs", "easy", "brmms"])
def test_the_threshold_reaches_every_run_path_and_is_stated(capsys, policy):
    extra = ["--procs", "128"] if policy == "brmms" else []
    plain = _json(capsys, ["run", KTH, *extra, "--policy", policy, "--json"])
    wide = _json(capsys, ["run", KTH, *extra, "--policy", policy, "--json", "--bsld-threshold", "60"])
    assert plain["bsld_threshold"] == 10 and wide["bsld_threshold"] == 60
    assert wide["metrics"]["bounded_slowdown"] < plain["metrics"]["bounded_slowdown"]
    assert "Γ = 60 s" in wide["definitions"]["bounded_slowdown"]
    assert wide["metrics"]["wait"] == plain["metrics"]["wait"]
    compared = _json(capsys, ["compare", KTH, *extra, "--policy", policy, "--policy", "fcfs:estimates=exact",
                              "--padding", "absent", "--json", "--bsld-threshold", "60"] if extra else
                     ["compare", KTH, "--policy", policy, "--policy", "fcfs:estimates=exact", "--json",
                      "--bsld-threshold", "60"])
    assert compared["bsld_threshold"] == 60
    assert compared["metrics"][policy]["bounded_slowdown"] == pytest.approx(wide["metrics"]["bounded_slowdown"])
    assert main(["run", KTH, *extra, "--policy", policy, "--bsld-threshold", "60"]) == 0
    assert "bounded slowdown threshold Γ = 60 s" in capsys.readouterr().out


def test_the_per_job_file_uses_the_same_threshold(tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    doc = _json(capsys, ["run", KTH, "--policy", "easy", "--bsld-threshold", "60", "--json",
                         "--jobs-out", str(out)])
    values = [float(r["bounded_slowdown"]) for r in csv.DictReader(out.open())]
    assert np.mean(values) == pytest.approx(doc["metrics"]["bounded_slowdown"])
