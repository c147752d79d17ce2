"""The live Ousterhout matrix: slots as rows, processors as columns.

Zhou99 Fig. 1, 2, 5, 6 (S1 drawn at
the bottom, as in the papers; ``bottom_up=False`` puts it at the top).

Drawing is cheap: the cells become one indexed ``uint8`` image (0 idle, 1..18 the job colours,
one index for idle cells of the running slot) drawn through a fixed colour table; grid lines,
block outlines, names and the moving blocks of an animation are painted over it. The view paints
whatever :func:`~gangviz.gui.matrix.scene.build_scene` says for the player's current transition; it
repaints on the player's ``frame``/``moved``/``stepped`` signals only (marks itself dirty with
``update()``; Qt coalesces repaints on the frame clock).

Interaction: hovering a job shows its size, work left, arrival and rows; a click selects a job
(all its cells outlined, ``jobSelected`` emitted; a click on an idle cell clears the selection);
the context menu offers "Terminate now" on a job and "Submit a job here…" on an idle cell
(what-if actions through the player). Tie-break: the mouse is mapped onto the matrix at rest, so
hovering and clicking during an animation see the state before the running change.

Any machine size: the view draws the processors of its :class:`~gangviz.gui.matrix.geometry.ColumnRange`
(shared with the vector/tree view, so both zoom and pan together). The wheel zooms around the
processor under the pointer, Shift+wheel or a drag pans, Ctrl+= / Ctrl+- / Ctrl+0 zoom in, out and
fit; while zoomed, a strip above the matrix shows the whole machine (darker = busier) with the
range on show framed, and a click on it centres the range there. Below :data:`DENSITY_CW` pixels
per processor the white gaps between jobs are left out (density mode: neighbouring jobs get
different colours when placed, :mod:`gangviz.gui.palette`; where a moved job meets one of its own
colour the gap stays), and below one pixel the image is sampled at each
pixel's centre. Slot labels are thinned to every k-th slot (the running slot always labelled)
and processor labels to round steps (P1, P50, P100, ...). Hovering a job tells the vector view
its columns; a WLV entry or tree node hovered there is shaded here.

Lecture mode: ``hover_highlight`` outlines every cell of the job under the mouse
pointer (presentation mode turns it on); :meth:`MatrixView.set_font_size` enlarges the names and
labels; while the player holds a move for the guided exercise (``Player.gate``) the legal cuts
of the rows involved are drawn as dashed vertical lines over those rows
(:func:`gangviz.gui.matrix.held_move.gate_cuts`): a black dash on a white halo, readable on every job
colour.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QContextMenuEvent,
    QFont,
    QFontMetricsF,
    QHelpEvent,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QWheelEvent,
)
from PySide6.QtWidgets import QInputDialog, QMenu, QMessageBox, QToolTip, QWidget

from gangviz.core.matrix import IDLE, OusterhoutMatrix, slot_label
from gangviz.gui import palette
from gangviz.gui.families.table import engine_of, matrix_of
from gangviz.gui.matrix.geometry import (
    GUTTER,
    RIGHT,
    ColumnRange,
    column_runs,
    columns,
    nice_stride,
)
from gangviz.gui.matrix.held_move import gate_cuts
from gangviz.gui.matrix.marks import draw_badge, hatch
from gangviz.gui.matrix.scene import Mover, Scene, build_scene
from gangviz.gui.wiring import follow
from gangviz.timefmt import clock_text, format_time

if TYPE_CHECKING:
    from gangviz.gui.player import Player
    from gangviz.sim.engine import Simulation as Engine

MAX_CELL_H = 64.0
MIN_CELL_H = 4.0
LABEL_H = 20.0
TOP = 8.0
#: height of the overview strip drawn above the matrix while it is zoomed
OVERVIEW_H = 12.0
#: below this many pixels per processor the matrix is drawn in density mode: each job a
#: coloured span, without the white gaps between neighbouring jobs
DENSITY_CW = 4.0
#: one wheel notch zooms by this factor
WHEEL_ZOOM = 1.25
#: colours of a guided-exercise cut: the dash and the halo under it
#: processors that do not exist (padding): a mid grey, hatched darker
ABSENT = QColor(palette.ABSENT_HEX)
ABSENT_HATCH = QColor("#8A8680")
CUT_DASH = QColor("#111111")
CUT_HALO = QColor("#FFFFFF")
CUT_WIDTH = 3.0

_COLOUR_TABLE = [QColor(*row).rgba() for row in palette.lookup_table().tolist()]
_BGRA = np.ascontiguousarray(palette.lookup_table()[:, [2, 1, 0, 3]]) if sys.byteorder == "little" \
    else np.ascontiguousarray(palette.lookup_table()[:, [3, 0, 1, 2]])


def index_image(cells: np.ndarray, active: int | None) -> np.ndarray:
    """Return the uint8 colour-index array of ``cells`` (see :mod:`gangviz.gui.palette`)."""
    idx = palette.colour_codes(cells)
    if active is not None and 0 <= active < idx.shape[0]:
        row = idx[active]
        row[cells[active] < 0] = palette.ACTIVE_IDLE_INDEX
    return np.ascontiguousarray(idx)


class MatrixView(QWidget):
    """Paints the player's matrix; see the module docstring.

    Signals: ``jobSelected(object)`` with the job id, or ``None`` when the selection is cleared.
    """

    jobSelected = Signal(object)

    def __init__(self, player: Player | None = None, parent: QWidget | None = None, *,
                 bottom_up: bool = True) -> None:
        super().__init__(parent)
        self.player: Player | None = None
        #: seconds per slice on a trace (tooltip times as its clock), else ``None`` (slices)
        self.slice_seconds: float | None = None
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
        #: (key, pixmap) of the static layer last drawn (see :meth:`_static_layer`)
        self._cache: tuple[tuple[Any, ...], QPixmap] | None = None
        self._drag: tuple[float, float] | None = None
        self.column_range = ColumnRange()
        self.column_range.listeners.append(self._range_changed)
        self.column_range.hover_listeners.append(self.update)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        if player is not None:
            self.set_player(player)

    # ----------------------------------------------------------------- wiring
    def set_player(self, player: Player) -> None:
        """Show ``player``'s simulation (disconnects from the previous player)."""
        follow(self.player, player, ("frame", "moved", "stepped", "failed"), self._dirty)
        if player is not self.player:
            palette.reset_colours()
        self.player = player
        self.selected = None
        m = matrix_of(player.sim) if player is not None else None
        if m is not None:
            self.column_range.set_processors(m.processors)
        self.update()

    def _range_changed(self) -> None:
        self._cache = None
        self.update()

    # ------------------------------------------------------------------ zoom
    def zoom_in(self) -> None:
        """Show half as many processors, around the centre of the range on show."""
        self.column_range.zoom(2.0)

    def zoom_out(self) -> None:
        """Show twice as many processors (at most the whole machine)."""
        self.column_range.zoom(0.5)

    def fit(self) -> None:
        """Show the whole machine."""
        self.column_range.fit()

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
        # the gutter holds the slot labels and the tree's level labels ("WLT 512")
        self.column_range.gutter = float(GUTTER) if points <= 10 else \
            max(float(GUTTER), self._fm.horizontalAdvance("WLT 512") * 0.9 + 16)
        self.column_range._changed()
        self._cache = None
        self.update()

    def name_font(self) -> QFont:
        """Return the font job names are drawn in (a copy)."""
        return QFont(self._font)

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
        gate = None if p is None or not self.show_cuts else p.gate
        if gate is None:
            return (), []
        return gate_cuts(gate.state, gate.change)

    def current_geometry(self) -> tuple[float, float, float, np.ndarray, np.ndarray] | None:
        """Return ``(x0, cw, ch, row_top, row_h)`` of the picture drawn now (``None`` without a
        matrix); overlays drawn above the matrix follow it."""
        scene = self._scene()
        return None if scene is None else self._geometry(scene)

    def cut_x(self, cut: int) -> float:
        """Return the widget x of cut ``cut`` (just left of column ``cut``)."""
        x0, cw = self._columns(self._matrix().processors)
        return x0 + cut * cw

    def select(self, job: int | None) -> None:
        """Select ``job`` (outline all its cells) or clear the selection; emits ``jobSelected``."""
        self.selected = job
        self.jobSelected.emit(job)
        self.update()

    def _dirty(self, *args: object) -> None:
        self.update()

    def _matrix(self) -> OusterhoutMatrix:
        """Return the matrix drawn: the followed simulation's snapshot (through the protocol);
        called only while the view follows a player."""
        if self.player is None:
            raise RuntimeError("the matrix view follows no player")
        return cast(OusterhoutMatrix, self.player.sim.snapshot())

    def _engine(self) -> Engine:
        """Return the matrix engine drawn (:func:`~gangviz.gui.families.table.engine_of`); called only
        while the view follows a player."""
        if self.player is None:
            raise RuntimeError("the matrix view follows no player")
        return engine_of(self.player.sim)

    # --------------------------------------------------------------- geometry
    def _scene(self) -> Scene | None:
        p = self.player
        if p is None or not p.has_matrix:
            return None
        tr = p.transition
        if tr is None:
            return build_scene(p.display_state)
        return build_scene(tr.state, tr.change, tr.t)

    def _columns(self, procs: int) -> tuple[float, float]:
        return columns(self.width(), procs, self.column_range)

    def _top(self) -> float:
        """Return the top of the matrix area (below the overview strip while zoomed)."""
        return TOP + (0.0 if self.column_range.fitted else OVERVIEW_H + 6)

    def _geometry(self, scene: Scene) -> tuple[float, float, float, np.ndarray, np.ndarray]:
        """Return (x0, cw, ch, row_top, row_h) for ``scene`` in the current widget size."""
        procs = scene.cells.shape[1]
        x0, cw = self._columns(procs)
        total = float(scene.heights.sum())
        avail = self.height() - self._top() - self._label_h - 6
        ch = max(MIN_CELL_H, min(self.max_cell_h, avail / max(total, 1.0),
                                 cw * 1.15 if self.column_range.count <= 16 else self.max_cell_h))
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
        procs = self._matrix().processors
        if not x0 + self.column_range.first * cw <= x < self.width() - RIGHT:
            return None
        col = int((x - x0) // cw)
        if not 0 <= col < procs:
            return None
        for r in range(len(tops)):
            if tops[r] <= y < tops[r] + row_h[r]:
                return r, col
        return None

    def cell_rect(self, row: int, col: int) -> QRectF:
        """Return the widget rectangle of cell (row, col) at rest (for tests and tooltips)."""
        scene = build_scene(self._matrix())
        x0, cw, ch, tops, row_h = self._geometry(scene)
        return QRectF(x0 + col * cw, tops[row], cw, row_h[row])

    # ---------------------------------------------------------------- painting
    def paintEvent(self, event: QPaintEvent) -> None:
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
        p = self.player
        if p is None:  # (a scene is built from the player's matrix)
            return
        if p.transition is None:
            self._layout = (x0, cw, ch, tops, row_h)
        n, procs = scene.cells.shape
        width = cw * procs
        state = p.display_state
        names = state.names if state is not None else {}
        active_int = None
        if scene.active is not None and abs(scene.active - round(scene.active)) < 1e-9:
            active_int = int(round(scene.active))
        painter.drawPixmap(0, 0, self._static_layer(scene, x0, cw, tops, row_h, names, active_int))
        painter.save()
        painter.setClipRect(QRectF(x0 + self.column_range.first * cw, 0,
                                   cw * self.column_range.count, self.height()))
        if scene.flash is not None:
            r, a = scene.flash
            c = QColor(palette.FLASH)
            c.setAlphaF(0.75 * a)
            painter.fillRect(QRectF(x0, tops[r], width, row_h[r]), c)
        painter.restore()
        # the running-slot frame before the movers: a block sliding across it covers it, so the
        # frame never strikes through the block's name mid-tween; it is drawn unclipped, its
        # sides kept inside the widget
        self._paint_active(painter, scene, x0, width, ch, tops, row_h)
        painter.save()
        painter.setClipRect(QRectF(x0 + self.column_range.first * cw, 0,
                                   cw * self.column_range.count, self.height()))
        for mv in scene.movers:
            self._paint_mover(painter, mv, x0, cw, ch, tops, row_h, names)
        self._paint_linked(painter, x0, cw, tops, row_h)
        self._paint_absent(painter, x0, cw, tops, row_h, procs)
        painter.restore()
        self._paint_cuts(painter, x0, cw, tops, row_h)
        self._paint_violation(painter, x0, cw, tops, row_h)

    def violation_cells(self) -> tuple[int, tuple[int, ...]] | None:
        """Return ``(slot, processors)`` of the step a user's policy was refused (a broken
        rule) when the picture shown is the one just before it and those cells exist, else
        ``None``."""
        p = self.player
        if p is None:
            return None
        v = p.violation
        if v is None or v.slot is None or not v.processors or p.position != len(p.known) \
                or p.transition is not None:
            return None
        m = cast(OusterhoutMatrix, p.sim.snapshot())
        if not 0 <= v.slot < m.n_rows or max(v.processors) >= m.processors:
            return None
        return v.slot, v.processors

    def _paint_violation(self, painter: QPainter, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray) -> None:
        """Outline in red the cells a refused placement asked for (tinted, so the job already
        running there still shows)."""
        cells = self.violation_cells()
        if cells is None:
            return
        row, cols = cells
        tint = QColor(palette.VIOLATION)
        tint.setAlphaF(0.28)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for a, b in column_runs(sorted(cols)):
            rect = QRectF(x0 + a * cw, tops[row], (b - a) * cw, row_h[row])
            painter.fillRect(rect, tint)
            painter.setPen(QPen(palette.VIOLATION, 3.0))
            painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))

    def _paint_absent(self, painter: QPainter, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray, procs: int) -> None:
        """Draw the padded processors (a machine made larger than the trace's own, a buddy
        policy's next power of two) as absent: a dark hatched band no job ever enters."""
        real = self._engine().real_processors
        if real >= procs or len(tops) == 0:
            return
        top, bottom = float(tops.min()), float((tops + row_h).max())
        rect = QRectF(x0 + real * cw, top, (procs - real) * cw, bottom - top)
        painter.fillRect(rect, ABSENT)
        painter.fillRect(rect, QBrush(ABSENT_HATCH, Qt.BrushStyle.BDiagPattern))
        text = f"absent: P{real + 1}..P{procs} pad the machine to {procs:,} processors"
        painter.setFont(self._font)  # the names' size (large while presenting)
        if painter.fontMetrics().horizontalAdvance(text) + 12 > rect.width():
            text = "absent"
        if painter.fontMetrics().horizontalAdvance(text) + 12 <= rect.width():
            painter.setPen(palette.TEXT)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_linked(self, painter: QPainter, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray) -> None:
        """Shade the processors of the WLV entry or tree node under the pointer."""
        cols = self.column_range.hover_cols
        if cols is None or len(tops) == 0:
            return
        lo, hi = cols
        top, bottom = float(tops.min()), float((tops + row_h).max())
        rect = QRectF(x0 + lo * cw, top, (hi - lo) * cw, bottom - top)
        painter.fillRect(rect, QColor(255, 255, 255, 90))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.LINK, 3.0))
        painter.drawRect(rect.adjusted(1.5, -1.5, -1.5, 1.5))

    def _paint_cuts(self, painter: QPainter, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray) -> None:
        held, cuts = self.cut_lines()
        rows = [r for r in held if r < len(tops)]
        if not rows:
            return
        y0 = float(min(tops[r] for r in rows)) - 6
        y1 = float(max(tops[r] + row_h[r] for r in rows)) + 6
        draw_cuts(painter, [QLineF(x0 + c * cw, y0, x0 + c * cw, y1) for c in cuts])

    def _static_layer(self, scene: Scene, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray, names: Mapping[int, str], active_int: int | None) -> QPixmap:
        """Return the cells, grid, outlines, names and labels as a pixmap, cached.

        The cache key is everything the layer depends on, so during most animations (where
        only the moving blocks change from frame to frame) a frame is one pixmap blit plus the
        movers; only growing or collapsing slots redraw the layer on every frame. Only the
        processors on show are drawn; below one pixel per processor the image is sampled at
        each pixel's centre (the processor under it), so a 9,216-processor row costs as much
        as a row of the widget's width.
        """
        rng = self.column_range
        key = (scene.cells.tobytes(), scene.cells.shape,
               None if scene.replica is None else scene.replica.tobytes(),
               scene.heights.tobytes(), self.width(), self.height(), self.selected, self.hovered,
               self._font.pointSizeF(), rng.first, rng.count,
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
            lo, hi = rng.visible() if rng.processors == procs else (0, procs)
            left = x0 + rng.first * cw if rng.processors == procs else x0
            right = min(self.width() - RIGHT, x0 + procs * cw)
            idx = index_image(scene.cells, active_int)
            p.save()
            p.setClipRect(QRectF(left, 0, max(right - left, 0), self.height()))
            if n and hi > lo:
                self._paint_cells(p, scene, idx, x0, cw, tops, row_h, lo, hi, left, right)
            self._paint_grid(p, scene, x0, cw, tops, row_h, lo, hi)
            self._paint_blocks(p, scene, x0, cw, tops, row_h, names, lo, hi)
            p.restore()
            self._paint_labels(p, scene, x0, cw, row_h[0] if n else MAX_CELL_H, tops, row_h, active_int, lo, hi)
            if not rng.fitted:
                self._paint_overview(p, scene, left, right)
        finally:
            p.end()
        self._cache = (key, pm)
        return pm

    def _paint_cells(self, p: QPainter, scene: Scene, idx: np.ndarray, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray, lo: int, hi: int, left: float, right: float) -> None:
        """Draw the cells of columns ``lo..hi`` as one image (see :meth:`_static_layer`)."""
        n = idx.shape[0]
        if cw >= 1.0:
            sub = idx[:, lo:hi]
            x, w = x0 + lo * cw, (hi - lo) * cw
        else:
            px = max(int(round(right - left)), 1)
            sample = (self.column_range.first + (np.arange(px) + 0.5) / cw).astype(np.int64)
            sub = idx[:, np.clip(sample, 0, idx.shape[1] - 1)]
            x, w = left, float(px)
        cols = sub.shape[1]
        # the lookup happens in numpy (BGRA = Qt's ARGB32 in memory on little-endian
        # machines), so Qt only scales an image it can blit directly
        if np.all(scene.heights == 1.0):
            flat = sub[::-1] if self.bottom_up else sub
            argb = np.ascontiguousarray(_BGRA[flat])
            img = QImage(argb.data, cols, n, cols * 4, QImage.Format.Format_ARGB32_Premultiplied)
            p.drawImage(QRectF(x, float(tops.min()), w, row_h.sum()), img)
        else:
            argb = np.ascontiguousarray(_BGRA[sub])
            img = QImage(argb.data, cols, n, cols * 4, QImage.Format.Format_ARGB32_Premultiplied)
            for r in range(n):
                if row_h[r] > 0.01:
                    p.drawImage(QRectF(x, tops[r], w, row_h[r]), img, QRectF(0, r, cols, 1))

    def _paint_overview(self, p: QPainter, scene: Scene, left: float, right: float) -> None:
        """The whole machine as a strip above the matrix (darker = more busy slots), the
        range on show framed."""
        cells = scene.cells
        y = TOP
        w = max(int(right - left), 1)
        if cells.shape[0]:
            busy = (cells >= 0).mean(axis=0)
            edges = np.linspace(0, cells.shape[1], w + 1).astype(np.int64)
            edges[-1] = cells.shape[1]
            starts = np.minimum(edges[:-1], cells.shape[1] - 1)
            frac = np.maximum.reduceat(busy, starts)
            shade = (235 - frac * 150).astype(np.uint8)
            grey = np.ascontiguousarray(np.stack([shade, shade, shade, np.full(w, 255, np.uint8)], 1)[None, :, :])
            img = QImage(grey.data, w, 1, w * 4, QImage.Format.Format_ARGB32_Premultiplied)
            p.drawImage(QRectF(left, y, w, OVERVIEW_H), img)
        rng = self.column_range
        scale = (right - left) / rng.processors
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(QPen(palette.TEXT, 2.0))
        p.drawRect(QRectF(left + rng.first * scale, y - 1, max(rng.count * scale, 3.0), OVERVIEW_H + 2))

    def _paint_grid(self, painter: QPainter, scene: Scene, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray, lo: int = 0, hi: int | None = None) -> None:
        """Row boundaries always; processor boundaries only where cells are wide enough to
        read them (they are noise at 128 narrow columns, where the outlines carry the blocks)."""
        n, procs = scene.cells.shape
        hi = procs if hi is None else hi
        if n == 0:
            return
        top = float(tops.min())
        bottom = float((tops + row_h).max())
        right = x0 + hi * cw
        painter.setPen(QPen(palette.GRID, 1.0))
        lines = [QLineF(x0 + lo * cw, float(y), right, float(y)) for y in np.concatenate((tops, tops + row_h))]
        painter.drawLines(lines)
        if cw >= 14:
            painter.setPen(QPen(QColor(0, 0, 0, 26), 1.0))
            painter.drawLines([QLineF(x0 + c * cw, top, x0 + c * cw, bottom) for c in range(lo, hi + 1)])

    def _text_width(self, text: str) -> float:
        w = self._text_w.get(text)
        if w is None:
            w = self._text_w[text] = self._fm.horizontalAdvance(text)
        return w

    def _paint_blocks(self, painter: QPainter, scene: Scene, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray, names: Mapping[int, str], lo: int = 0, hi: int | None = None) -> None:
        """Separate the runs of one job in a row by white gaps; hatch extra-slot cells; outline
        the selected job; write a job's name on its run where it fits.

        Vectorised over the cells (one ``drawLines`` for every boundary), so a 128 x 64 matrix
        redraws in a few milliseconds; only runs wide enough for a name, runs of the selected
        job and replicas are visited one by one. Only columns ``lo..hi`` (those on show) are
        visited; in density mode (cells narrower than :data:`DENSITY_CW`) the white gaps are
        left out where neighbouring jobs differ in colour (:mod:`gangviz.gui.palette` makes them
        differ when a job is placed) and kept where a moved job now meets one of its colour.
        """
        n, procs = scene.cells.shape
        hi = procs if hi is None else hi
        if n == 0 or hi <= lo:
            return
        cells = scene.cells[:, lo:hi]
        x0 = x0 + lo * cw
        procs = hi - lo
        density = cw < DENSITY_CW
        # density mode keeps a gap only where two different jobs of one colour meet (a job keeps
        # its colour when it moves, so equal colours can end up side by side)
        codes = palette.colour_codes(cells) if density else None
        lines: list[QLineF] = []
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
            if not density:
                lines.extend(QLineF(x0 + c * cw, y0, x0 + c * cw, y1) for c in change.tolist())
            elif len(change) and codes is not None:  # (density mode: the codes are known)
                same = (codes[r][change] == codes[r][change - 1]) & (row[change] != IDLE) & \
                    (row[change - 1] != IDLE)
                lines.extend(QLineF(x0 + c * cw, y0, x0 + c * cw, y1) for c in change[same].tolist())
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
        if lines:
            painter.setPen(QPen(palette.BACKGROUND, 1.5))
            painter.drawLines(lines)
        if scene.replica is not None:
            self._paint_replicas(painter, scene.replica[:, lo:hi], x0, cw, tops, row_h)
        painter.setFont(self._font)
        shown = QRectF(float(self.column_range_left()), 0.0, float(self.width()), float(self.height()))
        for r, s_, e_, job in wide:
            rect = QRectF(x0 + s_ * cw, tops[r], (e_ - s_) * cw, row_h[r])
            if job == self.selected:
                self._paint_selection(painter, rect)
            elif job == self.hovered:
                self._paint_hover(painter, rect)
            name = names.get(job, f"J{job}")
            rect = rect.intersected(shown)  # a name stays on show while its job is zoomed into
            if rect.width() >= self._text_width(name) + 6 and row_h[r] >= fm_h + 2:
                painter.setPen(palette.text_colour(palette.job_colour(job)))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, name)

    @staticmethod
    def _paint_replicas(painter: QPainter, replica: np.ndarray, x0: float, cw: float, tops: np.ndarray, row_h: np.ndarray) -> None:
        """Hatch the extra-slot cells (``replica`` true), one rectangle per run of them in a row."""
        if not replica.any():
            return
        for r in np.flatnonzero(replica.any(axis=1)).tolist():
            edge = np.diff(np.concatenate(([0], replica[r].astype(np.int8), [0])))
            for a, b in zip(np.flatnonzero(edge == 1).tolist(), np.flatnonzero(edge == -1).tolist()):
                hatch(painter, QRectF(x0 + a * cw, tops[r], (b - a) * cw, row_h[r]))

    def _paint_selection(self, painter: QPainter, rect: QRectF) -> None:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.SELECT, 3.0))
        painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
        painter.setPen(QPen(QColor("#FFFFFF"), 1.0))
        painter.drawRect(rect.adjusted(3.5, 3.5, -3.5, -3.5))

    def _paint_hover(self, painter: QPainter, rect: QRectF) -> None:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.HILITE, 4.0))
        painter.drawRect(rect.adjusted(2, 2, -2, -2))

    def _paint_mover(self, painter: QPainter, mv: Mover, x0: float, cw: float, ch: float, tops: np.ndarray, row_h: np.ndarray, names: Mapping[int, str]) -> None:
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
            runs = column_runs(mv.cols0)
            for lo, hi in runs:
                rect = QRectF(x0 + lo * cw, y, (hi - lo) * cw, ch)
                painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
                if mv.replica or mv.ghost:
                    hatch(painter, rect, mv.alpha)
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
                draw_badge(painter, mv.badge, QPointF(max(xs) + cw + 6, y + ch / 2), self._bold,
                           right_limit=self.width() - 4.0)
                painter.setFont(self._font)

    def column_range_left(self) -> float:
        """Return the x where the processor columns start (the gutter's right edge)."""
        return columns(self.width(), self.column_range.processors, self.column_range)[0] + \
            self.column_range.first * columns(self.width(), self.column_range.processors, self.column_range)[1]

    def _paint_active(self, painter: QPainter, scene: Scene, x0: float, width: float, ch: float, tops: np.ndarray, row_h: np.ndarray) -> None:
        """Frame the running slot over the processors on show (the frame's sides stay inside
        the widget at any zoom and machine size)."""
        if scene.active is None or len(tops) == 0:
            return
        # Between two rows the frame fades from one to the other instead of sliding across
        # the rows' names (a sliding frame would strike through them mid-tween).
        lo = int(np.floor(scene.active))
        frac = scene.active - lo
        left = max(x0, self.column_range_left())
        right = min(x0 + width, self.width() - RIGHT)
        for row, alpha in ((lo, 1.0 - frac), (lo + 1, frac)):
            if alpha <= 0.02:
                continue
            colour = QColor(palette.ACCENT)
            colour.setAlphaF(alpha)
            painter.setPen(QPen(colour, 3.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            y = self._row_y(row, tops, row_h, ch)
            painter.drawRect(QRectF(left - 1.5, y - 1.5, right - left + 3, ch + 3))
        y = self._row_y(scene.active, tops, row_h, ch)
        # a small triangle in the gutter points at the running slot
        painter.setBrush(palette.ACCENT)
        painter.setPen(Qt.PenStyle.NoPen)
        cy = y + ch / 2
        a = min(6.0, max(ch / 2, 3.0))
        painter.drawPolygon([QPointF(left - 12, cy - a), QPointF(left - 4, cy), QPointF(left - 12, cy + a)])

    def _paint_labels(self, painter: QPainter, scene: Scene, x0: float, cw: float, ch: float, tops: np.ndarray, row_h: np.ndarray, active_int: int | None, lo: int = 0, hi: int | None = None) -> None:
        """Slot labels (every k-th one where rows are too low for all, the running slot always)
        and processor labels at round steps (P1, P10, P20, ... as room allows)."""
        n, procs = scene.cells.shape
        hi = procs if hi is None else hi
        left = self.column_range_left() if self.column_range.processors == procs else x0
        fm_h = self._fm.height()
        typical = float(np.median(row_h)) if n else 0.0
        row_step = nice_stride(typical, fm_h * 0.9 - 8) if n else 1
        for r in range(n):
            if row_h[r] < 0.5 or (r != active_int and (r + 1) % row_step and r):
                continue
            if r != active_int and active_int is not None and abs(r - active_int) * typical < fm_h * 0.9:
                continue
            painter.setFont(self._bold if r == active_int else self._font)
            painter.setPen(palette.TEXT if r == active_int else palette.MUTED_TEXT)
            h = max(row_h[r], fm_h)
            painter.drawText(QRectF(2, tops[r] + row_h[r] / 2 - h / 2, left - 16, h),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, slot_label(r))
        painter.setFont(self._font)
        painter.setPen(palette.MUTED_TEXT)
        stride = nice_stride(cw, self._text_width(f"P{procs}"))
        y = self.height() - self._label_h - 4
        right = self.width() - RIGHT
        wanted = [c for c in range(lo - lo % stride - 1, hi, stride) if c >= 0] if stride > 1 else list(range(lo, hi))
        if stride > 1 and lo == 0:
            wanted = [0] + [c for c in wanted if (c + 1) * cw > self._text_width("P1") + 8]
        for c in wanted:
            centre = x0 + (c + 0.5) * cw
            if centre < left - 1 or centre > right + 1:
                continue
            text = f"P{c + 1}"
            w = max(cw, self._text_width(text) + 4)
            if stride > 1:
                painter.drawLine(QLineF(centre, y - 1, centre, y + 3))
            painter.drawText(QRectF(centre - w / 2, y, w, self._label_h), Qt.AlignmentFlag.AlignCenter, text)
        if n == 0:
            painter.drawText(QRectF(left, TOP, right - left, self.height() - self._label_h - TOP - 6),
                             Qt.AlignmentFlag.AlignCenter, "no slots: the machine is idle")

    # ----------------------------------------------------------- interaction
    def _job_at(self, pos: QPoint | QPointF) -> tuple[int | None, tuple[int, int] | None]:
        cell = self.cell_at(pos.x(), pos.y())
        if cell is None:
            return None, None
        job = int(self._matrix().cells[cell])
        return (None if job == IDLE else job), cell

    def job_tooltip(self, job: int) -> str:
        """Return the tooltip text of ``job``: size, work left, arrival and rows."""
        if self.player is None:
            return ""
        sim = self.player.sim
        rec = sim.job_status(job)
        if rec is None:
            return ""
        m = cast(OusterhoutMatrix, sim.snapshot())
        rows = ", ".join(slot_label(r) for r in m.job_rows(job)) if job in m else "none"
        left = rec.remaining
        per = self.slice_seconds
        return (f"<b>{m.names.get(job, rec.spec.name)}</b><br>size {rec.spec.size} processors"
                f"<br>work left {format_time(left, per)} of {format_time(rec.spec.work, per)}"
                f"<br>arrival t = {clock_text(rec.spec.arrival, per)}<br>rows {rows}")

    def event(self, ev: QEvent) -> bool:
        if ev.type() == ev.Type.ToolTip and isinstance(ev, QHelpEvent) and self.player is not None:
            job, _ = self._job_at(ev.pos())
            if job is not None:
                QToolTip.showText(ev.globalPos(), self.job_tooltip(job), self)
            else:
                QToolTip.hideText()
                ev.ignore()
            return True
        return super().event(ev)

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:
        if self._drag is not None and self._layout is not None:
            x, first = self._drag
            cw = self._layout[1]
            if abs(ev.position().x() - x) > 3 or self.column_range.first != first:
                self.column_range.show(first - (ev.position().x() - x) / max(cw, 1e-9), self.column_range.count)
            return
        if self.player is not None:
            job, _ = self._job_at(ev.position())
            if self.hover_highlight:
                self.set_hovered(job)
            m = self._matrix()
            self.column_range.set_hover(None, list(m.job_cols(job)) if job is not None and job in m else [])
        super().mouseMoveEvent(ev)

    def leaveEvent(self, ev: QEvent) -> None:
        self.set_hovered(None)
        self.column_range.set_hover(None, [])
        super().leaveEvent(ev)

    def mousePressEvent(self, ev: QMouseEvent) -> None:
        if self.player is None or ev.button() not in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
            return super().mousePressEvent(ev)
        x, y = ev.position().x(), ev.position().y()
        if not self.column_range.fitted and TOP - 2 <= y <= TOP + OVERVIEW_H + 2:
            left = self.column_range_left()
            scale = (self.width() - RIGHT - left) / self.column_range.processors
            centre = (x - left) / max(scale, 1e-9)
            self.column_range.show(centre - self.column_range.count / 2, self.column_range.count)
            return
        if not self.column_range.fitted:
            self._drag = (x, self.column_range.first)  # a drag pans the zoomed matrix
        if ev.button() == Qt.MouseButton.LeftButton:
            job, _ = self._job_at(ev.position())
            self.select(job)

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:
        self._drag = None
        super().mouseReleaseEvent(ev)

    def wheelEvent(self, ev: QWheelEvent) -> None:
        """The wheel zooms around the processor under the pointer; Shift+wheel (or a
        sideways wheel) pans."""
        if self.player is None or not self.player.has_matrix:
            return super().wheelEvent(ev)
        d = ev.angleDelta()
        x0, cw = self._columns(self._matrix().processors)
        if d.x() or ev.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            notches = (d.x() or d.y()) / 120.0
            self.column_range.pan(-notches * self.column_range.count / 10)
        elif d.y():
            anchor = (ev.position().x() - x0) / max(cw, 1e-9)
            self.column_range.zoom(WHEEL_ZOOM ** (d.y() / 120.0), anchor)
        ev.accept()

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        """Ctrl+= / Ctrl++ zoom in, Ctrl+- zoom out, Ctrl+0 fit the whole machine."""
        mods = ev.modifiers() & Qt.KeyboardModifier.ControlModifier
        key = ev.key()
        if mods and key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_in()
        elif mods and key == Qt.Key.Key_Minus:
            self.zoom_out()
        elif mods and key == Qt.Key.Key_0:
            self.fit()
        else:
            return super().keyPressEvent(ev)
        ev.accept()

    def contextMenuEvent(self, ev: QContextMenuEvent) -> None:
        p = self.player
        if p is None or not p.has_matrix:  # what-ifs: the matrix engine only
            return
        job, cell = self._job_at(ev.pos())
        if cell is None:
            return
        menu = QMenu(self)
        if job is not None:
            name = self._matrix().names.get(job, f"J{job}")
            act = menu.addAction(f"Terminate {name} now")
            act.triggered.connect(lambda: self._what_if(lambda: p.terminate_now(job)))
        else:
            act = menu.addAction("Submit a job here…")
            act.triggered.connect(self.ask_submit)
        menu.exec(ev.globalPos())

    def ask_submit(self) -> None:
        """Ask for a size and work, then submit the job (what-if)."""
        p = self.player
        if p is None:
            return
        procs = cast(OusterhoutMatrix, p.sim.snapshot()).processors
        size, ok = QInputDialog.getInt(self, "Submit a job", f"Size (1..{procs} processors):", 4, 1, procs)
        if not ok:
            return
        work, ok = QInputDialog.getDouble(self, "Submit a job", "Work (slices):", 10.0, 0.1, 1e9, 1)
        if ok:
            self._what_if(lambda: p.submit_now(size, work))

    def _what_if(self, action: Callable[[], object]) -> None:
        try:
            action()
        except ValueError as exc:
            QMessageBox.warning(self, "Not possible", str(exc))
        self.update()


def draw_cuts(painter: QPainter, lines: list[QLineF]) -> None:
    """Draw cut ``lines`` as the matrix does: a black dash on a white halo, seen on any cell."""
    painter.setPen(QPen(CUT_HALO, CUT_WIDTH + 2))
    painter.drawLines(lines)
    pen = QPen(CUT_DASH, CUT_WIDTH)
    pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    painter.setPen(pen)
    painter.drawLines(lines)
