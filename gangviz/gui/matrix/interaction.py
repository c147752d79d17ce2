"""What the mouse and the keys do on the matrix view, told as signals.

Hovering a job shows its size, work left, arrival and rows; a click selects a job (a click on
an idle cell clears the selection: ``jobClicked``); the context menu offers "Terminate now" on
a job and "Submit a job here…" on an idle cell (``terminateRequested``, ``submitRequested``:
the window asks for the job's size and work and runs the what-if through the player, so the
view never opens a dialog). Tie-break: the mouse is mapped onto the matrix at rest, so
hovering and clicking during an animation see the state before the running change.

The wheel zooms around the processor under the pointer, Shift+wheel or a drag pans, Ctrl+= /
Ctrl+- / Ctrl+0 zoom in, out and fit (the view's :class:`~gangviz.gui.matrix.geometry.
ColumnRange`, shared with the vector and tree); while zoomed, a click on the overview strip
centres the range there. Hovering a job tells the vector view its columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QHelpEvent, QKeyEvent, QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QMenu, QToolTip, QWidget

from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.gui.matrix.geometry import ColumnRange
from gangviz.gui.matrix.layout import OVERVIEW_H, TOP, MatrixLayout

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player

#: one wheel notch zooms by this factor
WHEEL_ZOOM = 1.25


class MatrixSurface(Protocol):
    """What the controller reads of the view it serves (the matrix view)."""

    player: Player | None
    column_range: ColumnRange
    rest_layout: MatrixLayout | None

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """Return the cell under a point at rest."""

    def matrix(self) -> OusterhoutMatrix:
        """Return the matrix drawn."""

    def job_tooltip(self, job: int) -> str:
        """Return the tooltip of a job."""

    def column_range_left(self) -> float:
        """Return where the processors on show start."""

    def columns_now(self) -> tuple[float, float]:
        """Return ``(x0, cw)`` of the columns."""

    def width(self) -> int:
        """Return the widget's width."""

    def right_margin(self) -> float:
        """Return the margin right of the matrix."""


