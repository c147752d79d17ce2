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
