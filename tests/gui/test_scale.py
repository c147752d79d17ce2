"""The window at real scale: presentation text heights, large machines, zoom alignment, the
plots' axes and keys, neighbour colours (pixel probes of grabbed pictures)."""

from __future__ import annotations

import numpy as np
import pytest
from gui_helpers import close_rgb, downey_sim, pixel
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QColor

from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.gui import palette
from gangviz.gui.matrix.geometry import RIGHT, columns
from gangviz.gui.matrix.vector import VectorTreeView
from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.playback.player import Player
from gangviz.gui.plots.metrics import MetricsPanel
from gangviz.gui.window import MainWindow
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(source="fig2-repacking", settings=settings)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.presentation.leave()
    w.player.stop()


def _ink_height(img, rect, background: QColor) -> int:
    """Return how many pixel rows of ``rect`` hold ink: pixels far from ``background``."""
    rows = []
    for y in range(int(rect.top()) + 3, int(rect.bottom()) - 3):
        for x in range(int(rect.left()) + 3, int(rect.right()) - 3):
            c = pixel(img, x, y)
            if sum(abs(a - b) for a, b in zip(c.getRgb()[:3], background.getRgb()[:3])) > 150:
                rows.append(y)
                break
    return (max(rows) - min(rows) + 1) if rows else 0


def test_presentation_text_is_at_least_18_px_high_at_1920x1080(window, qtbot):
    window.presentation.enter()
    window.showNormal()
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.presentation.scale == pytest.approx(1.0))
    qtbot.waitUntil(lambda: window.board.vector.height() == int(window.board.vector.preferred_height()))
    board = window.board
    m = window.player.sim.matrix
    # a WLV digit (every entry is drawn with its number at 8 processors)
    vec = board.vector
    img = vec.grab().toImage()
    x0, cw = columns(vec.width(), m.processors, vec.column_range)
    for c in range(m.processors):
        v = int(m.wlv[c])
        rect = type(board.matrix.cell_rect(0, 0))(x0 + c * cw, 2, cw, vec.wlv_h)
        fill = palette.shade(v, max(m.n_rows, 1))
        assert _ink_height(img, rect, fill) >= 18, (c, v)
    # a job's name and a slot label in the matrix
    mv = board.matrix
    mimg = mv.grab().toImage()
    job = int(m.cells[0, 0])
    run = [c for c in range(m.processors) if m.cells[0, c] == job]
    r0 = mv.cell_rect(0, run[0])
    rect = type(r0)(r0.left(), r0.top(), r0.width() * len(run), r0.height())
    assert _ink_height(mimg, rect, mv.colours.colour(job)) >= 18
    label = type(r0)(0, r0.top(), r0.left() - 12, r0.height())
    assert _ink_height(mimg, label, palette.BACKGROUND) >= 18
    # the caption and the explanation fonts: capitals of at least 18 px
    for w in (board.caption, board.explain, board.title):
        assert w.fontMetrics().capHeight() >= 18 * 0.95 or w.fontMetrics().ascent() >= 24, w


def test_presentation_at_1280x720_fits_the_board_on_screen(window, qtbot):
    window.presentation.enter()
    window.showNormal()
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.presentation.scale < 0.7)
    b = window.board
    qtbot.waitUntil(lambda: b.vector.height() == int(b.vector.preferred_height()))
    assert b.matrix.height() >= 150  # the matrix keeps room for its slots
    bottom = b.caption.mapTo(window, b.caption.rect().bottomLeft()).y()
    assert bottom <= window.height()
    assert b.caption.text() == b.caption.full_text  # the caption is not cut


