"""Pixel probes of the matrix, the WLV and the tree."""

from __future__ import annotations

import numpy as np
import pytest
from gui_helpers import close_rgb, fig2_sim, job_id, pixel
from PySide6.QtGui import QColor

from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.gui import palette
from gangviz.gui.matrix.geometry import columns
from gangviz.gui.matrix.vector import VectorTreeView
from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.playback.player import Player
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation


@pytest.fixture
def view(qtbot):
    def make(sim, w=800, h=300, cls=MatrixWidget):
        player = Player(sim)
        v = cls(player)
        v.resize(w, h)
        qtbot.addWidget(v)
        v.show()
        return v, player
    return make


def _probe_point(rect):
    # a quarter into the cell: clear of the centred name and of the outlines
    return rect.left() + rect.width() * 0.2, rect.top() + rect.height() * 0.25


def test_each_job_has_its_colour_at_its_cells(view):
    sim = fig2_sim()
    v, _ = view(sim)
    img = v.grab().toImage()
    m = sim.matrix
    checked = 0
    for job in m.jobs():
        for row in m.job_rows(job):
            for col in m.job_cols(job):
                x, y = _probe_point(v.cell_rect(row, col))
                assert close_rgb(pixel(img, x, y), v.colours.colour(job)), (m.names[job], row, col)
                checked += 1
    assert checked == int(np.count_nonzero(m.cells != IDLE))
    # an idle cell (S1, P5) is neutral
    x, y = _probe_point(v.cell_rect(0, 4))
    assert close_rgb(pixel(img, x, y), palette.IDLE)


def test_s1_is_at_the_bottom_unless_flipped(view):
    sim = fig2_sim()
    v, _ = view(sim)
    j1 = job_id(sim, "J1")
    assert v.cell_rect(0, 0).top() > v.cell_rect(2, 0).top()
    img = v.grab().toImage()
    lowest = max(v.cell_rect(r, 0).top() for r in range(3))
    x, y = _probe_point(v.cell_rect(0, 0))
    assert v.cell_rect(0, 0).top() == lowest
    assert close_rgb(pixel(img, x, y), v.colours.colour(j1))
    v.set_bottom_up(False)
    assert v.cell_rect(0, 0).top() < v.cell_rect(2, 0).top()
    img = v.grab().toImage()
    x, y = _probe_point(v.cell_rect(0, 0))
    assert close_rgb(pixel(img, x, y), v.colours.colour(j1))


def test_the_running_row_is_highlighted(view):
    # two slots, each with an idle cell; S2 runs
    m = OusterhoutMatrix.from_rows([[0, 0, IDLE, 1], [2, IDLE, 3, 3]])
    m.set_active(1)
    from gangviz.core.jobs import JobSpec

    jobs = [JobSpec(0, "A", 0, 2, 50), JobSpec(1, "B", 0, 1, 50), JobSpec(2, "C", 0, 1, 50),
            JobSpec(3, "D", 0, 2, 50)]
    sim = Simulation(jobs, make_policy("repack"), 4, initial=m, watch=True)
    v, player = view(sim, 600, 260)
    img = v.grab().toImage()
    active_idle = pixel(img, *_probe_point(v.cell_rect(1, 1)))
    other_idle = pixel(img, *_probe_point(v.cell_rect(0, 2)))
    assert close_rgb(active_idle, palette.IDLE_ACTIVE)
    assert close_rgb(other_idle, palette.IDLE)
    # the accent frame runs just outside the active row, not around the other
    r1, r0 = v.cell_rect(1, 1), v.cell_rect(0, 1)
    assert close_rgb(pixel(img, r1.center().x(), r1.top() - 1), palette.ACCENT, 20)
    assert not close_rgb(pixel(img, r0.center().x(), r0.bottom() + 2), palette.ACCENT, 20)
    # the slice moves on: the highlight follows
    player.step_forward(animate=False)
    assert sim.matrix.active_row == 0
    img = v.grab().toImage()
    assert close_rgb(pixel(img, *_probe_point(v.cell_rect(0, 2))), palette.IDLE_ACTIVE)
    assert close_rgb(pixel(img, *_probe_point(v.cell_rect(1, 1))), palette.IDLE)


