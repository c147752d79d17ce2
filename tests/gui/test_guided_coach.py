"""The guided exercise teaches: nothing gives the answer while a move is held, the waiting job
is drawn beside the matrix, the student's pick is judged, the cuts stay and the swapping region
is shaded during the reveal, and the status bar counts what is drawn."""

from __future__ import annotations

from gui_helpers import close_rgb, pixel
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from gangviz.gui.guided import gate_info, region_of
from gangviz.gui.guided_coach import GUESS, HIDDEN_EXPLANATION, SWAP_EDGE
from gangviz.resources import scenario_path
from gangviz.workloads.scenario import load_scenario


def hold(window, qtbot, name="zhou-fig3-4-legal-cuts"):
    assert window.open_source(name)
    window.board.matrix.grab()
    p = window.player
    p.set_speed_level(2)
    assert p.guided
    qtbot.keyClick(window, Qt.Key.Key_Right)
    while p.gate is None and p.busy:
        p.advance_animation(0.05)
    assert p.gate is not None
    return p


def answer_words(name="zhou-fig3-4-legal-cuts"):
    """Phrases that would give the answer away."""
    return ["J2 shifts", "middle region", "shift up", "shifts up"]


def visible_texts(window):
    w = window
    texts = [w.explain.text(), w.board.explain.text(), w.board.caption.full_text,
             w.status.text(), w.coach.waiting.text.text()]
    if w.coach.cover.isHidden() and w.narration.isVisible():
        texts += w.narration.model_.row_text
    return texts


def test_nothing_on_screen_gives_the_answer_while_held(window, qtbot):
    hold(window, qtbot)
    window.toggle_presentation()  # the paragraph above the matrix is shown there
    texts = visible_texts(window)
    for phrase in answer_words():
        assert not any(phrase in t for t in texts), phrase
    assert window.explain.text() == window.board.explain.text() == HIDDEN_EXPLANATION
    assert not window.coach.cover.isHidden()  # the narration panel is covered when shown
    # after the reveal the explanation comes back
    qtbot.keyClick(window, Qt.Key.Key_Return)
    sc = load_scenario(scenario_path("zhou-fig3-4-legal-cuts"))
    assert window.explain.text() == sc.explanation
    assert window.coach.cover.isHidden()
    window.leave_presentation()


def test_the_narration_of_the_held_step_is_covered_in_the_normal_window(window, qtbot):
    hold(window, qtbot)
    window.narration.refresh()
    cover = window.coach.cover
    assert cover.isVisible() and cover.geometry() == window.narration.viewport().rect()
    img = window.narration.viewport().grab().toImage()
    # the covered viewport is the flat cover colour where a narration line would be
    assert close_rgb(pixel(img, 20, 8), QColor("#F3F1EC"), 8)


def test_the_waiting_job_and_its_size_are_drawn_beside_the_matrix(window, qtbot):
    hold(window, qtbot)
    w = window.coach.waiting
    assert w.isVisible() and w.job[:2] == ("Jn", 7)
    assert "Jn × 7" in w.text.text() and "7 processors" in w.text.text()
    img = w.grab().toImage()
    from gangviz.gui import palette
    assert close_rgb(pixel(img, 20, w.height() // 2), palette.job_colour(w.job[2]), 30)


def test_status_counts_what_is_drawn_while_held(window, qtbot):
    p = hold(window, qtbot)
    drawn = p.gate.state
    assert f"{drawn.n_rows} slots" in window.status.text()
    assert "1 waiting" in window.status.text() and f"{len(drawn.jobs())} running" in window.status.text()


def click_column(window, col):
    m = window.board.matrix
    x0, cw, _ch, tops, row_h = m.current_geometry()
    y = int(tops[0] + row_h[0] / 2)
    QTest.mouseClick(m, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(int(x0 + (col + 0.5) * cw), y))


def test_a_right_pick_is_told_right_and_the_region_is_shaded_with_cuts_during_the_reveal(window, qtbot):
    p = hold(window, qtbot)
    click_column(window, 3)  # inside P3..P5, the region that swaps
    coach = window.coach
    assert coach.guess == (2, 5) and "Your pick: P3..P5" in coach.waiting.text.text()
    m = window.board.matrix
    x0, cw, _ch, tops, row_h = m.current_geometry()
    img = m.grab().toImage()
    assert close_rgb(pixel(img, x0 + 2 * cw + 3, tops[0] + row_h[0] / 2), GUESS, 40)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert coach.verdict is True and "Right: P3..P5" in coach.waiting.text.text()
    p.advance_animation(0.2)
    img = m.grab().toImage()
    # the swapping region's orange edge, and a dashed cut at the left end
    x0, cw, _ch, tops, row_h = m.current_geometry()
    mid_y = (tops[1] + row_h[1] / 2 + tops[0] + row_h[0] / 2) / 2
    assert close_rgb(pixel(img, x0 + 5 * cw - 4.5, mid_y), SWAP_EDGE, 40)
    assert coach.layer.isVisible() and coach.revealing
    while p.busy:
        p.advance_animation(0.05)
    assert not coach.revealing and coach.info is None


def test_a_wrong_pick_is_told_wrong(window, qtbot):
    hold(window, qtbot)
    click_column(window, 6)
    assert window.coach.guess == (5, 8)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert window.coach.verdict is False
    assert "Not this time: you picked P6..P8" in window.coach.waiting.text.text()


def test_gate_info_regions_and_arrival_without_qt():
    from gangviz.core.changes import JobPlaced, JobShifted
    sc = load_scenario(scenario_path("zhou-fig3-4-legal-cuts"))
    m = sc.matrix
    j2 = next(j for j in m.jobs() if m.name(j) == "J2")
    info = gate_info(m, JobShifted(j2, 0, 1), [JobShifted(j2, 0, 1), JobPlaced(99, 0, range(1, 8))],
                     lambda j: "Jn" if j == 99 else m.name(j))
    assert info.cuts == [0, 2, 5, 8] and info.answer == [(2, 5)]
    assert info.arrival == ("Jn", 7, 99)
    assert region_of(info.cuts, 0) == (0, 2) and region_of(info.cuts, 8) is None