def _big_sim(procs: int, slots: int = 6, seed: int = 0):
    """A matrix of ``slots`` rows filled with random runs of jobs (about 10% idle)."""
    rng = np.random.default_rng(seed)
    m = OusterhoutMatrix(procs)
    jobs = []
    for r in range(slots):
        SlotAdded(r).apply(m)
        c = 0
        while c < procs:
            size = int(min(procs - c, rng.integers(1, max(2, procs // 12))))
            if rng.random() > 0.1:
                jid = len(jobs)
                jobs.append(JobSpec(jid, f"J{jid}", 0.0, size, 100.0))
                JobPlaced(jid, r, range(c, c + size)).apply(m)
            c += size
    m.set_active(slots - 1)
    return Simulation(jobs, make_policy("repack"), procs, initial=m)


def test_running_slot_frame_is_whole_at_the_right_edge_of_a_large_machine(qtbot):
    sim = _big_sim(1024)
    v = MatrixWidget(Player(sim))
    qtbot.addWidget(v)
    v.resize(900, 400)
    v.show()
    img = v.grab().toImage()
    x0, cw, ch, tops, row_h = v.rest_layout.geometry()
    r = sim.matrix.active_row
    y = tops[r] + row_h[r] / 2
    right = v.width() - RIGHT
    assert x0 + 1024 * cw <= right + 0.5  # every processor on show
    hits = [x for x in range(int(right) - 3, int(right) + 4) if close_rgb(pixel(img, x, y), palette.ACCENT, 20)]
    assert hits, "the running slot's right side is not drawn"
    assert max(hits) < v.width() - 2


def _matrix_and_tree(qtbot, sim, width):
    """Return a matrix view and a vector/tree view of ``sim`` sharing one column range, both
    ``width`` pixels wide, shown and drawn once."""
    player = Player(sim)
    mv = MatrixWidget(player)
    vv = VectorTreeView(player)
    vv.set_column_range(mv.column_range)
    for w in (mv, vv):
        qtbot.addWidget(w)
        w.resize(width, 300)
        w.show()
    mv.grab()
    return mv, vv


def test_zoom_keeps_the_matrix_wlv_and_tree_aligned(qtbot):
    sim = _big_sim(1024, seed=1)
    mv, vv = _matrix_and_tree(qtbot, sim, 1000)
    mv.column_range.show(400, 32)  # processors P401..P432
    mimg, vimg = mv.grab().toImage(), vv.grab().toImage()
    m = sim.matrix
    x0v, cwv = columns(vv.width(), m.processors, vv.column_range)
    for c in (400, 405, 417, 431):
        rect = mv.cell_rect(0, c)
        assert rect.left() == pytest.approx(x0v + c * cwv)
        assert rect.width() == pytest.approx(cwv) and cwv > 25
        job = int(m.cells[0, c])
        want = palette.IDLE if job < 0 else mv.colours.colour(job)
        assert close_rgb(pixel(mimg, rect.left() + rect.width() * 0.2, rect.top() + rect.height() * 0.3), want, 8)
        wlv = pixel(vimg, rect.left() + rect.width() * 0.15, 6)
        assert close_rgb(wlv, palette.shade(int(m.wlv[c]), m.n_rows), 8)
    # the wheel zooms around the pointer and a fit shows the whole machine again
    mv.fit()
    assert mv.column_range.fitted and mv.column_range.count == 1024


def test_the_tree_folds_to_what_fits_and_never_outgrows_the_matrix(window, qtbot):
    from gangviz.workloads.source import load_source

    src = load_source("downey", jobs=200, load=0.8, procs=8192, seed=2)
    window.set_simulation(Simulation(src.jobs, make_policy("br"), src.processors))
    window.player.go_to(300, now=True)
    b = window.board
    qtbot.waitUntil(lambda: b.vector.height() == int(b.vector.preferred_height()))
    assert b.vector.height() <= b.matrix.height()
    assert 1 <= len(b.vector.tree_levels()) < 13
    # every level drawn has nodes at least 12 px wide
    _x0, cw = columns(b.vector.width(), 8192, b.vector.column_range)
    assert all((1 << d) * cw >= 12 for d in b.vector.tree_levels())
    # a click on the tree's labels unfolds more levels, still no taller than the matrix
    folded = len(b.vector.tree_levels())
    qtbot.mouseClick(b.vector, Qt.MouseButton.LeftButton, pos=QPoint(5, b.vector.height() // 2))
    qtbot.waitUntil(lambda: b.vector.height() == int(b.vector.preferred_height()))
    assert b.vector.expanded and len(b.vector.tree_levels()) > folded
    assert b.vector.height() <= b.matrix.height() + 1


def test_last_allocation_outline_clears_when_its_job_leaves(qtbot):
    sim = downey_sim("repack", jobs=40, procs=16, load=0.5, seed=4)
    player = Player(sim)
    vv = VectorTreeView(player)
    qtbot.addWidget(vv)
    vv.resize(600, 200)
    while player.step_forward(animate=False) is not None:
        if vv._allocation is not None:
            break
    job, cols = vv._allocation
    assert job in sim.matrix
    while job in sim.matrix and player.step_forward(animate=False) is not None:
        pass
    if vv._allocation is not None:
        assert vv._allocation[0] != job


def test_neighbouring_jobs_never_share_a_colour():
    palette.reset_colours()
    n = len(palette.JOB_COLOURS)
    # job 0 and job n prefer the same colour; side by side and one above the other
    cells = np.array([[0, 0, n, n], [2 * n, 2 * n, -1, 3 * n]])
    idx = palette.colour_indices(cells)
    assert idx[0, 0] != idx[0, 2]
    assert idx[1, 0] != idx[0, 0] and idx[1, 3] != idx[0, 2]
    # the colour stays once chosen
    assert (palette.colour_indices(cells) == idx).all()
    assert palette.job_colour(n) == palette.JOB_COLOURS[idx[0, 2]]


def test_plots_have_no_si_prefix_fixed_ratio_integer_counts_and_keys_off_the_data(qtbot):
    from gangviz.gui.plots import axes as plot_axes

    panel = MetricsPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 500)
    panel.show()
    sim = downey_sim("br", jobs=40, procs=32)
    player = Player(sim)
    player.go_to(1, now=True)
    panel.set_player(player)  # one sample
    for plot in panel.plots:
        item = plot.plot.getPlotItem()
        assert item.legend is None  # no key drawn over the data
        for name in ("left", "bottom"):
            ax = item.getAxis(name)
            assert not ax.autoSIPrefix
            assert "(x" not in ax.labelString()
        (x0, x1), (y0, y1) = item.getViewBox().viewRange()
        assert x0 >= -0.5 and x1 - x0 >= 1.0  # one sample: a sensible window, not -400..400
    jobs = panel.plots[2].plot.getPlotItem()
    assert "waiting" in jobs.titleLabel.text and "running" in jobs.titleLabel.text
    ratio = panel.plots[1].plot.getPlotItem()
    (y0, y1) = ratio.getViewBox().viewRange()[1]
    assert y0 == pytest.approx(0, abs=0.1) and y1 == pytest.approx(1, abs=0.1)
    ax = panel.plots[0].plot.getPlotItem().getAxis("left")
    assert isinstance(ax, plot_axes.IntegerAxis)
    for spacing, values in ax.tickValues(0.0, 3.0, 200):
        assert spacing >= 1 and all(float(v).is_integer() for v in values)
    assert plot_axes.PlainAxis("bottom").tickStrings([2_000_000.0], 1.0, 500_000.0) == ["2,000,000"]
    player.stop()


def test_hovering_a_tree_node_marks_its_processors_and_a_job_marks_its_wlv_entries(qtbot):
    sim = _big_sim(64, seed=3)
    mv, vv = _matrix_and_tree(qtbot, sim, 900)
    x0, cw, ch, tops, row_h = mv.rest_layout.geometry()
    before = mv.grab().toImage()
    mv.column_range.set_hover((16, 32))  # as a hover over a 16-processor tree node does
    img = mv.grab().toImage()
    y = float(tops.min() + row_h.sum() / 2)
    assert close_rgb(pixel(img, x0 + 16 * cw + 1.5, y), palette.LINK, 30)
    assert not close_rgb(pixel(before, x0 + 16 * cw + 1.5, y), palette.LINK, 30)
    m = sim.matrix
    job = int(m.cells[0, 40])
    cols = list(m.job_cols(job))
    mv.column_range.set_hover(None, cols)  # as a hover over the job in the matrix does
    vimg = vv.grab().toImage()
    assert close_rgb(pixel(vimg, x0 + cols[0] * cw + 1.5, 2 + vv.wlv_h / 2), palette.LINK, 30)


def test_the_key_names_moves_and_migrations_only_while_they_are_drawn(qtbot):
    sim = downey_sim("mgs", jobs=300, procs=64, load=0.9, seed=2)
    player = Player(sim)
    vv = VectorTreeView(player)
    qtbot.addWidget(vv)
    vv.resize(1500, vv.preferred_height())
    assert not {"move", "migration"} & vv.shown_keys()  # nothing has moved yet: no key for it
    before = vv.grab().toImage()
    for _ in range(300):
        player.step_forward(animate=False)
    assert {"job_migrated", "job_shifted"} <= player.move_kinds
    # at rest nothing moves on screen: the key does not promise a ghost or a badge
    assert not {"move", "migration"} & vv.shown_keys()
    after = vv.grab().toImage()
    assert after.height() == before.height()  # room for every entry: the board never jumps


def test_plot_time_axes_count_in_the_trace_units(window, qtbot):
    from pathlib import Path

    from gangviz.gui.plots.axes import TimeAxis

    trace = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    assert window.open_source(str(trace), "repack", remember=False)
    for _ in range(250):
        window.player.step_forward(animate=False)
    window.metrics.refresh()
    ax = window.metrics.plots[0].plot.getPlotItem().getAxis("bottom")
    assert isinstance(ax, TimeAxis) and window.slice_seconds() == 1.0
    # 250 steps of this trace span about a day: hours, ticked at round hours
    ticks = ax.tickValues(0.0, 20 * 3600.0, 400)
    assert ax.labelText == "time (h)"
    major = ticks[0][1]
    assert ax.tickStrings(major, 1.0, ticks[0][0]) == [f"{v / 3600:,.0f}" for v in major]
    assert all(v % 3600 == 0 for v in major)
    turnaround = window.metrics.plots[3].plot.getPlotItem().getAxis("left")
    turnaround.tickValues(0.0, 3000.0, 200)
    assert turnaround.labelText == "turnaround (min)"
    # a model counts in slices
    assert window.open_source("downey", "br", remember=False, jobs=30, procs=16, seed=1)
    assert ax.labelText == "time (slices)" and window.slice_seconds() is None
    assert turnaround.labelText == "turnaround (slices)"


def test_density_mode_keeps_a_gap_only_where_equal_colours_meet(qtbot):
    # A job keeps its colour when it moves, so two jobs of one colour can end up side by side;
    # density mode (no gaps between jobs) must still show where one ends and the next begins.
    procs = 512
    m = OusterhoutMatrix(procs)
    SlotAdded(0).apply(m)
    spans = [(0, 170), (170, 340), (340, procs)]
    jobs = []
    for jid, (a, b) in enumerate(spans):
        jobs.append(JobSpec(jid, f"J{jid}", 0.0, b - a, 100.0))
        JobPlaced(jid, 0, range(a, b)).apply(m)
    m.set_active(0)
    sim = Simulation(jobs, make_policy("repack"), procs, initial=m)
    v = MatrixWidget(Player(sim))
    qtbot.addWidget(v)
    v.resize(900, 300)
    v.show()
    v.grab()  # the jobs get their colours (all different, as placed)
    chosen = v.colours._chosen
    chosen[1] = chosen[0]  # as if J1 had moved next to a job of its colour
    chosen[2] = (chosen[0] + 3) % len(palette.JOB_COLOURS)
    v._static.clear()  # the layer is drawn again with the new colours
    img = v.grab().toImage()
    x0, cw, ch, tops, row_h = v.rest_layout.geometry()
    assert cw < 4  # density mode
    y = tops[0] + row_h[0] / 2
    same = [pixel(img, int(round(x0 + 170 * cw)) + dx, y) for dx in (-1, 0, 1)]
    differ = [pixel(img, int(round(x0 + 340 * cw)) + dx, y) for dx in (-1, 0, 1)]
    assert any(close_rgb(p, palette.BACKGROUND, 40) for p in same), "no gap between equal colours"
    assert not any(close_rgb(p, palette.BACKGROUND, 40) for p in differ), "a gap between different colours"
