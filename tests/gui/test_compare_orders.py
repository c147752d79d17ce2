"""Queue orders in the compare window: one policy under two orders side by side, each pane,
table column and legend entry labelled by its order, in a window that steps simulations and in
one whose runs go to worker processes (which load the order's file themselves); the bounded
slowdown's threshold Γ stated and chosen in the window; and File → Compare offering the machine
of a padded trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from gangviz.cli import main
from gangviz.gui.compare.window import CompareWindow
from gangviz.workloads.source import load_source

ROOT = Path(__file__).resolve().parents[2]
ORDER = str(ROOT / "examples" / "policies" / "shortest_first.py")
KTH = ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
ARRIVAL, SJF = "easy · arrival order", "easy · order shortest_first.py:shortest_first"
ORDERS = ["easy=arrival", f"easy={ORDER}:shortest_first"]


def _keys(win):
    """The key of each metric plot (its title, in HTML: the policies' lines and names)."""
    return [w.getPlotItem().titleLabel.text for w in win.plots.plots]


@pytest.mark.parametrize("schedules", [False, True])
def test_two_orders_of_easy_sit_side_by_side_labelled_by_their_order(qtbot, schedules, capsys):
    src = load_source(str(KTH))
    win = CompareWindow(src, ["easy", "gs"], orders=ORDERS, schedules=schedules)
    qtbot.addWidget(win)
    assert win.error is None
    if schedules:
        qtbot.waitUntil(lambda: win.pending == 0, timeout=120_000)
        assert not win.failures
    assert [p.title.text() for p in win.panes] == [ARRIVAL, SJF, "gs"]
    assert win.comparison is not None and list(win.comparison.labels) == [ARRIVAL, SJF, "gs"]
    assert list(win.table.values()) == [ARRIVAL, SJF, "gs"]
    assert win.table.horizontalHeaderItem(1).text() == SJF
    assert all(ARRIVAL in key and SJF in key for key in _keys(win))
    shown = win.comparison.metrics
    assert shown[ARRIVAL]["wait"] != shown[SJF]["wait"]  # the order reached the run
    # the same figures as the printed comparison of the same runs
    assert main(["compare", str(KTH), "--policy", "easy", "--policy", "gs", "--order", ORDERS[0],
                 "--order", ORDERS[1], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["metrics"]
    for label in (ARRIVAL, SJF):
        assert shown[label]["wait"] == pytest.approx(printed[label]["wait"])


def test_the_command_line_opens_the_window_with_orders(tmp_path, capsys):
    out = tmp_path / "orders.png"
    assert main(["compare", str(KTH), "--policy", "easy", "--order", ORDERS[0], "--order", ORDERS[1],
                 "--window", "--screenshot", str(out)]) == 0
    assert out.stat().st_size > 0
    assert main(["compare", str(KTH), "--policy", "easy", "--order", "easy=arrival",
                 "--order", "easy=arrival", "--window", "--screenshot", str(out), "--force"]) == 1
    assert "the same order twice" in capsys.readouterr().err


def test_the_threshold_is_stated_and_chosen_in_the_window(qtbot):
    win = CompareWindow(load_source(str(KTH)), ["easy", "gs"], schedules=False, bsld_threshold=60)
    qtbot.addWidget(win)
    assert win.comparison is not None and win.comparison.gamma == 60
    row = win.comparison.keys.index("bounded_slowdown")
    assert "Γ = 60 s" in win.table.verticalHeaderItem(row).toolTip()
    assert "Γ = 60 s" in win.subheading.text() and "Γ = 60 s" in win.table_note.text()
    wide = win.comparison.metrics["easy"]["bounded_slowdown"]
    win.chooser.gamma.setValue(5)
    qtbot.mouseClick(win.chooser.button, Qt.MouseButton.LeftButton)
    assert win.comparison.gamma == 5 and "Γ = 5 s" in win.subheading.text()
    assert win.comparison.metrics["easy"]["bounded_slowdown"] > wide


def test_file_compare_offers_the_machine_of_a_padded_trace(window, qtbot):
    assert window.open_source(str(KTH), "gs", procs=128)
    win = window.open_compare(["gs", "brmms"])
    assert win is not None and not win.panes
    assert "--padding used" in win.error and "Machine" in win.chooser.message.text()
    assert win.chooser.machine is not None
    win.chooser.machine.setCurrentIndex(win.chooser.machine.findData("absent"))
    qtbot.mouseClick(win.chooser.button, Qt.MouseButton.LeftButton)
    assert win.error is None and sorted(p.spec for p in win.panes) == ["brmms", "gs"]
    if win.sims:
        assert {sim.real_processors for sim in win.sims.values()} == {100}
    win.close()


def test_an_unpadded_source_offers_no_machine(qtbot):
    win = CompareWindow(load_source(str(KTH)), ["easy", "gs"], schedules=False)
    qtbot.addWidget(win)
    assert win.chooser.machine is None and win.chooser.gamma is not None


def test_an_order_for_every_policy_reaches_a_policy_ticked_later(qtbot):
    win = CompareWindow(load_source(str(KTH)), ["easy:estimates=exact", "gs"], schedules=False,
                        orders=[f"{ORDER}:shortest_first", "easy:estimates=exact=arrival"])
    qtbot.addWidget(win)
    assert win.plan.run_of("easy:estimates=exact") == ("easy:estimates=exact", None)
    assert win.plan.run_of("fcfs") == ("fcfs", f"{ORDER}:shortest_first")
