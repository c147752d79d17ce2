"""The live Ousterhout matrix: slots as rows, processors as columns.

Issue 5, "Matrix view"; DESIGN.md "GUI"; 000_fc8d6d1d4cf9d1e1.txt Fig. 1, 2, 5, 6 (S1 drawn at
the bottom, as in the papers; ``bottom_up=False`` puts it at the top).

Drawing is cheap: the cells become one indexed ``uint8`` image (0 idle, 1..18 the job colours,
one index for idle cells of the running slot) drawn through a fixed colour table; grid lines,
block outlines, names and the moving blocks of an animation are painted over it. The view paints
whatever :func:`~gangviz.gui.scene.build_scene` says for the player's current transition; it
repaints on the player's ``frame``/``moved``/``stepped`` signals only (marks itself dirty with
``update()``; Qt coalesces repaints on the frame clock).

Interaction: hovering a job shows its size, work left, arrival and rows; a click selects a job
(all its cells outlined, ``jobSelected`` emitted; a click on an idle cell clears the selection);
the context menu offers "Terminate now" on a job and "Submit a job here…" on an idle cell
(what-if actions through the player). Tie-break: the mouse is mapped onto the matrix at rest, so
hovering and clicking during an animation see the state before the running change.

Lecture mode (issue 8): ``hover_highlight`` outlines every cell of the job under the mouse
pointer (presentation mode turns it on); :meth:`MatrixView.set_font_size` enlarges the names and
labels; while the player holds a move for the guided exercise (``Player.gate``) the legal cuts
of the rows involved are drawn as dashed vertical lines over those rows
(:func:`gangviz.gui.guided.gate_cuts`): a black dash on a white halo, readable on every job
colour.
"""

from __future__ import annotations

import sys

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QImage, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QInputDialog, QMenu, QMessageBox, QToolTip, QWidget

from gangviz.core.matrix import IDLE, slot_label
from gangviz.gui import palette
from gangviz.gui.geometry import columns, label_stride
from gangviz.gui.guided import gate_cuts
from gangviz.gui.scene import Scene, build_scene
from gangviz.gui.wiring import follow

MAX_CELL_H = 64.0
MIN_CELL_H = 4.0
LABEL_H = 20.0
TOP = 8.0
#: colours of a guided-exercise cut: the dash and the halo under it
CUT_DASH = QColor("#111111")
CUT_HALO = QColor("#FFFFFF")
CUT_WIDTH = 3.0

_COLOUR_TABLE = [QColor(*row).rgba() for row in palette.lookup_table().tolist()]
_BGRA = np.ascontiguousarray(palette.lookup_table()[:, [2, 1, 0, 3]]) if sys.byteorder == "little" \
    else np.ascontiguousarray(palette.lookup_table()[:, [3, 0, 1, 2]])


def index_image(cells: np.ndarray, active: int | None) -> np.ndarray:
    """Return the uint8 colour-index array of ``cells`` (see :mod:`gangviz.gui.palette`)."""
    idx = np.where(cells < 0, 0, 1 + np.mod(cells, len(palette.JOB_COLOURS))).astype(np.uint8)
    if active is not None and 0 <= active < idx.shape[0]:
        row = idx[active]
        row[cells[active] < 0] = palette.ACTIVE_IDLE_INDEX
    return np.ascontiguousarray(idx)


