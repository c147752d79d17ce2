"""No glitch a student would point at: the key under the tree never cut, the moved and the
migrated icons told apart, the multi-site links never across a site's heading, the editor's
grid never across a job's name and a large-text mode for it."""

from __future__ import annotations

from gui_helpers import close_rgb, pixel
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from gangviz.gui import palette
from gangviz.gui.matrix.geometry import RIGHT
from gangviz.gui.matrix.vector import VectorTreeView


def present(window, size=(1920, 1080)):
    window.presentation.full_screen = False
    window.resize(*size)
    window.toggle_presentation()
    window.resize(*size)
    window.presentation.rescale()
    QApplication.processEvents()


def test_the_key_of_zhang_fig13_fits_in_presentation_mode(window):
    assert window.open_source("zhang-fig13-migration")
    present(window)
    window.player.go_to(2, now=True)
    for _ in range(2):  # the view takes its height when it is painted
        window.grab()
        QApplication.processEvents()
    vec = window.board.vector
    lines = vec._key_lines(every=True)  # every entry the key may list fits
    texts = [t for line in lines for _, _, t, _ in line]
    assert "processors under the pointer" in texts and "migrated (badge: its cost)" in texts
    fm = vec._fm_small
    for line in lines:
        x = float(vec.column_range.gutter)
        for _, _, text, w in line:
            assert x + fm.height() * 0.8 + 6 + fm.horizontalAdvance(text) <= vec.width() - RIGHT, text
            x += w
    assert vec.height() >= vec.preferred_height() - 1  # every key line has room
    window.leave_presentation()


def icon(kind: str) -> QImage:
    img = QImage(40, 40, QImage.Format.Format_ARGB32)
    img.fill(palette.BACKGROUND)
    p = QPainter(img)
    VectorTreeView._key_icon(p, kind, None, QRectF(4, 4, 32, 32))
    p.end()
    return img


def test_the_moved_and_the_migrated_icons_differ():
    a, b = icon("move"), icon("migration")
    differ = sum(a.pixel(x, y) != b.pixel(x, y) for x in range(40) for y in range(40))
    assert differ > 60


def test_links_across_sites_break_at_the_site_heading(window):
    assert window.open_source("papazachos-migration")
    present(window)
    window.player.go_to(11, now=True)
    QApplication.processEvents()
    view = window.board.family[0]
    assert view.linked_gangs(), "a gang must run across both sites at this step"
    img = view.grab().toImage()
    band = view.heading_rect(1).toAlignedRect()
    text_end = view.proc_rect(1, 0).left() + 1  # past the heading's own text on the left...
    bg = pixel(img, band.right() - 2, band.center().y())
    # ...every pixel of the heading band right of the processor boxes' start is background or text
    for x in range(int(view.lane_rect(1, 0).right()) - 2, int(text_end) + 400):
        for y in range(band.top() + 2, band.bottom() - 1, 3):
            c = pixel(img, x, y)
            assert close_rgb(c, bg, 12) or c.saturation() < 40, (x, y, c.name())
    window.leave_presentation()


def test_the_editor_grid_never_crosses_a_name_and_has_large_text(window):
    window.open_source("fig2-repacking")
    ed = window.edit_scenario()
    ed.resize(1100, 850)
    QApplication.processEvents()
    grid = ed.grid
    r = 2  # S3: J5 on P1..P3
    assert grid.doc.cells[r][:3] == ["J5", "J5", "J5"]
    img = grid.grab().toImage()
    edge = grid.cell_rect(r, 1)
    fill = pixel(img, edge.left() + 6, edge.center().y())
    # the boundary between two cells of J5, at the height of its name: the job's colour
    assert close_rgb(pixel(img, edge.left(), edge.center().y()), fill, 10)
    size = grid.font().pointSizeF()
    ed.large.setChecked(True)
    assert grid.text_scale > 1 and ed.font().pointSizeF() > 1.5 * size
    assert ed.hint.font().pointSizeF() == ed.font().pointSizeF()
    ed.large.setChecked(False)
    assert grid.text_scale == 1
    ed.close()


def test_no_gantt_text_runs_past_a_narrow_panes_edge(window, monkeypatch):
    from pathlib import Path

    from PySide6.QtGui import QFontMetricsF

    trace = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    assert window.open_source(str(trace), "conservative")
    p = window.player
    while len(p.sim.state.waiting) < 8 and p.step_forward(animate=False) is not None:
        pass
    view = window.board.family[0]
    view.setParent(None)  # a pane of its own, as narrow as a compare window's third
    view.resize(480, 420)
    seen = []
    orig = QPainter.drawText

    def record(self, *args):
        if isinstance(args[0], QRectF) and isinstance(args[-1], str):
            seen.append((args[0], args[-1], QFontMetricsF(self.font()).horizontalAdvance(args[-1])))
        return orig(self, *args)

    monkeypatch.setattr(QPainter, "drawText", record)
    view.grab()
    monkeypatch.setattr(QPainter, "drawText", orig)
    assert any("Queue" in t for _, t, _ in seen) and len(seen) > 10
    for rect, text, width in seen:
        if rect.width() >= 100:  # header, key and queue lines (bar names are drawn only where they fit)
            assert rect.left() + width <= view.width() + 1, text
    view.deleteLater()


def test_padded_processors_are_drawn_absent_and_hold_nothing(window):
    from pathlib import Path

    from gangviz.gui.matrix.painters import ABSENT

    trace = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    assert window.open_source(str(trace), "br", procs=128)
    window.player.go_to(300, now=True)
    m = window.player.sim.matrix
    assert window.player.sim.real_processors == 100 and (m.cells[:, 100:] == -1).all()
    view = window.board.matrix
    img = view.grab().toImage()
    for row in range(m.n_rows):
        for col in (100, 113, 127):
            r = view.cell_rect(row, col)
            c = pixel(img, r.left() + 2, r.top() + 2)  # (the band's label sits mid-height)
            hatch = QColor("#8A8680")
            assert close_rgb(c, ABSENT, 14) or close_rgb(c, hatch, 14), (row, col, c.name())
    # a real idle cell is not drawn that way
    idle = next((r, c) for r in range(m.n_rows) for c in range(100) if m.cells[r, c] == -1)
    rect = view.cell_rect(*idle)
    assert not close_rgb(pixel(img, rect.center().x(), rect.center().y()), ABSENT, 14)


def test_a_compare_pane_at_1080p_keys_every_mark_it_draws(qtbot):
    # a repack pane of four at 1920x1080 in presentation mode: the last allocation's frame is
    # drawn, so the key lists it (on a second line) instead of leaving it out for want of width
    from gangviz.gui.compare.window import CompareWindow
    from gangviz.workloads.source import load_source
    from tests.gui.test_compare_presentation import present

    src = load_source("downey", jobs=40, procs=32, load=0.8, seed=3)
    win = CompareWindow(src, ["easy", "conservative", "fcfs", "repack"], start=279)
    qtbot.addWidget(win)
    win.show()
    present(win)
    win.grab()
    vec = next(p for p in win.panes if p.spec == "repack").vector
    texts = [t for line in vec._key_lines() for _, _, t, _ in line]
    assert "alloc" in vec.shown_keys() and "last allocation" in texts
