"""The compare window on a trace: panes drawn from each run's schedule, filled as runs end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.gui.compare.overview import LABEL_GAP, label_step, pack_rows
from gangviz.gui.compare.window import CompareWindow
from gangviz.workloads.source import load_source

TRACE = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


@given(st.lists(st.integers(1, 64), max_size=60), st.integers(1, 64))
@settings(max_examples=60, deadline=None)
def test_packed_rows_never_overfill_and_hold_every_job(sizes, procs):
    rows = pack_rows(np.array(sizes, dtype=np.int64), procs)
    placed = sorted(i for row in rows for i, _f, _s in row)
    assert placed == list(range(len(sizes)))
    for row in rows:
        used = 0
        for _i, first, size in row:
            assert first == used  # blocks sit side by side from processor 0
            used += size
        assert used <= procs


@given(st.integers(1, 2000), st.floats(50, 2000))
def test_row_labels_stand_apart_however_many_rows(rows, height):
    step = label_step(rows, height)
    assert step * height / rows >= LABEL_GAP or step == 1000


def test_a_trace_opens_with_its_panes_then_fills_each_from_its_run(qtbot):
    src = load_source(str(TRACE))
    win = CompareWindow(src, ["gs", "easy", "mgs"], schedules=True)
    qtbot.addWidget(win)
    assert win.uses_schedules()
    assert not win.sims  # no step-able simulation is kept
    qtbot.waitUntil(lambda: win.pending == 0, timeout=120_000)
    assert not win.failures, win.failures
    assert set(win.schedules) == {"gs", "easy", "mgs"}
    assert win.comparison is not None and set(win.comparison.labels) == {"gs", "easy", "mgs"}
    win.resize(1400, 900)
    win.show()
    mid = win.end / 2
    win.set_time(mid)
    for pane in win.panes:
        s = win.schedules[pane.spec]
        waiting, running, _done = s.counts(mid)
        assert f"{running:,} running" in pane.state.text()
        assert f"{waiting:,} waiting" in pane.state.text()
        assert "t = " in pane.state.text() and " d " in pane.state.text() or ":" in pane.state.text()
        img = pane.view.grab().toImage()
        if running:  # a running job is drawn as a coloured block left of the middle
            colours = {img.pixelColor(x, img.height() // 4).name() for x in range(45, img.width() // 2)}
            assert colours - {"#ffffff"}, pane.spec
    # Step moves to the next event of any run
    before = win.time
    win.step_forward()
    assert win.time > before
    assert win.time == min(s.next_event(before) for s in win.schedules.values())
    win.close()


def test_a_small_trace_keeps_the_step_by_step_panes_and_a_big_one_draws_schedules(qtbot):
    from gangviz.gui.compare.window import SCHEDULE_JOBS

    small = CompareWindow(load_source(str(TRACE)), ["gs", "easy"])
    qtbot.addWidget(small)
    assert not small.uses_schedules() and set(small.sims) == {"gs", "easy"}
    big = load_source("downey", jobs=SCHEDULE_JOBS + 1, procs=64, load=0.5, seed=1)
    win = CompareWindow(big, [])
    qtbot.addWidget(win)
    assert win.uses_schedules()


def test_an_unknown_policy_on_a_trace_keeps_the_chooser_message(qtbot):
    win = CompareWindow(load_source(str(TRACE)), ["gs", "nosuch"], schedules=True)
    qtbot.addWidget(win)
    assert win.error is not None and "nosuch" in win.error
    assert not win.panes


def test_table_cells_write_big_figures_in_full():
    from gangviz.gui.compare.table import cell_text

    assert cell_text(62_293_404.0, False) == "62,293,404"
    assert cell_text(62_293_404.0, True).startswith("62,293,404 ")
    assert cell_text(17221.7, False) == "17221.7"
    assert cell_text(float("nan"), False) == "-"
