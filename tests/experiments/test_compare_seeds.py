"""A comparison on a synthetic model over several seeds: each figure's mean and 95% interval,
and a best marked only where its interval is clear of every other policy's."""

from __future__ import annotations

import json
import math

import pytest

from gangviz.cli import main
from gangviz.experiments.compare import _separated, comparison_of_policy_runs, run_policies
from gangviz.experiments.stats import mean_ci
from gangviz.workloads.source import load_source


def test_a_best_needs_intervals_that_separate():
    assert _separated({"a": (10.0, 1.0), "b": (5.0, 1.0)}, "max") == ("a",)
    assert _separated({"a": (10.0, 3.0), "b": (5.0, 3.0)}, "max") == ()  # 7 < 8: they overlap
    assert _separated({"a": (10.0, 1.0), "b": (5.0, 1.0)}, "min") == ("b",)
    assert _separated({"a": (10.0, math.nan), "b": (5.0, 1.0)}, "min") == ()


def test_the_means_and_intervals_are_those_of_the_samples(capsys):
    argv = ["compare", "downey", "--jobs", "60", "--load", "0.8", "--seed", "3", "--policy", "bc",
            "--policy", "repack", "--seeds", "3", "--workers", "1", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["seeds"] == [3, 4, 5]
    waits = []
    for seed in (3, 4, 5):
        src = load_source("downey", jobs=60, load=0.8, seed=seed)
        waits.append(comparison_of_policy_runs(src.title, run_policies(src, ["bc", "repack"])).metrics["bc"]["t_ta"])
    mean, half, _ = mean_ci(waits)
    assert doc["mean"]["bc"]["t_ta"] == pytest.approx(mean)
    assert doc["half_width"]["bc"]["t_ta"] == pytest.approx(half)
    for m, labels in doc["best"].items():  # every best is clear of the other policy
        for lab in labels:
            other = "repack" if lab == "bc" else "bc"
            lo = doc["mean"][lab][m] - doc["half_width"][lab][m]
            hi = doc["mean"][lab][m] + doc["half_width"][lab][m]
            o_lo = doc["mean"][other][m] - doc["half_width"][other][m]
            o_hi = doc["mean"][other][m] + doc["half_width"][other][m]
            assert lo > o_hi or hi < o_lo


def test_the_table_states_the_interval_and_the_seeds(capsys):
    assert main(["compare", "downey", "--jobs", "40", "--policy", "bc", "--policy", "firstfit",
                 "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert " ± " in out and "95% interval over 2 seeds (1, 2)" in out


@pytest.mark.parametrize("argv, text", [
    (["compare", "fig2-repacking", "--policy", "bc", "--policy", "br", "--seeds", "3"], "synthetic model"),
    (["compare", "downey", "--policy", "bc", "--policy", "br", "--seeds", "1"], "at least 2"),
])
def test_seeds_apply_to_a_model_only(capsys, argv, text):
    assert main(argv) == 1
    assert text in capsys.readouterr().err
