"""The compare window's shared timeline: one scrubber in simulated time for every pane.

Compare window: one timeline drives all the panes in simulated time. Unlike the main
window's :class:`~gangviz.gui.playback.timeline.Timeline` (positions = steps of one simulation), this one
is a time axis from 0 to the end of the longest run, with labelled ticks, the current time as a
handle, and one thin row of ticks per policy (its colour) at the times where it re-packed,
migrated or deleted a slot (``MOVE_KINDS``), so the panes' busy moments can be found by eye.
A press or drag asks for the time under the mouse (``timeRequested``); the owner seeks and calls
:meth:`set_time` back.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gangviz.gui import palette
from gangviz.timefmt import time_unit

PAD = 18.0
TRACK_Y = 14.0
ROW_H = 5.0


def nice_step(span: float, target: int = 8) -> float:
    """Return a 1-2-5 tick spacing giving about ``target`` ticks over ``span`` (>= 1e-9)."""
    raw = max(span, 1e-9) / max(target, 1)
    mag: float = 10 ** math.floor(math.log10(raw))
    for f in (1, 2, 5, 10):
        if raw <= f * mag:
            return f * mag
    return 10 * mag


class SharedTimeline(QWidget):
    """A time axis [0, end] with a handle at the shared time; see the module docstring."""

    timeRequested = Signal(float)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.end = 1.0
        self.time = 0.0
        #: seconds per slice on a source with a clock (ticks in s, min, h or d), else ``None``
        self.slice_seconds: float | None = None
        self.rows: list[tuple[QColor, list[float]]] = []
        #: the point size of the tick labels (larger in presentation mode)
        self.points = 8.0
        self._dragging = False
        self._fit_height()
        self.setToolTip("Shared time: click or drag to move every pane to that instant; the "
                        "coloured ticks mark each policy's re-packs, migrations and slot deletions")

    def set_span(self, end: float, rows: list[tuple[QColor, list[float]]]) -> None:
        """Show times 0..``end`` and one row of move ticks per ``(colour, times)``."""
        self.end = max(float(end), 1e-9)
        self.rows = rows
        self._fit_height()
        self.update()

    def set_point_size(self, points: float) -> None:
        """Draw the tick labels at ``points`` (8 in the window, larger when presenting)."""
        self.points = float(points)
        self._fit_height()
        self.update()

    def _label_height(self) -> float:
        font = QFont(self.font())
        font.setPointSizeF(self.points)
        return QFontMetricsF(font).height()

    def _fit_height(self) -> None:
        self.setMinimumHeight(int(TRACK_Y + 16 + ROW_H * len(self.rows) + self._label_height()))

    def set_time(self, t: float) -> None:
        """Put the handle at ``t``."""
        self.time = float(t)
        self.update()

    def x_of(self, t: float) -> float:
        """Return the x coordinate of time ``t``."""
        return PAD + (self.width() - 2 * PAD) * min(max(t / self.end, 0.0), 1.0)

    def time_at(self, x: float) -> float:
        """Return the time under ``x``, clamped to [0, end]."""
        w = max(self.width() - 2 * PAD, 1.0)
        return min(max((x - PAD) / w, 0.0), 1.0) * self.end

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        try:
            p.fillRect(self.rect(), palette.BACKGROUND)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            w = self.width() - 2 * PAD
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("#E6E3DD"))
            p.drawRoundedRect(QRectF(PAD, TRACK_Y - 3, w, 6), 3, 3)
            x = self.x_of(self.time)
            p.setBrush(QColor("#9DB7D5"))
            p.drawRoundedRect(QRectF(PAD, TRACK_Y - 3, x - PAD, 6), 3, 3)
            y = TRACK_Y + 9
            for colour, times in self.rows:
                p.setPen(QPen(colour, 1.2))
                last = -9.0
                for t in times:
                    tx = self.x_of(t)
                    if tx - last >= 1.5:
                        p.drawLine(QPointF(tx, y), QPointF(tx, y + ROW_H - 1))
                        last = tx
                y += ROW_H
            font = QFont(self.font())
            font.setPointSizeF(self.points)
            p.setFont(font)
            fm = QFontMetricsF(font)
            label_h = fm.height()
            unit, per = time_unit(self.end, self.slice_seconds)
            room = fm.horizontalAdvance(f"{self.end / per:,g} {unit}") + 2 * fm.averageCharWidth()
            step = nice_step(self.end / per, max(2, int(w / max(90.0, room)))) * per
            p.setPen(QPen(palette.MUTED_TEXT, 1))
            k = 0
            while k * step <= self.end + 1e-9:
                tx = self.x_of(k * step)
                p.drawLine(QPointF(tx, y + 1), QPointF(tx, y + 4))
                label = f"{k * step / per:,g}" + (f" {unit}" if k == 0 or unit != "slices" else "")
                half = fm.horizontalAdvance(label) / 2 + 2
                # a label never crosses the widget's edge: the first starts at it, the last ends at it
                left = min(max(tx - half, 0.0), self.width() - 2 * half)
                p.drawText(QRectF(left, y + 4, 2 * half, label_h), Qt.AlignmentFlag.AlignHCenter, label)
                k += 1
            p.setPen(QPen(QColor("#33506E"), 1.5))
            p.setBrush(QColor("#FFFFFF"))
            p.drawEllipse(QPointF(x, TRACK_Y), 7, 7)
        finally:
            p.end()

    def mousePressEvent(self, ev: QMouseEvent) -> None:
        if ev.button() == Qt.MouseButton.LeftButton:
            self._dragging = True
            self.timeRequested.emit(self.time_at(ev.position().x()))

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:
        if self._dragging:
            self.timeRequested.emit(self.time_at(ev.position().x()))

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:
        if self._dragging:
            self._dragging = False
            self.timeRequested.emit(self.time_at(ev.position().x()))
