"""The matrix picture as layers: each painter draws one thing of a :class:`Frame`.

A frame is everything one picture depends on: its :class:`~gangviz.gui.matrix.layout.
MatrixLayout`, the :class:`~gangviz.gui.matrix.scene.Scene`, the names, the selection, the
fonts and the view's job colours. :class:`StaticLayer` draws the cells, grid, outlines, names,
labels and the overview strip into a cached pixmap (see its docstring); the layers over it
(:data:`LAYERS`, bottom first) are drawn on every frame: the flash of a deleted slot, the
running-slot frame, the moving blocks, the processors linked to the vector, the absent
processors, the legal cuts of a held move and the cells a refused placement asked for.

Drawing is cheap: the cells become one indexed ``uint8`` image (0 idle, 1..18 the job colours,
one index for idle cells of the running slot) drawn through a fixed colour table. Below
:data:`DENSITY_CW` pixels per processor the white gaps between jobs are left out (density
mode: neighbouring jobs get different colours when placed, :mod:`gangviz.gui.palette`; where a
moved job meets one of its own colour the gap stays), and below one pixel the image is sampled
at each pixel's centre. Slot labels are thinned to every k-th slot (the running slot always
labelled) and processor labels to round steps (P1, P50, P100, ...).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
    QPixmap,
)

from gangviz.core.matrix import IDLE, slot_label
from gangviz.gui import palette
from gangviz.gui.matrix.geometry import ColumnRange, column_runs, nice_stride
from gangviz.gui.matrix.layout import LABEL_H, OVERVIEW_H, TOP, MatrixLayout
from gangviz.gui.matrix.marks import draw_badge, hatch
from gangviz.gui.matrix.scene import Mover, Scene
from gangviz.gui.matrix.style import edge_pen, style_of

#: below this many pixels per processor the matrix is drawn in density mode: each job a
#: coloured span, without the white gaps between neighbouring jobs
DENSITY_CW = 4.0
#: processors that do not exist (padding): a mid grey, hatched darker
ABSENT = QColor(palette.ABSENT_HEX)
ABSENT_HATCH = QColor("#8A8680")
#: colours of a guided-exercise cut: the dash and the halo under it
CUT_DASH = QColor("#111111")
CUT_HALO = QColor("#FFFFFF")
CUT_WIDTH = 3.0

_BGRA = np.ascontiguousarray(palette.lookup_table()[:, [2, 1, 0, 3]]) if sys.byteorder == "little" \
    else np.ascontiguousarray(palette.lookup_table()[:, [3, 0, 1, 2]])


def index_image(cells: np.ndarray, active: int | None, colours: palette.JobColours) -> np.ndarray:
    """Return the uint8 colour-index array of ``cells`` in ``colours`` (see
    :mod:`gangviz.gui.palette`), the idle cells of row ``active`` marked as such."""
    idx = colours.codes(cells)
    if active is not None and 0 <= active < idx.shape[0]:
        row = idx[active]
        row[cells[active] < 0] = palette.ACTIVE_IDLE_INDEX
    return np.ascontiguousarray(idx)


class Fonts:
    """The fonts of names and labels at one size, with the widths of texts measured once."""

    def __init__(self, font: QFont, points: float = 9.5) -> None:
        self.font = QFont(font)
        self.set_size(points)
        self.label_h = LABEL_H  # the label row of the window's size, whatever the text's height

    def set_size(self, points: float) -> None:
        """Draw at ``points``: the label row grows to hold the text."""
        self.font.setPointSizeF(points)
        self.bold = QFont(self.font)
        self.bold.setBold(True)
        self.fm = QFontMetricsF(self.font)
        self.label_h = max(LABEL_H, self.fm.height() + 4)
        self._widths: dict[str, float] = {}

    def width(self, text: str) -> float:
        """Return the width of ``text`` in the names' font."""
        w = self._widths.get(text)
        if w is None:
            w = self._widths[text] = self.fm.horizontalAdvance(text)
        return w


