"""check-policy on several samples of its model (``--seeds N``): each figure's mean and 95%
interval, a best marked only where the intervals separate, as ``gangviz compare --seeds``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gangviz.cli import main
from gangviz.commands.check_policy import METRIC_WORKLOAD, sampled_metrics
from gangviz.experiments.stats import mean_ci
from gangviz.factory import run
from gangviz.workloads.source import load_source

ORDER = str(Path(__file__).resolve().parents[2] / "examples" / "policies" / "shortest_first.py")


def test_the_means_and_intervals_are_those_of_the_seeds():
    table = sampled_metrics([("gs", "gs", None), ("firstfit", "firstfit", None)], 3)
    assert table.seeds == (0, 1, 2)
    values = [run(load_source("downey", **{**METRIC_WORKLOAD, "seed": s}), "gs", engine="reference").metrics["t_ta"]
              for s in range(3)]
    mean, half, _ = mean_ci(values)
    assert table.mean["gs"]["t_ta"] == pytest.approx(mean)
    assert table.half["gs"]["t_ta"] == pytest.approx(half)
    for m, best in table.best.items():  # a best only where its interval is clear of the other
        for lab in best:
            other = "firstfit" if lab == "gs" else "gs"
            lo, hi = table.mean[lab][m] - table.half[lab][m], table.mean[lab][m] + table.half[lab][m]
            o_lo = table.mean[other][m] - table.half[other][m]
            o_hi = table.mean[other][m] + table.half[other][m]
            assert hi < o_lo or lo > o_hi


def test_a_queue_order_is_set_beside_arrival_order_over_the_seeds(capsys):
    assert main(["check-policy", f"{ORDER}:shortest_first", "--seeds", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["sampled"]) == {"gs", "fcfs", "easy", "conservative"}
    gs = doc["sampled"]["gs"]
    assert gs["seeds"] == [0, 1] and gs["level"] == 0.95
    assert set(gs["mean"]) == {"gs", "gs (arrival order)"}
    assert doc["metrics"]["gs"]["t_ta"] == gs["mean"]["gs"]["t_ta"]  # the leaderboard reads the means


def test_one_seed_is_refused_before_anything_runs(capsys):
    assert main(["check-policy", f"{ORDER}:shortest_first", "--seeds", "1"]) == 1
    assert "at least 2 samples" in capsys.readouterr().err
