"""A compare pane for a real trace: the state at the shared time drawn from a run's schedule.

On a trace of a hundred thousand jobs the compare window keeps no step-able simulation: each
policy runs once headless (:mod:`gangviz.experiments.schedule`, in a worker process,
:mod:`gangviz.gui.compare.runs`, so the slowest run never holds up the others or the window)
and its pane draws the state at the shared time from the run's per-job start and finish
columns; until its run ends the pane says how far it is (queued, or simulating for so many
seconds and the share of the trace simulated, which the compiled loops and the reference
engine tell as they go) and, at any time the clock shows, that the state there is not
simulated yet:

* under a time-slot policy run on a compiled loop (the gang and buddy schemes), the Ousterhout
  matrix at ``t`` as the policy made it: each slot a row, each job on the processors it held
  in that slot [Zhang01 §2, Zhou00 §3] (replicas in their extra slots, a migrated job where
  MGS moved it), read from the run's placement log
  (:meth:`~gangviz.experiments.schedule.Schedule.matrix_at`);
* otherwise (space sharing, or a run of the reference engine) the jobs running at ``t`` as
  blocks, one processor wide per processor, packed first fit in start order into rows as wide
  as the machine. Under a space-sharing policy they fill one row; else the rows are an
  *overview* of how many slots' worth of processors they hold, not the policy's own placement
  (the caption says which of the two a pane shows). Rows are labelled at readable steps (S1,
  S50, S100 ...) however many there are;
* under it, the queue: the jobs waiting at ``t``, a block per job, width by size.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from gangviz.gui.compare.state_line import StateLine
from gangviz.gui.plots.compare import policy_colour
from gangviz.timefmt import clock_text
from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from gangviz.experiments.schedule import Schedule

#: the smallest gap, in pixels, between two row labels
LABEL_GAP = 16
#: row-label steps, the first that leaves ``LABEL_GAP`` pixels between labels is used
LABEL_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
#: the queue strip's height, pixels
QUEUE_H = 22
LEFT = 40  # the row labels' column, pixels


def pack_rows(sizes: np.ndarray, processors: int) -> list[list[tuple[int, int, int]]]:
    """Pack jobs of ``sizes`` (in the order given) first fit into rows of ``processors``
    processors; return per row the ``(position in sizes, first processor, size)`` of its jobs.
    A job larger than the machine gets a row of its own, cut at the machine's width."""
    rows: list[list[tuple[int, int, int]]] = []
    free: list[int] = []
    for i, s in enumerate(sizes.tolist()):
        s = min(int(s), processors)
        for r, f in enumerate(free):
            if f >= s:
                rows[r].append((i, processors - f, s))
                free[r] = f - s
                break
        else:
            rows.append([(i, 0, s)])
            free.append(processors - s)
    return rows


def matrix_rows(matrix: np.ndarray) -> list[list[tuple[int, int, int]]]:
    """Return the rows of a matrix of job positions (-1 idle) as :func:`pack_rows` does: per
    row the ``(position, first processor, processors)`` of each run of processors one job
    holds there (a job on processors that are not contiguous gives one run per stretch)."""
    rows: list[list[tuple[int, int, int]]] = []
    for row in np.asarray(matrix):
        if not len(row):
            rows.append([])
            continue
        cut = np.flatnonzero(row[1:] != row[:-1]) + 1
        starts = np.concatenate([[0], cut])
        ends = np.concatenate([cut, [len(row)]])
        held = row[starts] >= 0
        rows.append(list(zip(row[starts][held].tolist(), starts[held].tolist(),
                             (ends - starts)[held].tolist())))
    return rows


def label_step(rows: int, height: float) -> int:
    """Return the step between labelled rows so that labels stand ``LABEL_GAP`` pixels apart."""
    per_row = height / max(rows, 1)
    return next((k for k in LABEL_STEPS if k * per_row >= LABEL_GAP), LABEL_STEPS[-1])


def job_colour(job_id: int) -> QColor:
    """Return a light colour fixed for ``job_id`` (neighbouring blocks tell apart)."""
    return QColor.fromHsv((int(job_id) * 47) % 360, 70, 235)


