"""The compare window runs every policy on one machine, as ``gangviz compare`` does: a buddy
scheme and another policy on a padded trace are refused with the reason until ``padding``
chooses the machine, whether the panes step simulations or draw finished schedules."""

from __future__ import annotations

from pathlib import Path

import pytest

from gangviz.gui.compare.window import CompareWindow
from gangviz.workloads.source import load_source

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


@pytest.mark.parametrize("schedules", [False, True])
def test_the_window_refuses_two_machines_and_takes_the_one_chosen(qtbot, schedules):
    src = load_source(str(KTH), procs=128)
    win = CompareWindow(src, ["gs", "brmms"], schedules=schedules)
    qtbot.addWidget(win)
    assert win.error is not None and "--padding used" in win.error
    assert not win.panes
    chosen = CompareWindow(src, ["gs", "brmms"], schedules=schedules, padding="absent")
    qtbot.addWidget(chosen)
    assert chosen.error is None and len(chosen.panes) == 2
    if not schedules:
        assert {sim.real_processors for sim in chosen.sims.values()} == {100}
    else:
        qtbot.waitUntil(lambda: chosen.pending == 0, timeout=120_000)
        assert chosen.comparison is not None and not chosen.failures


def test_the_window_shows_the_readers_warnings(qtbot, tmp_path):
    lines = KTH.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.strip() and not ln.startswith(";"))
    fields = lines[k].split()
    fields[3] = "-1"  # no run time: the reader skips the job and says so
    lines[k] = " ".join(fields)
    bad = tmp_path / "t.swf"
    bad.write_text("\n".join(lines) + "\n")
    src = load_source(str(bad))
    assert src.warnings
    win = CompareWindow(src, ["gs", "easy"], schedules=False)
    qtbot.addWidget(win)
    win.show()
    assert win.warnings_bar.isVisible()
    assert "1 warning about t.swf" in win.warnings_bar.label.text()
    clean = CompareWindow(load_source(str(KTH)), ["gs", "easy"], schedules=False)
    qtbot.addWidget(clean)
    clean.show()
    assert not clean.warnings_bar.isVisible()
