"""The guided exercise teaches: nothing gives the answer while a move is held, the waiting job
is drawn beside the matrix, the student's pick is judged, the cuts stay and the swapping region
is shaded during the reveal, and the status bar counts what is drawn."""

from __future__ import annotations

import re

import pytest
from gui_helpers import close_rgb, pixel
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

from gangviz.colours import contrast_ratio
from gangviz.gui import palette
from gangviz.gui.lecture.coach import GUESS, HIDDEN_EXPLANATION, SWAP_CORE, SWAP_EDGE
from gangviz.gui.matrix.held_move import gate_info, region_of
from gangviz.resources import list_scenarios, scenario_path
from gangviz.workloads.scenario import load_scenario


def hold(window, qtbot, name="zhou-fig3-4-legal-cuts", reopen=True):
    if reopen:
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
    # after the reveal the narration comes back; the explanation at the end of the run
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert window.coach.cover.isHidden()
    p = window.player
    while p.busy or p.gate is not None:
        p.advance_animation(0.05)
    while p.step_forward(animate=False) is not None:
        pass
    sc = load_scenario(scenario_path("zhou-fig3-4-legal-cuts"))
    assert window.explain.text() == sc.explanation == window.board.explain.text()
    window.leave_presentation()


_NAME = re.compile(r"\b(?:J\w+|S\d+|P\d+(?:\.\.P\d+|\|P\d+)?)")
MOVE_WORDS = {"shifts", "shift", "moves", "move", "migrates", "swap", "swaps", "swapped",
              "exchange", "exchanged", "middle", "up", "down"}


def answer_tokens(sentence: str, question_names=()) -> set[str]:
    """The answer's words: every job, slot and processor name of the held move's sentence and
    its move words (the job the question names itself excepted)."""
    words = {w.strip(".,;:()").lower() for w in sentence.split()}
    return ({t for t in _NAME.findall(sentence) if t not in question_names}
            | (words & MOVE_WORDS))


def shown_texts(window) -> list[str]:
    """Every text the projected window shows: each visible label and button, the caption,
    the narration log unless it is covered, and the window title (not the presenter view)."""
    texts = [window.windowTitle(), window.board.caption.text()]
    for w in window.findChildren(QWidget):
        if not w.isVisibleTo(window) or w.window() is not window:
            continue
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
    if window.coach.cover.isHidden() and window.narration.isVisibleTo(window):
        texts += window.narration.model_.row_text
    return texts


def tokens_in(texts, tokens) -> set[str]:
    found = set()
    for t in texts:
        words = {w.strip(".,;:()").lower() for w in t.split()} | set(_NAME.findall(t))
        found |= {tok for tok in tokens if tok in words or tok.lower() in words}
    return found


@pytest.mark.parametrize("present", [False, True])
@pytest.mark.parametrize("name", ["zhou-fig3-4-legal-cuts", "fig2-repacking"])
def test_the_visible_text_before_the_answer_has_none_of_its_words(window, qtbot, name, present):
    window.set_guided(True)
    assert window.open_source(name)
    if present:
        window.toggle_presentation()
    before = shown_texts(window)  # the starting picture, before Play
    p = hold(window, qtbot, name, reopen=False)
    lines = p.known[p.position - 1].narration
    sentence = lines[p.gate.index]
    arrival = window.coach.info.arrival
    # the question may name the arriving job and what the step did before the move
    context = set(_NAME.findall(" ".join(lines[:p.gate.index]))) | ({arrival[0]} if arrival else set())
    tokens = answer_tokens(sentence, context)
    assert tokens, sentence
    assert tokens_in(before, tokens) == set()
    assert tokens_in(shown_texts(window), tokens) == set()
    qtbot.keyClick(window, Qt.Key.Key_Return)  # the reveal tells it
    while p.busy and p.gate is None and p.transition is not None and p.transition.index <= 0:
        p.advance_animation(0.01)
    window.leave_presentation()


