"""Lecture mode: built-in scenarios in the window, presentation mode, guided exercise."""

from __future__ import annotations

import pytest
from gui_helpers import close_rgb, pixel
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from gangviz.core.changes import MOVE_KINDS, JobShifted
from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.gui import palette
from gangviz.gui.lecture.caption import caption_text
from gangviz.gui.lecture.narration import step_lines
from gangviz.gui.lecture.presentation import FONTS, KEYS, scale_for
from gangviz.gui.matrix.held_move import PROMPT, gate_cuts
from gangviz.gui.matrix.painters import CUT_DASH
from gangviz.gui.window import builtin_scenarios
from gangviz.resources import list_scenarios
from gangviz.workloads.scenario import load_scenario


def test_every_builtin_scenario_opens_with_its_view_and_explanation(window, message_boxes):
    names = [p.stem for p in list_scenarios()]
    assert len(names) >= 10
    for name in names:
        sc = load_scenario(resources_path(name))
        assert window.open_source(name), message_boxes
        assert window.source_name == name
        assert window.board.title.text() == sc.title
        if window.coach.exercise_open():  # the exercise covers the explanation until the end
            assert window.coach.explanation_text() == sc.explanation
        else:
            assert window.explain.text() == sc.explanation == window.board.explain.text()
        has_matrix = sc.model == "matrix"
        assert window.board.matrix.isVisibleTo(window) == has_matrix
        assert (window.board.family is None) == has_matrix
        assert window.player.step_forward(animate=False) is not None
    assert message_boxes == []


def resources_path(name):
    return next(p for p in list_scenarios() if p.stem == name)


def test_scenarios_menu_lists_every_builtin_by_title_and_opens_it(window):
    titles = [a.text() for a in window.scenarios_menu.actions() if a.data()]
    want = [load_scenario(p).title for p in list_scenarios()]
    assert titles == want == [t for _, t in builtin_scenarios()]
    epoch = next(a for a in window.scenarios_menu.actions() if a.data() == "mccann-fig3-buddy")
    epoch.trigger()
    assert window.source_name == "mccann-fig3-buddy" and window.board.family is not None
    assert epoch.isChecked()
    window.cycle_scenario(1)
    names = [n for n, _ in builtin_scenarios()]
    assert window.source_name == names[names.index("mccann-fig3-buddy") + 1]
    window.cycle_scenario(-2)
    assert window.source_name == names[names.index("mccann-fig3-buddy") - 1]


def test_page_down_opens_the_next_scenario(window, qtbot):
    names = [n for n, _ in builtin_scenarios()]
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert window.source_name == names[(names.index("fig2-repacking") + 1) % len(names)]
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert window.source_name == "fig2-repacking"


