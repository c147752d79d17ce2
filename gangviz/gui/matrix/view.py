"""The live Ousterhout matrix: slots as rows, processors as columns.

Zhou99 Fig. 1, 2, 5, 6 (S1 drawn at the bottom, as in the papers; ``bottom_up=False`` puts it
at the top).

The widget holds the view's state (the player followed, the selection, the zoom, the fonts,
its own job colours) and puts the parts together: :mod:`gangviz.gui.matrix.layout` says where
each cell lies (Qt-free), :mod:`gangviz.gui.matrix.painters` draws the picture as layers of a
:class:`~gangviz.gui.matrix.painters.Frame`, :mod:`gangviz.gui.matrix.interaction` turns the
mouse and keys into signals, and :mod:`gangviz.gui.matrix.style` says how each kind of change
is drawn. The view paints whatever :func:`~gangviz.gui.matrix.scene.build_scene` says for the
player's current transition; it repaints on the player's ``frame``/``moved``/``stepped``
signals only (marks itself dirty with ``update()``; Qt coalesces repaints on the frame clock).

Job colours: each view owns a :class:`~gangviz.gui.palette.JobColours` (``colours``) and
forgets its choices when given a new simulation, so the panes of a compare window keep theirs.

Any machine size: the view draws the processors of its :class:`~gangviz.gui.matrix.geometry.
ColumnRange` (shared with the vector/tree view, so both zoom and pan together); while zoomed, a
strip above the matrix shows the whole machine (darker = busier) with the range on show
framed. Hovering a job tells the vector view its columns; a WLV entry or tree node hovered
there is shaded here.

Lecture mode: ``hover_highlight`` outlines every cell of the job under the mouse pointer
(presentation mode turns it on); :meth:`MatrixWidget.set_font_size` enlarges the names and
labels; while the player holds a move for the guided exercise (``Player.gate``) the legal cuts
of the rows involved are drawn as dashed vertical lines over those rows
(:func:`gangviz.gui.matrix.held_move.gate_cuts`): a black dash on a white halo, readable on
every job colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QFont,
    QHelpEvent,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import QWidget

from gangviz.core.matrix import OusterhoutMatrix, slot_label
from gangviz.gui import palette
from gangviz.gui.families.table import engine_of, matrix_of
from gangviz.gui.matrix.geometry import GUTTER, RIGHT, ColumnRange, columns
from gangviz.gui.matrix.held_move import gate_cuts
from gangviz.gui.matrix.interaction import MatrixInteraction, is_tooltip
from gangviz.gui.matrix.layout import MAX_CELL_H, Geometry, MatrixLayout, layout_matrix
from gangviz.gui.matrix.painters import LAYERS, Fonts, Frame, StaticLayer
from gangviz.gui.matrix.scene import Scene, build_scene
from gangviz.gui.playback.wiring import follow
from gangviz.timefmt import clock_text, format_time

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player
    from gangviz.sim.engine import Simulation as Engine


class MatrixWidget(QWidget):
    """Paints the player's matrix; see the module docstring.

    Signals: ``jobSelected(object)`` with the job id, or ``None`` when the selection is cleared.
    The what-ifs of the context menu are signals of :attr:`interaction` (``terminateRequested``,
    ``submitRequested``) for the window to answer.
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
        #: the colours of this view's jobs (its own: another view never resets them)
        self.colours = palette.JobColours()
        self.setMouseTracking(True)
        self.setMinimumSize(320, 140)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.fonts = Fonts(self.font())
        #: the layout of the picture last drawn at rest (the mouse is mapped onto it)
        self.rest_layout: MatrixLayout | None = None
        self._static = StaticLayer()
        self.column_range = ColumnRange()
        self.column_range.listeners.append(self._range_changed)
        self.column_range.hover_listeners.append(self.update)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.interaction = MatrixInteraction(self, self)
        self.interaction.jobClicked.connect(self.select)
        self.interaction.jobHovered.connect(self._hover)
        if player is not None:
            self.set_player(player)

    # ----------------------------------------------------------------- wiring
    def set_player(self, player: Player) -> None:
        """Show ``player``'s simulation (disconnects from the previous player; a new player
        starts this view's job colours afresh)."""
        follow(self.player, player, ("frame", "moved", "stepped", "failed"), self._dirty)
        if player is not self.player:
            self.colours.reset()
        self.player = player
        self.selected = None
        m = matrix_of(player.sim) if player is not None else None
        if m is not None:
            self.column_range.set_processors(m.processors)
        self.update()

    def _range_changed(self) -> None:
        self._static.clear()
        self.update()

    def _dirty(self, *args: object) -> None:
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

    # ------------------------------------------------------------- settings
    def set_bottom_up(self, bottom_up: bool) -> None:
        """Draw S1 at the bottom (True, as in the papers) or at the top."""
        self.bottom_up = bool(bottom_up)
        self.update()

    def set_font_size(self, points: float) -> None:
        """Draw names and labels at ``points`` (9.5 in the window, larger when presenting)."""
        self.fonts.set_size(points)
        # the gutter holds the slot labels and the tree's level labels ("WLT 512")
        self.column_range.gutter = float(GUTTER) if points <= 10 else \
            max(float(GUTTER), self.fonts.fm.horizontalAdvance("WLT 512") * 0.9 + 16)
        self.column_range._changed()
        self._static.clear()
        self.update()

    def name_font(self) -> QFont:
        """Return the font job names are drawn in (a copy)."""
        return QFont(self.fonts.font)

    def set_max_cell_height(self, pixels: float) -> None:
        """Let a slot grow up to ``pixels`` high (64 in the window; taller when presenting)."""
        self.max_cell_h = float(pixels)
        self._static.clear()
        self.update()

    def set_hover_highlight(self, on: bool) -> None:
        """Outline the job under the mouse pointer (``on``) or not."""
        self.hover_highlight = bool(on)
        if not on:
            self.hovered = None
        self._static.clear()
        self.update()

    def set_hovered(self, job: int | None) -> None:
        """Highlight ``job`` as the one under the pointer (``None`` clears it)."""
        if job != self.hovered:
            self.hovered = job
            self.update()

    def _hover(self, job: int | None) -> None:
        if self.hover_highlight or job is None:
            self.set_hovered(job)

    def select(self, job: int | None) -> None:
        """Select ``job`` (outline all its cells) or clear the selection; emits ``jobSelected``."""
        self.selected = job
        self.jobSelected.emit(job)
        self.update()

    # ------------------------------------------------------------- what is shown
    def matrix(self) -> OusterhoutMatrix:
        """Return the matrix drawn: the followed simulation's snapshot (through the protocol);
        raises ``RuntimeError`` while the view follows no player."""
        if self.player is None:
            raise RuntimeError("the matrix view follows no player")
        return cast(OusterhoutMatrix, self.player.sim.snapshot())

    def _engine(self) -> Engine:
        """Return the matrix engine drawn (:func:`~gangviz.gui.families.table.engine_of`); called only
        while the view follows a player."""
        if self.player is None:
            raise RuntimeError("the matrix view follows no player")
        return engine_of(self.player.sim)

    def _scene(self) -> Scene | None:
        p = self.player
        if p is None or not p.has_matrix:
            return None
        tr = p.transition
        if tr is None:
            return build_scene(p.display_state)
        return build_scene(tr.state, tr.change, tr.t)

    def cut_lines(self) -> tuple[tuple[int, ...], list[int]]:
        """Return ``(rows, cuts)`` drawn for the move the player holds (empty when none)."""
        p = self.player
        gate = None if p is None or not self.show_cuts else p.gate
        if gate is None:
            return (), []
        return gate_cuts(gate.state, gate.change)

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

    # --------------------------------------------------------------- geometry
    def layout_of(self, scene: Scene) -> MatrixLayout:
        """Return the :class:`~gangviz.gui.matrix.layout.MatrixLayout` of ``scene`` in the
        widget's current size."""
        return layout_matrix(scene.heights, scene.cells.shape[1], self.width(), self.height(),
                             self.column_range, max_cell_h=self.max_cell_h,
                             label_h=self.fonts.label_h, bottom_up=self.bottom_up)

    def current_layout(self) -> MatrixLayout | None:
        """Return the layout of the picture drawn now (``None`` without a matrix)."""
        scene = self._scene()
        return None if scene is None else self.layout_of(scene)

    def current_geometry(self) -> Geometry | None:
        """Return ``(x0, cw, ch, row_top, row_h)`` of the picture drawn now (``None`` without a
        matrix); overlays drawn above the matrix follow it."""
        lay = self.current_layout()
        return None if lay is None else lay.geometry()

    def columns_now(self) -> tuple[float, float]:
        """Return ``(x0, cw)`` of the matrix's columns in the widget's current width."""
        return columns(self.width(), self.matrix().processors, self.column_range)

    def cut_x(self, cut: int) -> float:
        """Return the widget x of cut ``cut`` (just left of column ``cut``)."""
        x0, cw = self.columns_now()
        return x0 + cut * cw

    def column_range_left(self) -> float:
        """Return the x where the processor columns start (the gutter's right edge)."""
        x0, cw = columns(self.width(), self.column_range.processors, self.column_range)
        return x0 + self.column_range.first * cw

    @staticmethod
    def right_margin() -> float:
        """Return the width of the margin right of the matrix."""
        return float(RIGHT)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """Return the (row, column) under widget point (x, y) at rest, or ``None``."""
        if self.rest_layout is None:
            return None
        return self.rest_layout.cell_at(x, y, self.matrix().processors)

    def cell_rect(self, row: int, col: int) -> QRectF:
        """Return the widget rectangle of cell (row, col) at rest (for tests and tooltips)."""
        return QRectF(*self.layout_of(build_scene(self.matrix())).cell_box(row, col))

    # ---------------------------------------------------------------- painting
    def frame(self, scene: Scene) -> Frame | None:
        """Return the :class:`~gangviz.gui.matrix.painters.Frame` of ``scene`` as drawn now
        (``None`` while the view follows no player)."""
        p = self.player
        if p is None:
            return None
        state = p.display_state
        return Frame(self.layout_of(scene), scene, state.names if state is not None else {},
                     self.column_range, self.fonts, self.colours, self.selected, self.hovered,
                     self._engine().real_processors, self.cut_lines(), self.violation_cells())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), palette.BACKGROUND)
            scene = self._scene()
            f = None if scene is None else self.frame(scene)
            if f is None:
                return
            if self.player is not None and self.player.transition is None:
                self.rest_layout = f.layout
            painter.drawPixmap(0, 0, self._static.pixmap(f, self.devicePixelRatioF()))
            for layer in LAYERS:
                layer(painter, f)
        finally:
            painter.end()

    # ----------------------------------------------------------- interaction
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
        if is_tooltip(ev) and self.player is not None:
            self.interaction.tooltip(cast(QHelpEvent, ev))
            return True
        return super().event(ev)

    def contextMenuEvent(self, ev: QContextMenuEvent) -> None:
        self.interaction.context_menu(ev)
