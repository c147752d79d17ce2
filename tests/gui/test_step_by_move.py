"""Stepping by move: every shift, migration, slot deletion, placement and termination of a step
is a stop with its own caption; back undoes one move; whole steps stay a unit (Shift+arrows);
``open --step N.M`` renders any move (Zhou et al.'s Fig. 2(b), (c), (d))."""

from __future__ import annotations

import numpy as np
import pytest
from gui_helpers import fig2_sim
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from gangviz.cli import main
from gangviz.core.changes import (
    JobPlaced,
    JobRemoved,
    JobShifted,
    RowActivated,
    SlotRemoved,
    move_ends,
)
from gangviz.factory import build
from gangviz.gui.lecture.caption import caption_text
from gangviz.gui.matrix.cues import MoveCues
from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.playback.player import Player
from gangviz.workloads.source import load_source


def rows_of(matrix) -> list[list[str]]:
    """The matrix as names, top slot first (as the paper's grids print it)."""
    out = []
    for r in range(matrix.n_rows - 1, -1, -1):
        out.append([matrix.name(int(c)) if c >= 0 else "." for c in matrix.cells[r]])
    return out


# Zhou et al. (2001) Fig. 2 (b), (c), (d), top slot first
FIG2_B = [["J5", "J5", "J5", "J6", "J6", ".", "J7", "J7"],
          ["J1", "J1", "J2", "J2", "J4", "J4", ".", "."],
          [".", ".", ".", ".", ".", "J3", "J3", "J3"]]
FIG2_C = [[".", ".", ".", ".", ".", ".", "J7", "J7"],
          ["J1", "J1", "J2", "J2", "J4", "J4", ".", "."],
          ["J5", "J5", "J5", "J6", "J6", "J3", "J3", "J3"]]
FIG2_D = [["J1", "J1", "J2", "J2", "J4", "J4", "J7", "J7"],
          ["J5", "J5", "J5", "J6", "J6", "J3", "J3", "J3"]]


def test_move_ends_skip_a_slice_moving_on_and_end_at_the_step():
    a = JobRemoved(1, 0, (0, 1))
    b = JobShifted(2, 0, 1)
    act = RowActivated(0, None)
    assert move_ends([a, b, SlotRemoved(2), act]) == [1, 2, 4]
    assert move_ends([act, JobPlaced(3, 0, (0,))]) == [2]
    assert move_ends([act]) == []
    assert move_ends([]) == []


def test_fig2_panels_b_c_d_are_stops_of_step_one(qtbot):
    p = Player(fig2_sim(), speed_level=8)
    names = []
    for want in range(1, 9):
        assert p.step_move()
        stop = p.move_stop
        assert stop is not None and (stop.step, stop.number, stop.count) == (1, want, 8)
        assert p.position == 1 and not p.busy
        names.append(stop.change.kind)
        if want == 4:
            assert rows_of(p.display_state) == FIG2_B
        if want == 6:
            assert rows_of(p.display_state) == FIG2_C
        if want == 8:
            assert rows_of(p.display_state) == FIG2_D
    assert names == ["job_removed"] * 2 + ["job_shifted"] * 5 + ["slot_removed"]
    p.stop()


def test_each_stop_has_its_own_caption_naming_the_rule(qtbot):
    p = Player(fig2_sim(), speed_level=8)
    seen = []
    for _ in range(8):
        p.step_move()
        seen.append(caption_text(p))
    assert len(set(seen)) == 8
    assert seen[3].startswith("Move 4 of 8: ") and "J2 shifts from S1 to S2" in seen[3]
    assert "legal shift" in seen[3] and "Property 2" in seen[3]
    assert "Property 2" in seen[7] and "eliminated" in seen[7]
    p.stop()


