"""The space-sharing view: a processors-by-time Gantt strip with the queue and its reservations.

For a space-sharing simulation (FCFS, EASY, conservative backfilling, Zhang01 §1-§3), read
through the :class:`~gangviz.sim.protocol.Simulation` protocol only: its snapshot, a
:class:`~gangviz.sim.protocol.GanttSnapshot`:

* the strip: time runs to the right (the clock is the vertical orange line, a third of the way
  in once past the start, so the strip advances with the clock), processors run up (0 at the bottom, the machine's
  width at the top). Each running job is a bar in its stable colour from its start to its
  predicted end (start + estimate: what the scheduler knows), solid up to now and pale after;
  bars are stacked in order of start;
* reservations are dashed outlines of the job's size and estimate at the reserved time (EASY:
  the head; conservative: every waiting job; FCFS: the head's predicted start, drawn dotted as
  it is no reservation);
* the backfill window (EASY) is the hatched region (dark grey stripes with a dashed edge, a
  mark no job's colour or pale tint resembles): the processors free now up to the head's
  shadow time, and from then on the extra processors the head will not need;
* below, the queue in priority order: each job's size, estimate and reservation.

Beside matrices (the compare window) the strip is drawn transposed (``processors_across``):
processors run across, 0 at the left and the machine's width at the right, under the same
axis line as a matrix pane's P1 ... Pn, and time runs up, the clock a horizontal line a third
of the way up. Transposing the strip rather than the matrices keeps the Ousterhout matrix as
the papers draw it (slots as rows, processors as columns [Zhou99 §2, Zhang01 §2]) and as
the room saw it in the main window; a column of the matrix pane and a column of the strip are
then the same thing (processors), so a job's width reads the same in both panes; and time
running up follows the matrix, whose first slot is the bottom row. The main window, with no
matrix beside it, keeps the Gantt chart's usual time to the right.

One time format on the screen: the header, the axis and the queue write times as the clock
does (:func:`gangviz.timefmt.clock_text`: ``04:20:09`` for a trace, slices for a model). The
time axis has round ticks (:func:`round_ticks`: 1, 2 or 5 of a second, minute, hour or day,
at least five); the key's swatches are drawn as the strip draws each mark; a job's name never
lies across the now-line (it moves to the side of the line where it fits, else it is left out).

``set_state(sim)`` draws the simulation's current state; ``show_step(step)`` redraws after a
step (the player drives both through the window's family-view adapter). Hovering a bar or a
queue entry shows the job's fate as a tooltip; ``jobAt(pos)`` answers the same question.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from gangviz.gui.palette import (
    ACCENT,
    BACKGROUND,
    GRID,
    IDLE,
    MUTED_TEXT,
    TEXT,
    job_colour,
    text_colour,
)
from gangviz.sim.protocol import GanttSnapshot, Simulation
from gangviz.timefmt import clock_text, format_time

if TYPE_CHECKING:
    from gangviz.core.record import Step

MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP = 54, 14, 30
QUEUE_ROW = 20
#: the point size of every text of the view at scale 1 (at presentation's scale 2, 19 points:
#: capitals and digits over 18 pixels high)
FONT_POINTS = 9.5
#: the backfill window: dark grey stripes over the idle cells, with a dashed dark edge
WINDOW_FILL = QColor(95, 90, 83, 150)
WINDOW_EDGE = QColor("#3D3A35")
RESERVATION = QColor("#332288")
#: a job's pale rest: its colour at this opacity
REST_ALPHA = 90
#: the time axis has at least this many ticks
MIN_TICKS = 5
#: tick steps in seconds for a clock (1, 2, 5 of each unit) and the factors for slices
_CLOCK_STEPS = [m * u for u in (1, 60, 3600, 86400) for m in (1, 2, 5, 10, 20)] + \
    [m * 86400 for m in (50, 100, 200, 500, 1000)]


def round_ticks(t0: float, t1: float, slice_seconds: float | None, least: int = MIN_TICKS) -> list[float]:
    """Return round tick times (slices) in ``[t0, t1]``: multiples of the largest step of 1, 2
    or 5 of a unit (seconds, minutes, hours, days for a clock of ``slice_seconds`` seconds per
    slice; powers of ten of slices without one) that leaves at least ``least`` ticks."""
    span = t1 - t0
    if not (math.isfinite(span) and span > 0):
        return [t0]
    if slice_seconds:
        steps = [s / slice_seconds for s in _CLOCK_STEPS]
    else:
        k = math.floor(math.log10(span)) - 3
        steps = [m * 10.0 ** e for e in range(k, k + 6) for m in (1, 2, 5)]
    chosen = steps[0]
    for step in steps:
        if math.floor(t1 / step) - math.ceil(t0 / step) + 1 >= least:
            chosen = step
    first = math.ceil(t0 / chosen - 1e-9)
    ticks = [k * chosen for k in range(first, int(math.floor(t1 / chosen + 1e-9)) + 1)]
    return ticks if len(ticks) <= 200 else ticks[:: len(ticks) // 100 + 1]


def paint_window(p: QPainter, rect: QRectF, scale: float = 1.0) -> None:
    """Draw ``rect`` as the backfill window: diagonal dark grey stripes and a dashed edge."""
    if rect.width() <= 0 or rect.height() <= 0:
        return
    p.save()
    p.setClipRect(rect, Qt.ClipOperation.IntersectClip)
    p.setPen(QPen(WINDOW_FILL, max(1.5, 1.5 * scale)))
    step = 7.0 * scale
    h = rect.height()
    x = rect.left() - h
    while x < rect.right():
        p.drawLine(QPointF(x, rect.bottom()), QPointF(x + h, rect.top()))
        x += step
    p.setClipping(False)
    p.setPen(QPen(WINDOW_EDGE, max(1.0, scale), Qt.PenStyle.DashLine))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect)
    p.restore()


def fitted(fm: QFontMetricsF, width: float, forms: list[str]) -> str:
    """Return the first of ``forms`` (longest first) that fits ``width`` pixels, else the last
    one elided with "…", so that no text is cut at a pane's edge."""
    for text in forms:
        if fm.horizontalAdvance(text) <= width:
            return text
    return fm.elidedText(forms[-1], Qt.TextElideMode.ElideRight, max(width, 0.0))


