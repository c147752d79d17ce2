"""The epoch view: one quantum's N x 1 rectangle of the memory-constrained model.

McCann94 Fig. 3 and 6: nodes run along the horizontal axis, time within the
quantum runs up the vertical axis (t = 0 at the bottom, as BUDDY fills the rectangle bottom-up),
and each job's piece is a rectangle in the job's stable colour (:mod:`gangviz.gui.palette`)
with its label where the label fits. Epoch boundaries are drawn as dark lines.

``set_state(schedule)`` draws at once; ``show_step(step)`` animates a step of
:class:`~gangviz.epoch.sim.EpochSimulation`: pieces of jobs that stay move and resize to their
new place, a departing job's piece fades out and an arriving job's piece fades in, driven by a
``QVariantAnimation`` whose duration (``animation_ms``) may be 0 for instant updates.
``animationFinished`` is emitted when the picture shows the new state. Connect
``Player.stepped`` to :meth:`EpochView.show_step` to play a simulation.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

from PySide6.QtCore import QEasingCurve, QPointF, QRectF, Qt, QVariantAnimation, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gangviz.epoch.model import Piece, Schedule
from gangviz.epoch.records import JobArrived, ScheduleRebuilt
from gangviz.gui.palette import BACKGROUND, IDLE, MUTED_TEXT, TEXT, job_colour, text_colour

if TYPE_CHECKING:
    from gangviz.core.record import Step
    from gangviz.gui.kit.overlay import ViewOverlay

MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 46, 12, 26, 30
EPOCH_LINE = QColor("#222222")
PHASE_LINE = QColor("#E69F00")  # Okabe-Ito orange: the current instant of the quantum


def fraction_of_t(frac: Fraction) -> str:
    """Return the label of time ``frac`` of the quantum in full-size digits: "T/2", "4T/5",
    "3T/7" (a vulgar-fraction character such as "½" draws its digits at about two thirds of the
    font's size, too small for the back of a room)."""
    top = "T" if frac.numerator == 1 else f"{frac.numerator}T"
    return top if frac.denominator == 1 else f"{top}/{frac.denominator}"


def time_ticks(schedule: Schedule | None) -> list[tuple[Fraction, str]]:
    """Return the ticks of the time axis inside the quantum: the boundaries between the epochs
    of an epoch schedule (each epoch lasts in proportion to its jobs [McCann94 §4], so ten
    jobs in epochs of 5, 3 and 2 give T/2 and 4T/5, as in Fig. 6), else T/4, T/2 and 3T/4."""
    epochs = getattr(schedule, "epochs", ()) if schedule is not None else ()
    if epochs:
        total = sum(len(e) for e in epochs)
        fracs, t = [], Fraction(0)
        for e in epochs[:-1]:
            t += Fraction(len(e), total)
            fracs.append(t)
    else:
        fracs = [Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)]
    return [(f, fraction_of_t(f)) for f in fracs]


def node_parts(nodes: int) -> int:
    """Return how many equal parts the node axis is ticked in: 4 when they fall on whole nodes,
    else the first of 3, 2, 5, 6 that does (4 when none does)."""
    return next((k for k in (4, 3, 2, 5, 6) if nodes and nodes % k == 0), 4)

