"""The window's metric panels: each family shows its own figures, and at the end of every
built-in scenario they are the numbers of ``gangviz run --json``."""

import json
import math

import pytest
from PySide6.QtGui import QColor

from gangviz.cli import main
from gangviz.metrics.table import PANELS
from gangviz.resources import list_scenarios

SCENARIOS = [p.stem for p in list_scenarios()]


def _json_metrics(capsys, name: str) -> dict:
    capsys.readouterr()
    assert main(["run", name, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["metrics"]


def _run_to_end(window, name: str) -> None:
    assert window.open_source(name, remember=False)
    window.player.go_to(10**9, now=True)
    assert window.player.sim.done
    window.metrics.refresh()


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_panels_end_on_the_numbers_of_run_json(shared_window, capsys, name):
    window = shared_window
    _run_to_end(window, name)
    want = _json_metrics(capsys, name)
    shown = window.metrics.values()
    family = window.player.sim.family
    keys = {k for panel in PANELS[family] for k in panel.figures}
    assert window.metrics.family == family and set(shown) == keys and keys <= set(want)
    for key, value in shown.items():
        if want[key] is None:
            assert math.isnan(value), (key, value)
        else:
            assert value == want[key], (key, value, want[key])


def test_fig2_mean_turnaround_curve_ends_on_12_not_on_the_terminated_jobs(window, capsys):
    _run_to_end(window, "fig2-repacking")
    assert window.metrics.values()["t_ta"] == 12.0
    assert window.metrics.columns.column("mean_turnaround")[-1] == 12.0


@pytest.mark.parametrize("name, family, titles", [
    ("papazachos-migration", "multisite", ["Response time", "Weighted response time", "Slowdown", "Migrations"]),
    ("mccann-fig6-epochs", "epoch", ["Response time", "Reallocations", "Overhead"]),
])
def test_multisite_and_epoch_panels_draw_their_curves(window, name, family, titles):
    _run_to_end(window, name)
    assert [p.title for p in window.metrics.plots] == titles
    for plot, panel in zip(window.metrics.plots, PANELS[family]):
        img = plot.grab().toImage()
        colour = QColor(panel.curves[0][2])
        hits = sum(1 for x in range(0, img.width(), 2) for y in range(0, img.height(), 2)
                   if QColor(img.pixel(x, y)).rgb() == colour.rgb())
        assert hits >= 3, f"{plot.title}: no curve drawn"


def test_panels_follow_a_step_back(window):
    _run_to_end(window, "papazachos-migration")
    end = window.metrics.values()["migrations"]
    window.player.go_to(0)
    window.metrics.refresh()
    assert window.metrics.values()["migrations"] == 0 < end
    assert math.isnan(window.metrics.values()["RT"])


def test_space_sharing_panels_show_the_ibm_figures_of_run_json(window, capsys):
    args = ["--jobs", "60", "--procs", "32", "--load", "0.8", "--seed", "3"]
    assert window.open_source("downey", policy="easy", remember=False, jobs=60, procs=32, load=0.8, seed=3)
    window.player.go_to(10**9, now=True)
    window.metrics.refresh()
    assert [p.title for p in window.metrics.plots] == ["Mean wait", "Bounded slowdown", "Loss of capacity", "Jobs"]
    capsys.readouterr()
    assert main(["run", "downey", "--policy", "easy", *args, "--json"]) == 0
    want = json.loads(capsys.readouterr().out)["metrics"]
    shown = window.metrics.values()
    assert set(shown) == {"wait", "bounded_slowdown", "loss_of_capacity"}
    assert all(shown[k] == want[k] for k in shown), (shown, want)