def test_f11_presents_full_screen_with_large_fonts_and_the_caption(window, qtbot):
    p = window.player
    p.set_speed_level(8)  # no animation: the caption shows the whole step
    normal_pts = window.board.caption.points
    qtbot.keyClick(window, Qt.Key.Key_F11)
    assert window.isFullScreen() and window.presentation.active
    assert not window.toolbar.isVisible() and not window.side_panel.isVisible()
    assert not window.splitters["bottom"].isVisible()
    k = window.presentation.scale  # the sizes are those of a 1080-pixel screen, scaled
    assert k == scale_for(window.height())
    assert window.board.caption.points == pytest.approx(FONTS["caption"] * k) and k * FONTS["caption"] > normal_pts
    assert window.board.title.font().pointSizeF() == pytest.approx(FONTS["title"] * k)
    assert not window.board.explain.isVisible()  # hidden until the lecturer shows it
    qtbot.keyClick(window, Qt.Key.Key_E)
    assert window.board.explain.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_E)
    assert not window.board.explain.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)  # whole steps
    qtbot.keyClick(window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert p.position == 2
    want = " ".join(step_lines(p.known[1]))
    assert window.board.caption.full_text == want == caption_text(p)
    assert window.board.caption.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not window.isFullScreen() and not window.presentation.active
    assert window.toolbar.isVisible() and window.side_panel.isVisible()
    assert window.board.caption.points == normal_pts
    qtbot.keyClick(window, Qt.Key.Key_F11)
    qtbot.keyClick(window, Qt.Key.Key_F11)
    assert not window.isFullScreen()


def _hover(view, point: QPointF) -> None:
    ev = QMouseEvent(QEvent.Type.MouseMove, point, view.mapToGlobal(point), Qt.MouseButton.NoButton,
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view, ev)


def test_presentation_highlights_the_job_under_the_pointer(window):
    window.toggle_presentation()
    m = window.board.matrix
    m.grab()  # lays the matrix out
    sim = window.player.sim
    rect = m.cell_rect(0, 6)
    job = int(sim.matrix.cells[0, 6])
    _hover(m, rect.center())
    assert m.hovered == job
    img = m.grab().toImage()
    # the outline runs along the job's block; a cell of another job has none
    assert close_rgb(pixel(img, rect.center().x(), rect.bottom() - 3), palette.HILITE, 20)
    other = m.cell_rect(0, 0)
    assert close_rgb(pixel(img, other.center().x(), other.bottom() - 3), m.colours.colour(int(sim.matrix.cells[0, 0])), 10)
    _hover(m, QPointF(2, 2))
    assert m.hovered is None
    window.leave_presentation()


def test_guided_exercise_holds_the_repack_draws_dashed_cuts_and_return_reveals(window, qtbot):
    p, m = window.player, window.board.matrix
    p.set_speed_level(2)
    qtbot.keyClick(window, Qt.Key.Key_G)
    assert window.act_guided.isChecked() and p.guided
    qtbot.keyClick(window, Qt.Key.Key_Right)
    while p.gate is None and p.busy:
        p.advance_animation(0.05)
    gate = p.gate
    assert gate is not None and gate.change.kind in MOVE_KINDS and gate.t == 0.0
    assert not p.timer.isActive()
    # the picture is the matrix before the move; the caption asks, and does not tell
    assert gate.state.n_rows == 3
    text = window.board.caption.full_text
    assert PROMPT in text and "shifts" not in text
    rows, cuts = m.cut_lines()
    assert rows == (0, 1) and cuts == gate_cuts(gate.state, gate.change)[1] == [0, 2, 4, 8]
    img = m.grab().toImage()
    x0, cw, ch, tops, row_h = m.rest_layout.geometry()
    ys = [y for y in range(int(min(tops[r] for r in rows)) + 2, int(max(tops[r] + row_h[r] for r in rows)) - 2)]
    for c in (2, 4):
        x = m.cut_x(c)
        dark = [close_rgb(pixel(img, x, y), CUT_DASH, 30) for y in ys]
        assert 0.3 < sum(dark) / len(dark) < 0.9, (c, sum(dark), len(dark))  # dashed, not solid
    mid = x0 + 2.5 * cw  # inside P3, no cut
    assert not any(close_rgb(pixel(img, mid, y), CUT_DASH, 30) for y in ys)
    # Return reveals the move: it plays on to the end of the step; the cuts stay drawn (by the
    # coach's layer above the matrix) until it ends
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert p.gate is None
    assert m.cut_lines() == ((), [])
    assert window.coach.revealing and window.coach.info.cuts == [0, 2, 4, 8]
    while p.busy:
        p.advance_animation(0.05)
    p.stop()
    assert p.sim.matrix.n_rows == 2
    assert "shifts" in window.board.caption.full_text


def test_guided_play_stops_before_the_repack_only(window, qtbot):
    p = window.player
    window.set_guided(True)
    p.set_speed_level(8)  # too fast to animate: guided play still holds the move
    p.play()
    qtbot.waitUntil(lambda: p.gate is not None, timeout=5000)
    assert p.position == 1 and any(c.kind in MOVE_KINDS for c in p.sim.steps[0].changes)
    p.reveal()
    # the revealed move's verdict stays: playing pauses until the student goes on
    qtbot.waitUntil(lambda: window.coach.answered and not p.playing, timeout=5000)
    assert p.position == 1
    p.play()
    qtbot.waitUntil(lambda: p.position >= 3, timeout=5000)
    p.pause()
    p.stop()
    window.set_guided(False)
    assert not p.guided


def test_keys_dialog_lists_the_lecture_keys(window):
    dlg = window.show_keys()
    text = dlg.table.text()
    for key, _ in KEYS:
        assert key in text
    assert any(k == "F11" for k, _ in KEYS) and any(k == "Return" for k, _ in KEYS)
    dlg.close()


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=6, max_size=6), min_size=2, max_size=3),
       st.data())
def test_gate_cuts_are_exactly_the_cuts_no_job_of_the_rows_crosses(raw, data):
    # rows of runs: a cell equal to its left neighbour continues the same job
    rows, next_id = [], 0
    for r in raw:
        row = []
        for c, v in enumerate(r):
            if v == 0:
                row.append(IDLE)
            elif c > 0 and v == r[c - 1] and row[-1] != IDLE:
                row.append(row[-1])
            else:
                row.append(next_id)
                next_id += 1
        rows.append(row)
    m = OusterhoutMatrix.from_rows(rows, 6)
    a, b = data.draw(st.sampled_from([(i, j) for i in range(len(rows)) for j in range(len(rows)) if i != j]))
    job = next((j for j in rows[a] if j != IDLE), None)
    if job is None:
        return
    change = JobShifted(job, a, b)
    got_rows, cuts = gate_cuts(m, change)
    assert got_rows == tuple(sorted((a, b)))
    for x in range(7):
        crossed = any(0 < x < 6 and rows[r][x - 1] == rows[r][x] != IDLE for r in (a, b))
        assert (x in cuts) == (not crossed)
