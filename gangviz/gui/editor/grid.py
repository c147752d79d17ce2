"""The editor's paintable matrix: drag along a slot to paint a job, right-click to erase one.

Slots are drawn top slot first, as the papers print them (S1 at the bottom). While the mouse is
held the cells under the drag are outlined with the name and size the job will get; a drag the
matrix cannot hold (across slots, over a painted cell) turns red with the reason, and on release
the reason stays written at the offending cell until the next drag.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from gangviz.core.matrix import processor_label, slot_label
from gangviz.gui import palette
from gangviz.workloads.painting import EditorDoc, PaintError

REFUSED = QColor("#C0392B")


class PaintGrid(QWidget):
    """Shows an :class:`EditorDoc`'s matrix and paints it by mouse drags.

    Signals: ``painted(str)`` with the new job's name, ``erased(str)``, ``refused(str)`` with
    the message shown at the cell.
    """

    painted = Signal(str)
    erased = Signal(str)
    refused = Signal(str)

    def __init__(self, doc: EditorDoc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.drag: tuple[int, int, int, int] | None = None
        #: ``(row, col, text)`` of the last refusal, drawn at that cell.
        self.message: tuple[int, int, str] | None = None
        self.setMouseTracking(False)
        self.setMinimumSize(360, 180)
        #: text size factor: 1 normally, LARGE in large-text mode (a projector)
        self.text_scale = 1.0
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # ------------------------------------------------------------------ geometry
    def _geometry(self) -> tuple[float, float, float, float]:
        """``(x0, y0, cell_w, cell_h)``: left/top of the grid and one cell's size."""
        # bottom: the processor labels, then room for a refusal message under the grid
        k = self.text_scale
        left, top, bottom = 44.0 * k, 22.0 * k, (26.0 + 48.0) * k
        n, rows = max(self.doc.processors, 1), max(self.doc.slots, 1)
        cw = max(12.0, (self.width() - left - 12) / n)
        ch = max(14.0, min(64.0 * k, (self.height() - top - bottom) / rows))
        return left, top, cw, ch

    def cell_rect(self, row: int, col: int) -> QRectF:
        """The rectangle of slot ``row`` (0 = S1, drawn at the bottom) and processor ``col``."""
        x0, y0, cw, ch = self._geometry()
        y = y0 + (self.doc.slots - 1 - row) * ch
        return QRectF(x0 + col * cw, y, cw, ch)

    def cell_at(self, pos: QPoint | QPointF) -> tuple[int, int] | None:
        """``(row, col)`` under widget point ``pos``, or ``None`` outside the grid."""
        x0, y0, cw, ch = self._geometry()
        col = int((pos.x() - x0) // cw)
        r_top = int((pos.y() - y0) // ch)
        if not (0 <= col < self.doc.processors and 0 <= r_top < self.doc.slots):
            return None
        return self.doc.slots - 1 - r_top, col

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, event: QMouseEvent) -> None:
        cell = self.cell_at(event.position())
        if cell is None:
            return
        if event.button() == Qt.MouseButton.RightButton:
            name = self.doc.erase(*cell)
            self.message = None
            if name:
                self.erased.emit(name)
            self.update()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            self.drag = (cell[0], cell[1], cell[0], cell[1])
            self.message = None
            self.update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self.drag is None:
            return
        cell = self._clamped(event.position())
        self.drag = (self.drag[0], self.drag[1], cell[0], cell[1])
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.drag is None or event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self._clamped(event.position())
        r0, c0 = self.drag[0], self.drag[1]
        self.drag = None
        try:
            name = self.doc.paint(r0, c0, cell[0], cell[1])
        except PaintError as exc:
            self.message = (exc.row, exc.col, str(exc))
            self.update()
            self.refused.emit(str(exc))
            return
        self.update()
        self.painted.emit(name)

    def _clamped(self, pos: QPoint | QPointF) -> tuple[int, int]:
        x0, y0, cw, ch = self._geometry()
        col = min(max(int((pos.x() - x0) // cw), 0), self.doc.processors - 1)
        r_top = min(max(int((pos.y() - y0) // ch), 0), self.doc.slots - 1)
        return self.doc.slots - 1 - r_top, col

    def drag_preview(self) -> tuple[str, int, str | None] | None:
        """While dragging: ``(name, size, refusal or None)`` the release would give."""
        if self.drag is None:
            return None
        r0, c0, r1, c1 = self.drag
        try:
            name, size = self.doc.check_drag(r0, c0, r1, c1)
            return name, size, None
        except PaintError as exc:
            return self.doc.next_name(), abs(c1 - c0) + 1, str(exc)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), palette.BACKGROUND)
        x0, y0, cw, ch = self._geometry()
        font = QFont(self.font())
        font.setPointSizeF(max(9.0, min(14.0, ch * 0.32)) * self.text_scale)
        p.setFont(font)
        ids = {n: i for i, n in enumerate(self.doc.names())}
        for r in range(self.doc.slots):
            row = self.doc.cells[r]
            c = 0
            while c < self.doc.processors:  # one fill per run: no seams inside a job
                end = c
                while end + 1 < self.doc.processors and row[end + 1] == row[c]:
                    end += 1
                name = row[c]
                fill = palette.job_colour(ids[name]) if name is not None else palette.IDLE
                p.fillRect(self.cell_rect(r, c).united(self.cell_rect(r, end)), fill)
                c = end + 1
            self._paint_row_lines(p, r, ch)
            # one label per job run in the row
            c = 0
            row = self.doc.cells[r]
            while c < self.doc.processors:
                name = row[c]
                end = c
                while end + 1 < self.doc.processors and row[end + 1] == name:
                    end += 1
                if name is not None:
                    span = self.cell_rect(r, c).united(self.cell_rect(r, end))
                    p.setPen(QPen(palette.text_colour(palette.job_colour(ids[name]))))
                    p.drawText(span, Qt.AlignmentFlag.AlignCenter, name)
                c = end + 1
            label = self.cell_rect(r, 0).adjusted(-x0, 0, 0, 0)
            label.setWidth(x0 - 6)
            p.setPen(QPen(palette.TEXT))
            p.drawText(label, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, slot_label(r))
        label_h = p.fontMetrics().height() + 4
        for c in range(self.doc.processors):
            rect = self.cell_rect(0, c).translated(0, ch)
            rect.setHeight(label_h)
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, processor_label(c))
        self._paint_drag(p)
        self._paint_message(p)
        p.end()

    def _paint_row_lines(self, p: QPainter, r: int, ch: float) -> None:
        """The grid of slot ``r``: full lines around the row and between different jobs (or
        idle cells); inside a job only short ticks at the top and bottom, so that no line
        crosses the job's name."""
        row = self.doc.cells[r]
        first, last = self.cell_rect(r, 0), self.cell_rect(r, self.doc.processors - 1)
        p.setPen(QPen(palette.GRID, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(first.united(last))
        tick = ch * 0.18
        for c in range(1, self.doc.processors):
            x = self.cell_rect(r, c).left()
            if row[c] is None or row[c] != row[c - 1]:
                p.drawLine(QPointF(x, first.top()), QPointF(x, first.bottom()))
            else:
                p.drawLine(QPointF(x, first.top()), QPointF(x, first.top() + tick))
                p.drawLine(QPointF(x, first.bottom() - tick), QPointF(x, first.bottom()))

    def set_text_scale(self, scale: float) -> None:
        """Draw names and labels ``scale`` times their size (large-text mode for a projector)."""
        self.text_scale = max(1.0, float(scale))
        self.update()

    def _paint_drag(self, p: QPainter) -> None:
        preview = self.drag_preview()
        if preview is None or self.drag is None:  # (no preview without a drag)
            return
        name, size, refusal = preview
        r0, c0, r1, c1 = self.drag
        lo, hi = sorted((c0, c1))
        rect = self.cell_rect(r0, lo).united(self.cell_rect(r0, hi))
        if r1 != r0:
            rect = rect.united(self.cell_rect(r1, c1))
        colour = REFUSED if refusal else palette.HILITE
        p.setPen(QPen(colour, 3, Qt.PenStyle.DashLine if refusal else Qt.PenStyle.SolidLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
        tag = f"{name} × {size}" if not refusal else "✗"
        p.setPen(QPen(colour))
        p.drawText(rect.adjusted(0, -20, 0, 0).topLeft() + QPoint(4, 16), tag)

    def _paint_message(self, p: QPainter) -> None:
        if self.message is None:
            return
        row, col, text = self.message
        cell = self.cell_rect(row, col)
        p.setPen(QPen(REFUSED, 3))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(cell.adjusted(1.5, 1.5, -1.5, -1.5))
        font = QFont(self.font())
        font.setPointSizeF(11.0 * self.text_scale)
        p.setFont(font)
        fm = p.fontMetrics()
        width = min(fm.horizontalAdvance(text) + 28, self.width() - 8)
        box = QRectF(0, 0, width, fm.height() * (1 + fm.horizontalAdvance(text) // max(width - 28, 1)) + 10)
        x = min(max(cell.center().x() - width / 2, 4), self.width() - width - 4)
        # Under the processor labels (the grid leaves room there), so no painted cell is hidden.
        grid_bottom = self.cell_rect(0, 0).bottom() + fm.height() + 8
        y = grid_bottom
        box.moveTo(x, y)
        p.setBrush(QColor("#FFF4F2"))
        p.setPen(QPen(REFUSED, 1.5))
        p.drawRoundedRect(box, 4, 4)
        p.setPen(QPen(REFUSED))
        p.drawText(box.adjusted(8, 5, -8, -5), int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), text)
