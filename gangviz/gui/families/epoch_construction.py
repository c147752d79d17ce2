"""Over the epoch view: BUDDY's schedule built piece by piece, and a picture before the first step.

[McCann94 §3, Fig. 3(b)]: BUDDY fills the quantum bottom-up, largest minimum first, each piece
above the *min-seg*, the frontier segment whose height has the largest power of two in its
denominator. When a step shows a BUDDY schedule, this layer hides the pieces not placed yet and
reveals them one at a time (every :data:`STEP_MS` ms, or :meth:`BuddyConstruction.advance`),
drawing the min-seg the next piece goes above as a thick orange line with the job, its minimum
and the width it gets. Clicking the view shows the finished schedule at once.

A construction never overlaps the next step: followed by a player (:meth:`BuddyConstruction.
set_player`), its pieces come :data:`STEP_MS` divided by the player's speed apart, playing waits
for the last piece before it rests and steps on (:meth:`gangviz.gui.playback.player.Player.hold_while`),
and any step or jump that arrives first (stepping by hand, a batched speed, stepping back) makes
it jump to its end before the next picture is drawn.

Before the first step (no schedule yet) the layer draws the jobs waiting to enter, one bar each,
as wide as its minimum number of nodes, so the scenario's first picture is never an empty
rectangle.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen

from gangviz.epoch.buddy import buddy_pieces
from gangviz.gui.kit.overlay import ViewOverlay
from gangviz.gui.palette import IDLE, MUTED_TEXT, TEXT, job_colour, text_colour
from gangviz.sim.protocol import Simulation

if TYPE_CHECKING:
    from gangviz.epoch.model import Schedule
    from gangviz.gui.families.epoch import EpochView
    from gangviz.gui.playback.player import Player

#: one piece's min-seg: ``(left, right, height)``
MinSeg = tuple[int, int, Fraction]

STEP_MS = 900
MIN_SEG = QColor("#E69F00")


def construction(schedule: Schedule | None, mins: dict[int, int]) -> list[MinSeg] | None:
    """Return the min-seg ``(left, right, height)`` above which each piece of ``schedule`` was
    placed, in the schedule's order, or ``None`` when ``schedule`` is not a plain BUDDY schedule
    of these jobs (then there is no construction to show)."""
    if schedule is None or schedule.policy != "BUDDY":
        return None
    table = {p.job: mins[p.job] for p in schedule.pieces if p.job in mins}
    if len(table) != len(schedule.pieces):
        return None
    trace: list[MinSeg] = []
    try:
        pieces = buddy_pieces(schedule.nodes, table, trace=trace)
    except (RuntimeError, ValueError, ZeroDivisionError):
        return None
    if [(p.job, p.node, p.width, p.start, p.end) for p in pieces] != \
            [(p.job, p.node, p.width, p.start, p.end) for p in schedule.pieces]:
        return None
    return trace


#: the point size of the min-seg label and the heading at scale 1 (the view's scale multiplies it)
LABEL_POINTS = 9.5

class BuddyConstruction(ViewOverlay):
    """The layer over an :class:`~gangviz.gui.families.epoch.EpochView` (see the module docstring)."""

    def __init__(self, view: EpochView) -> None:
        super().__init__(view)
        self.view: EpochView = view
        self.sim: Simulation | None = None
        self.player: Player | None = None
        self.trace: list[MinSeg] | None = None
        self.k = 0  # pieces shown so far while building
        self.timer = QTimer(self)
        self.timer.setInterval(STEP_MS)
        self.timer.timeout.connect(self.advance)
        view.animationFinished.connect(self.start)

    def set_sim(self, sim: Simulation) -> None:
        """Read the jobs' minimum nodes (and the waiting jobs before the first step) from
        ``sim``, an epoch simulation (:meth:`~gangviz.sim.protocol.Simulation.min_nodes`)."""
        self.sim = sim
        self.update()

    def set_player(self, player: Player) -> None:
        """Follow ``player`` (its simulation, speed and steps; see the module docstring).

        Call it before the view itself is connected to ``player``, so the construction jumps to
        its end before the view draws the next step.
        """
        self.player = player
        self.set_sim(player.sim)
        player.hold_while(lambda: self.building)
        player.stepped.connect(self._next_step)
        player.moved.connect(self._next_step)

    def _next_step(self, *_args: object) -> None:
        if self.building:
            self.finish()

    def interval_ms(self) -> int:
        """Return the time between two pieces: :data:`STEP_MS` at 1x, shorter when playing faster."""
        speed = self.player.speed if self.player is not None else 1.0
        if not 0 < speed < float("inf"):
            speed = 1.0
        return max(1, round(STEP_MS / speed))

    @property
    def building(self) -> bool:
        """Whether a construction is being shown (some pieces still hidden)."""
        return self.trace is not None and self.k < len(self.trace)

    def start(self) -> bool:
        """Begin showing how the schedule now on the view was built; return whether it is a
        BUDDY schedule that can be shown so."""
        self.trace = construction(self.view.schedule, self._mins())
        self.k = 0
        if self.trace is None:
            self.timer.stop()
        else:
            self.timer.start(self.interval_ms())
        self.update()
        return self.trace is not None

    def advance(self) -> None:
        """Reveal the next piece (the timer calls this); stop after the last."""
        if self.trace is None:
            return
        self.k += 1
        if self.k >= len(self.trace):
            self.timer.stop()
        self.update()

    def finish(self) -> None:
        """Show the whole schedule now."""
        if self.trace is not None:
            self.k = len(self.trace)
        self.timer.stop()
        self.update()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.view and event.type() == QEvent.Type.MouseButtonPress and self.building:
            self.finish()
        return super().eventFilter(obj, event)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:
        sched = self.view.schedule
        if sched is None:
            self._paint_waiting()
            return
        trace = self.trace
        if trace is None or not self.building or self.view.is_animating():
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for piece in sched.pieces[self.k:]:
            p.fillRect(self.view.piece_rect(piece), IDLE)
        left, right, height = trace[self.k]
        piece = sched.pieces[self.k]
        r = self.view.plot_rect()
        n = sched.nodes
        y = r.bottom() - r.height() * float(height)
        x1, x2 = r.left() + r.width() * left / n, r.left() + r.width() * right / n
        p.setPen(QPen(MIN_SEG, 5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        p.drawLine(QPointF(x1, y), QPointF(x2, y))
        target = self.view.piece_rect(piece)
        p.setPen(QPen(MIN_SEG, 2, Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(target.adjusted(1, 1, -1, -1))
        mins = self._mins()
        name = self.view._names.get(piece.job, f"J{piece.job}")
        text = (f"{name} (at least {mins.get(piece.job, '?')} nodes) goes above the min-seg "
                f"P{left + 1}..P{right} at height {height}: width {piece.width}")
        font = QFont(self.font())
        font.setBold(True)
        font.setPointSizeF(LABEL_POINTS * getattr(self.view, "scale", 1.0))
        p.setFont(font)
        fm = p.fontMetrics()
        box = QRectF(0, 0, fm.horizontalAdvance(text) + 16, fm.height() + 8)
        bx = min(max(x1, r.left()), r.right() - box.width())
        by = y - box.height() - 6 if y - box.height() - 6 > r.top() else y + 6
        box.moveTo(max(bx, 0), by)
        p.fillRect(box, QColor(255, 255, 255, 235))
        p.setPen(QPen(MIN_SEG, 1.5))
        p.drawRect(box)
        p.setPen(TEXT)
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        p.end()

    def _mins(self) -> dict[int, int]:
        """Job id -> minimum nodes of the jobs the quantum is built for (none without a sim)."""
        return self.sim.min_nodes() if self.sim is not None else {}

    def _paint_waiting(self) -> None:
        """The jobs that enter at the start, one bar per job as wide as its minimum nodes."""
        sim = self.sim
        if sim is None:
            return
        jobs = list(sim.min_nodes().items())
        if not jobs:
            return
        r = self.view.plot_rect()
        n = sim.real_processors
        p = QPainter(self)
        h = r.height() / len(jobs)
        font = QFont(self.font())
        font.setPointSizeF(max(8.0, min(12.0, h * 0.45)) * getattr(self.view, "scale", 1.0))
        p.setFont(font)
        for i, (job, least) in enumerate(jobs):
            rect = QRectF(r.left(), r.bottom() - (i + 1) * h + 2, r.width() * least / n, h - 4)
            fill = QColor(job_colour(job))
            fill.setAlpha(150)
            p.fillRect(rect, fill)
            label = f"J{job}: at least {least} node{'s' if least != 1 else ''}"
            inside = p.fontMetrics().horizontalAdvance(label) + 12 <= rect.width()
            if inside:
                p.setPen(text_colour(fill))
                p.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
            else:  # beside the bar, on the background
                p.setPen(TEXT)
                p.drawText(QRectF(rect.right() + 6, rect.top(), 320, rect.height()),
                           Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, label)
        p.setPen(MUTED_TEXT)
        font.setPointSizeF(LABEL_POINTS * getattr(self.view, "scale", 1.0))
        p.setFont(font)
        p.drawText(QRectF(r.left(), 0, r.width(), r.top() - 2), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                   f"{len(jobs)} jobs arrive, each needing a minimum of nodes (memory); "
                   "Right builds the first quantum.")
        p.end()
