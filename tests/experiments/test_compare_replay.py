"""A comparison's JSON replays it: ``gangviz compare --replay doc.json`` runs the same policies
on the same source, machine and queue orders, and prints the same figures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gangviz.cli import main

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def _run(capsys, argv) -> str:
    # in this process (one worker): the figures do not depend on the workers, and a spawned
    # worker costs a second of imports
    assert main([*argv, "--workers", "1"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    [str(KTH), "--procs", "128", "--padding", "absent", "--policy", "gs", "--policy", "easy",
     "--policy", "brmms"],
    ["downey", "--jobs", "40", "--seed", "5", "--load", "0.7", "--policy", "bc", "--policy", "easy:estimates=exact"],
])
def test_a_comparison_replayed_from_its_json_gives_the_same_figures(tmp_path, capsys, argv):
    first = _run(capsys, ["compare", *argv, "--json"])
    doc = tmp_path / "c.json"
    doc.write_text(first)
    again = _run(capsys, ["compare", "--replay", str(doc), "--json"])
    assert json.loads(again)["metrics"] == json.loads(first)["metrics"]
    assert again == first  # every member, the provenance and the replay record included


def test_the_queue_orders_replay_too(tmp_path, capsys):
    order = tmp_path / "order.py"
    order.write_text("def longest(job):\n    return -job.work\n")
    argv = ["compare", str(KTH), "--policy", "easy", "--policy", "conservative",
            "--order", f"easy={order}:longest", "--json"]
    first = json.loads(_run(capsys, argv))
    plain = json.loads(_run(capsys, argv[:-3] + ["--json"]))
    assert first["metrics"]["easy"]["wait"] != plain["metrics"]["easy"]["wait"]  # the order counts
    doc = tmp_path / "c.json"
    doc.write_text(json.dumps(first))
    assert json.loads(_run(capsys, ["compare", "--replay", str(doc), "--json"]))["metrics"] == first["metrics"]


def test_a_changed_source_or_extra_arguments_are_refused(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    shutil.copy(KTH, trace)
    doc = tmp_path / "c.json"
    doc.write_text(_run(capsys, ["compare", str(trace), "--policy", "gs", "--policy", "easy", "--json"]))
    assert main(["compare", "--replay", str(doc), "--policy", "bc"]) == 1
    assert "give none of them" in capsys.readouterr().err
    trace.write_text(trace.read_text() + "\n; changed\n")
    assert main(["compare", "--replay", str(doc)]) == 1
    assert "has changed since" in capsys.readouterr().err
    (tmp_path / "not.json").write_text("{}")
    assert main(["compare", "--replay", str(tmp_path / "not.json")]) == 1
    assert "not the JSON of 'gangviz compare --json'" in capsys.readouterr().err
