"""The timeline scrubber: the steps known so far, the current one, and markers.

The timeline carries markers where re-packing, migration
and slot deletion happened (``MOVE_KINDS``), and a red one where a user's policy was refused a
step (the player's ``failure``). A marker sits at the position *after* its step (the
picture that shows the move's result), and clicking or dragging moves the player there. Dragging
only jumps when the mouse is released or pauses, so scrubbing never queues work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QCoreApplication, QLineF, QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gangviz.gui import palette
from gangviz.gui.playback.wiring import follow

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player

PAD = 12.0


class Timeline(QWidget):
    """Paints and scrubs the player's history (see the module docstring)."""

    def __init__(self, player: Player | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.player: Player | None = None
        self._drag: int | None = None
        #: steps the whole run will take, when known ahead (an export): the bar then spans the
        #: run and the handle moves along it instead of sitting at the right end
        self.total = 0
        self.setFixedHeight(34)
        self.setMouseTracking(False)
        self.setToolTip("Timeline: drag to scrub; orange ticks are re-packs, migrations and slot deletions")
        if player is not None:
            self.set_player(player)

    def set_player(self, player: Player) -> None:
        """Follow ``player``."""
        follow(self.player, player, ("moved", "stepped", "historyChanged"), self.update)
        follow(self.player, player, ("failed",), self._failed)
        self.player = player
        self.update()

    def _failed(self, message: str) -> None:
        self.update()

    def failure_x(self) -> float | None:
        """Return the x of the refused step's red marker, or ``None`` when nothing failed."""
        p = self.player
        if p is None or p.failure is None:
            return None
        return self.x_of(len(p.known))

    def _span(self) -> int:
        p = self.player
        if p is None:
            return max(self.total, 1)
        return max(p.furthest, p.position, self.total, 1)

    def x_of(self, position: int) -> float:
        """Return the x coordinate of ``position`` (steps taken)."""
        w = self.width() - 2 * PAD
        return PAD + w * position / self._span()

    def position_at(self, x: float) -> int:
        """Return the position (steps taken) under x, clamped to the known range."""
        w = max(self.width() - 2 * PAD, 1.0)
        return max(0, min(self._span(), round((x - PAD) / w * self._span())))

    def _marker_xs(self, markers: list[int]) -> list[float]:
        """Return the x of every marker, at most one per pixel column (thousands of markers
        would otherwise be drawn on top of each other)."""
        if not markers:
            return []
        w = self.width() - 2 * PAD
        xs = PAD + w * (np.asarray(markers, dtype=np.float64) + 1) / self._span()
        _, first = np.unique(np.floor(xs).astype(np.int64), return_index=True)
        out: list[float] = xs[first].tolist()
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), palette.BACKGROUND)
            p = self.player
            if p is None:
                return
            mid = self.height() / 2
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor("#E6E3DD"))
            painter.drawRoundedRect(QRectF(PAD, mid - 3, self.width() - 2 * PAD, 6), 3, 3)
            pos = p.position if self._drag is None else self._drag
            painter.setBrush(QColor("#9DB7D5"))
            painter.drawRoundedRect(QRectF(PAD, mid - 3, self.x_of(pos) - PAD, 6), 3, 3)
            painter.setPen(QPen(palette.ACCENT.darker(115), 2.0))
            painter.drawLines([QLineF(x, mid - 9, x, mid + 9) for x in self._marker_xs(p.markers)])
            fx = self.failure_x()
            if fx is not None:  # under the handle: it stays visible while the handle rests there
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(palette.VIOLATION)
                painter.drawRect(QRectF(fx - 2, 1, 4, self.height() - 2))
            x = self.x_of(pos)
            painter.setPen(QPen(QColor("#33506E"), 1.5))
            painter.setBrush(QColor("#FFFFFF"))
            painter.drawEllipse(QPointF(x, mid), 7, 7)
            f = QFont(self.font())
            f.setPointSizeF(8)
            painter.setFont(f)
        finally:
            painter.end()

    def mousePressEvent(self, ev: QMouseEvent) -> None:
        if self.player is None:
            return
        self._drag = self.position_at(ev.position().x())
        self.update()

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:
        if self._drag is not None:
            self._drag = self.position_at(ev.position().x())
            self.update()

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:
        if self._drag is None or self.player is None:
            return
        target = self.position_at(ev.position().x())
        self._drag = None
        self.player.go_to(target)
        self.update()


class RunLength(QObject):
    """Counts the steps of a long run in a worker process, for the timeline to span it (a run
    too long to count ahead when it opens). The worker is a daemon process (it ends with this
    one, and when the application quits); nothing runs off the GUI thread but the worker: a
    :class:`QTimer` polls its pipe and :attr:`counted` fires from it, on the GUI thread."""

    #: ``(generation, steps)`` of the count :meth:`start` returned the generation of
    counted = Signal(int, int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.generation = 0
        self._proc: Any = None
        self._recv: Any = None
        self.timer = QTimer(self)
        self.timer.setInterval(250)
        self.timer.timeout.connect(self._poll)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)

    def start(self, source: tuple[Any, ...], spec: str | None, params: dict[str, Any] | None,
              watch: bool | None) -> int:
        """Count the steps of ``spec`` on ``source`` (:func:`gangviz.experiments.schedule.count_task`)
        in a spawned worker, ending a count still going; return its generation."""
        import multiprocessing
        import os

        from gangviz.experiments.schedule import count_into
        from gangviz.gui.kit.spawning import main_not_imported

        self.stop()
        self.generation += 1
        ctx = multiprocessing.get_context("spawn")
        recv, send = ctx.Pipe(duplex=False)
        with main_not_imported():
            proc = ctx.Process(target=count_into, args=(send, os.getpid(), source, spec, dict(params or {}), watch),
                               daemon=True)
            proc.start()
        send.close()
        self._proc, self._recv = proc, recv
        self.timer.start()
        return self.generation

    def _poll(self) -> None:
        recv, proc = self._recv, self._proc
        if recv is None:
            return
        steps = None
        if recv.poll():
            try:
                steps = recv.recv()
            except (EOFError, OSError):
                steps = None
        elif proc is not None and proc.is_alive():
            return
        self.stop()
        if isinstance(steps, int):
            self.counted.emit(self.generation, steps)

    def stop(self) -> None:
        """End a count still going (its worker is terminated); nothing is emitted for it."""
        self.timer.stop()
        proc, recv = self._proc, self._recv
        self._proc = self._recv = None
        if proc is not None:
            if proc.is_alive():
                proc.terminate()
            proc.join(timeout=2)
        if recv is not None:
            recv.close()