def test_back_undoes_one_move_and_forward_gives_the_same_pictures(qtbot):
    p = Player(fig2_sim(), speed_level=8)
    pictures = [rows_of(p.display_state)]
    for _ in range(10):  # past step 1's eight moves: the slices in between are passed over
        p.step_move()
        pictures.append(rows_of(p.display_state))
    assert p.move_stop is not None and p.move_stop.step == 3  # the arrival: slot created, Jn placed
    for k in range(10, 0, -1):
        assert p.back_move()
        assert rows_of(p.display_state) == pictures[k - 1], k
    assert p.position == 0 and not p.back_move()
    p.stop()


def test_steps_in_which_nothing_moves_are_passed_over(qtbot):
    p = Player(fig2_sim(), speed_level=8)
    for _ in range(8):
        p.step_move()
    assert p.position == 1
    p.step_move()  # step 2 only runs slot S2's slice: passed over
    assert p.position == 3 and p.move_stop.number == 1
    assert p.move_stop.change.kind == "slot_added"
    p.stop()


def test_whole_steps_stay_a_unit(qtbot):
    p = Player(fig2_sim(), speed_level=8)
    p.step_move()
    p.step_move()
    p.step_forward()  # from a stop within a step: the rest of that step
    assert p.position == 1 and p.move_stop is None and p.display_state.n_rows == 2
    p.step_forward()
    assert p.position == 2
    p.step_move()
    p.step_back()  # from a stop within step 3: back to the picture after step 2
    assert p.position == 2 and p.move_stop is None
    p.stop()


def test_an_animated_move_slides_then_holds(qtbot):
    p = Player(fig2_sim(), speed_level=2)
    assert p.animates
    p.step_move()
    assert p.busy and p.move_stop is None
    while p.busy:
        p.advance_animation(0.05)
    assert p.move_stop is not None and p.move_stop.number == 1
    p.step_move()
    kinds, frames = set(), 0
    while p.busy:
        kinds.add(p.transition.change.kind)
        frames += 1
        p.advance_animation(0.05)
    assert kinds == {"job_removed"} and p.move_stop.number == 2
    assert frames >= 5  # half a second at 1x: the move slides, it does not jump
    assert not p.timer.isActive()
    p.stop()


def fig2_cues(qtbot, moves: int, width: int = 800, height: int = 400) -> tuple[Player, MatrixWidget, MoveCues]:
    """Fig. 2's run in a matrix view with its move cues, stopped on move ``moves`` of step 1."""
    p = Player(fig2_sim(), speed_level=8)
    view = MatrixWidget(p)
    cues = MoveCues(view)
    cues.set_player(p)
    qtbot.addWidget(view)
    view.resize(width, height)
    for _ in range(moves):
        p.step_move()
    return p, view, cues


def test_cues_keep_the_ghost_and_trail_of_the_move_stopped_on(qtbot):
    p, view, cues = fig2_cues(qtbot, 3)
    moves = cues.current()
    assert len(moves) == 1 and moves[0][1] != moves[0][3]  # J1: from S1 to S2
    p.back_move()  # J'' left: a ghost where it was, no trail
    (job, src, runs, dst, runs2), = cues.current()
    assert src == dst and runs == runs2 == [(6, 8)]
    p.stop()


