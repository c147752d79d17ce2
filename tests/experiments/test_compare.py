"""Comparison of policies on one workload: the numbers, the best marks, the CLI."""

import csv
import io
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.cli import main
from gangviz.experiments.compare import (
    GOALS,
    best_labels,
    build_simulations,
    compare,
    comparison_of_simulations,
)
from gangviz.factory import parse_policy_spec
from gangviz.metrics.zhou import zhou_metrics
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.source import load_source

values = st.one_of(st.floats(-10, 10), st.just(math.nan), st.sampled_from([1.0, 2.0]))


@settings(max_examples=80, deadline=None)
@given(vals=st.dictionaries(st.sampled_from("abcde"), values, max_size=5),
       goal=st.sampled_from(["max", "min"]))
def test_best_labels_are_the_extremes(vals, goal):
    best = best_labels(vals, goal)
    defined = {k: v for k, v in vals.items() if not math.isnan(v)}
    if len(defined) < 2:
        assert best == ()
        return
    target = (max if goal == "max" else min)(defined.values())
    assert set(best) == {k for k, v in defined.items() if v == target}


def test_compare_equals_separate_runs():
    source = load_source("downey", jobs=40, load=0.8, procs=32, seed=3)
    result = compare(source, ["bc", "repack", "random:seed=3"])
    for spec, (name, params) in [("bc", ("bc", {})), ("repack", ("repack", {})),
                                 ("random:seed=3", ("random", {"seed": 3}))]:
        sim = Simulation(source.jobs, make_policy(name, **params), source.processors, record=False)
        sim.run()
        expected = zhou_metrics(sim)
        got = result.metrics[spec]
        assert all(got[m] == expected[m] or (math.isnan(got[m]) and math.isnan(expected[m]))
                   for m in expected)
    assert set(result.goals) == {m for m in result.keys if m in GOALS}
    for m, goal in result.goals.items():
        assert result.best[m] == best_labels({lab: result.metrics[lab][m] for lab in result.labels}, goal)


def test_window_path_gives_the_same_numbers():
    source = load_source("fig2-repacking")
    sims = build_simulations(source, ["repack", "firstfit"], record=True)
    assert comparison_of_simulations(source, sims).to_dict() == compare(source, ["repack", "firstfit"]).to_dict()


@pytest.mark.parametrize("spec,expected", [
    ("bc", ("bc", {})), ("random:seed=3", ("random", {"seed": 3})),
    ("mgs:migration_cost=1.5,charge_migration=no,q=none",
     ("mgs", {"migration_cost": 1.5, "charge_migration": False, "q": None}))])
def test_parse_policy_spec(spec, expected):
    assert parse_policy_spec(spec) == expected


@pytest.mark.parametrize("spec", [":seed=1", "random:seed", "random:=3"])
def test_parse_policy_spec_rejects(spec):
    with pytest.raises(ValueError):
        parse_policy_spec(spec)


def test_cli_formats_agree(capsys):
    args = ["compare", "downey", "--jobs", "30", "--procs", "16", "--policy", "bc", "--policy", "repack",
            "--workers", "1"]  # in this process: the formats do not depend on the workers
    assert main(args + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in doc["policies"]] == ["bc", "repack"] and doc["machine"]["processors"] == 16
    assert main(args + ["--csv"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert table[0] == ["metric", "bc", "repack", "best"]
    assert table[-1] == ["bsld_threshold", "10.0", "10.0", ""] and doc["bsld_threshold"] == 10.0  # Γ stated
    for metric, bc, repack, best in table[1:-1]:
        for label, text in (("bc", bc), ("repack", repack)):
            value = doc["metrics"][label][metric]
            assert (text == "" and value is None) or float(text) == value
        assert (best.split(";") if best else []) == doc["best"].get(metric, [])
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "*" in text and "t_ta" in text


@pytest.mark.parametrize("extra,needle", [(["--policy", "bc"], "at least two"),
                                          (["--policy", "bc", "--policy", "zzz"], "unknown policy"),
                                          (["--policy", "bc", "--policy", "bc"], "once")])
def test_cli_errors(capsys, extra, needle):
    assert main(["compare", "downey", "--jobs", "10", "--procs", "16", *extra]) == 1
    assert needle in capsys.readouterr().err
