"""The sweep progress dialog (thread, Cancel, resume) and the sweep plot with its CI bands."""

from __future__ import annotations

import csv
import threading
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from gangviz.cli import main
from gangviz.experiments.sweep import load_summaries
from gangviz.experiments.tasks import run_task
from gangviz.gui.plots.compare import policy_colour
from gangviz.gui.plots.sweep import SweepPlot, select_series
from gangviz.gui.plots.sweep_dialog import SweepDialog, format_eta

SWEEP = """title = "tiny"
seed = 11
replications = 2
policies = ["repack", "firstfit"]

[workload]
model = "downey"
jobs = 12
procs = 16

[grid]
load = [0.4, 0.8]
"""
RUNS = 8  # 2 loads x 2 policies x 2 replications

_gate = threading.Event()
_calls = {"n": 0}


def gated_run(task):
    """The real run, except that the third call waits until the test opens the gate."""
    _calls["n"] += 1
    if _calls["n"] >= 3:
        assert _gate.wait(30), "the test never opened the gate"
    return run_task(task)


@pytest.fixture
def sweep_file(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(SWEEP)
    return path


def run_rows(path):
    with open(path, newline="") as fh:
        return {(r["policy"], r["load"], r["replication"]): r["t_ta"]
                for r in csv.DictReader(fh) if r["kind"] == "run" and r["status"] == "ok"}


def finished_dialog(qtbot, sweep_file, out, **kw):
    dlg = SweepDialog(sweep_file, out, **kw)
    qtbot.addWidget(dlg)
    dlg.show()
    with qtbot.waitSignal(dlg.finished_sweep, timeout=60000) as sig:
        dlg.start()
    return dlg, sig.args[0]


def test_the_dialog_completes_a_sweep_reporting_progress_on_the_gui_thread(qtbot, sweep_file, tmp_path):
    out = tmp_path / "r.csv"
    seen = []

    class Spy(SweepDialog):
        def _progressed(self, d, t):
            seen.append((d, t, threading.get_ident() == threading.main_thread().ident))
            super()._progressed(d, t)

    dlg = Spy(sweep_file, out)
    qtbot.addWidget(dlg)
    worker_threads = []
    dlg.worker.progressed.connect(lambda d, t: worker_threads.append(
        threading.get_ident() == threading.main_thread().ident), Qt.ConnectionType.DirectConnection)
    dlg.show()
    with qtbot.waitSignal(dlg.finished_sweep, timeout=60000) as sig:
        dlg.start()
    report = sig.args[0]
    assert not report.cancelled and report.total == report.computed == RUNS and not report.failures
    assert [d for d, _, _ in seen] == list(range(RUNS + 1)) and all(t == RUNS for _, t, _ in seen)
    assert all(on_gui for _, _, on_gui in seen)  # the dialog's slot ran on the GUI thread
    assert worker_threads and not any(worker_threads)  # while the sweep itself ran off it
    assert dlg.bar.value() == dlg.bar.maximum() == RUNS
    assert dlg.close_button.isEnabled() and not dlg.cancel_button.isEnabled() and not dlg.running
    assert "Done" in dlg.status.text()
    axes, cells = load_summaries(out)
    assert axes == ["load"] and len(cells) == 4 and all(c.n == 2 for c in cells)
    dlg.close()


def test_cancel_keeps_the_finished_runs_and_resume_completes_them(qtbot, sweep_file, tmp_path, capsys):
    out = tmp_path / "r.csv"
    _gate.clear()
    _calls["n"] = 0
    dlg = SweepDialog(sweep_file, out, fn=gated_run)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.start()
    qtbot.waitUntil(lambda: dlg.done_runs == 2 and _calls["n"] == 3, timeout=30000)
    assert dlg.running
    with qtbot.waitSignal(dlg.finished_sweep, timeout=30000) as sig:
        qtbot.mouseClick(dlg.cancel_button, Qt.MouseButton.LeftButton)
        assert "Cancelling" in dlg.status.text()
        _gate.set()
    report = sig.args[0]
    assert report.cancelled
    partial = run_rows(out)
    assert len(partial) == 3  # the two before Cancel and the one in flight
    assert "Cancelled after 3 of 8" in dlg.status.text()
    dlg.close()

    assert main(["sweep", str(sweep_file), "--out", str(out), "--resume", "--quiet"]) == 0
    assert "5 runs computed, 3 reused" in capsys.readouterr().err
    fresh = tmp_path / "fresh.csv"
    assert main(["sweep", str(sweep_file), "--out", str(fresh), "--quiet"]) == 0
    completed = run_rows(out)
    assert completed == run_rows(fresh) and len(completed) == RUNS
    assert all(completed[k] == v for k, v in partial.items())


def test_a_sweep_that_cannot_start_reports_why(qtbot, sweep_file, tmp_path):
    out = tmp_path / "r.csv"
    out.write_text("something\n")
    dlg = SweepDialog(sweep_file, out)
    qtbot.addWidget(dlg)
    with qtbot.waitSignal(dlg.failed, timeout=30000) as sig:
        dlg.start()
    assert "--resume" in sig.args[0] and dlg.status.text() == sig.args[0]
    assert not dlg.running and dlg.close_button.isEnabled()
    dlg.close()


def test_eta_format():
    assert format_eta(0) == "0:00" and format_eta(75.4) == "1:15" and format_eta(3725) == "1:02:05"


@pytest.fixture
def results(qtbot, sweep_file, tmp_path):
    out = tmp_path / "r.csv"
    dlg, _ = finished_dialog(qtbot, sweep_file, out)
    dlg.close()
    return out


def test_sweep_plot_draws_one_curve_and_one_band_per_policy(qtbot, results):
    w = SweepPlot(results, "t_ta")
    qtbot.addWidget(w)
    w.resize(800, 500)
    w.show()
    qtbot.waitExposed(w)
    axes, cells = load_summaries(results)
    assert set(w.curves) == set(w.bands) == {"repack", "firstfit"}
    for policy, curve in w.curves.items():
        mine = sorted((c for c in cells if c.policy == policy), key=lambda c: c.values[0])
        xs, ys = curve.getData()
        assert list(xs) == [0.4, 0.8]
        assert np.allclose(ys, [c.mean["t_ta"] for c in mine])
        lo, hi = (np.asarray(c.getData()[1]) for c in w.bands[policy].curves)
        half = np.array([c.ci95["t_ta"] for c in mine])
        assert np.all(half > 0)
        assert np.allclose(sorted([lo[0], hi[0]]), [ys[0] - half[0], ys[0] + half[0]])
        assert np.allclose(hi - lo, 2 * half) or np.allclose(lo - hi, 2 * half)
    img = w.plot.grab().toImage()
    for i, name in enumerate(w.curves):
        want = policy_colour(name)
        hits = sum(1 for x in range(0, img.width(), 2) for y in range(0, img.height(), 2)
                   if all(abs(a - b) <= 12 for a, b in zip(QColor(img.pixel(x, y)).getRgb()[:3], want.getRgb()[:3])))
        assert hits > 10, f"policy {i}'s curve is not drawn in its colour"
    w.close()


def test_sweep_plot_exports_png_svg_and_csv(qtbot, results, tmp_path):
    w = SweepPlot(results, "r_a")
    qtbot.addWidget(w)
    w.resize(700, 450)
    w.show()
    assert not QImage(str(w.export(tmp_path / "p.png"))).isNull()
    assert ET.parse(w.export(tmp_path / "p.svg")).getroot().tag.endswith("svg")
    rows = list(csv.reader(open(w.export(tmp_path / "p.csv"))))
    assert rows[0] == ["policy", "load", "r_a_mean", "r_a_ci95"] and len(rows) == 5
    w.close()


def test_the_whole_sweep_plot_can_be_grabbed(qtbot, results):
    # Qt asks the widget itself for its paint metrics here: an attribute of the plot named like a
    # QWidget method (``metric``) once crashed the process at this point
    w = SweepPlot(results, "t_ta")
    qtbot.addWidget(w)
    w.resize(400, 300)
    assert w.logicalDpiX() > 0
    assert w.grab().size().width() == 400


def test_plot_sweep_command(results, tmp_path, capsys):
    out = tmp_path / "plot.png"
    assert main(["plot-sweep", str(results), "--metric", "t_ta", "-o", str(out)]) == 0
    img = QImage(str(out))
    assert (img.width(), img.height()) == (900, 560)
    assert main(["plot-sweep", str(results), "--x", "jobs", "-o", str(tmp_path / "plot2.png")]) == 1
    err = capsys.readouterr().err
    assert "jobs" in err and "load" in err and "Traceback" not in err


def test_select_series_holds_the_other_axes_fixed():
    from gangviz.experiments.sweep import CellSummary

    def cell(p, load, jobs, v):
        return CellSummary(p, (load, jobs), 2, {"t_ta": v}, {"t_ta": 1.0})

    cells = [cell("a", 0.9, 100, 3.0), cell("a", 0.5, 100, 1.0), cell("a", 0.5, 200, 7.0),
             cell("a", 0.9, 200, 9.0), cell("b", 0.5, 100, 2.0)]
    x, fixed, series = select_series(["load", "jobs"], cells, "t_ta")
    assert x == "load" and fixed == {"jobs": 100}
    assert [list(s.x) for s in series] == [[0.5, 0.9], [0.5]]
    assert list(series[0].mean) == [1.0, 3.0]
    _, fixed, series = select_series(["load", "jobs"], cells, "t_ta", where={"jobs": "200"})
    assert fixed == {"jobs": 200} and list(series[0].mean) == [7.0, 9.0]
    with pytest.raises(ValueError, match="values: 100, 200"):
        select_series(["load", "jobs"], cells, "t_ta", where={"jobs": 300})
    with pytest.raises(ValueError, match="unknown metric"):
        select_series(["load"], cells, "nope")