class MatrixView(QWidget):
    """Paints the player's matrix; see the module docstring.

    Signals: ``jobSelected(object)`` with the job id, or ``None`` when the selection is cleared.
    """

    jobSelected = Signal(object)

    def __init__(self, player=None, parent: QWidget | None = None, *, bottom_up: bool = True):
        super().__init__(parent)
        self.player = None
        self.bottom_up = bottom_up
        self.selected: int | None = None
        self.hover_highlight = False
        self.hovered: int | None = None
        self.show_cuts = True
        self.max_cell_h = MAX_CELL_H
        self.setMouseTracking(True)
        self.setMinimumSize(320, 140)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self._font = QFont(self.font())
        self._font.setPointSizeF(9.5)
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._fm = QFontMetricsF(self._font)
        self._label_h = LABEL_H
        self._text_w: dict[str, float] = {}
        self._layout: tuple[float, float, float, np.ndarray, np.ndarray] | None = None
        self._cache: tuple | None = None
        if player is not None:
            self.set_player(player)

    # ----------------------------------------------------------------- wiring
    def set_player(self, player) -> None:
        """Show ``player``'s simulation (disconnects from the previous player)."""
        follow(self.player, player, ("frame", "moved", "stepped"), self._dirty)
        self.player = player
        self.selected = None
        self.update()

    def set_bottom_up(self, bottom_up: bool) -> None:
        """Draw S1 at the bottom (True, as in the papers) or at the top."""
        self.bottom_up = bool(bottom_up)
        self.update()

    def set_font_size(self, points: float) -> None:
        """Draw names and labels at ``points`` (9.5 in the window, larger when presenting)."""
        self._font.setPointSizeF(points)
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._fm = QFontMetricsF(self._font)
        self._label_h = max(LABEL_H, self._fm.height() + 4)
        self._text_w.clear()
        self._cache = None
        self.update()

    def set_max_cell_height(self, pixels: float) -> None:
        """Let a slot grow up to ``pixels`` high (64 in the window; taller when presenting)."""
        self.max_cell_h = float(pixels)
        self._cache = None
        self.update()

    def set_hover_highlight(self, on: bool) -> None:
        """Outline the job under the mouse pointer (``on``) or not."""
        self.hover_highlight = bool(on)
        if not on:
            self.hovered = None
        self._cache = None
        self.update()

    def set_hovered(self, job: int | None) -> None:
        """Highlight ``job`` as the one under the pointer (``None`` clears it)."""
        if job != self.hovered:
            self.hovered = job
            self.update()

    def cut_lines(self) -> tuple[tuple[int, ...], list[int]]:
        """Return ``(rows, cuts)`` drawn for the move the player holds (empty when none)."""
        p = self.player
        gate = None if p is None or not self.show_cuts else getattr(p, "gate", None)
        if gate is None:
            return (), []
        return gate_cuts(gate.state, gate.change)

    def current_geometry(self):
        """Return ``(x0, cw, ch, row_top, row_h)`` of the picture drawn now (``None`` without a
        matrix); overlays drawn above the matrix follow it."""
        scene = self._scene()
        return None if scene is None else self._geometry(scene)

    def cut_x(self, cut: int) -> float:
        """Return the widget x of cut ``cut`` (just left of column ``cut``)."""
        x0, cw = columns(self.width(), self.player.sim.matrix.processors)
        return x0 + cut * cw

    def select(self, job: int | None) -> None:
        """Select ``job`` (outline all its cells) or clear the selection; emits ``jobSelected``."""
        self.selected = job
        self.jobSelected.emit(job)
        self.update()

    def _dirty(self, *args) -> None:
        self.update()

    # --------------------------------------------------------------- geometry
    def _scene(self) -> Scene | None:
        p = self.player
        if p is None or getattr(p.sim, "matrix", None) is None:
            return None
        tr = p.transition
        if tr is None:
            return build_scene(p.display_state)
        return build_scene(tr.state, tr.change, tr.t)

    def _geometry(self, scene: Scene) -> tuple[float, float, float, np.ndarray, np.ndarray]:
        """Return (x0, cw, ch, row_top, row_h) for ``scene`` in the current widget size."""
        procs = scene.cells.shape[1]
        x0, cw = columns(self.width(), procs)
        total = float(scene.heights.sum())
        avail = self.height() - TOP - self._label_h - 6
        ch = max(MIN_CELL_H, min(self.max_cell_h, avail / max(total, 1.0),
                                 cw * 1.15 if procs <= 16 else self.max_cell_h))
        row_h = scene.heights * ch
        bottom = self.height() - self._label_h - 6
        if self.bottom_up:
            tops = bottom - np.cumsum(row_h)
        else:
            tops = bottom - total * ch + np.concatenate(([0.0], np.cumsum(row_h)[:-1]))
        return x0, cw, ch, tops, row_h

    def _row_y(self, pos: float, tops: np.ndarray, row_h: np.ndarray, ch: float) -> float:
        """Return the top y of a (possibly fractional) row position."""
        n = len(tops)
        if n == 0:
            return self.height() - self._label_h - 6 - ch
        lo = int(np.floor(pos))
        frac = pos - lo
        if lo < 0:
            return float(tops[0] + (ch if self.bottom_up else -ch) * (-pos))
        if lo >= n - 1:
            extra = pos - (n - 1)
            return float(tops[n - 1] - (ch * extra if self.bottom_up else -ch * extra))
        return float(tops[lo] + (tops[lo + 1] - tops[lo]) * frac)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """Return the (row, column) under widget point (x, y) at rest, or ``None``."""
        if self._layout is None:
            return None
        x0, cw, ch, tops, row_h = self._layout
        if len(tops) == 0:
            return None
        col = int((x - x0) // cw)
        procs = self.player.sim.matrix.processors
        if not 0 <= col < procs:
            return None
        for r in range(len(tops)):
            if tops[r] <= y < tops[r] + row_h[r]:
                return r, col
        return None

    def cell_rect(self, row: int, col: int) -> QRectF:
        """Return the widget rectangle of cell (row, col) at rest (for tests and tooltips)."""
        scene = build_scene(self.player.sim.matrix)
        x0, cw, ch, tops, row_h = self._geometry(scene)
        return QRectF(x0 + col * cw, tops[row], cw, row_h[row])

    # ---------------------------------------------------------------- painting
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), palette.BACKGROUND)
            scene = self._scene()
            if scene is None:
                return
            self._paint(painter, scene)
        finally:
            painter.end()

    def _paint(self, painter: QPainter, scene: Scene) -> None:
        x0, cw, ch, tops, row_h = self._geometry(scene)
        if self.player.transition is None:
            self._layout = (x0, cw, ch, tops, row_h)
        n, procs = scene.cells.shape
        width = cw * procs
        names = self.player.display_state.names
        active_int = None
        if scene.active is not None and abs(scene.active - round(scene.active)) < 1e-9:
            active_int = int(round(scene.active))
        painter.drawPixmap(0, 0, self._static_layer(scene, x0, cw, tops, row_h, names, active_int))
        if scene.flash is not None:
            r, a = scene.flash
            c = QColor(palette.FLASH)
            c.setAlphaF(0.75 * a)
            painter.fillRect(QRectF(x0, tops[r], width, row_h[r]), c)
        # the running-slot frame first: a block sliding across it covers it, so the frame never
        # strikes through the block's name mid-tween
        self._paint_active(painter, scene, x0, width, ch, tops, row_h)
        for mv in scene.movers:
            self._paint_mover(painter, mv, x0, cw, ch, tops, row_h, names)
        self._paint_cuts(painter, x0, cw, tops, row_h)

    def _paint_cuts(self, painter, x0, cw, tops, row_h) -> None:
        rows, cuts = self.cut_lines()
        rows = [r for r in rows if r < len(tops)]
        if not rows:
            return
        y0 = float(min(tops[r] for r in rows)) - 6
        y1 = float(max(tops[r] + row_h[r] for r in rows)) + 6
        lines = [QLineF(x0 + c * cw, y0, x0 + c * cw, y1) for c in cuts]
        painter.setPen(QPen(CUT_HALO, CUT_WIDTH + 2))
        painter.drawLines(lines)
        pen = QPen(CUT_DASH, CUT_WIDTH)
        pen.setStyle(Qt.PenStyle.DashLine)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        painter.drawLines(lines)

    def _static_layer(self, scene, x0, cw, tops, row_h, names, active_int) -> QPixmap:
        """Return the cells, grid, outlines, names and labels as a pixmap, cached.

        The cache key is everything the layer depends on, so during most animations (where
        only the moving blocks change from frame to frame) a frame is one pixmap blit plus the
        movers; only growing or collapsing slots redraw the layer on every frame.
        """
        key = (scene.cells.tobytes(), scene.cells.shape,
               None if scene.replica is None else scene.replica.tobytes(),
               scene.heights.tobytes(), self.width(), self.height(), self.selected, self.hovered,
               self._font.pointSizeF(),
               active_int, self.bottom_up, tuple(sorted(names.items())) if len(names) < 64 else len(names))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        dpr = self.devicePixelRatioF()
        pm = QPixmap(int(self.width() * dpr), int(self.height() * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(palette.BACKGROUND)
        p = QPainter(pm)
        try:
            n, procs = scene.cells.shape
            idx = index_image(scene.cells, active_int)
            if n:
                # the lookup happens in numpy (BGRA = Qt's ARGB32 in memory on little-endian
                # machines), so Qt only scales an image it can blit directly
                if np.all(scene.heights == 1.0):
                    flat = idx[::-1] if self.bottom_up else idx
                    argb = np.ascontiguousarray(_BGRA[flat])
                    img = QImage(argb.data, procs, n, procs * 4, QImage.Format.Format_ARGB32_Premultiplied)
                    p.drawImage(QRectF(x0, float(tops.min()), cw * procs, row_h.sum()), img)
                else:
                    argb = np.ascontiguousarray(_BGRA[idx])
                    img = QImage(argb.data, procs, n, procs * 4, QImage.Format.Format_ARGB32_Premultiplied)
                    for r in range(n):
                        if row_h[r] > 0.01:
                            p.drawImage(QRectF(x0, tops[r], cw * procs, row_h[r]), img, QRectF(0, r, procs, 1))
            self._paint_grid(p, scene, x0, cw, tops, row_h)
            self._paint_blocks(p, scene, x0, cw, tops, row_h, names)
            self._paint_labels(p, scene, x0, cw, row_h[0] if n else MAX_CELL_H, tops, row_h, active_int)
        finally:
            p.end()
        self._cache = (key, pm)
        return pm

    def _paint_grid(self, painter, scene, x0, cw, tops, row_h) -> None:
        """Row boundaries always; processor boundaries only where cells are wide enough to
        read them (they are noise at 128 narrow columns, where the outlines carry the blocks)."""
        n, procs = scene.cells.shape
        if n == 0:
            return
        top = float(tops.min())
        bottom = float((tops + row_h).max())
        right = x0 + procs * cw
        painter.setPen(QPen(palette.GRID, 1.0))
        lines = [QLineF(x0, float(y), right, float(y)) for y in np.concatenate((tops, tops + row_h))]
        painter.drawLines(lines)
        if cw >= 14:
            painter.setPen(QPen(QColor(0, 0, 0, 26), 1.0))
            painter.drawLines([QLineF(x0 + c * cw, top, x0 + c * cw, bottom) for c in range(procs + 1)])

    def _text_width(self, text: str) -> float:
        w = self._text_w.get(text)
        if w is None:
            w = self._text_w[text] = self._fm.horizontalAdvance(text)
        return w

    def _paint_blocks(self, painter, scene, x0, cw, tops, row_h, names) -> None:
        """Separate the runs of one job in a row by white gaps; hatch extra-slot cells; outline
        the selected job; write a job's name on its run where it fits.

        Vectorised over the cells (one ``drawLines`` for every boundary), so a 128 x 64 matrix
        redraws in a few milliseconds; only runs wide enough for a name, runs of the selected
        job and replicas are visited one by one.
        """
        cells = scene.cells
        n, procs = cells.shape
        if n == 0:
            return
        lines = []
        label_min = self._text_width("J00") + 6
        fm_h = self._fm.height()
        wide: list[tuple[int, int, int, int]] = []
        for r in range(n):
            h = row_h[r]
            if h < 2:
                continue
            row = cells[r]
            change = np.flatnonzero(row[1:] != row[:-1]) + 1
            y0, y1 = float(tops[r]), float(tops[r] + h)
            lines.extend(QLineF(x0 + c * cw, y0, x0 + c * cw, y1) for c in change.tolist())
            if h >= fm_h + 2 or self.selected is not None or self.hovered is not None:
                starts = np.concatenate(([0], change))
                ends = np.concatenate((change, [procs]))
                busy = row[starts] != IDLE
                big = (ends - starts) * cw >= label_min
                marked = (row[starts] == (self.selected if self.selected is not None else -2)) | \
                    (row[starts] == (self.hovered if self.hovered is not None else -2))
                pick = busy & (big | marked)
                for s_, e_ in zip(starts[pick].tolist(), ends[pick].tolist()):
                    wide.append((r, s_, e_, int(row[s_])))
        painter.setPen(QPen(palette.BACKGROUND, 1.5))
        painter.drawLines(lines)
        if scene.replica is not None and scene.replica.any():
            hatch = QBrush(QColor(0, 0, 0, 70), Qt.BrushStyle.BDiagPattern)
            for r, c in zip(*np.nonzero(scene.replica)):
                painter.fillRect(QRectF(x0 + c * cw, tops[r], cw, row_h[r]), hatch)
        painter.setFont(self._font)
        for r, s_, e_, job in wide:
            rect = QRectF(x0 + s_ * cw, tops[r], (e_ - s_) * cw, row_h[r])
            if job == self.selected:
                self._paint_selection(painter, rect)
            elif job == self.hovered:
                self._paint_hover(painter, rect)
            name = names.get(job, f"J{job}")
            if rect.width() >= self._text_width(name) + 6 and row_h[r] >= fm_h + 2:
                painter.setPen(palette.text_colour(palette.job_colour(job)))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, name)

    def _paint_selection(self, painter, rect: QRectF) -> None:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.SELECT, 3.0))
        painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
        painter.setPen(QPen(QColor("#FFFFFF"), 1.0))
        painter.drawRect(rect.adjusted(3.5, 3.5, -3.5, -3.5))

    def _paint_hover(self, painter, rect: QRectF) -> None:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.HILITE, 4.0))
        painter.drawRect(rect.adjusted(2, 2, -2, -2))

    def _paint_mover(self, painter, mv, x0, cw, ch, tops, row_h, names) -> None:
        if mv.alpha <= 0.01:
            return
        painter.setFont(self._font)
        fill = QColor(palette.job_colour(mv.job))
        fill.setAlphaF(max(0.0, min(1.0, mv.alpha)))
        y = self._row_y(mv.row(), tops, row_h, ch)
        same_cols = mv.cols0 == mv.cols1
        painter.setBrush(fill)
        edge = QColor(palette.job_colour(mv.job).darker(160))
        edge.setAlphaF(max(0.2, min(1.0, mv.alpha)))
        pen = QPen(edge, 2.0 if mv.ghost else 1.0)
        if mv.ghost:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        if same_cols:
            runs = _contiguous(mv.cols0)
            for lo, hi in runs:
                rect = QRectF(x0 + lo * cw, y, (hi - lo) * cw, ch)
                painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
                if mv.replica or mv.ghost:
                    painter.fillRect(rect, QBrush(QColor(0, 0, 0, int(70 * mv.alpha)), Qt.BrushStyle.BDiagPattern))
                if mv.job == self.selected:
                    self._paint_selection(painter, rect)
            name = names.get(mv.job, f"J{mv.job}")
            lo, hi = max(runs, key=lambda r: r[1] - r[0])
            rect = QRectF(x0 + lo * cw, y, (hi - lo) * cw, ch)
            if rect.width() >= self._text_width(name) + 6 and ch >= self._fm.height() + 2:
                tc = QColor(palette.text_colour(palette.job_colour(mv.job)))
                tc.setAlphaF(max(0.0, min(1.0, mv.alpha)))
                painter.setPen(tc)
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, name)
        else:
            xs = [x0 + mv.col(i) * cw for i in range(len(mv.cols0))]
            for x in xs:
                painter.drawRect(QRectF(x, y, cw, ch).adjusted(0.5, 0.5, -0.5, -0.5))
            if mv.badge:
                painter.setPen(palette.TEXT)
                painter.setFont(self._bold)
                painter.drawText(QPointF(max(xs) + cw + 4, y + ch / 2 + 4), mv.badge)
                painter.setFont(self._font)

    def _paint_active(self, painter, scene, x0, width, ch, tops, row_h) -> None:
        if scene.active is None or len(tops) == 0:
            return
        # Between two rows the frame fades from one to the other instead of sliding across
        # the rows' names (a sliding frame would strike through them mid-tween).
        lo = int(np.floor(scene.active))
        frac = scene.active - lo
        for row, alpha in ((lo, 1.0 - frac), (lo + 1, frac)):
            if alpha <= 0.02:
                continue
            colour = QColor(palette.ACCENT)
            colour.setAlphaF(alpha)
            painter.setPen(QPen(colour, 3.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            y = self._row_y(row, tops, row_h, ch)
            painter.drawRect(QRectF(x0 - 1.5, y - 1.5, width + 3, ch + 3))
        y = self._row_y(scene.active, tops, row_h, ch)
        # a small triangle in the gutter points at the running slot
        painter.setBrush(palette.ACCENT)
        painter.setPen(Qt.PenStyle.NoPen)
        cy = y + ch / 2
        painter.drawPolygon([QPointF(x0 - 12, cy - 6), QPointF(x0 - 4, cy), QPointF(x0 - 12, cy + 6)])

    def _paint_labels(self, painter, scene, x0, cw, ch, tops, row_h, active_int) -> None:
        n, procs = scene.cells.shape
        for r in range(n):
            if row_h[r] < 6:
                continue
            painter.setFont(self._bold if r == active_int else self._font)
            painter.setPen(palette.TEXT if r == active_int else palette.MUTED_TEXT)
            painter.drawText(QRectF(2, tops[r], x0 - 16, row_h[r]),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, slot_label(r))
        painter.setFont(self._font)
        painter.setPen(palette.MUTED_TEXT)
        stride = label_stride(cw, self._text_width(f"P{procs}"))
        y = self.height() - self._label_h - 4
        for c in range(0, procs, stride):
            painter.drawText(QRectF(x0 + c * cw - (stride - 1) * cw / 2 if stride > 1 else x0 + c * cw, y,
                                    cw * stride if stride > 1 else cw, self._label_h),
                             Qt.AlignmentFlag.AlignCenter, f"P{c + 1}")
        if n == 0:
            painter.drawText(QRectF(x0, TOP, cw * procs, self.height() - self._label_h - TOP - 6),
                             Qt.AlignmentFlag.AlignCenter, "no slots: the machine is idle")

    # ----------------------------------------------------------- interaction
    def _job_at(self, pos) -> tuple[int | None, tuple[int, int] | None]:
        cell = self.cell_at(pos.x(), pos.y())
        if cell is None:
            return None, None
        job = int(self.player.sim.matrix.cells[cell])
        return (None if job == IDLE else job), cell

    def job_tooltip(self, job: int) -> str:
        """Return the tooltip text of ``job``: size, work left, arrival and rows."""
        sim = self.player.sim
        rec = sim.jobs[job]
        m = sim.matrix
        rows = ", ".join(slot_label(r) for r in m.job_rows(job)) if job in m else "none"
        left = sim.remaining(job)
        return (f"<b>{m.names.get(job, rec.spec.name)}</b><br>size {rec.spec.size} processors"
                f"<br>work left {left:g} of {rec.spec.work:g} slices<br>arrival t={rec.spec.arrival:g}"
                f"<br>rows {rows}")

    def event(self, ev) -> bool:
        if ev.type() == ev.Type.ToolTip and self.player is not None:
            job, _ = self._job_at(ev.position() if hasattr(ev, "position") else ev.pos())
            if job is not None:
                QToolTip.showText(ev.globalPos(), self.job_tooltip(job), self)
            else:
                QToolTip.hideText()
                ev.ignore()
            return True
        return super().event(ev)

    def mouseMoveEvent(self, ev) -> None:
        if self.hover_highlight and self.player is not None:
            job, _ = self._job_at(ev.position())
            self.set_hovered(job)
        super().mouseMoveEvent(ev)

    def leaveEvent(self, ev) -> None:
        self.set_hovered(None)
        super().leaveEvent(ev)

    def mousePressEvent(self, ev) -> None:
        if self.player is None or ev.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(ev)
        job, _ = self._job_at(ev.position())
        self.select(job)

    def contextMenuEvent(self, ev) -> None:
        if self.player is None or not hasattr(self.player.sim, "terminate_now"):
            return
        job, cell = self._job_at(ev.pos())
        if cell is None:
            return
        menu = QMenu(self)
        if job is not None:
            name = self.player.sim.matrix.names.get(job, f"J{job}")
            act = menu.addAction(f"Terminate {name} now")
            act.triggered.connect(lambda: self._what_if(lambda: self.player.terminate_now(job)))
        else:
            act = menu.addAction("Submit a job here…")
            act.triggered.connect(self.ask_submit)
        menu.exec(ev.globalPos())

    def ask_submit(self) -> None:
        """Ask for a size and work, then submit the job (what-if)."""
        procs = self.player.sim.processors
        size, ok = QInputDialog.getInt(self, "Submit a job", f"Size (1..{procs} processors):", 4, 1, procs)
        if not ok:
            return
        work, ok = QInputDialog.getDouble(self, "Submit a job", "Work (slices):", 10.0, 0.1, 1e9, 1)
        if ok:
            self._what_if(lambda: self.player.submit_now(size, work))

    def _what_if(self, action) -> None:
        try:
            action()
        except ValueError as exc:
            QMessageBox.warning(self, "Not possible", str(exc))
        self.update()


def _contiguous(cols: list[int]) -> list[tuple[int, int]]:
    """Return [lo, hi) runs of consecutive columns in ``cols`` (in the given order)."""
    runs: list[tuple[int, int]] = []
    for c in cols:
        if runs and runs[-1][1] == c:
            runs[-1] = (runs[-1][0], c + 1)
        else:
            runs.append((c, c + 1))
    return runs