def gantt_of(sim: Simulation) -> GanttSnapshot:
    """Return a space-sharing ``sim``'s snapshot (that family's :meth:`Simulation.snapshot`)."""
    return cast(GanttSnapshot, sim.snapshot())


def _fmt(st: GanttSnapshot, t: float) -> str:
    """A time ``t`` (slices) as a label, as the clock writes it (``04:20:09``, or slices for a
    source without a clock: :func:`gangviz.timefmt.clock_text`)."""
    return clock_text(t, st.slice_seconds)


def _span(st: GanttSnapshot, t: float) -> str:
    """A duration ``t`` (slices, an estimate) in the same clock form (``00:01:00``), or slices."""
    return clock_text(t, st.slice_seconds) if st.slice_seconds else format_time(t)


def header_forms(shown: Simulation | GanttSnapshot) -> list[str]:
    """Return the view's state line for a space-sharing simulation or its snapshot, longest
    form first: the policy, the clock (:func:`gangviz.timefmt.clock_text`, as every widget
    writes a time), free processors and the running and waiting counts."""
    st = shown if isinstance(shown, GanttSnapshot) else gantt_of(shown)
    P, policy = st.processors, st.policy.upper()
    t = clock_text(st.time, st.slice_seconds)
    return [f"{policy}  ·  t = {t}  ·  {st.free} of {P} processors free  ·  "
            f"{len(st.running)} running, {len(st.waiting)} waiting",
            f"{policy}  ·  t = {t}  ·  {st.free}/{P} free  ·  "
            f"{len(st.running)} run, {len(st.waiting)} wait",
            f"t = {t}  ·  {st.free}/{P} free"]


def _name(st: GanttSnapshot, job: int) -> str:
    shown = st.jobs.get(job)
    return shown.name if shown is not None else f"J{job}"


