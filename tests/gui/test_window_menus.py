"""The main window opens the compare window and runs sweeps from its File menu."""

from __future__ import annotations

from gangviz.gui.compare.window import CompareWindow


def test_compare_menu_opens_the_compare_window_on_the_current_workload(window, qtbot):
    assert window.open_source("downey", "br", jobs=40, procs=16, load=0.6)
    win = window.open_compare(["br", "bc"])
    assert isinstance(win, CompareWindow)
    assert [p.spec for p in win.panes] == ["br", "bc"]
    assert win.source is window.source
    win.close()


def test_compare_menu_with_one_policy_asks_for_more(window):
    assert window.open_source("downey", "br", jobs=40, procs=16, load=0.6)
    win = window.open_compare()
    assert not win.panes and "br" in win.chooser.checked()
    win.close()


def test_a_bad_sweep_file_is_reported_and_nothing_runs(window, tmp_path, message_boxes):
    bad = tmp_path / "bad.toml"
    bad.write_text("policies = 3\n")
    assert window.run_sweep(str(bad), str(tmp_path / "out.csv")) is None
    assert message_boxes and message_boxes[0][1] == "Run a sweep"
    assert str(bad) in message_boxes[0][2]
    assert not (tmp_path / "out.csv").exists()


def test_a_sweep_runs_from_the_window_with_progress(window, qtbot, tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        'title = "tiny"\npolicies = ["repack", "br"]\nreplications = 2\nseed = 3\n'
        '[workload]\nmodel = "downey"\njobs = 20\nprocs = 16\nload = 0.5\n'
    )
    out = tmp_path / "out.csv"
    dlg = window.run_sweep(str(sweep), str(out))
    assert dlg is not None and dlg.isVisible()
    qtbot.waitUntil(lambda: dlg.report is not None or dlg.error is not None, timeout=60000)
    assert dlg.error is None and dlg.report.computed == 4
    assert out.exists() and out.read_text().count("\n") >= 4
    dlg.close()


def test_a_guided_scenario_opens_in_the_guided_exercise(window):
    assert window.open_source("zhou-fig3-4-legal-cuts")
    assert window.act_guided.isChecked() and window.player.guided


def test_no_two_actions_of_the_window_share_a_shortcut(window):
    """Two actions on one key make Qt fire neither ("ambiguous shortcut"): each key is one action's."""
    from collections import Counter

    from PySide6.QtGui import QAction

    keys = Counter(seq.toString() for action in window.findChildren(QAction)
                   for seq in action.shortcuts() if not seq.isEmpty())
    shared = {key: n for key, n in keys.items() if n > 1}
    assert not shared, shared
    assert keys["Ctrl+E"] == 1 and keys["Ctrl+Shift+N"] == 1
