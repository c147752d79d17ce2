"""Every command's JSON follows schema 1 (gangviz/results/schema.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gangviz.cli import main
from gangviz.results.figures import CORE_KEYS, ZHOU_KEYS
from gangviz.results.schema import SchemaError, validate

ROOT = Path(__file__).resolve().parents[2]
KTH = str(ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")


def _doc(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    return doc


@pytest.mark.parametrize("policy", ["gs", "mgs", "bgs", "mbgs", "brmms", "easy", "conservative", "fcfs"])
def test_run_json_of_every_family_follows_the_schema_with_the_core(capsys, policy):
    doc = _doc(capsys, ["run", KTH, "--procs", "128", "--policy", policy, "--json"])
    assert list(doc["metrics"])[:len(CORE_KEYS)] == list(CORE_KEYS)
    assert doc["units"]["wait"] == "s" and doc["units"]["bounded_slowdown"] == "ratio"
    assert doc["machine"] == {"processors": 128, "processors_from": "--procs", "slice": 1.0,
                              "slice_from": "default"}
    assert "small" in doc["classes"] and "32 processors" in doc["classes"]["small"]
    own = [k for k in doc["metrics"] if k not in CORE_KEYS]
    assert own == (list(ZHOU_KEYS) if doc["policy"]["family"] == "matrix" else [])


@pytest.mark.parametrize("argv", [
    ["run", "fig2-repacking", "--json"],
    ["run", "fig2-repacking", "--json", "--steps"],
    ["run", "downey", "--jobs", "40", "--policy", "easy", "--json", "--steps"],
    ["run", "papazachos-migration", "--json", "--steps"],
    ["run", "mccann-fig6-epochs", "--json"],
    ["run", KTH, "--policy", "easy", "--slice", "10", "--json"],
    ["compare", KTH, "--procs", "128", "--policy", "gs", "--policy", "easy", "--policy", "brmms",
     "--padding", "used", "--json"],
    ["compare", "downey", "--jobs", "30", "--policy", "bc", "--policy", "repack", "--json"],
])
def test_every_commands_json_follows_the_schema(capsys, argv):
    doc = _doc(capsys, argv)
    assert doc["schema"] == 1 and doc["command"] == argv[0]


def test_compare_marks_what_a_family_lacks_and_ranks_only_those_that_have_it(capsys):
    easy = "easy:estimates=exact"  # every job runs to its end, as under gs and mgs
    doc = _doc(capsys, ["compare", KTH, "--procs", "128", "--policy", "gs", "--policy", easy,
                        "--policy", "mgs", "--json"])
    assert doc["lacks"][easy] == list(ZHOU_KEYS) and doc["lacks"]["gs"] == []
    assert doc["metrics"][easy] == {k: doc["metrics"][easy][k] for k in CORE_KEYS}
    assert doc["served"] == {"same": True, "note": ""}
    assert easy not in doc["best"]["t_ta"] and doc["best"]["wait"]
    assert [p["engine"] for p in doc["policies"]] == ["compiled:gang", "backfill", "compiled:gang"]


def test_each_panes_figures_are_those_of_run(capsys):
    compared = _doc(capsys, ["compare", KTH, "--policy", "gs", "--policy", "easy", "--json"])
    for label in ("gs", "easy"):
        alone = _doc(capsys, ["run", KTH, "--policy", label, "--json"])
        assert alone["metrics"] == compared["metrics"][label]


@pytest.mark.parametrize("change, where", [
    (lambda d: d.update(schema=2), "$.schema"),
    (lambda d: d["machine"].pop("slice_from"), "slice_from"),
    (lambda d: d["metrics"].update(mystery=1.0), "mystery"),
    (lambda d: d["metrics"].update(wait="long"), "$.metrics.wait"),
    (lambda d: d.update(jobs=[]), "unknown member 'jobs'"),
])
def test_the_validator_names_what_breaks_the_schema(capsys, change, where):
    doc = _doc(capsys, ["run", KTH, "--policy", "easy", "--json"])
    change(doc)
    with pytest.raises(SchemaError, match=__import__("re").escape(where)):
        validate(doc)
