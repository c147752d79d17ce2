"""Ghost and trail of a moving job: drawn mid-tween at its starting place, never over the
sliding block (so never through its name), and gone when the move ends."""

from __future__ import annotations

from gui_helpers import close_rgb, pixel

from gangviz.gui import palette
from gangviz.gui.matrix.cues import cue_moves
from gangviz.resources import scenario_path
from gangviz.workloads.scenario import load_scenario


def test_cue_moves_for_a_shift_and_a_swap():
    from gangviz.core.changes import JobShifted, RegionSwapped
    m = load_scenario(scenario_path("zhou-fig3-pairwise-cuts")).matrix
    ids = {m.name(j): j for j in m.jobs()}
    assert cue_moves(m, JobShifted(ids["J2"], 0, 1)) == [(ids["J2"], 0, [(2, 5)], 1, [(2, 5)])]
    swap = RegionSwapped(0, 1, 0, 2, (ids["J1"],), (ids["J3"],))
    assert cue_moves(m, swap) == [(ids["J1"], 0, [(0, 1)], 1, [(0, 1)]), (ids["J3"], 1, [(0, 2)], 0, [(0, 2)])]


def test_ghost_mid_tween_and_nothing_over_the_sliding_block(window, qtbot):
    p, m = window.player, window.board.matrix
    window.set_guided(False)
    p.set_speed_level(2)
    m.grab()
    p.step_forward()
    while p.busy and not (p.transition and p.transition.change.kind == "job_shifted" and p.transition.t > 0.45):
        p.advance_animation(0.02)
    tr = p.transition
    assert tr is not None and tr.change.kind == "job_shifted"
    cues = window.board.cues
    assert cues.current()
    job, src, runs, dst, _ = cues.current()[0]
    x0, cw, ch, tops, row_h = m.current_geometry()
    img = window.board.grab().toImage()
    off = m.mapTo(window.board, m.rect().topLeft())
    lo, hi = runs[0]
    # the ghost: the job's colour, faint, on the cell it is leaving, near the row's bottom edge
    gx, gy = off.x() + x0 + (lo + hi) / 2 * cw, off.y() + tops[src] + row_h[src] - 6
    ghost = pixel(img, gx, gy)
    assert not close_rgb(ghost, palette.IDLE, 6) and not close_rgb(ghost, m.colours.colour(job), 20)
    # the sliding block itself is drawn exactly as the matrix view draws it
    cues.setVisible(False)
    plain = m.grab().toImage()
    cues.setVisible(True)
    assert pixel(plain, gx - off.x(), gy - off.y()) != ghost, "the ghost is the layer's doing"
    for rect in cues._moving_rects(x0, cw, ch, tops):
        c = rect.center()
        assert pixel(img, off.x() + c.x() + 12, off.y() + c.y() + 8) == pixel(plain, c.x() + 12, c.y() + 8)
    while p.busy:
        p.advance_animation(0.05)
    assert cues.current() == []


def test_the_running_slot_frame_fades_between_rows_instead_of_sliding_across_names(window, qtbot):
    p, m = window.player, window.board.matrix
    window.set_guided(False)
    p.set_speed_level(2)
    m.grab()
    found = None
    for _ in range(4):
        p.step_forward()
        while p.busy:
            tr, sc = p.transition, m._scene()
            if tr and tr.change.kind == "row_activated" and sc.active is not None \
                    and 0.35 < sc.active % 1 < 0.65:
                found = sc
                break
            p.advance_animation(0.02)
        if found:
            break
    assert found is not None, "the running slot moved between rows"
    x0, cw, ch, tops, row_h = m.current_geometry()
    img = m.grab().toImage()
    # where a sliding frame would run now: across the middle of a row, through its names
    y_mid = m.current_layout().row_y(found.active)
    xs = range(int(x0) + 4, int(x0 + 8 * cw) - 4, 3)
    for y in (y_mid - 1, y_mid, y_mid + 1):
        assert not any(close_rgb(pixel(img, x, y), palette.ACCENT, 30) for x in xs)
