"""Under the multi-site queues: the gangs still to come, so the first picture is never empty.

[Papazachos §2]: gangs arrive over time and the grid dispatcher sends each to a site. For a
scripted scenario the arrivals are known ahead; this layer draws the ones that have not arrived
yet as a row of chips in the room the view keeps under its sites, each as wide as its number of tasks, with its name,
arrival time and site, in the gang's colour (:func:`gangviz.gui.families.sites.gang_colour`). It
shows at most :data:`MAX_SHOWN` and hides itself once every gang has arrived, and for a random
stream (nothing is known ahead).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen

from gangviz.gui.families.sites import QueueView, gang_colour
from gangviz.gui.kit.overlay import ViewOverlay
from gangviz.sim.protocol import Arrival, Simulation
from gangviz.timefmt import format_time

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player

MAX_SHOWN = 8
#: the room (base pixels, scaled with the view) kept under the sites: one row of chips
FOOTER = 22


def upcoming(sim: Simulation | None) -> tuple[Arrival, ...]:
    """Return the scripted gangs not arrived by ``sim``'s position (empty for a random stream,
    another family of simulation or none): :meth:`~gangviz.sim.protocol.Simulation.upcoming`."""
    return sim.upcoming() if sim is not None else ()


class ArrivalsStrip(ViewOverlay):
    """The layer over a :class:`~gangviz.gui.families.sites.QueueView` (see the module docstring)."""

    def __init__(self, view: QueueView) -> None:
        super().__init__(view)
        self.view: QueueView = view
        self.sim: Simulation | None = None

    def set_player(self, player: Player) -> None:
        """Follow ``player``: its simulation says which gangs are still to come."""
        self.sim = player.sim
        player.stepped.connect(self._follow)
        player.moved.connect(self._follow)
        self._follow()

    def _follow(self, *_args: object) -> None:
        # the view keeps room under its sites only while some gang is still to come
        self.view.set_footer(FOOTER if upcoming(self.sim) else 0)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        gangs = upcoming(self.sim)
        if not gangs:
            return
        k = self.view.scale()
        area = self.view.footer_rect()
        if area.height() < 8 or area.bottom() > self.height() + 1:
            return
        p = QPainter(self)
        font = QFont(self.font())
        font.setPixelSize(self.view.text_px(k))
        p.setFont(font)
        fm = p.fontMetrics()
        h = min(area.height(), 18 * k)
        y = area.top() + (area.height() - h) / 2
        title = "Still to come:"
        p.setPen(QColor("#444444"))
        p.drawText(QRectF(area.left(), y, area.width(), h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                   title)
        x = area.left() + fm.horizontalAdvance(title) + 10 * k
        more_w = fm.horizontalAdvance(f"+{len(gangs)} more") + 8 * k
        cell = 14 * k
        shown = 0
        for gang in gangs[:MAX_SHOWN]:
            label = f"G{gang.gang} at {format_time(gang.at)} → site {gang.site + 1}"
            w = gang.size * cell
            text_w = fm.horizontalAdvance(label) + 8
            if x + w + text_w > area.right() - more_w:
                break  # no room in the row: the rest is counted at its end
            colour = gang_colour(gang.gang)
            for i in range(gang.size):
                p.fillRect(QRectF(x + i * cell, y + 2, cell - 2, h - 4), colour)
            p.setPen(QPen(QColor("#222222")))
            p.drawText(QRectF(x + w + 4, y, text_w, h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       label)
            x += w + text_w + 14 * k
            shown += 1
        if shown < len(gangs):
            p.setPen(QColor("#444444"))
            p.drawText(QRectF(area.left(), y, area.width(), h), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                       f"+{len(gangs) - shown} more")
        p.end()