class EpochView(QWidget):
    """Draws one quantum's schedule; see the module docstring.

    Args:
        animation_ms: duration of a step's animation in milliseconds (0: instant).
    """

    animationFinished = Signal()
    #: the waiting jobs and BUDDY's construction, a layer attached by
    #: :mod:`gangviz.gui.families.table` (:class:`~gangviz.gui.families.epoch_construction.BuddyConstruction`)
    construction: ViewOverlay

    def __init__(self, parent: QWidget | None = None, animation_ms: int = 400) -> None:
        super().__init__(parent)
        self._schedule: Schedule | None = None
        self._before: Schedule | None = None
        self._names: dict[int, str] = {}
        self._phase: float | None = None
        self._t = 1.0
        #: N for the axis before a schedule is shown (the window sets it from the simulation)
        self.nodes_hint = 0
        self.scale = 1.0
        self._anim = QVariantAnimation(self)
        self._anim.setStartValue(0.0)
        self._anim.setEndValue(1.0)
        self._anim.setEasingCurve(QEasingCurve.Type.InOutCubic)
        self._anim.valueChanged.connect(self._on_value)
        self._anim.finished.connect(self._on_finished)
        self.set_animation_ms(animation_ms)
        self.setMinimumSize(240, 160)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    # --- API --------------------------------------------------------------------------------

    @property
    def schedule(self) -> Schedule | None:
        """Return the schedule shown (the new one while animating)."""
        return self._schedule

    def set_animation_ms(self, ms: int) -> None:
        """Set the animation duration; raise ``ValueError`` for a negative value."""
        if ms < 0:
            raise ValueError(f"animation duration must be >= 0 ms, got {ms}")
        self._anim.setDuration(int(ms))

    def animation_ms(self) -> int:
        """Return the animation duration in milliseconds."""
        return self._anim.duration()

    def is_animating(self) -> bool:
        """Return True while a transition is running."""
        return self._anim.state() == QVariantAnimation.State.Running

    def set_state(self, schedule: Schedule | None, names: Mapping[int, str] | None = None,
                  phase: float | None = None) -> None:
        """Show ``schedule`` at once (stopping any animation); ``phase`` in [0, 1) marks the
        current instant of the quantum, None hides the mark."""
        self._anim.stop()
        self._schedule, self._before, self._t = schedule, None, 1.0
        if names is not None:
            self._names = dict(names)
        self._phase = phase
        self.update()

    def set_phase(self, phase: float | None) -> None:
        """Move the current-instant mark to ``phase`` (fraction of the quantum) or hide it."""
        self._phase = phase
        self.update()

    def show_step(self, step: Step) -> None:
        """Animate ``step`` (a :class:`~gangviz.core.record.Step` of the epoch simulation).

        The last ``schedule_rebuilt`` change gives the old and new schedules; a step without one
        leaves the picture as it is (``animationFinished`` is still emitted).
        """
        rebuilt = [c for c in step.changes if isinstance(c, ScheduleRebuilt)]
        for c in step.changes:
            if isinstance(c, JobArrived):
                self._names.setdefault(c.job, f"J{c.job}")
        if not rebuilt:
            self.animationFinished.emit()
            return
        self._anim.stop()
        self._before, self._schedule = rebuilt[0].before, rebuilt[-1].after
        if self._anim.duration() == 0 or self._before is None:
            self._before, self._t = None, 1.0
            self.update()
            self.animationFinished.emit()
            return
        self._t = 0.0
        self._anim.start()

    def set_scale(self, scale: float) -> None:
        """Draw margins and text ``scale`` times their normal size (presentation mode)."""
        self.scale = max(0.5, float(scale))
        self.update()

    def plot_rect(self) -> QRectF:
        """Return the widget area of the N x 1 rectangle."""
        k = self.scale
        return QRectF(MARGIN_LEFT * k, MARGIN_TOP * k, max(1.0, self.width() - (MARGIN_LEFT + MARGIN_RIGHT) * k),
                      max(1.0, self.height() - (MARGIN_TOP + MARGIN_BOTTOM) * k))

    def piece_rect(self, piece: Piece, nodes: int | None = None) -> QRectF:
        """Return the widget rectangle of ``piece`` (time upwards, nodes rightwards)."""
        r = self.plot_rect()
        n = nodes or (self._schedule.nodes if self._schedule else 1)
        x0 = r.left() + r.width() * piece.node / n
        x1 = r.left() + r.width() * (piece.node + piece.width) / n
        y0 = r.bottom() - r.height() * float(piece.end)
        y1 = r.bottom() - r.height() * float(piece.start)
        return QRectF(QPointF(x0, y0), QPointF(x1, y1))

    def job_rect(self, job: int) -> QRectF:
        """Return the widget rectangle of ``job``'s piece in the shown schedule (KeyError if
        the job is not scheduled)."""
        if self._schedule is None:
            raise KeyError(job)
        return self.piece_rect(self._schedule.piece_of(job))

    # --- animation ---------------------------------------------------------------------------

    def _on_value(self, value: float) -> None:
        self._t = float(value)
        self.update()

    def _on_finished(self) -> None:
        self._t, self._before = 1.0, None
        self.update()
        self.animationFinished.emit()

    # --- painting ----------------------------------------------------------------------------

    def _frames(self) -> list[tuple[int, QRectF, float]]:
        """Return (job, rect, opacity) to draw at the current animation time."""
        new = {p.job: p for p in self._schedule.pieces} if self._schedule else {}
        if self._before is None or self._t >= 1.0:
            return [(j, self.piece_rect(p), 1.0) for j, p in new.items()]
        old = {p.job: p for p in self._before.pieces}
        t = self._t
        out = []
        for j, p in old.items():
            a = self.piece_rect(p, self._before.nodes)
            if j in new:
                b = self.piece_rect(new[j])
                out.append((j, QRectF(a.left() + (b.left() - a.left()) * t,
                                      a.top() + (b.top() - a.top()) * t,
                                      a.width() + (b.width() - a.width()) * t,
                                      a.height() + (b.height() - a.height()) * t), 1.0))
            else:
                out.append((j, a, 1.0 - t))
        out += [(j, self.piece_rect(p), t) for j, p in new.items() if j not in old]
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the axes, the pieces with labels, the epoch lines and the phase mark."""
        p = QPainter(self)
        p.fillRect(self.rect(), BACKGROUND)
        r = self.plot_rect()
        p.fillRect(r, IDLE)
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, min(11.0, r.height() / 18)) * self.scale)
        p.setFont(font)
        fm = QFontMetricsF(font)
        for job, rect, alpha in self._frames():
            fill = QColor(job_colour(job))
            fill.setAlphaF(max(0.0, min(1.0, alpha)))
            p.fillRect(rect, fill)
            p.setPen(QPen(BACKGROUND, 1))
            p.drawRect(rect)
            label = self._names.get(job, f"J{job}")
            if alpha > 0.5 and fm.horizontalAdvance(label) + 4 <= rect.width() \
                    and fm.height() + 2 <= rect.height():
                p.setPen(text_colour(job_colour(job)))
                p.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
        sched = self._schedule
        if sched is not None and sched.epochs and self._t >= 1.0:
            p.setPen(QPen(EPOCH_LINE, 2))
            ends = sorted({float(pc.end) for pc in sched.pieces})[:-1]
            for e in ends:
                y = r.bottom() - r.height() * e
                p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
        if self._phase is not None:
            p.setPen(QPen(PHASE_LINE, 2, Qt.PenStyle.DashLine))
            y = r.bottom() - r.height() * self._phase
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
        self._draw_axes(p, r, fm)
        p.end()

    def _draw_axes(self, p: QPainter, r: QRectF, fm: QFontMetricsF) -> None:
        p.setPen(QPen(TEXT, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r)
        n = self._schedule.nodes if self._schedule else self.nodes_hint
        p.setPen(MUTED_TEXT)
        k = self.scale
        # nodes: ticks at equal parts of N that fall on whole nodes; time: at the epochs'
        # boundaries (Fig. 6 of McCann94 marks 1/2 and 4/5 of T), else at quarters of T.
        # The axis title sits between the first two node ticks so that no label overlaps it
        parts = node_parts(n)
        for i in range(1, parts):
            x = r.left() + r.width() * i / parts
            p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 4 * k))
            if n:
                p.drawText(QRectF(x - 30 * k, r.bottom() + 2, 60 * k, fm.height()),
                           Qt.AlignmentFlag.AlignHCenter, f"{n * i // parts}")
        for frac, mark in time_ticks(self._schedule):
            y = r.bottom() - r.height() * float(frac)
            p.drawLine(QPointF(r.left() - 4 * k, y), QPointF(r.left(), y))
            p.drawText(QRectF(0, y - fm.height() / 2, MARGIN_LEFT * k - 5, fm.height()),
                       Qt.AlignmentFlag.AlignRight, mark)
        title = QRectF(r.left() + r.width() / parts + 12 * k, r.bottom() + 2,
                       r.width() / parts - 24 * k, MARGIN_BOTTOM * k - 2)
        p.drawText(title, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                   f"nodes (N = {n})" if n else "nodes")
        h = fm.height()
        p.drawText(QRectF(r.left() - 4, r.bottom() + 2, 30 * k, h), Qt.AlignmentFlag.AlignLeft, "0")
        if n:
            p.drawText(QRectF(r.right() - 40 * k, r.bottom() + 2, 42 * k, h),
                       Qt.AlignmentFlag.AlignRight, str(n))
        p.drawText(QRectF(0, r.bottom() - fm.height(), MARGIN_LEFT * k - 4, fm.height()),
                   Qt.AlignmentFlag.AlignRight, "0")
        p.drawText(QRectF(0, r.top(), MARGIN_LEFT * k - 4, fm.height()),
                   Qt.AlignmentFlag.AlignRight, "T")
        p.save()
        p.translate(max(9.0, h * 0.6), r.center().y())  # left of the T/4 T/2 3T/4 tick labels
        p.rotate(-90)
        p.drawText(QRectF(-r.height() / 2, -h / 2, r.height(), h), Qt.AlignmentFlag.AlignCenter,
                   "time in quantum")
        p.restore()
        if self._schedule is not None:
            s = self._schedule
            epochs = f", {len(s.epochs)} epochs" if s.epochs else ""
            p.setPen(TEXT)
            p.drawText(QRectF(r.left(), 0, r.width(), MARGIN_TOP * k - 2),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       f"{s.policy}: overhead {s.overhead} "
                       f"({float(s.normalized_overhead):.2f} per node){epochs}")