class GanttView(QWidget):
    """Draws a space-sharing simulation; see the module docstring."""

    jobSelected = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sim: Simulation | None = None
        self._snapshot: tuple[Simulation, int, GanttSnapshot] | None = None
        self.setMouseTracking(True)
        self.setMinimumSize(360, 260)
        self._hits: list[tuple[QRectF, int]] = []
        self.selected: int | None = None
        self.scale = 1.0  # text and margins, larger while presenting
        #: the owner's clock when it stands past the simulation's last step (the compare
        #: window's shared time); the view draws its header and now-line there, ``None``: the
        #: simulation's own time
        self.clock: float | None = None
        #: processors across and time up (beside matrices, see the module docstring); else
        #: time across and processors up
        self.processors_across = False

    def set_processors_across(self, across: bool) -> None:
        """Draw processors across and time up (``True``), or time across (``False``)."""
        self.processors_across = bool(across)
        self.update()

    def set_scale(self, scale: float) -> None:
        """Draw text and margins ``scale`` times their normal size (presentation mode)."""
        self.scale = max(0.5, float(scale))
        self.update()

    def _font(self) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(FONT_POINTS * self.scale)
        return font

    def _row(self) -> float:
        """Return the height of one queue row: a line of the font and a little air."""
        return max(QUEUE_ROW * self.scale, QFontMetricsF(self._font()).height() + 4)

    # ------------------------------------------------------------------ feeding
    def set_state(self, sim: Simulation) -> None:
        """Show ``sim``'s current state."""
        self.sim = sim
        self.update()

    def show_step(self, step: Step) -> None:
        """Redraw after ``step`` (the state is read from the simulation)."""
        self.update()

    def _shown(self) -> GanttSnapshot:
        """Return the snapshot drawn (taken once per position of the simulation: its runs are
        deterministic); the drawing helpers run only while there is a simulation."""
        if self.sim is None:
            raise RuntimeError("the Gantt view has no simulation to draw")
        kept = self._snapshot
        if kept is None or kept[0] is not self.sim or kept[1] != self.sim.position:
            kept = self._snapshot = (self.sim, self.sim.position, gantt_of(self.sim))
        if self.clock is not None and self.clock > kept[2].time:
            # nothing happens between the last step and the next one after the clock: the
            # state is the same, only the time has moved on
            return dataclasses.replace(kept[2], time=self.clock)
        return kept[2]

    # ------------------------------------------------------------------ geometry
    def _window(self) -> tuple[float, float]:
        """Return the time range shown: the clock a third of the way in."""
        st = self._shown()
        ends = [pe for _, _, pe in st.running]
        ends += [r + st.jobs[j].estimate for j, r in st.reservations if math.isfinite(r)]
        ahead = max((e - st.time for e in ends), default=0.0)
        ahead = max(ahead, 60.0 / st.time_unit)
        return max(0.0, st.time - ahead / 2), st.time + ahead * 1.05

    def _top(self) -> float:
        """Return the strip's top: one header row when the heading and key fit side by side,
        else two (a narrow compare pane)."""
        line = QFontMetricsF(self._font()).height()
        one = max(MARGIN_TOP * self.scale, line + 10)
        if self.width() >= 1000 * self.scale:
            return one
        return one + len(self._key_lines(QFontMetricsF(self._font()))) * (line + 2)

    def _left(self) -> float:
        """Return the left margin: wide enough for the largest processor number (time across)
        or the widest time label (processors across)."""
        fm = QFontMetricsF(self._font())
        if self.sim is None:
            return max(MARGIN_LEFT * self.scale, fm.horizontalAdvance("0000") + 12)
        if self.processors_across:
            st = self._shown()
            t0, t1 = self._window()
            widest = max((fm.horizontalAdvance(_fmt(st, t)) for t in round_ticks(t0, t1, st.slice_seconds)),
                         default=0.0)
            return max(MARGIN_LEFT * self.scale, widest + 12)
        return max(MARGIN_LEFT * self.scale, fm.horizontalAdvance(str(self._shown().processors)) + 12)

    def _strip(self) -> QRectF:
        line = QFontMetricsF(self._font()).height()
        queue_h = min(8, len(self._shown().waiting) + 1) * self._row() + line + 8
        top = self._top()
        room = self.height() - top - line - 10  # under the heading and key, over the axis labels
        # the queue gives way first (it shows fewer rows), down to half of the room
        h = max(min(120.0, room / 2), room - queue_h, 20.0)
        left = self._left()
        return QRectF(left, top, max(50.0, self.width() - left - MARGIN_RIGHT * self.scale), h)

    def _mapping(self, strip: QRectF, t0: float, t1: float, P: int) -> Callable[[float, float, float, float], QRectF]:
        """Return ``box(t_a, t_b, p_a, p_b)``: the rectangle of times ``t_a..t_b`` (clamped to
        the window ``t0..t1``) on processors ``p_a..p_b``, in the view's orientation."""
        across = self.processors_across

        def clamp(t: float) -> float:
            return (min(max(t, t0), t1) - t0) / (t1 - t0)

        def box(ta: float, tb: float, pa: float, pb: float) -> QRectF:
            if across:
                sx = strip.width() / P
                return QRectF(QPointF(strip.left() + pa * sx, strip.bottom() - clamp(tb) * strip.height()),
                              QPointF(strip.left() + pb * sx, strip.bottom() - clamp(ta) * strip.height()))
            sy = strip.height() / P
            return QRectF(QPointF(strip.left() + clamp(ta) * strip.width(), strip.bottom() - pb * sy),
                          QPointF(strip.left() + clamp(tb) * strip.width(), strip.bottom() - pa * sy))

        return box

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), BACKGROUND)
        self._hits = []
        if self.sim is None:
            return
        st = self._shown()
        P = st.processors
        strip = self._strip()
        t0, t1 = self._window()
        box = self._mapping(strip, t0, t1, P)
        p.fillRect(strip, IDLE)
        font = self._font()
        p.setFont(font)
        fm = QFontMetricsF(font)
        lh = fm.height()
        # running jobs, stacked in order of start
        level = 0
        for job, start, pend in sorted(st.running, key=lambda r: (r[1], r[0])):
            size = st.jobs[job].size
            col = job_colour(job)
            solid = box(start, st.time, level, level + size)
            pale = box(st.time, pend, level, level + size)
            p.fillRect(solid, col)
            light = QColor(col)
            light.setAlpha(REST_ALPHA)
            p.fillRect(pale, light)
            whole = solid.united(pale)
            p.setPen(QPen(QColor("#ffffff"), 0.8))
            p.drawRect(whole)
            if job == self.selected:
                p.setPen(QPen(TEXT, 2.0))
                p.drawRect(whole)
            name = _name(st, job)
            need = fm.horizontalAdvance(name) + 8
            # on the solid part when it fits, else on the pale rest: never across the now-line
            for part, ink in ((solid, text_colour(col)), (pale, TEXT)):
                if part.width() >= need and part.height() >= lh:
                    p.setPen(ink)
                    p.drawText(part.adjusted(3, 0, 0, 0),
                               Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, name)
                    break
            self._hits.append((whole, job))
            level += size
        # backfill window (EASY) and reservations
        mode = st.mode
        if st.waiting and st.reservations:
            if mode == "easy":
                (head, shadow), = st.reservations
                if math.isfinite(shadow):
                    paint_window(p, box(st.time, shadow, level, P), self.scale)
                    if st.extra:
                        paint_window(p, box(shadow, t1, P - st.extra, P), self.scale)
            self._draw_reservations(p, st, box, fm, mode, P)
        # axes, clock, key
        p.setPen(QPen(GRID, 1))
        p.drawRect(strip)
        p.setPen(QPen(ACCENT, 2.4))
        now = box(st.time, st.time, 0, P)
        if self.processors_across:
            p.drawLine(QPointF(strip.left() - 4, now.top()), QPointF(strip.right() + 4, now.top()))
        else:
            p.drawLine(QPointF(now.left(), strip.top() - 4), QPointF(now.left(), strip.bottom() + 4))
        self._draw_axis(p, fm, st, strip, box, t0, t1)
        p.setPen(MUTED_TEXT)
        for proc in (0, P // 2, P):
            at = box(t0, t0, proc, proc)
            if self.processors_across:  # under the strip, where a matrix pane writes P1 ... Pn
                tw = fm.horizontalAdvance(str(proc)) + 8
                left = min(max(at.left() - tw / 2, strip.left() - 4), strip.right() + 4 - tw)
                p.drawText(QRectF(left, strip.bottom() + 3, tw, lh), Qt.AlignmentFlag.AlignHCenter, str(proc))
            else:
                p.drawText(QRectF(0, at.top() - lh / 2, strip.left() - 6, lh),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, str(proc))
        p.setPen(TEXT)
        forms = header_forms(st)
        if self.processors_across:  # a compare pane, whose own line writes the clock
            forms.append(f"{st.free}/{P} processors free")
            forms.append(f"{st.free}/{P} free")
        header = fitted(fm, strip.width(), forms)
        p.drawText(QRectF(strip.left(), 4, strip.width(), lh), Qt.AlignmentFlag.AlignLeft, header)
        self._draw_key(p, fm, strip)
        self._draw_queue(p, fm, strip.bottom() + lh + 8)

    def _draw_axis(self, p: QPainter, fm: QFontMetricsF, st: GanttSnapshot, strip: QRectF,
                   box: Callable[[float, float, float, float], QRectF], t0: float, t1: float) -> None:
        """The time axis (under the strip, or left of it with processors across): a mark at
        each round tick (:func:`round_ticks`) and its time as the clock writes it, thinned so
        that no two labels touch, none cut at the strip's ends."""
        lh = fm.height()
        across = self.processors_across
        ticks = round_ticks(t0, t1, st.slice_seconds)
        tw = max((fm.horizontalAdvance(_fmt(st, t)) for t in ticks), default=0.0) + 8
        room = (strip.height() if across else strip.width()) / max(len(ticks), 1)
        every = max(1, math.ceil((lh + 2 if across else tw) / max(room, 1.0)))  # no two labels touch
        for k, t in enumerate(ticks):
            at = box(t, t, 0, 0)
            p.setPen(QPen(GRID, 1))
            if across:
                p.drawLine(QPointF(strip.left() - 4, at.top()), QPointF(strip.left(), at.top()))
            else:
                p.drawLine(QPointF(at.left(), strip.bottom()), QPointF(at.left(), strip.bottom() + 4))
            if k % every:
                continue
            p.setPen(MUTED_TEXT)
            if across:
                top = min(max(at.top() - lh / 2, strip.top() - 2), strip.bottom() + 2 - lh)
                p.drawText(QRectF(0, top, strip.left() - 6, lh),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, _fmt(st, t))
            else:
                left = min(max(at.left() - tw / 2, strip.left() - 4), strip.right() + 4 - tw)  # never clipped
                p.drawText(QRectF(left, strip.bottom() + 3, tw, lh), Qt.AlignmentFlag.AlignHCenter, _fmt(st, t))

    def _draw_reservations(self, p: QPainter, st: GanttSnapshot,
                           box: Callable[[float, float, float, float], QRectF], fm: QFontMetricsF,
                           mode: str, P: int) -> None:
        drawn: list[tuple[float, float, float]] = []  # (start, end, top) of reservation outlines
        pend_by = sorted(((pe, st.jobs[j].size) for j, _, pe in st.running))
        for job, when in st.reservations:
            if not math.isfinite(when):
                continue
            size, end = st.jobs[job].size, when + st.jobs[job].estimate
            # sit above the running jobs still predicted to run then and the reservations drawn
            base: float = sum(s for pe, s in pend_by if pe > when)
            base = max([base] + [top for a, b, top in drawn if a < end and when < b])
            base = min(base, P - size)
            rect = box(when, end, base, base + size)
            drawn.append((when, end, base + size))
            pen = QPen(RESERVATION, 1.6, Qt.PenStyle.DotLine if mode == "fcfs" else Qt.PenStyle.DashLine)
            fill = QColor(job_colour(job))
            fill.setAlpha(45)
            p.fillRect(rect, fill)
            p.setPen(pen)
            p.drawRect(rect)
            name = _name(st, job)
            if rect.height() >= fm.height() and rect.width() > fm.horizontalAdvance(name) + 8:
                p.setPen(RESERVATION)
                p.drawText(rect.adjusted(3, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, name)
            self._hits.append((rect, job))

    def key_items(self) -> list[str]:
        """Return the key's entries: a running job, its predicted rest, a reservation and,
        for EASY, the backfill window."""
        items = ["running", "predicted rest", "reservation"]
        if self._shown().mode == "easy":
            items.append("backfill window")
        return items

    def _draw_swatch(self, p: QPainter, kind: str, box: QRectF) -> None:
        """Draw the key's swatch of ``kind`` in ``box`` as the strip draws that mark."""
        col = job_colour(0)
        if kind == "running":
            p.fillRect(box, col)
        elif kind == "predicted rest":
            light = QColor(col)
            light.setAlpha(REST_ALPHA)
            p.fillRect(box, IDLE)
            p.fillRect(box, light)
        elif kind == "reservation":
            fill = QColor(job_colour(1))
            fill.setAlpha(45)
            p.fillRect(box, IDLE)
            p.fillRect(box, fill)
            p.setPen(QPen(RESERVATION, 1.6, Qt.PenStyle.DashLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(box)
        else:
            p.fillRect(box, IDLE)
            paint_window(p, box, self.scale * 0.6)

    def _key_width(self, fm: QFontMetricsF, text: str) -> float:
        return fm.horizontalAdvance(text) + 18 * self.scale + 14 * self.scale

    def _key_lines(self, fm: QFontMetricsF) -> list[list[str]]:
        """Return the key's entries in lines as wide as the view allows (one line beside the
        heading on a wide view; under it, on as many lines as it needs, on a narrow one), so
        that no entry is cut at the view's edge."""
        room = max(self.width() - 8.0 - MARGIN_RIGHT * self.scale, 1.0)
        lines: list[list[str]] = [[]]
        used = 0.0
        for text in self.key_items() if self.sim is not None else []:
            w = self._key_width(fm, text)
            if lines[-1] and used + w > room:
                lines.append([])
                used = 0.0
            lines[-1].append(text)
            used += w
        return [line for line in lines if line]

    def _draw_key(self, p: QPainter, fm: QFontMetricsF, strip: QRectF) -> None:
        lh = fm.height()
        wide = self.width() >= 1000 * self.scale
        yk = 4 if wide else lh + 6
        sw = 18 * self.scale
        for line in self._key_lines(fm):
            xk = strip.right() if wide else self.width() - MARGIN_RIGHT * self.scale
            for text in reversed(line):
                w = self._key_width(fm, text)
                xk -= w
                box = QRectF(xk, yk + lh * 0.15, sw, lh * 0.7)
                self._draw_swatch(p, text, box)
                p.setPen(MUTED_TEXT)
                p.drawText(QRectF(xk + sw + 5, yk, w - sw - 5, lh),
                           Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
            yk += lh + 2

    def _draw_queue(self, p: QPainter, fm: QFontMetricsF, top: float) -> None:
        st = self._shown()
        reserved = dict(st.reservations)
        p.setPen(TEXT)
        label = "Queue (priority order)" if st.waiting else "Queue: empty"
        row, left = self._row(), self._left()
        if top + row > self.height():
            return  # no room under the strip (a small pane): the pane's state line counts the waiting jobs
        width = self.width() - left - MARGIN_RIGHT * self.scale
        p.drawText(QRectF(left, top, width, row), Qt.AlignmentFlag.AlignVCenter, label)
        # as many rows as the view has room for under the label, the last one kept for "… and N more"
        fit = max(0, int((self.height() - top - row) // row))
        count = min(7, fit) if len(st.waiting) <= min(7, fit) else max(0, min(7, fit - 1))
        rows = st.waiting[:count]
        for k, job in enumerate(rows):
            r = QRectF(left, top + (k + 1) * row, width, row - 2)
            chip = QRectF(r.left(), r.top() + 3, 12 * self.scale, r.height() - 6)
            p.fillRect(chip, job_colour(job))
            when = reserved.get(job)
            res = ""
            if when is not None:
                kind = "predicted start" if st.mode == "fcfs" else "reserved at"
                res = f"  ·  {kind} {_fmt(st, when)}" if math.isfinite(when) else f"  ·  {kind}: none yet"
            shown = st.jobs[job]
            name, size = shown.name, shown.size
            est = _span(st, shown.estimate)
            text = fitted(fm, r.width() - chip.width() - 6, [
                f"{name}  ·  {size} processors  ·  estimate {est}{res}",
                f"{name}  ·  {size} procs  ·  est. {est}{res.replace('predicted start', 'start').replace('reserved at', 'at')}",
                f"{name}  ·  {size} procs  ·  est. {est}",
                f"{name}  ·  {size} procs"])
            p.setPen(TEXT if job != self.selected else ACCENT)
            p.drawText(r.adjusted(chip.width() + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, text)
            self._hits.append((r, job))
        if len(st.waiting) > len(rows) and fit >= 1:
            p.setPen(MUTED_TEXT)
            p.drawText(QRectF(left, top + (len(rows) + 1) * row, width, row),
                       Qt.AlignmentFlag.AlignVCenter, f"… and {len(st.waiting) - len(rows)} more")

    # ------------------------------------------------------------------ hover and clicks
    def jobAt(self, pos: QPointF) -> int | None:
        """Return the job drawn at ``pos`` (a bar, a reservation or a queue row), or None."""
        for rect, job in reversed(self._hits):
            if rect.contains(pos):
                return job
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        job = self.jobAt(event.position())
        if job is None or self.sim is None:
            QToolTip.hideText()
            return
        shown = self._shown().jobs.get(job)
        QToolTip.showText(event.globalPosition().toPoint(), shown.text if shown else "", self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        job = self.jobAt(event.position())
        self.selected = job
        self.jobSelected.emit(job)
        self.update()