class MatrixInteraction(QObject):
    """The mouse and keys of ``widget``, read through ``view`` (the same matrix view; see
    the module docstring).

    Signals: ``jobClicked(object)``: the job clicked, ``None`` for an idle cell;
    ``jobHovered(object)``: the job under the pointer, ``None`` when none;
    ``terminateRequested(int)``: the job whose termination the context menu asked for;
    ``submitRequested()``: the context menu asked to submit a job.
    """

    jobClicked = Signal(object)
    jobHovered = Signal(object)
    terminateRequested = Signal(int)
    submitRequested = Signal()

    def __init__(self, widget: QWidget, view: MatrixSurface) -> None:
        super().__init__(widget)
        #: the widget (the parent of the menu and the tooltip) and what is read of it
        self.widget, self.view = widget, view
        self._drag: tuple[float, float] | None = None
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, ev: QEvent) -> bool:
        """Take the widget's pointer, wheel and key events before its own handlers: return True
        for one used up here (the widget's handler does not run), False to let the widget have
        it too (after a leave or a release, always). A double click is a press, as Qt's own
        handler makes it."""
        if watched is not self.widget:
            return False
        t = ev.type()
        if t == QEvent.Type.MouseMove:
            return self.mouse_move(cast(QMouseEvent, ev))
        if t in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick):
            return self.mouse_press(cast(QMouseEvent, ev))
        if t == QEvent.Type.Wheel:
            return self.wheel(cast(QWheelEvent, ev))
        if t == QEvent.Type.KeyPress:
            return self.key(cast(QKeyEvent, ev))
        if t == QEvent.Type.Leave:
            self.leave()
        elif t == QEvent.Type.MouseButtonRelease:
            self.mouse_release()
        return False

    def job_at(self, pos: QPoint | QPointF) -> tuple[int | None, tuple[int, int] | None]:
        """Return ``(job or None for an idle cell, (row, column))`` under ``pos``, or
        ``(None, None)`` off the cells."""
        cell = self.view.cell_at(pos.x(), pos.y())
        if cell is None:
            return None, None
        job = int(self.view.matrix().cells[cell])
        return (None if job == IDLE else job), cell

    def tooltip(self, ev: QHelpEvent) -> None:
        """Show the tooltip of the job under the pointer (or hide it)."""
        job, _ = self.job_at(ev.pos())
        if job is not None:
            QToolTip.showText(ev.globalPos(), self.view.job_tooltip(job), self.widget)
        else:
            QToolTip.hideText()
            ev.ignore()

    def mouse_move(self, ev: QMouseEvent) -> bool:
        """Pan while dragging (return True: the move is used up), else tell who is hovered."""
        view, rng = self.view, self.view.column_range
        lay = view.rest_layout
        if self._drag is not None and lay is not None:
            x, first = self._drag
            if abs(ev.position().x() - x) > 3 or rng.first != first:
                rng.show(first - (ev.position().x() - x) / max(lay.cw, 1e-9), rng.count)
            return True
        if view.player is not None:
            job, _ = self.job_at(ev.position())
            self.jobHovered.emit(job)
            m = view.matrix()
            rng.set_hover(None, list(m.job_cols(job)) if job is not None and job in m else [])
        return False

    def leave(self) -> None:
        """The pointer left the view: nothing is hovered."""
        self.jobHovered.emit(None)
        self.view.column_range.set_hover(None, [])

    def mouse_press(self, ev: QMouseEvent) -> bool:
        """A click on the overview strip centres the range there; on the matrix it selects
        (left button) and starts a drag while zoomed. Return False for a press not used."""
        view, rng = self.view, self.view.column_range
        if view.player is None or ev.button() not in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
            return False
        x, y = ev.position().x(), ev.position().y()
        if not rng.fitted and TOP - 2 <= y <= TOP + OVERVIEW_H + 2:
            left = view.column_range_left()
            scale = (view.width() - view.right_margin() - left) / rng.processors
            centre = (x - left) / max(scale, 1e-9)
            rng.show(centre - rng.count / 2, rng.count)
            return True
        if not rng.fitted:
            self._drag = (x, rng.first)  # a drag pans the zoomed matrix
        if ev.button() == Qt.MouseButton.LeftButton:
            job, _ = self.job_at(ev.position())
            self.jobClicked.emit(job)
        return True

    def mouse_release(self) -> None:
        """End a drag."""
        self._drag = None

    def wheel(self, ev: QWheelEvent) -> bool:
        """Zoom around the processor under the pointer; Shift+wheel (or a sideways wheel)
        pans. Return False without a matrix (the event is not used)."""
        view, rng = self.view, self.view.column_range
        if view.player is None or not view.player.has_matrix:
            return False
        d = ev.angleDelta()
        x0, cw = view.columns_now()
        if d.x() or ev.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            notches = (d.x() or d.y()) / 120.0
            rng.pan(-notches * rng.count / 10)
        elif d.y():
            anchor = (ev.position().x() - x0) / max(cw, 1e-9)
            rng.zoom(WHEEL_ZOOM ** (d.y() / 120.0), anchor)
        ev.accept()
        return True

    def key(self, ev: QKeyEvent) -> bool:
        """Ctrl+= / Ctrl++ zoom in, Ctrl+- zoom out, Ctrl+0 fit the whole machine; return
        False for any other key."""
        rng = self.view.column_range
        mods = ev.modifiers() & Qt.KeyboardModifier.ControlModifier
        key = ev.key()
        if mods and key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            rng.zoom(2.0)
        elif mods and key == Qt.Key.Key_Minus:
            rng.zoom(0.5)
        elif mods and key == Qt.Key.Key_0:
            rng.fit()
        else:
            return False
        ev.accept()
        return True

    def context_menu(self, ev: QContextMenuEvent) -> None:
        """Offer the what-ifs of the cell under the pointer (the matrix engine only)."""
        p = self.view.player
        if p is None or not p.has_matrix:
            return
        job, cell = self.job_at(ev.pos())
        if cell is None:
            return
        menu = QMenu(self.widget)
        if job is not None:
            name = self.view.matrix().names.get(job, f"J{job}")
            act = menu.addAction(f"Terminate {name} now")
            act.triggered.connect(lambda: self.terminateRequested.emit(job))
        else:
            act = menu.addAction("Submit a job here…")
            act.triggered.connect(self.submitRequested.emit)
        menu.exec(ev.globalPos())


def is_tooltip(ev: QEvent) -> bool:
    """Whether ``ev`` asks for a tooltip."""
    return ev.type() == QEvent.Type.ToolTip and isinstance(ev, QHelpEvent)
