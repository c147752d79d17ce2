"""The compare window: panes per policy, the shared simulated clock, the table, the exports."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from gangviz.cli import main
from gangviz.experiments.compare import build_simulations
from gangviz.gui.compare import clock as shared_clock
from gangviz.gui.compare.window import CompareWindow
from gangviz.workloads.source import load_source

WORKLOAD = dict(jobs=30, procs=32, load=0.8, seed=3)
ARGS = ["downey", "--jobs", "30", "--procs", "32", "--load", "0.8", "--seed", "3"]


@pytest.fixture(scope="module")
def source():
    return load_source("downey", **WORKLOAD)


def open_window(qtbot, source, specs):
    win = CompareWindow(source, specs)
    qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitExposed(win)
    return win


def fresh_at(source, spec, t):
    """The matrix a separate simulation of ``spec`` shows at time ``t`` (run forward only)."""
    sim = build_simulations(source, [spec], record=True)[spec]
    sim.run(until=t)
    return sim


def assert_at_time(win, source, t):
    for pane in win.panes:
        sim = pane.sim
        assert sim.time <= t < sim.peek(), (pane.spec, sim.time, t, sim.peek())
        times = shared_clock.applied_times(sim)
        assert times and times[-1] <= t
        ref = fresh_at(source, pane.spec, t)
        assert [s.time for s in sim.steps] == [s.time for s in ref.steps]
        assert np.array_equal(sim.matrix.cells, ref.matrix.cells), pane.spec


@pytest.mark.parametrize("specs", [["bc", "repack"], ["br", "brmms", "random:seed=2"]])
def test_one_pane_per_policy_with_its_own_matrix_and_tree(qtbot, source, specs):
    win = open_window(qtbot, source, specs)
    assert win.error is None
    assert [p.spec for p in win.panes] == specs
    assert win.pane_layout.count() == len(specs)
    assert all(p.isVisible() and p.matrix.isVisible() and p.vector.isVisible() for p in win.panes)
    assert [p.title.text() for p in win.panes] == specs
    # separate simulations and players: no two panes share state
    assert len({id(p.sim) for p in win.panes}) == len({id(p.player) for p in win.panes}) == len(specs)
    assert win.end == max(fresh_at(source, s, math.inf).time for s in specs)
    win.close()


def test_moving_the_shared_timeline_puts_every_pane_at_that_instant(qtbot, source):
    win = open_window(qtbot, source, ["bc", "brmms", "repack"])
    for t in (win.end * 0.6, win.end * 0.25, 3.5, win.end * 0.9, 0.0):
        with qtbot.waitSignal(win.timeChanged, timeout=2000) as sig:
            win.set_time(t)
        assert sig.args == [t]
        assert_at_time(win, source, t)
    # scrubbing with the mouse drives the same clock
    x = int(win.timeline.x_of(win.end / 2))
    with qtbot.waitSignal(win.timeChanged, timeout=2000):
        qtbot.mouseClick(win.timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, 14))
    assert abs(win.time - win.timeline.time_at(x)) < 1e-9
    assert_at_time(win, source, win.time)
    # the panes differ: the policies really run separately
    assert len({p.sim.matrix.to_rows().__repr__() for p in win.panes}) > 1
    win.close()


def test_step_goes_to_the_next_decision_point_of_any_pane_and_back(qtbot, source):
    win = open_window(qtbot, source, ["bc", "repack"])
    win.set_time(win.end / 3)
    t0 = win.time
    expect = min(p.sim.peek() for p in win.panes)
    win.step_forward()
    assert win.time == expect > t0
    assert any(shared_clock.applied_times(p.sim)[-1] == expect for p in win.panes)
    assert_at_time(win, source, win.time)
    win.step_back()
    assert win.time < expect
    assert max(shared_clock.applied_times(p.sim)[-1] for p in win.panes) == win.time
    win.close()


def test_play_runs_the_shared_clock_to_the_end(qtbot, source):
    win = open_window(qtbot, source, ["bc", "repack"])
    win.rate.setCurrentIndex(win.rate.count() - 1)
    win.play()
    assert win.playing
    qtbot.waitUntil(lambda: not win.playing, timeout=10000)
    assert win.time == win.end
    assert all(p.sim.done for p in win.panes)
    assert win.act_play.text() == "Play"
    win.close()


def test_summary_table_equals_gangviz_compare_and_marks_the_best(qtbot, source, capsys):
    specs = ["bc", "brmms", "repack"]
    win = open_window(qtbot, source, specs)
    win.set_time(win.end / 2)  # the table holds the final numbers wherever the clock is
    assert main(["compare", *ARGS, *sum((["--policy", s] for s in specs), []), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    shown = win.table.values()
    assert list(shown) == specs
    for s in specs:
        assert list(shown[s]) == list(cli["metrics"][s])  # every figure of the command's table
        for m in shown[s]:
            want = cli["metrics"][s][m]
            got = shown[s][m]
            assert (math.isnan(got) if want is None else got == want), (s, m)
    marked = win.table.marked()
    assert {m: list(v) for m, v in marked.items()} == cli["best"]
    assert any(marked.values())
    # a best cell is bold with the marker; the others are neither
    for i, m in enumerate(cli["metrics"][specs[0]]):
        for j, s in enumerate(specs):
            item = win.table.item(i, j)
            assert item.font().bold() == (s in cli["best"].get(m, ())) == item.text().endswith("★")
    win.close()


def test_the_chooser_refuses_too_few_too_many_and_unrunnable_policies(qtbot):
    odd = load_source("downey", jobs=20, procs=48, load=0.5, seed=1)
    win = open_window(qtbot, odd, ["repack", "firstfit"])
    assert win.error is None and len(win.panes) == 2
    before = list(win.panes)
    for specs, phrase in ((["repack"], "at least 2"),
                          (["repack", "firstfit", "random", "random:seed=4", "random:seed=5"], "at most 4"),
                          (["repack", "bc"], "bc"),
                          (["repack", "nosuch"], "nosuch")):
        win.chooser.set_checked(specs)
        qtbot.mouseClick(win.chooser.button, Qt.MouseButton.LeftButton)
        assert phrase in win.error
        assert win.chooser.message.text() == win.error
        assert win.panes == before  # the current comparison stays
    win.chooser.set_checked(["repack", "firstfit", "random"])
    qtbot.mouseClick(win.chooser.button, Qt.MouseButton.LeftButton)
    assert win.error is None and [p.spec for p in win.panes] == win.chooser.checked()
    assert sorted(win.chooser.checked()) == ["firstfit", "random", "repack"]
    assert win.chooser.message.text() == ""
    win.close()


def test_exports_write_valid_csv_png_and_svg(qtbot, source, tmp_path, capsys):
    specs = ["bc", "repack"]
    win = open_window(qtbot, source, specs)
    win.set_time(win.end / 2)
    csv_path = win.export_table(tmp_path / "t.csv")
    assert main(["compare", *ARGS, "--policy", "bc", "--policy", "repack", "--csv"]) == 0
    assert csv_path.read_text() == capsys.readouterr().out
    assert csv_path.read_text().splitlines()[0] == "metric,bc,repack,best"
    for what, widget in (("window", win), ("plots", win.plots)):
        png = win.export_figure(tmp_path / f"{what}.png", what)
        img = QImage(str(png))
        assert not img.isNull()
        assert (img.width(), img.height()) == (widget.grab().width(), widget.grab().height())
        colours = {img.pixel(x, y) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
        assert len(colours) > 20  # a real picture, not a blank
        svg = win.export_figure(tmp_path / f"{what}.svg", what)
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg")
        assert len(list(root.iter())) > 50
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        win.export_figure(tmp_path / "x.jpg")
    win.close()


def test_compare_window_command_renders_a_screenshot(tmp_path, capsys):
    out = tmp_path / "cmp.png"
    code = main(["compare", *ARGS, "--policy", "bc", "--policy", "repack", "--window",
                 "--screenshot", str(out), "--at", "40"])
    assert code == 0 and str(out) in capsys.readouterr().out
    img = QImage(str(out))
    assert not img.isNull() and img.width() >= 1200


@pytest.mark.parametrize("argv, phrase", [
    (["--policy", "bc", "--window", "--screenshot", "x.png"], "at least two"),
    (["--policy", "bc", "--policy", "repack", "--screenshot", "x.png"], "needs --window"),
])
def test_compare_window_command_errors_are_one_line(argv, phrase, capsys):
    assert main(["compare", *ARGS, *argv]) == 1
    err = capsys.readouterr().err
    assert phrase in err and "Traceback" not in err


@settings(max_examples=15, deadline=None)
@given(policy=st.sampled_from(["bc", "repack", "brms"]),
       times=st.lists(st.floats(min_value=0, max_value=400, allow_nan=False), min_size=1, max_size=6))
def test_seek_shows_the_state_after_every_step_at_or_before_t(policy, times):
    src = load_source("downey", jobs=15, procs=16, load=0.9, seed=5)
    sim = build_simulations(src, [policy], record=True)[policy]
    for t in times:
        shared_clock.seek(sim, t)
        assert sim.time <= t < sim.peek()
        ref = build_simulations(src, [policy], record=True)[policy]
        ref.run(until=t)
        assert np.array_equal(sim.matrix.cells, ref.matrix.cells)
        assert [s.time for s in sim.steps] == [s.time for s in ref.steps]


def test_the_clock_reads_a_human_time_on_a_trace_and_slices_on_a_model(qtbot, source):
    from pathlib import Path

    trace = load_source(str(Path(__file__).resolve().parents[2] / "resources" / "workloads"
                            / "KTH-SP2-1996-2.1-cln-first300.swf"))
    win = open_window(qtbot, trace, ["gs", "easy"])
    win.set_time(200_000.0)
    assert win.clock_label.text().startswith("2 d 07:33:20  of  ")
    assert win.timeline.slice_seconds == 1.0
    win.close()
    model = open_window(qtbot, source, ["bc", "repack"])
    model.set_time(10.0)
    assert model.clock_label.text().startswith("10 slices  of  ")
    assert model.timeline.slice_seconds is None
    model.close()


def test_compare_screenshot_takes_a_size(tmp_path, capsys):
    out = tmp_path / "small.png"
    assert main(["compare", *ARGS, "--policy", "bc", "--policy", "repack", "--window",
                 "--screenshot", str(out), "--size", "900x640"]) == 0
    img = QImage(str(out))
    assert (img.width(), img.height()) == (900, 640)
    assert main(["compare", *ARGS, "--policy", "bc", "--policy", "repack", "--size", "900x640"]) == 1
    assert "--size needs --window --screenshot" in capsys.readouterr().err