class ScheduleView(QWidget):
    """Draws the running jobs in rows (the policy's matrix, or packed first fit) and the waiting
    queue of a schedule at one time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.processors = 1
        self.rows: list[list[tuple[int, int, int]]] = []
        self.ids = np.zeros(0, dtype=np.int64)
        self.queue = np.zeros(0, dtype=np.int64)
        self.placed = False  # rows are the policy's slots, not a first-fit packing
        self.message = "simulating…"
        #: the point size of the slot labels and the caption (larger in presentation mode)
        self.points = 8.5
        self.setMinimumSize(160, 120)

    def show_state(self, processors: int, ids: np.ndarray, sizes: np.ndarray, queue_sizes: np.ndarray) -> None:
        """Show jobs ``ids`` of ``sizes`` running (in start order), packed first fit, and a
        queue of ``queue_sizes``."""
        self.show_rows(processors, pack_rows(sizes, max(int(processors), 1)), ids, queue_sizes, placed=False)

    def show_rows(self, processors: int, rows: list[list[tuple[int, int, int]]], ids: np.ndarray,
                  queue_sizes: np.ndarray, *, placed: bool) -> None:
        """Show ``rows`` (per row ``(index into ids, first processor, processors)``) and a queue
        of ``queue_sizes``; ``placed`` says the rows are the policy's own slots."""
        self.processors = max(int(processors), 1)
        self.ids = ids
        self.rows = rows
        self.queue = queue_sizes
        self.placed = placed
        self.message = ""
        self.update()

    def show_message(self, text: str) -> None:
        """Show ``text`` instead of a state (while the run is simulated, or why it failed)."""
        if text == self.message and not self.rows:
            return  # (told again every tenth of a second while a run goes: no repaint then)
        self.message, self.rows = text, []
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("white"))
        if self.message:
            p.setPen(QColor("#6b665e"))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.message)
            return
        font = QFont(self.font())
        font.setPointSizeF(self.points)
        p.setFont(font)
        fm = QFontMetricsF(font)
        # the label column, the queue band and the caption line grow with the text (presenting)
        left = max(float(LEFT), fm.horizontalAdvance("queue") + 8)
        line = fm.height()
        queue_h = max(float(QUEUE_H), line + 6)
        w = self.width() - left - 4
        h = self.height() - queue_h - line - 6
        n = max(len(self.rows), 1)
        row_h = h / n
        grid = QPen(QColor("#C9C4BA"))
        grid.setWidthF(0.6)
        for r, row in enumerate(self.rows):
            y = 2 + r * row_h
            for i, first, size in row:
                rect = QRectF(left + w * first / self.processors, y, max(w * size / self.processors, 1.0),
                              max(row_h, 1.0))
                p.fillRect(rect, job_colour(self.ids[i]))
                if row_h >= 6 and rect.width() >= 3:
                    p.setPen(grid)
                    p.drawRect(rect)
        step = label_step(len(self.rows), h * 16 / max(line, 16))
        p.setPen(QColor("#3b3833"))
        for r in range(len(self.rows)):
            if r == 0 or (r + 1) % step == 0:
                y = 2 + r * row_h
                p.drawText(QRectF(0, y + row_h / 2 - line / 2, left - 4, line),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"S{r + 1}")
        p.setPen(QPen(QColor("#8a857c")))
        p.drawRect(QRectF(left, 2, w, h))
        qy = self.height() - queue_h - line - 2
        p.drawText(QRectF(0, qy, left - 4, queue_h), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                   "queue")
        x = left
        total = float(max(self.processors, int(self.queue.sum()) if len(self.queue) else 1))
        for s in self.queue.tolist():
            width = w * s / total
            p.fillRect(QRectF(x, qy + 3, max(width - 0.5, 1.0), queue_h - 6), QColor("#E8B04A"))
            x += width
        p.drawRect(QRectF(left, qy + 2, w, queue_h - 4))
        p.setPen(QColor("#6b665e"))
        if self.placed:
            caption = (f"{len(self.rows)} slot{'s' if len(self.rows) != 1 else ''} of {self.processors:,} "
                       "processors, as the policy placed the jobs")
        else:
            caption = (f"{len(self.rows)} row{'s' if len(self.rows) != 1 else ''} of {self.processors:,} "
                       "processors (running jobs packed first fit)")
        p.drawText(QRectF(left, self.height() - line - 1, w, line), Qt.AlignmentFlag.AlignLeft,
                   p.fontMetrics().elidedText(caption, Qt.TextElideMode.ElideRight, int(w)))


def pane_frame(frame: QFrame, spec: str, colour: QColor | None = None) -> tuple[QVBoxLayout, QHBoxLayout, QLabel]:
    """Style ``frame`` as the compare pane of policy ``spec`` (a border topped with the policy's
    colour) and give it its layout; return the layout, the header row (not yet added) and the
    bold title label in the policy's colour (``colour``, default its own), placed in neither."""
    frame.setObjectName("pane")
    colour = QColor(colour) if colour is not None else policy_colour(spec)
    frame.setStyleSheet(f"QFrame#pane {{ border: 1px solid #DDD9D0; border-top: 3px solid {colour.name()};"
                        " background: white; }")
    lay = QVBoxLayout(frame)
    lay.setContentsMargins(4, 4, 4, 4)
    lay.setSpacing(2)
    title = QLabel(printable(spec))  # a user policy's name may hold control characters
    title.setTextFormat(Qt.TextFormat.PlainText)
    f = QFont(title.font())
    f.setPointSizeF(12)
    f.setBold(True)
    title.setFont(f)
    title.setStyleSheet(f"color: {colour.darker(115).name()}; border: none;")
    return lay, QHBoxLayout(), title


