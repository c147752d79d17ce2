"""The multi-site view: per-site processor lanes over time, then each processor's FIFO queue.

Source: [Papazachos09 §2] (Fig. 1, one queue per processor, two sites) and §3.3 (migration to
the head of a queue, reserved targets). Every processor is one row, grouped by site under a
header: its label, its *lane* (a Gantt-like strip of what it ran from the start, or the last
:data:`LANE_WINDOW` time units, up to now; :mod:`gangviz.multisite.lanes`), its processor box at
the lane's right end (now: the running task, highlighted with a thick dark frame, or the task
reserved for a migrating gang, with a dashed frame) and its queue, head first, as coloured
tokens labelled ``G<gang>.<task>`` (task 1-based). History flows left to right into the present
and the queue waits to the right of it. Each gang keeps one colour from a colour-blind-safe
palette (Okabe-Ito, then Paul Tol's "muted"), in the lanes, boxes and tokens alike.

Sites are stacked one above the other while every row fits at the base size; otherwise they
stand side by side (more processors). Every size is a base constant of this module times
:meth:`QueueView.scale`, which follows the widget's size (between :data:`MIN_SCALE` and
:data:`MAX_SCALE`), so a few processors fill a projector's panel.

Across sites: a gang whose tasks run at more than one site is linked, in the lanes by a dashed
line in its colour at the time it started (or began to hold its processors), and now by a
dashed bracket in the gutter left of the processor boxes. A migration is drawn as a chip
travelling from its queue position to its target processor with its overhead beside it
(``+0.1``), round the headings and one chip after another (:meth:`QueueView.flight_rects`), and in the lanes as a hatched *hold* stretch labelled with that overhead.

:meth:`QueueView.show_step` applies a :class:`gangviz.core.record.Step` of multi-site change
records to the view's copy of the state, extends the lanes to the step's time and animates each
migration (a :class:`QVariantAnimation`; duration 0 shows the end state at once).
:meth:`QueueView.set_state` replaces the whole picture, e.g. after stepping back; given the
history it redraws the lanes up to that point.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QVariantAnimation
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPen, QRegion
from PySide6.QtWidgets import QWidget

from gangviz.core.record import Step
from gangviz.gui.palette import text_colour as palette_text_colour
from gangviz.gui.plots.axes import time_ticks
from gangviz.multisite.changes import TaskMigrated
from gangviz.multisite.lanes import HOLD, Bar, LaneLog, lanes_from_steps, migrations
from gangviz.multisite.snapshot import QueueSnapshot, state_from_snapshot
from gangviz.multisite.state import MultiSiteState
from gangviz.timefmt import clock_text

if TYPE_CHECKING:
    from gangviz.gui.kit.overlay import ViewOverlay

PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
           "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677",
           "#882255", "#AA4499")
HIGHLIGHT = QColor("#111111")
IDLE_FRAME = QColor("#B0B0B0")
BACKGROUND = QColor("#FAFAFA")
LANE_FILL = QColor("#F0F0F0")
GRID = QColor("#D8D8D8")

#: base sizes in pixels at scale 1 (outer margin, site header, processor row, processor label,
#: processor box, queue token, small gap, space between stacked sites, time axis under the lanes,
#: the gutter of the cross-site brackets, the narrowest lane)
MARGIN, HEADER, ROW, LABEL_W, PROC_W, TOKEN_W, GAP = 8, 22, 22, 34, 52, 46, 3
SITE_GAP, AXIS, LINK_W, LANE_MIN = 6, 16, 14, 200
#: queue tokens a row keeps room for (more are summarised as ``+N``)
QUEUE_TOKENS = 4
#: font pixel size at scale 1
FONT_PX = 10
#: how much the base sizes above may shrink (many processors) or grow (a large panel)
MIN_SCALE, MAX_SCALE = 0.6, 3.0
#: the largest scale while presenting (the view fills a projector's panel)
MAX_FILL = 4.0
#: while presenting, the least text size in pixels on a 1920 x 1080 screen and on a smaller
#: one (1280 x 720), and the presentation scale from which the screen counts as 1080 pixels high
PRESENT_TEXT_PX, PRESENT_TEXT_PX_SMALL, FULL_SCREEN_PRESENT = 18, 16, 1.99
#: the lanes show at most this many time units back from now
LANE_WINDOW = 20.0


def gang_colour(gang: int) -> QColor:
    """Return the stable colour of ``gang`` (palette index ``gang % 16``)."""
    return QColor(PALETTE[gang % len(PALETTE)])


def _snap(r: QRectF) -> QRectF:
    """``r`` on whole pixels, so frames drawn without antialiasing stay crisp at any scale."""
    return QRectF(round(r.x()), round(r.y()), round(r.width()), round(r.height()))


def _along(points: list[QPointF], u: float) -> QPointF:
    """Return the point a share ``u`` (0..1) of the way along the polyline ``points``, by length."""
    legs = [(a, b, math.hypot(b.x() - a.x(), b.y() - a.y())) for a, b in zip(points, points[1:])]
    left = u * sum(d for _, _, d in legs)
    for a, b, d in legs:
        if left <= d and d > 0:
            return QPointF(a.x() + (b.x() - a.x()) * left / d, a.y() + (b.y() - a.y()) * left / d)
        left -= d
    return QPointF(points[-1])


def _text_colour(c: QColor) -> QColor:
    return palette_text_colour(c)


class QueueView(QWidget):
    """Draws a multi-site system: lanes over time and queues; animates migrations."""

    #: the scripted gangs still to come, a layer attached by :mod:`gangviz.gui.families.table`
    #: (:class:`~gangviz.gui.families.site_arrivals.ArrivalsStrip`)
    arrivals: ViewOverlay

    def __init__(self, parent: QWidget | None = None, animation_ms: int = 400) -> None:
        super().__init__(parent)
        self._present = 1.0  # the presentation scale (above 1 while presenting)
        #: the owner's clock when it stands past the simulation's last step (the compare
        #: window's shared time): the lanes run up to it; ``None``: up to the last step
        self.clock: float | None = None
        #: seconds per slice of a source with a clock; ``None``: times in slices (scenarios)
        self.slice_seconds: float | None = None
        self._state: MultiSiteState = state_from_snapshot(QueueSnapshot.empty())
        self._lanes = LaneLog(self._state.cfg.sites, self._state.cfg.procs)
        self._footer = 0.0
        # (task, (site, proc, queue index) it leaves, (site, proc) it goes to, overhead); the
        # rectangles are computed when painting, so a resize mid-flight keeps the chip on its path
        self._flying: list[tuple[tuple[int, int], tuple[int, int, int], tuple[int, int], float]] = []
        self._progress = 1.0
        self._anim = QVariantAnimation(self)
        self._anim.setStartValue(0.0)
        self._anim.setEndValue(1.0)
        self._anim.valueChanged.connect(self._on_progress)
        self._anim.finished.connect(self._on_finished)
        self.set_animation_ms(animation_ms)
        self.setMinimumSize(320, 160)

    # --- public API -----------------------------------------------------------------------------
    def set_animation_ms(self, ms: int) -> None:
        """Set the migration animation's duration in ms (0: instant); raise ValueError if < 0."""
        if ms < 0:
            raise ValueError(f"animation duration must be >= 0 ms, got {ms}")
        self._anim.setDuration(ms)

    @property
    def animation(self) -> QVariantAnimation:
        """Return the migration animation (tests drive it with ``setCurrentTime``)."""
        return self._anim

    def set_state(self, state: QueueSnapshot | MultiSiteState, steps: Sequence[Step] | None = None) -> None:
        """Show ``state`` (a snapshot or a live state, copied), cancelling any animation.

        ``steps``, the history that led to ``state`` from the start, redraws the lanes; without
        it the lanes start afresh at the snapshot's time (0 for a live state). Raises
        ValueError when ``steps`` do not replay.
        """
        snap = state if isinstance(state, QueueSnapshot) else QueueSnapshot.from_state(state)
        self._anim.stop()
        self._flying = []
        self._progress = 1.0
        self._state = state_from_snapshot(snap)
        if steps is not None:
            self._lanes = lanes_from_steps(self._state, steps)
        else:
            self._lanes = LaneLog(snap.sites, snap.procs, snap.time)
            self._lanes.observe(snap.time, self._state.running, self._state.reserved)
        self.updateGeometry()
        self.update()

    def show_step(self, step: Step) -> None:
        """Apply ``step``'s change records, extend the lanes to its time and animate its migrations.

        Raises ValueError when a record does not fit the shown state (the view then shows the
        state up to that record).
        """
        self._anim.stop()
        flying = []
        for c in step.changes:
            if isinstance(c, TaskMigrated) and not c.undo:
                flying.append(((c.gang, c.task), (c.src_site, c.src_proc, c.src_index),
                               (c.dst_site, c.dst_proc), c.overhead))
            c.apply(self._state)
        self._lanes.observe(max(step.time, self._lanes.now), self._state.running, self._state.reserved,
                            migrations(step.changes))
        self._flying = flying
        if flying and self._anim.duration() > 0:
            self._progress = 0.0
            self._anim.start()
        else:
            self._progress = 1.0
            self._flying = []
        self.update()

    def snapshot(self) -> QueueSnapshot:
        """Return the state the view shows."""
        return QueueSnapshot.from_state(self._state, self._lanes.now)

    def lanes(self) -> list[Bar]:
        """Return the bars the lanes hold (:meth:`gangviz.multisite.lanes.LaneLog.bars`)."""
        return self._lanes.bars()

    def set_footer(self, height: float) -> None:
        """Keep ``height`` base pixels (times :meth:`scale`) free under the sites, for a layer
        such as the gangs still to come; 0 gives the whole panel to the sites."""
        if height != self._footer:
            self._footer = float(height)
            self.update()

    # --- geometry -------------------------------------------------------------------------------
    def _shape(self, cols: int) -> tuple[float, float]:
        """Base width of one column and base height of the whole picture with ``cols`` columns."""
        cfg = self._state.cfg
        stacked = math.ceil(cfg.sites / cols)
        w = LABEL_W + LANE_MIN + LINK_W + PROC_W + 2 * GAP + QUEUE_TOKENS * (TOKEN_W + GAP) + 24
        h = stacked * (HEADER + cfg.procs * ROW) + (stacked - 1) * SITE_GAP + AXIS + self._footer
        return w, h

    def _fit(self, cols: int) -> float:
        w, h = self._shape(cols)
        col_w = (self.width() - MARGIN * (cols + 1)) / cols
        return min((self.height() - 2 * MARGIN) / h, col_w / w)

    def columns(self) -> int:
        """Return how many sites stand side by side: 1 (stacked) while that fits at the base
        size or is at least as large as side by side, else every site in its own column."""
        sites = self._state.cfg.sites
        if sites == 1 or self._fit(1) >= min(1.0, self._fit(sites)):
            return 1
        return sites

    def scale(self) -> float:
        """Return the factor the base sizes are drawn at: as large as the widget allows for every
        processor row with its lane and queue, between MIN_SCALE and MAX_SCALE."""
        cap = MAX_FILL if self._present > 1.0 else MAX_SCALE
        return max(MIN_SCALE, min(self._fit(self.columns()), cap))

    def text_px(self, k: float | None = None) -> int:
        """Return the pixel size of the view's text at scale ``k`` (default :meth:`scale`):
        :data:`FONT_PX` times ``k``, and while presenting never under
        :data:`PRESENT_TEXT_PX` (a 1080-pixel screen and up) or :data:`PRESENT_TEXT_PX_SMALL`
        (a smaller projector), however small the panel makes the picture."""
        px = max(8, round(FONT_PX * (self.scale() if k is None else k)))
        if self._present > 1.0:
            px = max(px, PRESENT_TEXT_PX if self._present >= FULL_SCREEN_PRESENT else PRESENT_TEXT_PX_SMALL)
        return px

    def set_scale(self, scale: float) -> None:
        """Take the presentation scale (1 normally, larger while presenting): presenting lets the
        view grow up to :data:`MAX_FILL` times its base sizes to fill its panel."""
        self._present = max(0.5, float(scale))
        self.updateGeometry()
        self.update()

    def _column_width(self) -> float:
        cols = self.columns()
        return (self.width() - MARGIN * (cols + 1)) / cols

    def site_rect(self, site: int) -> QRectF:
        """Return the area of ``site``: its header and processor rows."""
        k, cols, procs = self.scale(), self.columns(), self._state.cfg.procs
        col, level = site % cols, site // cols
        x = MARGIN + col * (self._column_width() + MARGIN)
        y = MARGIN + level * (HEADER + procs * ROW + SITE_GAP) * k
        return QRectF(x, y, self._column_width(), (HEADER + procs * ROW) * k)

    def _row_origin(self, site: int, proc: int) -> QPointF:
        r = self.site_rect(site)
        return QPointF(r.x(), r.y() + (HEADER + proc * ROW) * self.scale())

    def lane_rect(self, site: int, proc: int) -> QRectF:
        """Return the strip where processor ``proc`` of ``site`` shows what it ran, up to now at
        its right end (just left of the bracket gutter and the processor box)."""
        k = self.scale()
        o = self._row_origin(site, proc)
        right = self.site_rect(site).right() - (LINK_W + PROC_W + 2 * GAP + QUEUE_TOKENS * (TOKEN_W + GAP) + 24) * k
        left = o.x() + LABEL_W * k
        return _snap(QRectF(left, o.y() + k, max(1.0, right - left), (ROW - 3) * k))

    def proc_rect(self, site: int, proc: int) -> QRectF:
        """Return the rectangle of processor ``proc`` (0-based) of ``site`` (its running task)."""
        k = self.scale()
        lane = self.lane_rect(site, proc)
        return _snap(QRectF(lane.right() + LINK_W * k, lane.y(), PROC_W * k, (ROW - 3) * k))

    def token_rect(self, site: int, proc: int, index: int) -> QRectF:
        """Return the rectangle of the ``index``-th waiting task (0 = head) of a processor's queue."""
        k = self.scale()
        box = self.proc_rect(site, proc)
        x = box.right() + (2 * GAP + index * (TOKEN_W + GAP)) * k
        return _snap(QRectF(x, box.y() + k, TOKEN_W * k, (ROW - 5) * k))

    def visible_tokens(self) -> int:
        """Return how many queue tokens fit in a row (the rest is summarised as ``+N``)."""
        k = self.scale()
        free = self.site_rect(0).right() - self.proc_rect(0, 0).right() - 2 * GAP * k
        return max(1, int((free - 24 * k) // ((TOKEN_W + GAP) * k)))

    def time_window(self) -> tuple[float, float]:
        """Return the times at the lanes' left and right ends: the start (or LANE_WINDOW back)
        and now."""
        now = self._now()
        return max(0.0, now - LANE_WINDOW), now

    def _now(self) -> float:
        """The lanes' right end: the last step's time, or the owner's later clock (nothing
        changes between the last step and the next one)."""
        now = self._lanes.now
        return max(now, self.clock) if self.clock is not None else now

    def time_x(self, site: int, t: float) -> float:
        """Return the x of time ``t`` in the lanes of ``site`` (now is the lanes' right end)."""
        lo, hi = self.time_window()
        lane = self.lane_rect(site, 0)
        if hi <= lo:
            return lane.right()
        return lane.left() + lane.width() * (min(max(t, lo), hi) - lo) / (hi - lo)

    def bar_rect(self, bar: Bar) -> QRectF:
        """Return the rectangle of ``bar`` in its lane (empty when it lies before the window)."""
        lane = self.lane_rect(bar.site, bar.proc)
        end = self._now() if bar.end is None else bar.end
        x0, x1 = self.time_x(bar.site, bar.start), self.time_x(bar.site, end)
        return QRectF(x0, lane.y() + 1, max(0.0, x1 - x0), lane.height() - 2)

    def footer_rect(self) -> QRectF:
        """Return the area kept free under the sites by :meth:`set_footer`."""
        k = self.scale()
        last = self._state.cfg.sites - 1
        top = max(self.site_rect(s).bottom() for s in range(last + 1)) + self._axis_h(k)
        return QRectF(MARGIN, top, self.width() - 2 * MARGIN, self._footer * k)

    def _axis_h(self, k: float) -> float:
        """The height of the time axis under the sites: its base size, or a line of the text
        when presenting makes the text larger than the base."""
        return max(AXIS * k, QFontMetricsF(self._font(k)).height() + 4 * k)

    def sizeHint(self) -> QSize:
        """Return a size that fits every processor row, its lane and its queue at the base size."""
        w, h = self._shape(1)
        return QSize(int(w + 2 * MARGIN), int(h + 2 * MARGIN))

    # --- painting -------------------------------------------------------------------------------
    def _on_progress(self, value: float) -> None:
        self._progress = float(value)
        self.update()

    def _on_finished(self) -> None:
        self._progress = 1.0
        self._flying = []
        self.update()

    def _token(self, p: QPainter, rect: QRectF, task: tuple[int, int]) -> None:
        colour = gang_colour(task[0])
        p.setPen(QPen(colour.darker(140), 1))
        p.setBrush(colour)
        p.drawRoundedRect(rect, 4, 4)
        p.setPen(_text_colour(colour))
        p.drawText(rect, Qt.AlignmentFlag.AlignCenter, f"G{task[0]}.{task[1] + 1}")

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw sites, lanes, processors, queues, links and any token in flight."""
        st = self._state
        cfg = st.cfg
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.fillRect(self.rect(), BACKGROUND)
        k = self.scale()
        font = QFont(self.font())
        font.setPixelSize(self.text_px(k))
        p.setFont(font)
        flying = {f[0] for f in self._flying}
        limit = self.visible_tokens()
        self._paint_axes(p, k)
        self._paint_lanes(p, k)
        self._paint_brackets(p, k)
        for s in range(cfg.sites):
            area = self.site_rect(s)
            busy = sum(1 for g in st.site_procs(s) if not st.is_idle(g))
            p.setPen(QColor("#222222"))
            head = QRectF(area.x(), area.y(), area.width(), (HEADER - 4) * k)
            p.drawText(head, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       f"Site {s + 1}  ({busy}/{cfg.procs} running or reserved)")
            box0 = self.proc_rect(s, 0)
            p.setPen(QColor("#666666"))
            p.drawText(QRectF(box0.x(), area.y(), box0.width(), head.height()),
                       Qt.AlignmentFlag.AlignCenter, "now")
            p.drawText(QRectF(box0.right() + 2 * GAP * k, area.y(), area.right() - box0.right(), head.height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "queue (head first)")
            for i in range(cfg.procs):
                g = s * cfg.procs + i
                row = self._row_origin(s, i)
                p.setPen(QColor("#444444"))
                p.drawText(QRectF(row.x(), row.y(), (LABEL_W - 4) * k, (ROW - 2) * k),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"P{i + 1}")
                box = self.proc_rect(s, i)
                run, res = st.running[g], st.reserved[g]
                if run is not None:
                    colour = gang_colour(run[0])
                    p.setBrush(colour)
                    p.setPen(QPen(HIGHLIGHT, max(2, round(3 * k))))
                    p.drawRect(box.adjusted(1.5, 1.5, -1.5, -1.5))
                    p.setPen(_text_colour(colour))
                    p.drawText(box, Qt.AlignmentFlag.AlignCenter, f"G{run[0]}.{run[1] + 1}")
                elif res is not None and res not in flying:
                    colour = gang_colour(res[0])
                    fill = colour.lighter(130)
                    p.setBrush(fill)
                    p.setPen(QPen(colour.darker(160), 2, Qt.PenStyle.DashLine))
                    p.drawRect(box.adjusted(1, 1, -1, -1))
                    p.setPen(_text_colour(fill))
                    p.drawText(box, Qt.AlignmentFlag.AlignCenter, f"G{res[0]}.{res[1] + 1}")
                else:
                    p.setBrush(QColor("#FFFFFF"))
                    p.setPen(QPen(IDLE_FRAME, 1))
                    p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5))
                q = st.queues[g]
                for idx, task in enumerate(q[:limit]):
                    self._token(p, self.token_rect(s, i, idx), task)
                if len(q) > limit:
                    r = self.token_rect(s, i, limit)
                    p.setPen(QColor("#444444"))
                    p.drawText(QRectF(r.x(), r.y(), 40 * k, r.height()),
                               Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                               f"+{len(q) - limit}")
        self._paint_flying(p, k)
        p.end()

    def _paint_axes(self, p: QPainter, k: float) -> None:
        """Per column of sites: the lanes' background, faint grid lines at round times, and the
        time labels under the last site of the column."""
        lo, hi = self.time_window()
        _, ticks = time_ticks(lo, hi, self.slice_seconds)
        cols = self.columns()
        sites = self._state.cfg.sites
        for s in range(sites):
            for i in range(self._state.cfg.procs):
                p.fillRect(self.lane_rect(s, i), LANE_FILL)
        p.setPen(QPen(GRID, 1))
        for s in range(sites):
            top, bottom = self.lane_rect(s, 0).top(), self.lane_rect(s, self._state.cfg.procs - 1).bottom()
            for t, _ in ticks:
                x: float = round(self.time_x(s, t))
                p.drawLine(QPointF(x, top), QPointF(x, bottom))
        for col in range(min(cols, sites)):
            last = max(s for s in range(sites) if s % cols == col)
            lane = self.lane_rect(last, self._state.cfg.procs - 1)
            y = lane.bottom() + 2 * k
            p.setPen(QColor("#555555"))
            # the clock as every view writes it ("t = 20 slices"), which names the ticks' unit;
            # a tick label that would run into it is left out (its grid line stays)
            box = self.proc_rect(last, self._state.cfg.procs - 1)
            clock = f"t = {clock_text(hi, self.slice_seconds)}"
            metrics = QFontMetricsF(p.font())
            half = metrics.horizontalAdvance(clock) / 2
            clock_left = box.center().x() - half
            line = self._axis_h(k) - 2 * k
            p.drawText(QRectF(clock_left, y, 2 * half, line), Qt.AlignmentFlag.AlignCenter, clock)
            for t, text in ticks:
                x = self.time_x(last, t)
                p.drawLine(QPointF(x, lane.bottom()), QPointF(x, y + 2 * k))
                if x + metrics.horizontalAdvance(text) / 2 + 6 * k < clock_left:
                    p.drawText(QRectF(x - 30 * k, y, 60 * k, line), Qt.AlignmentFlag.AlignCenter, text)

    def _paint_lanes(self, p: QPainter, k: float) -> None:
        """Each bar in its gang's colour (a hold hatched, with its migration's overhead), then the
        dashed links of the gangs whose tasks began at the same time at more than one site."""
        lo, _ = self.time_window()
        groups: dict[tuple[int, float], list[QRectF]] = {}
        sites_of: dict[tuple[int, float], set[int]] = {}
        for bar in self._lanes.bars():
            if bar.end is not None and bar.end <= lo:
                continue
            r = self.bar_rect(bar)
            if r.width() <= 0:
                continue
            colour = gang_colour(bar.gang)
            if bar.kind == HOLD:
                p.fillRect(r, colour.lighter(150))
                p.fillRect(r, QBrush(colour.darker(130), Qt.BrushStyle.BDiagPattern))
                label = f"+{bar.cost:g}" if bar.cost else ""
            else:
                p.fillRect(r, colour)
                label = f"G{bar.gang}.{bar.task + 1}"
            p.setPen(QPen(colour.darker(150), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(r.adjusted(0, 0, -1, -1))
            if label and p.fontMetrics().horizontalAdvance(label) + 4 <= r.width():
                p.setPen(_text_colour(colour) if bar.kind != HOLD else QColor("#111111"))
                p.drawText(r, Qt.AlignmentFlag.AlignCenter, label)
            key = (bar.gang, round(bar.start, 9))
            groups.setdefault(key, []).append(r)
            sites_of.setdefault(key, set()).add(bar.site)
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setClipRegion(self._links_region(k))
        stacked = self.columns() == 1
        for key, rects in groups.items():
            if len(sites_of[key]) < 2:
                continue
            pen = QPen(gang_colour(key[0]).darker(150), max(2.0, 2 * k), Qt.PenStyle.DashLine)
            p.setPen(pen)
            # stacked sites share one time axis: one line joins every site; side by side, each
            # site's column gets its own line through the gang's bars there
            for part in ([rects] if stacked else self._by_column(rects)):
                ys = [r.center().y() for r in part]
                x = min(r.left() for r in part) + max(2.0, 2 * k)
                p.drawLine(QPointF(x, min(ys)), QPointF(x, max(ys)))
                for r in part:
                    p.drawEllipse(QPointF(x, r.center().y()), 2 * k, 2 * k)
        p.restore()

    def _by_column(self, rects: list[QRectF]) -> list[list[QRectF]]:
        """``rects`` grouped by the column of sites they lie in."""
        cols: dict[int, list[QRectF]] = {}
        for r in rects:
            cols.setdefault(int(r.center().x() // max(1.0, self._column_width() + MARGIN)), []).append(r)
        return list(cols.values())

    def flight_rects(self, progress: float | None = None) -> list[tuple[QRectF, QRectF]]:
        """Return, for each task in flight at ``progress`` (default: the animation's), its chip
        and its overhead label (``+0.1``).

        A chip never takes the straight line, which would cross the other chip, the processor
        boxes and the headings ("now", "queue (head first)") between its queue and its target:
        it leaves along its own queue row to a channel at the right edge of its column of
        sites, right of the headings, runs up or down the channel to its target's row and
        comes back left along that row to the processor box (the target is idle, so its queue
        row is empty). Several chips fly one after the other, the last in the queue first
        (it crosses no chip still waiting), so no two are ever in the channel together.
        """
        t = self._progress if progress is None else float(progress)
        k = self.scale()
        fm = QFontMetricsF(self._font(k))
        n = len(self._flying)
        order = sorted(range(n), key=lambda j: (-self._flying[j][1][2], j))  # last in a queue first
        out: list[tuple[QRectF, QRectF]] = [(QRectF(), QRectF())] * n
        for turn, j in enumerate(order):
            _task, frm, to, cost = self._flying[j]
            src, dst = self.token_rect(*frm), self.proc_rect(*to)
            dst = QRectF(dst.x() + (dst.width() - src.width()) / 2, dst.y() + (dst.height() - src.height()) / 2,
                         src.width(), src.height())
            label_w = fm.horizontalAdvance(f"+{cost:g}") + 6 * k
            column = self.site_rect(frm[0])
            channel = column.right() - src.width() - 4 * k - label_w
            u = min(max(t * n - turn, 0.0), 1.0)
            points = [src.topLeft(), QPointF(max(channel, src.x()), src.y()),
                      QPointF(max(channel, src.x()), dst.y()), dst.topLeft()]
            at = _along(points, u)
            chip = QRectF(at, src.size())
            out[j] = (chip, QRectF(chip.right() + 4 * k, chip.top(), label_w, chip.height()))
        return out

    def _font(self, k: float) -> QFont:
        font = QFont(self.font())
        font.setPixelSize(self.text_px(k))
        return font

    def _paint_flying(self, p: QPainter, k: float) -> None:
        for (task, _frm, _to, cost), (chip, label) in zip(self._flying, self.flight_rects()):
            self._token(p, chip, task)
            p.fillRect(label, QColor(255, 255, 255, 220))
            p.setPen(QColor("#222222"))
            p.drawText(label.adjusted(2 * k, 0, 0, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       f"+{cost:g}")
    def task_places(self, limit: int | None = None) -> dict[int, list[tuple[int, int, QRectF]]]:
        """Return, per gang, ``(task, site, rect)`` of each of its tasks on screen (running,
        reserved or queued within the visible tokens), in task order."""
        st, cfg = self._state, self._state.cfg
        limit = self.visible_tokens() if limit is None else limit
        out: dict[int, list[tuple[int, int, QRectF]]] = {}
        for s in range(cfg.sites):
            for i in range(cfg.procs):
                g = s * cfg.procs + i
                for task in (st.running[g], st.reserved[g]):
                    if task is not None:
                        out.setdefault(task[0], []).append((task[1], s, self.proc_rect(s, i)))
                for idx, task in enumerate(st.queues[g][:limit]):
                    out.setdefault(task[0], []).append((task[1], s, self.token_rect(s, i, idx)))
        for places in out.values():
            places.sort(key=lambda t: t[0])
        return out

    def linked_gangs(self) -> list[int]:
        """Return the gangs whose tasks are shown at more than one site (they are linked)."""
        return sorted(g for g, places in self.task_places().items() if len({s for _, s, _ in places}) > 1)

    def bracket_x(self, site: int, nth: int) -> float:
        """Return the x of the ``nth`` linked gang's bracket beside the boxes of ``site``."""
        k = self.scale()
        box = self.proc_rect(site, 0)
        return box.left() - (4 + 4 * (nth % 3)) * k

    def heading_rect(self, site: int, k: float | None = None) -> QRectF:
        """Return the band of ``site``'s heading ("Site 2 (2/4 running or reserved)"), as wide
        as the view."""
        k = self.scale() if k is None else k
        area = self.site_rect(site)
        return QRectF(0, area.y(), self.width(), (HEADER - 4) * k)

    def _links_region(self, k: float) -> QRegion:
        """Return where the lines joining a gang's tasks across sites may be drawn: everywhere
        but the sites' headings, so that no line crosses a heading (it breaks there)."""
        region = QRegion(self.rect())
        for s in range(self._state.cfg.sites):
            region -= QRegion(self.heading_rect(s, k).toAlignedRect())
        return region

    def _paint_brackets(self, p: QPainter, k: float) -> None:
        """Now: a dashed bracket in the gang's colour, in the gutter left of the processor
        boxes, joining the boxes (running or reserved) of a gang spread over sites; queued
        tokens of such a gang are joined to its boxes by a dashed line under the tokens."""
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setClipRegion(self._links_region(k))
        for nth, gang in enumerate(self.linked_gangs()):
            places = self.task_places()[gang]
            pen = QPen(gang_colour(gang).darker(130), max(2.0, 2 * k), Qt.PenStyle.DashLine)
            p.setPen(pen)
            boxes = [(s, r) for _, s, r in places if r.width() == self.proc_rect(0, 0).width()
                     and abs(r.x() - self.proc_rect(s, 0).x()) < 1]
            tokens = [r for _, s, r in places if (s, r) not in boxes]
            if self.columns() == 1 and boxes:
                x = self.bracket_x(0, nth)
                ys = [r.center().y() for _, r in boxes]
                p.drawLine(QPointF(x, min(ys)), QPointF(x, max(ys)))
                for _, r in boxes:
                    p.drawLine(QPointF(x, r.center().y()), QPointF(r.left(), r.center().y()))
            else:  # side by side: straight from one place to the next
                rects = [r for _, _, r in places]
                for a, b in zip(rects, rects[1:]):
                    p.drawLine(a.center(), b.center())
            if boxes and tokens and self.columns() == 1:
                for r in tokens:
                    p.drawLine(boxes[0][1].center(), r.center())
        p.restore()