def test_window_right_steps_by_move_and_shift_right_by_step(window, qtbot):
    p = window.player
    p.set_speed_level(8)
    assert window.act_by_move.isChecked()
    qtbot.keyClick(window, Qt.Key.Key_Right)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert p.position == 1 and p.move_stop.number == 2
    qtbot.keyClick(window, Qt.Key.Key_Left)
    assert p.move_stop.number == 1
    qtbot.keyClick(window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert p.position == 1 and p.move_stop is None
    qtbot.keyClick(window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert p.position == 2
    qtbot.keyClick(window, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    assert p.position == 1
    qtbot.keyClick(window, Qt.Key.Key_M)
    assert not window.act_by_move.isChecked()
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert p.position == 2 and p.move_stop is None


def test_go_to_move_refuses_a_move_a_step_does_not_have(qtbot):
    p = Player(fig2_sim(), speed_level=8)
    with pytest.raises(ValueError, match="step 1 has 8 moves"):
        p.go_to_move(1, 9)
    with pytest.raises(ValueError, match="step 2 has no move"):
        p.go_to_move(2, 1)
    p.go_to_move(1, 6)
    assert rows_of(p.display_state) == FIG2_C
    p.stop()


def test_open_step_n_m_renders_each_panel(tmp_path, capsys):
    images = {}
    for spec in ("1.4", "1.6", "1.8", "1"):
        out = tmp_path / f"f{spec}.png"
        assert main(["open", "fig2-repacking", "--screenshot", str(out), "--step", spec,
                     "--size", "700x500"]) == 0
        images[spec] = QImage(str(out))
    assert images["1.4"] != images["1.6"] != images["1.8"]
    assert main(["open", "fig2-repacking", "--screenshot", str(tmp_path / "x.png"), "--step", "1.9"]) == 1
    err = capsys.readouterr().err
    assert "step 1 has 8 moves" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        main(["open", "fig2-repacking", "--screenshot", str(tmp_path / "y.png"), "--step", "1.x"])
    assert "N.M (move M of step N" in capsys.readouterr().err


def test_both_swaps_of_fig3_are_stops(qtbot):
    sim = build(load_source("zhou-fig3-pairwise-cuts"))
    p = Player(sim, speed_level=8)
    p.step_move()
    first = p.move_stop
    assert first.change.kind == "region_swapped" and (first.number, first.count) == (1, 3)
    after_first = np.array(p.display_state.cells)
    p.step_move()
    assert p.move_stop.change.kind == "region_swapped" and p.move_stop.number == 2
    assert not np.array_equal(after_first, p.display_state.cells)
    p.stop()


def test_the_key_lists_only_what_the_screen_shows(qtbot):
    from gangviz.gui.matrix.vector import VectorTreeView

    p = Player(fig2_sim(), speed_level=8)
    vec = VectorTreeView(p)
    qtbot.addWidget(vec)
    assert "hatch" not in vec.shown_keys() and "move" not in vec.shown_keys()
    assert "migration" not in vec.shown_keys() and "pointer" not in vec.shown_keys()
    p.step_move()
    p.step_move()
    p.step_move()  # J1 shifted: its ghost and trail are drawn
    assert "move" in vec.shown_keys()
    p.stop()
    sim = build(load_source("zhang-fig13-migration"))
    p = Player(sim, speed_level=8)
    vec.set_player(p)
    p.go_to_move(1, 2)  # A migrated at a cost: the badge is drawn
    assert p.move_stop.change.kind == "job_migrated"
    assert {"move", "migration"} <= vec.shown_keys()
    p.go_to_move(1, 1)  # a termination: no badge
    assert "migration" not in vec.shown_keys()
    p.stop()


def test_hatch_stripes_read_on_every_job_colour_and_at_a_quarter_scale():
    from gangviz.colours import contrast_ratio
    from gangviz.gui import palette
    from gangviz.gui.matrix.marks import HATCH_DARK, HATCH_LIGHT, HATCH_STRIPE

    for colour in palette.JOB_HEX:
        assert max(contrast_ratio(HATCH_DARK.name(), colour), contrast_ratio(HATCH_LIGHT.name(), colour)) >= 3.0
    # a projected slot is about 150 pixels high at 1920 x 1080: a stripe stays over a pixel at 1/4
    assert 150 * HATCH_STRIPE / 4 >= 1.0


def test_export_by_move_rests_on_every_move_with_one_key(tmp_path, qtbot):
    from gangviz.gui.export.render import render

    sim = build(load_source("fig2-repacking"))
    stamps, keys = [], set()
    from gangviz.gui import board as board_module

    real = board_module.Board.grab

    def spy(self, *args):
        stamps.append(self.subtitle.text())
        keys.add(frozenset(self.vector.shown_keys()))
        return real(self, *args)

    board_module.Board.grab = spy
    try:
        render(sim, (800, 500), 4, lambda img, k: None, steps=1, by_move=True, presentation=True)
    finally:
        board_module.Board.grab = real
    for k in range(1, 9):
        assert any(s.endswith(f"move {k} of 8") for s in stamps), k
    assert len(keys) == 1  # the same key on every frame


def test_captions_keep_a_slots_new_name_and_count_many_arrivals(qtbot):
    from gangviz.gui.lecture.caption import short_text

    assert short_text("A migrates to P6..P8 in S3 (now S2) (cost 5.5).") == "A migrates to P6..P8 in S3 (now S2)."
    p = Player(build(load_source("mccann-fig3-buddy")), speed_level=8)
    p.step_forward()
    text = caption_text(p)
    assert text.startswith("8 jobs arrive: J1, J2, J3 and 5 more (J4..J8).")
    assert text.count("arrives") == 0
    p.stop()


def test_papazachos_narration_names_tasks_as_the_board_draws_them():
    sim = build(load_source("papazachos-migration"))
    step = sim.step()
    assert any(line.startswith("G0.1 joins the queue") for line in step.narration)
    assert not any("at random" in line for line in step.narration)


def _matrix_scenarios() -> list[str]:
    from gangviz.resources import list_scenarios
    from gangviz.workloads.scenario import load_scenario

    return [p.stem for p in list_scenarios() if load_scenario(p).model == "matrix"]


@pytest.mark.parametrize("name", _matrix_scenarios())
def test_every_move_of_every_scenario_goes_back_to_the_same_picture(name, qtbot):
    p = Player(build(load_source(name)), speed_level=8)
    seen = [(p.position, rows_of(p.display_state))]
    for _ in range(400):
        if not p.step_move():
            break
        seen.append((p.position, rows_of(p.display_state)))
    assert len(seen) > 1
    forward = list(seen)
    while p.back_move():
        seen.pop()
        assert (p.position, rows_of(p.display_state)) == seen[-1], (name, len(seen))
    assert len(seen) == 1 and p.position == 0
    # the whole run's last picture is the one stepping by move ends on
    p.go_to(forward[-1][0], now=True)
    assert rows_of(p.display_state) == forward[-1][1]
    p.stop()


def test_a_whole_step_tells_its_shifts_once_with_their_rule(qtbot):
    p = Player(fig2_sim(), speed_level=8)
    p.step_forward()
    text = caption_text(p)
    assert "J1 and J2 shift from S1 to S2, J5 and J6 from S3 to S1 and J7 from S3 to S2" in text
    assert text.count("same processors") == 0 and text.count("legal shifts") == 1
    assert "Property 2" in text
    p.stop()


def test_a_trail_never_crosses_the_name_of_a_job_in_a_row_between(qtbot):
    # Fig. 2, move 6: J6 goes from S3 down to S1 past S2, whose J2 is named just where the
    # trail would run beside J6's left edge
    from PySide6.QtGui import QFontMetricsF

    p, view, cues = fig2_cues(qtbot, 6, 1200, 500)
    (job, src, src_runs, dst, dst_runs), = cues.current()
    assert (p.display_state.name(job), src, dst) == ("J6", 2, 0)
    geom = view.current_geometry()
    a, b = cues.trail(src, src_runs, dst, dst_runs, geom)
    x0, cw, _, tops, row_h = geom
    width = QFontMetricsF(view.name_font()).horizontalAdvance("J2")
    cells = p.display_state.cells[1].tolist()
    j2 = [c for c, v in enumerate(cells) if v >= 0 and p.display_state.name(v) == "J2"]
    centre = x0 + (j2[0] + j2[-1] + 1) * cw / 2
    assert not (centre - width / 2 <= max(a.x(), b.x()) and min(a.x(), b.x()) <= centre + width / 2)
    assert a.y() != b.y()  # it still runs from one row to the other
    p.stop()