@dataclass(slots=True)
class Frame:
    """Everything one matrix picture depends on (see the module docstring).

    ``active_int``: the running slot when it is a whole row (not mid-move); ``real``: the
    processors that exist (the rest pad the machine); ``cuts``: the rows of a held move and
    its legal cuts; ``violation``: the slot and processors a refused placement asked for.
    """

    layout: MatrixLayout
    scene: Scene
    names: Mapping[int, str]
    rng: ColumnRange
    fonts: Fonts
    colours: palette.JobColours
    selected: int | None = None
    hovered: int | None = None
    real: int = 0
    cuts: tuple[tuple[int, ...], list[int]] = ((), [])
    violation: tuple[int, tuple[int, ...]] | None = None
    active_int: int | None = field(init=False)

    def __post_init__(self) -> None:
        active = self.scene.active
        self.active_int = int(round(active)) if active is not None and \
            abs(active - round(active)) < 1e-9 else None

    def clip_shown(self, painter: QPainter) -> None:
        """Clip ``painter`` to the processors on show."""
        lay = self.layout
        painter.setClipRect(QRectF(lay.x0 + self.rng.first * lay.cw, 0, lay.cw * self.rng.count, lay.height))


def paint_selection(painter: QPainter, rect: QRectF) -> None:
    """Outline ``rect`` as the selected job's: a thick black frame with a white one inside."""
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(palette.SELECT, 3.0))
    painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
    painter.setPen(QPen(QColor("#FFFFFF"), 1.0))
    painter.drawRect(rect.adjusted(3.5, 3.5, -3.5, -3.5))


def paint_hover(painter: QPainter, rect: QRectF) -> None:
    """Outline ``rect`` as the job under the pointer's."""
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(palette.HILITE, 4.0))
    painter.drawRect(rect.adjusted(2, 2, -2, -2))


def draw_cuts(painter: QPainter, lines: list[QLineF]) -> None:
    """Draw cut ``lines`` as the matrix does: a black dash on a white halo, seen on any cell."""
    painter.setPen(QPen(CUT_HALO, CUT_WIDTH + 2))
    painter.drawLines(lines)
    pen = QPen(CUT_DASH, CUT_WIDTH)
    pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    painter.setPen(pen)
    painter.drawLines(lines)


