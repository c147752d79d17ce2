"""Presentation mode of the compare window: the panes, the shared clock and the table projected.

As the main window's presentation mode (:mod:`gangviz.gui.lecture.presentation`; F11 enters and
leaves, Escape leaves), the compare window goes full screen with its chrome hidden (the policy
chooser and the metric plots: their curves are the table's numbers drawn over time, and the
room reads the table) and every text drawn large: the sizes are those of
:data:`~gangviz.gui.lecture.presentation.FONTS` (made for a 1920 x 1080 screen, where each
draws text at least 18 pixels high) times the window's scale
(:func:`~gangviz.gui.lecture.presentation.scale_for`). The tool bar stays: it holds the shared
clock the room follows. Leaving restores every font, the hidden parts and the window state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QSplitter, QWidget

from gangviz.gui.lecture.presentation import (
    FONTS,
    NORMAL_CELL_H,
    NORMAL_FONTS,
    PRESENT_CELL_H,
    PresentationMode,
    Shown,
    scale_for,
)

if TYPE_CHECKING:
    from gangviz.gui.compare.overview import SchedulePane
    from gangviz.gui.compare.table import SummaryTable
    from gangviz.gui.compare.timeline import SharedTimeline
    from gangviz.gui.matrix.vector import VectorTreeView
    from gangviz.gui.matrix.view import MatrixWidget

#: the point size of every text of the window that has no size of its own in :data:`FONTS`
TEXT_POINTS = 19.0
#: the point size of the table's figures and headings: a point under the rest, so that four
#: policies' columns fit beside the figures' names in each of two blocks, and still 24 pixels
#: at 1920 x 1080 and 16 at 1280 x 720
TABLE_POINTS = 18.0
#: the most of the window's height the table takes when presenting (the panes come first)
TABLE_SHARE = 0.42
#: the normal sizes of the drawn parts that are not in :data:`NORMAL_FONTS`
NORMAL_TIMELINE, NORMAL_SCHEDULE = 8.0, 8.5


class PresentedPane(Protocol):
    """What presentation mode reads of one pane of a simulation: its drawn parts, each ``None``
    when the pane has none (``family``: the family's view and its adapter)."""

    @property
    def matrix(self) -> MatrixWidget | None: ...
    @property
    def vector(self) -> VectorTreeView | None: ...
    @property
    def family(self) -> tuple[Any, Any] | None: ...


class PresentedCompare(Shown, Protocol):
    """What presentation mode reads of the compare window
    (:class:`~gangviz.gui.compare.window.CompareWindow`): its parts to hide and size, its table to
    refill, its state (:class:`~gangviz.gui.lecture.presentation.Shown`), and the window itself
    (``window()``: a top-level window is its own)."""

    @property
    def chooser(self) -> QWidget: ...
    @property
    def plots(self) -> QWidget: ...
    @property
    def heading(self) -> QLabel: ...
    @property
    def table(self) -> SummaryTable: ...
    @property
    def table_more(self) -> SummaryTable: ...
    @property
    def table_note(self) -> QLabel: ...
    @property
    def main_split(self) -> QSplitter: ...
    @property
    def timeline(self) -> SharedTimeline: ...
    @property
    def panes(self) -> Sequence[PresentedPane | SchedulePane]: ...
    def refill_table(self) -> None: ...
    def headline_rows(self) -> list[int]: ...
    def window(self) -> QWidget: ...


class ComparePresentation(PresentationMode[PresentedCompare]):
    """Enters and leaves presentation mode on a compare ``window`` (see the module docstring);
    a resize is fitted once the splitter has taken its new size (it shares a resize out by
    stretch)."""

    def __init__(self, window: PresentedCompare) -> None:
        super().__init__(window, rescale_later=True)
        self._fonts: dict[int, tuple[QWidget, QFont]] = {}
        self._sizes: list[int] = []

    def enter(self) -> None:
        """Hide the chooser and the plots, draw every text large, go full screen."""
        if self.active:
            return
        w = self.window
        self._sizes = w.main_split.sizes()
        self._switch_on([w.chooser, w.plots], unless_hidden=True)
        self.apply()
        self._full_screen(True)

    def leave(self) -> None:
        """Restore the window as it was before :meth:`enter`."""
        if not self.active:
            return
        w = self.window
        self._switch_off()
        for widget, font in self._fonts.values():
            widget.setFont(font)
        self._fonts = {}
        w.table_more.setVisible(False)
        w.table.setVisible(True)
        self._size_drawn(NORMAL_FONTS["matrix"] or 9.5, NORMAL_FONTS["vector"] or 9.0, NORMAL_CELL_H,
                         NORMAL_TIMELINE, NORMAL_SCHEDULE, NORMAL_FONTS["family"] or 1.0)
        w.refill_table()
        if self._sizes:
            w.main_split.setSizes(self._sizes)
        self._full_screen(False)

    def rescale(self, height: int | None = None) -> None:
        """Fit the sizes to the window's height (or ``height``), in presentation mode only."""
        if not self.active:
            return
        scale = scale_for(self.window.height() if height is None else height)
        if abs(scale - self.scale) > 0.01:
            self.scale = scale
            self.apply()
        else:
            self.fit_table()

    def apply(self) -> None:
        """Size every text of the window for presentation (also the panes of a comparison
        chosen while presenting); nothing when not presenting."""
        if not self.active:
            return
        k, w = self.scale, self.window
        big = {id(w.heading): (FONTS["title"] or 28.0) * k}
        for table in (w.table, w.table_more):
            for part in [table, *table.findChildren(QWidget)]:
                big[id(part)] = TABLE_POINTS * k
        frame = w.window()
        for widget in [frame, *frame.findChildren(QWidget)]:
            if id(widget) not in self._fonts:
                self._fonts[id(widget)] = (widget, QFont(widget.font()))
            original = self._fonts[id(widget)][1]
            f = QFont(original)
            f.setPointSizeF(big.get(id(widget), TEXT_POINTS * k))
            widget.setFont(f)
        self._size_drawn((FONTS["matrix"] or 20.0) * k, (FONTS["vector"] or 20.0) * k, PRESENT_CELL_H * k,
                         TEXT_POINTS * k, TEXT_POINTS * k, (FONTS["family"] or 2.0) * k)
        w.refill_table()
        self.fit_table()

    def fit_table(self) -> None:
        """Give the table the height its shown rows need, at most :data:`TABLE_SHARE` of the
        window (the panes keep the rest); when the headline rows do not fit in that, reflow
        them into two blocks side by side (the first half in the table, the second in
        ``table_more``), so that no row scrolls out of sight. Nothing when not presenting."""
        if not self.active:
            return
        w = self.window
        table, more = w.table, w.table_more
        rows = w.headline_rows() if table.rowCount() else []
        note = w.table_note.sizeHint().height() if w.table_note.isVisibleTo(w.window()) else 0
        frame = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth() + note + 12
        # a row at its own height (the rows are stretched to fill the table, so their drawn height
        # would only keep the table as tall as it is)
        head = table.verticalHeader()
        row_h = max((max(table.sizeHintForRow(i), head.sectionSizeHint(i), head.minimumSectionSize()) for i in rows),
                    default=0)
        total = sum(w.main_split.sizes()) or w.main_split.height()
        share = int(total * TABLE_SHARE)
        two = bool(rows) and frame + len(rows) * row_h > share
        first = rows[: (len(rows) + 1) // 2] if two else rows
        for i in range(table.rowCount()):
            table.setRowHidden(i, i not in first)
        more.setVisible(two)
        if two:
            second = set(rows[len(first):])
            for i in range(more.rowCount()):
                more.setRowHidden(i, i not in second)
        table.setVisible(table.rowCount() > 0)  # no empty frame under a family without the table
        table.fit_columns()
        more.fit_columns()
        need = frame + len(first) * row_h if rows else note + 12
        need = min(need, share)
        if total > need:
            w.main_split.setSizes([total - need, need])

    def _size_drawn(self, matrix: float, vector: float, cell_h: float, timeline: float, schedule: float,
                    family: float) -> None:
        """Size the parts that paint their own text: matrices, trees, family views, the shared
        timeline and the schedule views of a trace."""
        from gangviz.gui.compare.overview import SchedulePane

        w = self.window
        w.timeline.set_point_size(timeline)
        for pane in w.panes:
            if isinstance(pane, SchedulePane):
                pane.view.points = schedule
                pane.view.update()
                continue
            if pane.matrix is not None:
                pane.matrix.set_font_size(matrix)
                pane.matrix.set_max_cell_height(cell_h)
            if pane.vector is not None:
                pane.vector.set_font_size(vector)
            if pane.family is not None and hasattr(pane.family[0], "set_scale"):
                pane.family[0].set_scale(family)