class SchedulePane(QFrame):
    """One policy's pane on a trace: a header (pen, name, state line) over a :class:`ScheduleView`."""

    jobSelected = Signal(object)  # for the window's interface; a schedule pane selects nothing

    def __init__(self, spec: str, index: int, parent: QWidget | None = None, *,
                 slice_seconds: float | None = None, colour: QColor | None = None) -> None:
        super().__init__(parent)
        self.spec, self.index, self.slice_seconds = spec, index, slice_seconds
        self.schedule: Schedule | None = None
        self.matrix = None
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay, head, self.title = pane_frame(self, spec, colour)
        head.addWidget(self.title)
        head.addStretch(1)
        #: the run's progress while it goes: busy until the engine tells a share, hidden after
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setFixedWidth(110)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.bar.setToolTip("The run of this policy, in a worker process")
        head.addWidget(self.bar)
        lay.addLayout(head)
        self.started: float | None = None  # monotonic time the worker began the run
        self.fraction: float | None = None  # share of the trace simulated, when the engine tells
        self.shown_at = 0.0
        self.failure: str | None = None
        self.state = StateLine("queued: waiting for a free core")
        self.state.setStyleSheet("color: #6b665e; border: none;")
        self.state.setWordWrap(True)
        lay.addWidget(self.state)
        self.view = ScheduleView(self)
        lay.addWidget(self.view, 1)

    def set_schedule(self, schedule: Schedule) -> None:
        """Give the pane its finished run (:class:`~gangviz.experiments.schedule.Schedule`)."""
        self.schedule = schedule
        self.bar.hide()

    def fail(self, message: str) -> None:
        """Show why the run could not be simulated."""
        self.failure = message
        self.bar.hide()
        self.state.setText("failed")
        self.view.show_message(printable(message))

    def set_progress(self, what: str, value: float) -> None:
        """Take a worker's report: ``"started"`` (the run began), ``"simulated"`` (``value``,
        the share of the trace simulated); the pane's lines follow."""
        if what == "started":
            self.started = time.monotonic()
        elif what == "simulated":
            if self.started is None:
                self.started = time.monotonic()
            self.fraction = min(max(value, 0.0), 1.0)
            # QProgressBar.setValue repaints at once; its next update paints it with the rest
            self.bar.setUpdatesEnabled(False)
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(self.fraction * 1000))
            self.bar.setUpdatesEnabled(True)  # (an update of the bar)
        self.tick()

    def progress_text(self) -> str:
        """Return where the run is: queued, or simulating for so many seconds (and the share
        simulated when the engine tells)."""
        if self.started is None:
            return "queued: waiting for a free core"
        text = f"simulating in a worker process · {time.monotonic() - self.started:.0f} s"
        if self.fraction is not None:
            text += f" · {self.fraction:.0%} of the trace"
        return text

    def tick(self) -> None:
        """Update the lines of a run still going (the elapsed seconds move on)."""
        if self.schedule is not None or self.failure is not None:
            return
        progress = self.progress_text()
        self.state.setText(progress)
        self.view.show_message(f"t = {clock_text(self.shown_at, self.slice_seconds)} is not simulated yet: "
                               f"the pane shows it when the run ends.\n\n{progress}")

    def show_at(self, t: float) -> None:
        """Draw the state at shared time ``t`` (after every event at or before it); while the
        run goes, say that ``t`` is not simulated yet and how far the run is."""
        s = self.schedule
        self.shown_at = t
        if s is None:
            self.tick()
            return
        running, waiting = s.running(t), s.waiting(t)
        matrix = s.matrix_at(t)
        if matrix is not None:
            self.view.show_rows(s.processors, matrix_rows(matrix), s.ids, s.size[waiting], placed=True)
        else:
            self.view.show_state(s.processors, s.ids[running], s.size[running], s.size[waiting])
        _w, _r, done = s.counts(t)
        parts = [f"t = {clock_text(t, self.slice_seconds)}", f"{len(running):,} running",
                 f"{len(waiting):,} waiting", f"{done:,} done"]
        if t >= s.end:
            parts.append("ended")
        self.state.set_parts(parts)  # wrapped between its parts, never inside one

    def refresh(self) -> None:
        """Nothing to do: :meth:`show_at` draws (the step-able pane's interface)."""

    def stop(self) -> None:
        """Nothing runs in the pane (the step-able pane's interface)."""