def _text_mask(img, x0, y0, w, h, fill: QColor) -> np.ndarray:
    """Pixels of the box that differ clearly from its fill (the digits)."""
    out = np.zeros((int(h), int(w)), dtype=bool)
    for yy in range(int(h)):
        for xx in range(int(w)):
            c = pixel(img, x0 + xx, y0 + yy)
            out[yy, xx] = not close_rgb(c, fill, 40)
    return out


def test_wlv_numbers_are_drawn_in_their_columns(view):
    sim = fig2_sim()  # WLV = 0 0 0 0 1 1 0 0
    assert sim.matrix.wlv.tolist() == [0, 0, 0, 0, 1, 1, 0, 0]
    v, _ = view(sim, 800, 160, VectorTreeView)
    img = v.grab().toImage()
    x0, cw = columns(v.width(), 8)
    rows = sim.matrix.n_rows

    def digits(col):
        fill = palette.shade(int(sim.matrix.wlv[col]), rows)
        # the inner part of the WLV cell (inside its border)
        return _text_mask(img, x0 + col * cw + 4, 6, cw - 8, 18, fill)

    one, zero, other_zero = digits(4), digits(0), digits(7)
    assert one.sum() > 5 and zero.sum() > 5, "a number is drawn in every WLV cell"
    assert not np.array_equal(one, zero), "'1' and '0' draw different glyphs"
    assert np.array_equal(zero, other_zero), "the same number draws the same glyph"
    # the shade: a non-zero entry is darker than a zero one
    c1 = pixel(img, x0 + 4 * cw + 3, 4)
    c0 = pixel(img, x0 + 0 * cw + 3, 4)
    assert c1.lightness() < c0.lightness()


def test_wlt_zero_nodes_are_grey_and_nonzero_nodes_shaded(view):
    sim = fig2_sim()  # level 1 (pairs): 0 0 2 0
    assert sim.matrix.tree.levels[1].tolist() == [0, 0, 2, 0]
    v, _ = view(sim, 800, 160, VectorTreeView)
    img = v.grab().toImage()
    x0, cw = columns(v.width(), 8)
    from gangviz.gui.matrix.vector import GAP, LEVEL_H, WLV_H

    y = 2 + WLV_H + GAP + 3
    assert close_rgb(pixel(img, x0 + 0.2 * cw, y), palette.ZERO_NODE)
    assert close_rgb(pixel(img, x0 + 4.2 * cw, y), palette.shade(2, 3 * 2))
    assert LEVEL_H > 0


def test_a_deleted_slot_collapses(view, qtbot):
    sim = fig2_sim()
    v, player = view(sim, 800, 300)
    before = v.grab().toImage()
    top_row = v.cell_rect(2, 0)
    assert sim.matrix.n_rows == 3
    player.step_forward(animate=False)  # J' and J'' terminate; re-packing deletes S3
    assert sim.matrix.n_rows == 2
    after = v.grab().toImage()
    x, y = top_row.center().x() - top_row.width() * 0.3, top_row.center().y()
    assert not close_rgb(pixel(before, x, y), palette.BACKGROUND, 3)
    assert close_rgb(pixel(after, x, y), palette.BACKGROUND, 3), "the row S3 stood in is gone"
    # the two remaining rows are full: no idle cell anywhere
    for r in range(2):
        for c in range(8):
            col = pixel(after, *_probe_point(v.cell_rect(r, c)))
            assert not close_rgb(col, palette.IDLE) and not close_rgb(col, palette.IDLE_ACTIVE)


def test_buddy_node_is_the_smallest_aligned_group_covering_a_placement():
    from gangviz.gui.matrix.vector import buddy_node

    assert buddy_node([4, 5, 6, 7]) == (2, 1)
    assert buddy_node([52, 53, 54]) == (2, 13)   # a 3-processor job holds the node P53..P56
    assert buddy_node([3, 4]) == (3, 0)          # straddles a pair boundary
    assert buddy_node([5]) == (0, 5)
    assert buddy_node([1, 3]) is None and buddy_node([]) is None