# ------------------------------------------------------------------ the static layer
class StaticLayer:
    """The cells, grid, outlines, names and labels as a pixmap, cached.

    The cache key is everything the layer depends on, so during most animations (where only
    the moving blocks change from frame to frame) a frame is one pixmap blit plus the movers;
    only growing or collapsing slots redraw the layer on every frame. Only the processors on
    show are drawn; below one pixel per processor the image is sampled at each pixel's centre
    (the processor under it), so a 9,216-processor row costs as much as a row of the widget's
    width.
    """

    def __init__(self) -> None:
        self._cache: tuple[tuple[Any, ...], QPixmap] | None = None

    def clear(self) -> None:
        """Draw the layer again next time."""
        self._cache = None

    def pixmap(self, f: Frame, dpr: float) -> QPixmap:
        """Return the layer of frame ``f`` at device pixel ratio ``dpr``."""
        rng, lay, scene, names = f.rng, f.layout, f.scene, f.names
        key = (scene.cells.tobytes(), scene.cells.shape,
               None if scene.replica is None else scene.replica.tobytes(),
               scene.heights.tobytes(), lay.width, lay.height, f.selected, f.hovered,
               f.fonts.font.pointSizeF(), rng.first, rng.count,
               f.active_int, lay.bottom_up, tuple(sorted(names.items())) if len(names) < 64 else len(names))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        pm = QPixmap(int(lay.width * dpr), int(lay.height * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(palette.BACKGROUND)
        p = QPainter(pm)
        try:
            x0, cw = lay.x0, lay.cw
            n, procs = scene.cells.shape
            lo, hi = rng.visible() if rng.processors == procs else (0, procs)
            left = x0 + rng.first * cw if rng.processors == procs else x0
            right = min(lay.right, x0 + procs * cw)
            p.save()
            p.setClipRect(QRectF(left, 0, max(right - left, 0), lay.height))
            if n and hi > lo:
                paint_cells(p, f, index_image(scene.cells, f.active_int, f.colours), lo, hi, left, right)
            paint_grid(p, f, lo, hi)
            paint_blocks(p, f, lo, hi)
            p.restore()
            paint_labels(p, f, lo, hi)
            if not rng.fitted:
                paint_overview(p, f, left, right)
        finally:
            p.end()
        self._cache = (key, pm)
        return pm


def paint_cells(p: QPainter, f: Frame, idx: np.ndarray, lo: int, hi: int, left: float, right: float) -> None:
    """Draw the cells of columns ``lo..hi`` (colour indices ``idx``) as one image."""
    lay, scene = f.layout, f.scene
    x0, cw, tops, row_h = lay.x0, lay.cw, lay.tops, lay.row_h
    n = idx.shape[0]
    if cw >= 1.0:
        sub = idx[:, lo:hi]
        x, w = x0 + lo * cw, (hi - lo) * cw
    else:
        px = max(int(round(right - left)), 1)
        sample = (f.rng.first + (np.arange(px) + 0.5) / cw).astype(np.int64)
        sub = idx[:, np.clip(sample, 0, idx.shape[1] - 1)]
        x, w = left, float(px)
    cols = sub.shape[1]
    # the lookup happens in numpy (BGRA = Qt's ARGB32 in memory on little-endian
    # machines), so Qt only scales an image it can blit directly
    if np.all(scene.heights == 1.0):
        flat = sub[::-1] if lay.bottom_up else sub
        argb = np.ascontiguousarray(_BGRA[flat])
        img = QImage(argb.data, cols, n, cols * 4, QImage.Format.Format_ARGB32_Premultiplied)
        p.drawImage(QRectF(x, float(tops.min()), w, row_h.sum()), img)
    else:
        argb = np.ascontiguousarray(_BGRA[sub])
        img = QImage(argb.data, cols, n, cols * 4, QImage.Format.Format_ARGB32_Premultiplied)
        for r in range(n):
            if row_h[r] > 0.01:
                p.drawImage(QRectF(x, tops[r], w, row_h[r]), img, QRectF(0, r, cols, 1))


def paint_overview(p: QPainter, f: Frame, left: float, right: float) -> None:
    """The whole machine as a strip above the matrix (darker = more busy slots), the range
    on show framed."""
    cells = f.scene.cells
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
    rng = f.rng
    scale = (right - left) / rng.processors
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.setPen(QPen(palette.TEXT, 2.0))
    p.drawRect(QRectF(left + rng.first * scale, y - 1, max(rng.count * scale, 3.0), OVERVIEW_H + 2))


def paint_grid(painter: QPainter, f: Frame, lo: int, hi: int) -> None:
    """Row boundaries always; processor boundaries only where cells are wide enough to read
    them (they are noise at 128 narrow columns, where the outlines carry the blocks)."""
    lay = f.layout
    x0, cw, tops, row_h = lay.x0, lay.cw, lay.tops, lay.row_h
    if f.scene.cells.shape[0] == 0:
        return
    top, bottom = lay.rows_span()
    right = x0 + hi * cw
    painter.setPen(QPen(palette.GRID, 1.0))
    lines = [QLineF(x0 + lo * cw, float(y), right, float(y)) for y in np.concatenate((tops, tops + row_h))]
    painter.drawLines(lines)
    if cw >= 14:
        painter.setPen(QPen(QColor(0, 0, 0, 26), 1.0))
        painter.drawLines([QLineF(x0 + c * cw, top, x0 + c * cw, bottom) for c in range(lo, hi + 1)])


def paint_blocks(painter: QPainter, f: Frame, lo: int, hi: int) -> None:
    """Separate the runs of one job in a row by white gaps; hatch extra-slot cells; outline
    the selected job; write a job's name on its run where it fits.

    Vectorised over the cells (one ``drawLines`` for every boundary), so a 128 x 64 matrix
    redraws in a few milliseconds; only runs wide enough for a name, runs of the selected job
    and replicas are visited one by one. Only columns ``lo..hi`` (those on show) are visited;
    in density mode (cells narrower than :data:`DENSITY_CW`) the white gaps are left out
    where neighbouring jobs differ in colour and kept where a moved job now meets one of its
    colour.
    """
    lay, scene, fonts = f.layout, f.scene, f.fonts
    n = scene.cells.shape[0]
    if n == 0 or hi <= lo:
        return
    cw, tops, row_h = lay.cw, lay.tops, lay.row_h
    cells = scene.cells[:, lo:hi]
    x0 = lay.x0 + lo * cw
    procs = hi - lo
    density = cw < DENSITY_CW
    # density mode keeps a gap only where two different jobs of one colour meet (a job keeps
    # its colour when it moves, so equal colours can end up side by side)
    codes = f.colours.codes(cells) if density else None
    lines: list[QLineF] = []
    label_min = fonts.width("J00") + 6
    fm_h = fonts.fm.height()
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
        if h >= fm_h + 2 or f.selected is not None or f.hovered is not None:
            starts = np.concatenate(([0], change))
            ends = np.concatenate((change, [procs]))
            busy = row[starts] != IDLE
            big = (ends - starts) * cw >= label_min
            marked = (row[starts] == (f.selected if f.selected is not None else -2)) | \
                (row[starts] == (f.hovered if f.hovered is not None else -2))
            pick = busy & (big | marked)
            for s_, e_ in zip(starts[pick].tolist(), ends[pick].tolist()):
                wide.append((r, s_, e_, int(row[s_])))
    if lines:
        painter.setPen(QPen(palette.BACKGROUND, 1.5))
        painter.drawLines(lines)
    if scene.replica is not None:
        paint_replicas(painter, scene.replica[:, lo:hi], x0, cw, lay)
    painter.setFont(fonts.font)
    shown = QRectF(float(lay.left), 0.0, float(lay.width), float(lay.height))
    for r, s_, e_, job in wide:
        rect = QRectF(x0 + s_ * cw, tops[r], (e_ - s_) * cw, row_h[r])
        if job == f.selected:
            paint_selection(painter, rect)
        elif job == f.hovered:
            paint_hover(painter, rect)
        name = f.names.get(job, f"J{job}")
        rect = rect.intersected(shown)  # a name stays on show while its job is zoomed into
        if rect.width() >= fonts.width(name) + 6 and row_h[r] >= fm_h + 2:
            painter.setPen(palette.text_colour(f.colours.colour(job)))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, name)


def paint_replicas(painter: QPainter, replica: np.ndarray, x0: float, cw: float, lay: MatrixLayout) -> None:
    """Hatch the extra-slot cells (``replica`` true, its first column at ``x0``), one
    rectangle per run of them in a row."""
    if not replica.any():
        return
    for r in np.flatnonzero(replica.any(axis=1)).tolist():
        edge = np.diff(np.concatenate(([0], replica[r].astype(np.int8), [0])))
        for a, b in zip(np.flatnonzero(edge == 1).tolist(), np.flatnonzero(edge == -1).tolist()):
            hatch(painter, QRectF(x0 + a * cw, lay.tops[r], (b - a) * cw, lay.row_h[r]))


def paint_labels(painter: QPainter, f: Frame, lo: int, hi: int) -> None:
    """Slot labels (every k-th one where rows are too low for all, the running slot always)
    and processor labels at round steps (P1, P10, P20, ... as room allows)."""
    lay, fonts, active_int = f.layout, f.fonts, f.active_int
    x0, cw, tops, row_h = lay.x0, lay.cw, lay.tops, lay.row_h
    n, procs = f.scene.cells.shape
    left = lay.left if f.rng.processors == procs else x0
    fm_h = fonts.fm.height()
    typical = float(np.median(row_h)) if n else 0.0
    row_step = nice_stride(typical, fm_h * 0.9 - 8) if n else 1
    for r in range(n):
        if row_h[r] < 0.5 or (r != active_int and (r + 1) % row_step and r):
            continue
        if r != active_int and active_int is not None and abs(r - active_int) * typical < fm_h * 0.9:
            continue
        painter.setFont(fonts.bold if r == active_int else fonts.font)
        painter.setPen(palette.TEXT if r == active_int else palette.MUTED_TEXT)
        h = max(row_h[r], fm_h)
        painter.drawText(QRectF(2, tops[r] + row_h[r] / 2 - h / 2, left - 16, h),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, slot_label(r))
    painter.setFont(fonts.font)
    painter.setPen(palette.MUTED_TEXT)
    stride = nice_stride(cw, fonts.width(f"P{procs}"))
    y = lay.height - lay.label_h - 4
    right = lay.right
    wanted = [c for c in range(lo - lo % stride - 1, hi, stride) if c >= 0] if stride > 1 else list(range(lo, hi))
    if stride > 1 and lo == 0:
        wanted = [0] + [c for c in wanted if (c + 1) * cw > fonts.width("P1") + 8]
    for c in wanted:
        centre = x0 + (c + 0.5) * cw
        if centre < left - 1 or centre > right + 1:
            continue
        text = f"P{c + 1}"
        w = max(cw, fonts.width(text) + 4)
        if stride > 1:
            painter.drawLine(QLineF(centre, y - 1, centre, y + 3))
        painter.drawText(QRectF(centre - w / 2, y, w, lay.label_h), Qt.AlignmentFlag.AlignCenter, text)
    if n == 0:
        painter.drawText(QRectF(left, TOP, right - left, lay.height - lay.label_h - TOP - 6),
                         Qt.AlignmentFlag.AlignCenter, "no slots: the machine is idle")


# ------------------------------------------------------------------ the layers over it
def paint_flash(painter: QPainter, f: Frame) -> None:
    """Flash the slot being deleted."""
    if f.scene.flash is None:
        return
    lay = f.layout
    painter.save()
    f.clip_shown(painter)
    r, a = f.scene.flash
    c = QColor(palette.FLASH)
    c.setAlphaF(0.75 * a)
    painter.fillRect(QRectF(lay.x0, lay.tops[r], lay.cw * f.scene.cells.shape[1], lay.row_h[r]), c)
    painter.restore()


def paint_active(painter: QPainter, f: Frame) -> None:
    """Frame the running slot over the processors on show (the frame's sides stay inside the
    widget at any zoom and machine size). Drawn before the movers and unclipped: a block
    sliding across it covers it, so the frame never strikes through the block's name."""
    lay, scene = f.layout, f.scene
    if scene.active is None or len(lay.tops) == 0:
        return
    # Between two rows the frame fades from one to the other instead of sliding across
    # the rows' names (a sliding frame would strike through them mid-tween).
    lo = int(np.floor(scene.active))
    frac = scene.active - lo
    left = max(lay.x0, lay.left)
    right = min(lay.x0 + lay.cw * scene.cells.shape[1], lay.right)
    ch = lay.ch
    for row, alpha in ((lo, 1.0 - frac), (lo + 1, frac)):
        if alpha <= 0.02:
            continue
        colour = QColor(palette.ACCENT)
        colour.setAlphaF(alpha)
        painter.setPen(QPen(colour, 3.0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        y = lay.row_y(row)
        painter.drawRect(QRectF(left - 1.5, y - 1.5, right - left + 3, ch + 3))
    y = lay.row_y(scene.active)
    # a small triangle in the gutter points at the running slot
    painter.setBrush(palette.ACCENT)
    painter.setPen(Qt.PenStyle.NoPen)
    cy = y + ch / 2
    a = min(6.0, max(ch / 2, 3.0))
    painter.drawPolygon([QPointF(left - 12, cy - a), QPointF(left - 4, cy), QPointF(left - 12, cy + a)])


def paint_mover(painter: QPainter, f: Frame, mv: Mover) -> None:
    """Draw one moving block where the animation has it, with the edge of its change's
    style (:mod:`gangviz.gui.matrix.style`), its name where it fits and a migration's cost."""
    if mv.alpha <= 0.01:
        return
    lay, fonts = f.layout, f.fonts
    x0, cw, ch = lay.x0, lay.cw, lay.ch
    style = style_of(mv.kind)
    painter.setFont(fonts.font)
    colour = f.colours.colour(mv.job)
    fill = QColor(colour)
    fill.setAlphaF(max(0.0, min(1.0, mv.alpha)))
    y = lay.row_y(mv.row())
    painter.setBrush(fill)
    painter.setPen(edge_pen(style.edge, colour, mv.alpha))
    if mv.cols0 == mv.cols1:
        runs = column_runs(mv.cols0)
        for lo, hi in runs:
            rect = QRectF(x0 + lo * cw, y, (hi - lo) * cw, ch)
            painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
            if mv.replica or style.hatch:
                hatch(painter, rect, mv.alpha)
            if mv.job == f.selected:
                paint_selection(painter, rect)
        name = f.names.get(mv.job, f"J{mv.job}")
        lo, hi = max(runs, key=lambda r: r[1] - r[0])
        rect = QRectF(x0 + lo * cw, y, (hi - lo) * cw, ch)
        if rect.width() >= fonts.width(name) + 6 and ch >= fonts.fm.height() + 2:
            tc = QColor(palette.text_colour(colour))
            tc.setAlphaF(max(0.0, min(1.0, mv.alpha)))
            painter.setPen(tc)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, name)
    else:
        xs = [x0 + mv.col(i) * cw for i in range(len(mv.cols0))]
        for x in xs:
            painter.drawRect(QRectF(x, y, cw, ch).adjusted(0.5, 0.5, -0.5, -0.5))
        if mv.badge and style.badge:
            draw_badge(painter, mv.badge, QPointF(max(xs) + cw + 6, y + ch / 2), fonts.bold,
                       right_limit=lay.width - 4.0)
            painter.setFont(fonts.font)


def paint_movers(painter: QPainter, f: Frame) -> None:
    """Draw the moving blocks, clipped to the processors on show."""
    painter.save()
    f.clip_shown(painter)
    for mv in f.scene.movers:
        paint_mover(painter, f, mv)
    painter.restore()


def paint_linked(painter: QPainter, f: Frame) -> None:
    """Shade the processors of the WLV entry or tree node under the pointer."""
    cols = f.rng.hover_cols
    lay = f.layout
    if cols is None or len(lay.tops) == 0:
        return
    lo, hi = cols
    top, bottom = lay.rows_span()
    rect = QRectF(lay.x0 + lo * lay.cw, top, (hi - lo) * lay.cw, bottom - top)
    painter.save()
    f.clip_shown(painter)
    painter.fillRect(rect, QColor(255, 255, 255, 90))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(palette.LINK, 3.0))
    painter.drawRect(rect.adjusted(1.5, -1.5, -1.5, 1.5))
    painter.restore()


def paint_absent(painter: QPainter, f: Frame) -> None:
    """Draw the padded processors (a machine made larger than the trace's own, a buddy
    policy's next power of two) as absent: a dark hatched band no job ever enters."""
    lay = f.layout
    procs = f.scene.cells.shape[1]
    real = f.real
    if real >= procs or len(lay.tops) == 0:
        return
    top, bottom = lay.rows_span()
    rect = QRectF(lay.x0 + real * lay.cw, top, (procs - real) * lay.cw, bottom - top)
    painter.save()
    f.clip_shown(painter)
    painter.fillRect(rect, ABSENT)
    painter.fillRect(rect, QBrush(ABSENT_HATCH, Qt.BrushStyle.BDiagPattern))
    text = f"absent: P{real + 1}..P{procs} pad the machine to {procs:,} processors"
    painter.setFont(f.fonts.font)  # the names' size (large while presenting)
    if painter.fontMetrics().horizontalAdvance(text) + 12 > rect.width():
        text = "absent"
    if painter.fontMetrics().horizontalAdvance(text) + 12 <= rect.width():
        painter.setPen(palette.TEXT)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()


def paint_cuts(painter: QPainter, f: Frame) -> None:
    """Draw the legal cuts of the rows of a held move (the guided exercise)."""
    held, cuts = f.cuts
    lay = f.layout
    rows = [r for r in held if r < len(lay.tops)]
    if not rows:
        return
    y0 = float(min(lay.tops[r] for r in rows)) - 6
    y1 = float(max(lay.tops[r] + lay.row_h[r] for r in rows)) + 6
    draw_cuts(painter, [QLineF(lay.x0 + c * lay.cw, y0, lay.x0 + c * lay.cw, y1) for c in cuts])


def paint_violation(painter: QPainter, f: Frame) -> None:
    """Outline in red the cells a refused placement asked for (tinted, so the job already
    running there still shows)."""
    if f.violation is None:
        return
    row, cols = f.violation
    lay = f.layout
    tint = QColor(palette.VIOLATION)
    tint.setAlphaF(0.28)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for a, b in column_runs(sorted(cols)):
        rect = QRectF(lay.x0 + a * lay.cw, lay.tops[row], (b - a) * lay.cw, lay.row_h[row])
        painter.fillRect(rect, tint)
        painter.setPen(QPen(palette.VIOLATION, 3.0))
        painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))


#: the layers drawn over the static layer on every frame, bottom first
LAYERS: tuple[Callable[[QPainter, Frame], None], ...] = (
    paint_flash, paint_active, paint_movers, paint_linked, paint_absent, paint_cuts, paint_violation)