MATRIX_SCENARIOS = [p.stem for p in list_scenarios() if load_scenario(p).model == "matrix"]


@pytest.mark.parametrize("name", MATRIX_SCENARIOS)
def test_no_scenario_gives_a_held_move_away_in_presentation_mode(shared_window, qtbot, name):
    window = shared_window
    window.set_guided(True)
    assert window.open_source(name)
    window.toggle_presentation()
    before = shown_texts(window)
    p = window.player
    p.set_speed_level(2)
    for _ in range(30):  # step until the exercise holds a move (or the scenario ends)
        if p.step_forward() is None:
            break
        while p.gate is None and p.busy:
            p.advance_animation(0.05)
        if p.gate is not None:
            break
    if p.gate is None:
        p.stop()  # the window is shared by the next scenario's test
        window.leave_presentation()
        pytest.skip(f"{name} has no move to hold")
    lines = p.known[p.position - 1].narration
    arrival = window.coach.info.arrival
    context = set(_NAME.findall(" ".join(lines[:p.gate.index]))) | ({arrival[0]} if arrival else set())
    tokens = answer_tokens(lines[p.gate.index], context)
    assert tokens_in(shown_texts(window), tokens) == set()
    if p.position == 1:  # the first held move: nothing before Play told it either
        assert tokens_in(before, tokens) == set()
    p.reveal()
    p.stop()  # the window is shared by the next scenario's test
    window.leave_presentation()


def test_the_scenario_explanation_stays_covered_from_the_start_of_a_guided_scenario(window):
    assert window.open_source("zhou-fig3-4-legal-cuts")
    assert window.player.guided
    assert window.explain.text() == window.board.explain.text() == HIDDEN_EXPLANATION
    window.set_guided(False)  # turning the exercise off shows it
    sc = load_scenario(scenario_path("zhou-fig3-4-legal-cuts"))
    assert window.explain.text() == sc.explanation


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
    assert close_rgb(pixel(img, 20, w.height() // 2), w.colours.colour(w.job[2]), 30)


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
    assert close_rgb(pixel(img, x0 + 2 * cw + 12, tops[0] + row_h[0] / 2), GUESS, 40)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert coach.verdict is True and "Right: P3..P5" in coach.waiting.text.text()
    p.advance_animation(0.2)
    img = m.grab().toImage()
    # the swapping region's frame: a black band with a white core
    x0, cw, _ch, tops, row_h = m.current_geometry()
    mid_y = (tops[1] + row_h[1] / 2 + tops[0] + row_h[0] / 2) / 2
    assert close_rgb(pixel(img, x0 + 5 * cw - 4.5, mid_y), SWAP_CORE, 40)
    assert close_rgb(pixel(img, x0 + 5 * cw - 1.5, mid_y), SWAP_EDGE, 40)
    assert coach.layer.isVisible() and coach.revealing
    while p.busy:
        p.advance_animation(0.05)
    # the verdict, the pick and the frame stay until the student goes on
    assert coach.answered and coach.verdict is True and coach.verdict_text().startswith("Right: P3..P5")
    assert "Press Right to go on" in coach.waiting.text.text()
    assert not p.playing and coach.guess == (2, 5)
    img = m.grab().toImage()
    assert close_rgb(pixel(img, x0 + 5 * cw - 1.5, mid_y), SWAP_EDGE, 40)
    window.set_guided(False)  # going on: everything is cleared, the pick's frame too
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert not coach.revealing and coach.info is None and coach.guess is None and not coach.answered
    img = m.grab().toImage()
    x0, cw, _ch, tops, row_h = m.current_geometry()
    assert not close_rgb(pixel(img, x0 + 2 * cw + 12, tops[0] + row_h[0] / 2), GUESS, 40)


def test_the_swap_frame_stands_out_on_every_job_colour():
    for colour in palette.JOB_HEX:
        best = max(contrast_ratio(SWAP_EDGE.name(), colour), contrast_ratio(SWAP_CORE.name(), colour))
        assert best >= 3.0, colour


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
