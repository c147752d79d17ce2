"""The queue view of the multi-site model: sites, processors, their FIFO queues, tokens.

Source: 002_9f49b57522b8f60a.txt §2 (Fig. 1, one queue per processor, two sites) and §3.3
(migration to the head of a queue, reserved targets). Sites are drawn side by side; within a
site each processor is a row: its label, its processor box (the running task, highlighted with a
thick dark frame, or the reserved task of a migrating gang, with a dashed frame) and its queue,
head first, as coloured tokens labelled ``G<gang>.<task>`` (task 1-based). Each gang keeps one
colour from a colour-blind-safe palette (Okabe-Ito, then Paul Tol's "muted").

The rows, boxes, tokens and their text grow with the widget (up to :data:`MAX_SCALE` times the
base sizes) so that a few processors fill the panel on a projector instead of a corner of it. A
gang whose tasks are at more than one site is linked: a dashed line in its colour joins its
tasks from one site to the other. A migrating task travels as a token with its overhead written
beside it.

:meth:`QueueView.show_step` applies a :class:`gangviz.core.record.Step` of multi-site change
records to the view's copy of the state and animates each migration as a token travelling from
its source queue position to the target processor (a :class:`QVariantAnimation`; duration 0
shows the end state at once). :meth:`QueueView.set_state` replaces the whole picture, e.g.
after stepping back.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QVariantAnimation
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QWidget

from gangviz.core.record import Step
from gangviz.multisite.changes import TaskMigrated
from gangviz.multisite.snapshot import QueueSnapshot, state_from_snapshot
from gangviz.multisite.state import MultiSiteState

PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
           "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677",
           "#882255", "#AA4499")
HIGHLIGHT = QColor("#111111")
IDLE_FRAME = QColor("#B0B0B0")
BACKGROUND = QColor("#FAFAFA")

MARGIN, HEADER, ROW, LABEL_W, PROC_W, TOKEN_W, GAP = 8, 22, 22, 34, 52, 46, 3
#: how much the base sizes above may grow to fill the widget (presenting: MAX_FILL)
MAX_SCALE = 3.0
#: the largest scale a presented view grows to when filling its space
MAX_FILL = 4.0


def gang_colour(gang: int) -> QColor:
    """Return the stable colour of ``gang`` (palette index ``gang % 16``)."""
    return QColor(PALETTE[gang % len(PALETTE)])


def _snap(r: QRectF) -> QRectF:
    """``r`` on whole pixels, so frames drawn without antialiasing stay crisp at any scale."""
    return QRectF(round(r.x()), round(r.y()), round(r.width()), round(r.height()))


def _text_colour(c: QColor) -> QColor:
    lum = 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue()
    return QColor("#000000") if lum > 140 else QColor("#FFFFFF")


class QueueView(QWidget):
    """Draws a multi-site queue state; follows a step stream with animated migrations."""

    def __init__(self, parent: QWidget | None = None, animation_ms: int = 400) -> None:
        super().__init__(parent)
        self._present = 1.0  # the presentation scale: a floor for scale()
        self._state: MultiSiteState = state_from_snapshot(QueueSnapshot.empty())
        self._flying: list[tuple[tuple[int, int], QRectF, QRectF, float]] = []
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

    def set_state(self, state: QueueSnapshot | MultiSiteState) -> None:
        """Show ``state`` (a snapshot or a live state, copied), cancelling any animation."""
        snap = state if isinstance(state, QueueSnapshot) else QueueSnapshot.from_state(state)
        self._anim.stop()
        self._flying = []
        self._progress = 1.0
        self._state = state_from_snapshot(snap)
        self.updateGeometry()
        self.update()

    def show_step(self, step: Step) -> None:
        """Apply ``step``'s change records and animate its migrations.

        Raises ValueError when a record does not fit the shown state (the view then shows the
        state up to that record).
        """
        self._anim.stop()
        flying = []
        for c in step.changes:
            if isinstance(c, TaskMigrated) and not c.undo:
                src = self.token_rect(c.src_site, c.src_proc, c.src_index)
                dst = self.proc_rect(c.dst_site, c.dst_proc)
                flying.append(((c.gang, c.task), src, dst, c.overhead))
            c.apply(self._state)
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
        return QueueSnapshot.from_state(self._state)

    def set_scale(self, scale: float) -> None:
        """Draw rows, tokens and text at least ``scale`` times their base size (presentation
        mode); they grow further to fill the view, up to :data:`MAX_FILL` times."""
        self._present = max(0.5, float(scale))
        self.updateGeometry()
        self.update()

    # --- geometry -------------------------------------------------------------------------------
    def _site_width(self) -> float:
        return (self.width() - MARGIN * (self._state.cfg.sites + 1)) / self._state.cfg.sites

    def scale(self) -> float:
        """Return the factor the base sizes are drawn at: as large as the height allows for
        every processor row and the width for three queued tokens, between 1 and MAX_SCALE."""
        cfg = self._state.cfg
        by_height = (self.height() - 2 * MARGIN) / (HEADER + cfg.procs * ROW)
        by_width = self._site_width() / (LABEL_W + PROC_W + 2 * GAP + 3 * (TOKEN_W + GAP) + 24)
        cap = MAX_FILL if self._present > 1.0 else MAX_SCALE
        return max(1.0, self._present, min(by_height, by_width, cap))

    def _row_origin(self, site: int, proc: int) -> QPointF:
        k = self.scale()
        x = MARGIN + site * (self._site_width() + MARGIN)
        y = MARGIN + (HEADER + proc * ROW) * k
        return QPointF(x, y)

    def proc_rect(self, site: int, proc: int) -> QRectF:
        """Return the rectangle of processor ``proc`` (0-based) of ``site`` (its running task)."""
        k = self.scale()
        o = self._row_origin(site, proc)
        return _snap(QRectF(o.x() + LABEL_W * k, o.y() + k, PROC_W * k, (ROW - 3) * k))

    def token_rect(self, site: int, proc: int, index: int) -> QRectF:
        """Return the rectangle of the ``index``-th waiting task (0 = head) of a processor's queue."""
        k = self.scale()
        o = self._row_origin(site, proc)
        x = o.x() + (LABEL_W + PROC_W + 2 * GAP + index * (TOKEN_W + GAP)) * k
        return _snap(QRectF(x, o.y() + 2 * k, TOKEN_W * k, (ROW - 5) * k))

    def visible_tokens(self) -> int:
        """Return how many queue tokens fit in a row (the rest is summarised as ``+N``)."""
        k = self.scale()
        free = self._site_width() - (LABEL_W + PROC_W + 2 * GAP) * k
        return max(1, int((free - 24 * k) // ((TOKEN_W + GAP) * k)))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        """Return a size that fits every processor row and about eight tokens per queue."""
        cfg = self._state.cfg
        w = cfg.sites * (LABEL_W + PROC_W + 2 * GAP + 8 * (TOKEN_W + GAP) + 24) + MARGIN * (cfg.sites + 1)
        return QSize(int(w * self._present), int((MARGIN * 2 + HEADER + cfg.procs * ROW) * self._present))

    # --- painting -------------------------------------------------------------------------------
    def _on_progress(self, value) -> None:
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

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Draw sites, processors, queues and any token in flight."""
        st = self._state
        cfg = st.cfg
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.fillRect(self.rect(), BACKGROUND)
        k = self.scale()
        font = QFont(self.font())
        font.setPixelSize(max(10, round(10 * k)))
        p.setFont(font)
        flying = {f[0] for f in self._flying}
        limit = self.visible_tokens()
        self._paint_links(p, flying, limit)
        for s in range(cfg.sites):
            o = self._row_origin(s, 0)
            busy = sum(1 for g in st.site_procs(s) if not st.is_idle(g))
            p.setPen(QColor("#222222"))
            p.drawText(QRectF(o.x(), MARGIN, self._site_width(), (HEADER - 4) * k),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       f"Site {s + 1}  ({busy}/{cfg.procs} running or reserved)")
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
                    p.setPen(QPen(HIGHLIGHT, 3))
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
        t = self._progress
        for task, src, dst, cost in self._flying:
            x = src.x() + (dst.x() - src.x()) * t
            y = src.y() + (dst.y() - src.y()) * t
            chip = QRectF(x, y, src.width(), src.height())
            self._token(p, chip, task)
            p.setPen(QColor("#222222"))
            p.drawText(QRectF(chip.right() + 4, chip.top(), 80 * k, chip.height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, f"+{cost:g}")
        p.end()

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

    def _paint_links(self, p: QPainter, flying: set, limit: int) -> None:
        """A dashed line in the gang's colour from each task to the next, for a gang spread
        over sites; drawn first, so boxes and tokens (and their names) lie on top of it."""
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for gang, places in self.task_places(limit).items():
            if len({s for _, s, _ in places}) < 2:
                continue
            pen = QPen(gang_colour(gang).darker(130), 2, Qt.PenStyle.DashLine)
            p.setPen(pen)
            for (_, _, a), (_, _, b) in zip(places, places[1:]):
                p.drawLine(a.center(), b.center())
        p.restore()
