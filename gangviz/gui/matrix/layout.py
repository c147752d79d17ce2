"""Where the matrix lies in its widget: the cells' rectangles and the cell at a point.

Qt-free (numbers and numpy only), so the geometry is tested without a widget. A
:class:`MatrixLayout` is computed for one frame from the rows' heights (:class:`~gangviz.gui.
matrix.scene.Scene`), the widget's size and the processors on show (:class:`~gangviz.gui.
matrix.geometry.ColumnRange`); the painters, the cues, the guided exercise's overlay and the
mouse all read it. Column ``c`` starts at ``x0 + c * cw`` (:func:`~gangviz.gui.matrix.geometry.
columns`, shared with the vector and tree); row ``r`` spans ``tops[r]`` to ``tops[r] +
row_h[r]``, S1 at the bottom when ``bottom_up`` (as in the papers), at the top otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gangviz.gui.matrix.geometry import RIGHT, ColumnRange, columns

MAX_CELL_H = 64.0
MIN_CELL_H = 4.0
LABEL_H = 20.0
TOP = 8.0
#: height of the overview strip drawn above the matrix while it is zoomed
OVERVIEW_H = 12.0

#: ``(x0, cw, ch, row_top, row_h)``: a layout's numbers as one tuple
Geometry = tuple[float, float, float, np.ndarray, np.ndarray]


@dataclass(frozen=True, slots=True, eq=False)
class MatrixLayout:
    """One frame's geometry (see the module docstring).

    ``x0``/``cw``: column ``c`` starts at ``x0 + c * cw``; ``ch``: a whole slot's height;
    ``tops``/``row_h``: each row's top and height (a growing or collapsing slot is lower);
    ``width``/``height``: the widget's; ``left``: where the processors on show start (the
    gutter's right edge); ``first``/``count``/``fitted``: the processors on show.
    """

    x0: float
    cw: float
    ch: float
    tops: np.ndarray
    row_h: np.ndarray
    width: int
    height: int
    label_h: float
    bottom_up: bool
    left: float
    first: float
    count: float
    fitted: bool

    @property
    def right(self) -> float:
        """Return the x where the matrix ends (the right margin's left edge)."""
        return float(self.width - RIGHT)

    @property
    def top(self) -> float:
        """Return the top of the matrix area (below the overview strip while zoomed)."""
        return top_of(self.fitted)

    def geometry(self) -> Geometry:
        """Return ``(x0, cw, ch, tops, row_h)``."""
        return self.x0, self.cw, self.ch, self.tops, self.row_h

    def rows_span(self) -> tuple[float, float]:
        """Return the top and bottom y of the rows (call only with at least one row)."""
        return float(self.tops.min()), float((self.tops + self.row_h).max())

    def row_y(self, pos: float) -> float:
        """Return the top y of a (possibly fractional) row position; a position beyond the
        first or last row continues a slot height per row."""
        tops, ch = self.tops, self.ch
        n = len(tops)
        if n == 0:
            return self.height - self.label_h - 6 - ch
        lo = int(np.floor(pos))
        frac = pos - lo
        if lo < 0:
            return float(tops[0] + (ch if self.bottom_up else -ch) * (-pos))
        if lo >= n - 1:
            extra = pos - (n - 1)
            return float(tops[n - 1] - (ch * extra if self.bottom_up else -ch * extra))
        return float(tops[lo] + (tops[lo + 1] - tops[lo]) * frac)

    def cell_at(self, x: float, y: float, processors: int) -> tuple[int, int] | None:
        """Return the ``(row, column)`` under point ``(x, y)`` of a matrix of ``processors``
        columns, or ``None`` off the cells (in the gutter, the margin or between rows)."""
        tops, row_h = self.tops, self.row_h
        if len(tops) == 0:
            return None
        if not self.x0 + self.first * self.cw <= x < self.right:
            return None
        col = int((x - self.x0) // self.cw)
        if not 0 <= col < processors:
            return None
        for r in range(len(tops)):
            if tops[r] <= y < tops[r] + row_h[r]:
                return r, col
        return None

    def cell_box(self, row: int, col: int) -> tuple[float, float, float, float]:
        """Return ``(x, y, width, height)`` of cell ``(row, col)``."""
        return self.x0 + col * self.cw, float(self.tops[row]), self.cw, float(self.row_h[row])

    def column_at(self, x: float) -> float:
        """Return the (fractional) processor column at ``x``."""
        return (x - self.x0) / max(self.cw, 1e-9)


def top_of(fitted: bool) -> float:
    """Return the top of the matrix area: below the overview strip unless ``fitted``."""
    return TOP + (0.0 if fitted else OVERVIEW_H + 6)


def layout_matrix(heights: np.ndarray, processors: int, width: int, height: int, rng: ColumnRange, *,
                  max_cell_h: float = MAX_CELL_H, label_h: float = LABEL_H,
                  bottom_up: bool = True) -> MatrixLayout:
    """Return the :class:`MatrixLayout` of rows ``heights`` (1 a whole slot) by ``processors``
    columns in a ``width`` x ``height`` widget showing the processors of ``rng``.

    A slot is as tall as the height allows, between :data:`MIN_CELL_H` and ``max_cell_h``, and
    at most 1.15 cell widths while at most 16 processors are on show (cells stay near square).
    """
    x0, cw = columns(width, processors, rng)
    total = float(heights.sum())
    avail = height - top_of(rng.fitted) - label_h - 6
    ch = max(MIN_CELL_H, min(max_cell_h, avail / max(total, 1.0),
                             cw * 1.15 if rng.count <= 16 else max_cell_h))
    row_h = heights * ch
    bottom = height - label_h - 6
    if bottom_up:
        tops = bottom - np.cumsum(row_h)
    else:
        tops = bottom - total * ch + np.concatenate(([0.0], np.cumsum(row_h)[:-1]))
    rx0, rcw = columns(width, rng.processors, rng)
    return MatrixLayout(x0, cw, ch, tops, row_h, width, height, label_h, bottom_up,
                        rx0 + rng.first * rcw, rng.first, rng.count, rng.fitted)
