"""Under the multi-site queues: the gangs still to come, so the first picture is never empty.

[Papazachos §2]: gangs arrive over time and the grid dispatcher sends each to a site. For a
scripted scenario the arrivals are known ahead; this layer draws the ones that have not arrived
yet as a row of chips under the sites, each as wide as its number of tasks, with its name,
arrival time and site, in the gang's colour (:func:`gangviz.gui.queue_view.gang_colour`). It
shows at most :data:`MAX_SHOWN` and hides itself once every gang has arrived, and for a random
stream (nothing is known ahead).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QWidget

from gangviz.gui.queue_view import gang_colour

MAX_SHOWN = 8


def upcoming(sim) -> list[tuple[int, int, float, int]]:
    """Return ``(gang, size, at, site)`` of the scripted gangs not arrived yet (empty for a
    random stream or another kind of simulation)."""
    stream = getattr(sim, "stream", None)
    if stream is None or not hasattr(stream, "ensure"):  # a random stream knows no future
        return []
    arrived = getattr(sim, "_next_gang", 0)
    out = []
    for g in range(arrived, len(stream.arrival)):
        out.append((g, int(stream.size[g]), float(stream.arrival[g]), int(stream.site[g])))
    return out


class ArrivalsStrip(QWidget):
    """The layer over a :class:`~gangviz.gui.queue_view.QueueView` (see the module docstring)."""

    def __init__(self, view) -> None:
        super().__init__(view)
        self.view = view
        self.sim = None
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setGeometry(view.rect())
        view.installEventFilter(self)

    def set_player(self, player) -> None:
        """Follow ``player``: its simulation says which gangs are still to come."""
        self.sim = player.sim
        player.stepped.connect(self.update)
        player.moved.connect(self.update)
        self.update()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if obj is self.view and event.type() == QEvent.Type.Resize:
            self.setGeometry(self.view.rect())
        return False

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        gangs = upcoming(self.sim)
        if not gangs:
            return
        cfg = self.view._state.cfg
        k = self.view.scale()
        top = self.view.proc_rect(0, cfg.procs - 1).bottom() + 14 * k
        h = 20 * k
        if top + 2 * h > self.height():
            return
        p = QPainter(self)
        font = QFont(self.font())
        font.setPixelSize(max(10, round(10 * k)))
        p.setFont(font)
        p.setPen(QColor("#444444"))
        p.drawText(QRectF(8, top, self.width() - 16, h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                   "Still to come:")
        x, y = 8.0, top + h + 4
        cell = 14 * k
        shown = 0
        for gang, size, at, site in gangs[:MAX_SHOWN]:
            label = f"G{gang} at t={at:g} → site {site + 1}"
            w = size * cell
            text_w = p.fontMetrics().horizontalAdvance(label) + 8
            if x + w + text_w > self.width() - 8:
                if y + 2 * h + 4 > self.height():
                    break  # no room for another row: the rest is counted below
                x, y = 8.0, y + h + 4
            colour = gang_colour(gang)
            for i in range(size):
                p.fillRect(QRectF(x + i * cell, y + 2, cell - 2, h - 4), colour)
            p.setPen(QPen(QColor("#222222")))
            p.drawText(QRectF(x + w + 4, y, text_w, h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       label)
            x += w + text_w + 14 * k
            shown += 1
        if shown < len(gangs):
            more = f"+{len(gangs) - shown} more"
            p.setPen(QColor("#444444"))
            p.drawText(QRectF(8, top, self.width() - 16, h), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                       more)
        p.end()
