"""The guided exercise around the matrix: what the window shows while a move is held and while
it is revealed.

The player holds the first move of a step ([Zhou99 §3]: a legal shift, or the exchange of the
jobs between two legal cuts); :mod:`gangviz.gui.matrix.view` draws the legal cuts of the rows
involved. This module adds, without touching the matrix view's own drawing:

* nothing on screen gives the answer while the move is held: the scenario's explanation (side
  panel and the paragraph above the matrix in presentation mode) and the narration of the held
  step are covered until Return;
* the job waiting to be placed in this step is drawn beside the matrix, as a chip of as many
  cells as it needs processors, with its name and size;
* the student may click the region they think moves (between two neighbouring cuts) before
  Return; the window then says whether they were right;
* during the reveal the legal cuts stay drawn and the regions that swap are framed, on a layer
  above the matrix (:class:`RevealLayer`) that follows the matrix's layout; the frame is black
  with a white core (:data:`SWAP_EDGE`, :data:`SWAP_CORE`), so one of its two tones has a
  contrast of at least 3:1 against every job colour;
* once the move has played, the verdict, the pick and the framed regions stay (the player
  pauses) until the student continues (a step, a move, Play or a jump); then all of it is
  cleared, the pick's frame too.

The rules (regions, answer, right or wrong) are Qt-free, in :mod:`gangviz.gui.matrix.held_move`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QLineF, QObject, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QAbstractScrollArea, QBoxLayout, QHBoxLayout, QLabel, QWidget

from gangviz.gui import palette
from gangviz.gui.kit.overlay import ViewOverlay
from gangviz.gui.matrix.held_move import GateInfo, gate_info, region_of
from gangviz.gui.matrix.painters import draw_cuts
from gangviz.gui.matrix.view import MatrixWidget

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player

HIDDEN_EXPLANATION = ("Guided exercise: what happens here is for you to work out. The "
                      "explanation follows at the end of the scenario.")
GUESS = QColor("#0072B2")         # Okabe-Ito blue: the student's pick
#: the frame of the regions that swap: a black band with a white core, so that on any job colour
#: one of the two has a contrast of at least 3:1 (black on the light ones, white on the dark)
SWAP_EDGE = QColor("#000000")
SWAP_CORE = QColor("#FFFFFF")
SWAP_EDGE_PX = 7
SWAP_CORE_PX = 3
VERDICT_EDGE = QColor("#222222")


class WaitingJob(QWidget):
    """A chip of ``size`` cells in the job's colour with its name, and a line of feedback."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job: tuple[str, int, int] | None = None  # name, size, id (for the colour)
        #: the job colours of the matrix the chip stands over (its view's own map)
        self.colours: palette.JobColours = palette.SHARED
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self._lay = lay = QHBoxLayout(self)
        lay.setContentsMargins(14 + 0, 2, 14, 2)
        lay.addSpacing(0)
        lay.addWidget(self.text, 1)
        self.setMinimumHeight(30)
        self.setVisible(False)

    def set_job(self, job: tuple[str, int, int] | None) -> None:
        """Show ``(name, size, id)`` as the waiting job (``None``: no chip)."""
        self.job = job
        left = 14 + (self._chip_width() + 12 if job else 0)
        self._lay.setContentsMargins(left, 2, 14, 2)
        self._lay.activate()  # the text moves right of the chip before the next paint
        self.update()

    def _unit(self) -> int:
        """Return the chip's cell size: 22 pixels, or a line of the text's font when larger."""
        return max(22, QFontMetrics(self.text.font()).height())

    def _chip_width(self) -> int:
        return 0 if self.job is None else min(self._unit() * self.job[1], 12 * self._unit())

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.job is None:
            return
        name, size, jid = self.job
        p = QPainter(self)
        h = min(self.height() - 6, self._unit() + 4)
        w = self._chip_width()
        rect = QRectF(14, (self.height() - h) / 2, w, h)
        fill = self.colours.colour(jid)
        p.fillRect(rect, fill)
        p.setPen(QPen(palette.BACKGROUND, 1))
        cell = w / size
        for k in range(1, size):
            p.drawLine(QLineF(rect.left() + k * cell, rect.top(), rect.left() + k * cell, rect.bottom()))
        p.end()


class RevealLayer(ViewOverlay):
    """Drawn over the matrix: the student's pick while held; cuts and shaded swapping regions
    while the move plays. Transparent to the mouse."""

    def __init__(self, view: MatrixWidget, coach: GuidedCoach) -> None:
        super().__init__(view)
        self.view: MatrixWidget = view
        self.coach = coach

    def paintEvent(self, event: QPaintEvent) -> None:
        info, layout = self.coach.info, self.view.current_geometry()
        if info is None or layout is None or not info.rows:
            return
        x0, cw, _ch, tops, row_h = layout
        rows = [r for r in info.rows if r < len(tops)]
        if not rows:
            return
        y0 = float(min(tops[r] for r in rows))
        y1 = float(max(tops[r] + row_h[r] for r in rows))
        p = QPainter(self)
        if self.coach.revealing:
            p.setBrush(Qt.BrushStyle.NoBrush)
            inset = SWAP_EDGE_PX / 2 + 1
            for lo, hi in info.answer:
                region = QRectF(x0 + lo * cw, y0, (hi - lo) * cw, y1 - y0).adjusted(inset, inset, -inset, -inset)
                for colour, width in ((SWAP_EDGE, SWAP_EDGE_PX), (SWAP_CORE, SWAP_CORE_PX)):
                    p.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap,
                                  Qt.PenJoinStyle.MiterJoin))
                    p.drawRect(region)
            draw_cuts(p, [QLineF(x0 + c * cw, y0 - 6, x0 + c * cw, y1 + 6) for c in info.cuts])
            self._paint_verdict(p, x0, cw, y0, y1)
        guess = self.coach.guess
        if guess is not None:
            lo, hi = guess
            p.setBrush(Qt.BrushStyle.NoBrush)
            rect = QRectF(x0 + lo * cw + 12, y0 + 12, (hi - lo) * cw - 24, y1 - y0 - 24)  # inside the answer frame
            for colour, width in ((palette.BACKGROUND, 7), (GUESS, 4)):  # a white halo: seen on every job
                p.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap,
                              Qt.PenJoinStyle.MiterJoin))
                p.drawRect(rect)
        p.end()


    def _paint_verdict(self, p: QPainter, x0: float, cw: float, y0: float, y1: float) -> None:
        """The verdict in a box next to the matrix: just above the framed region when there is
        room above the rows, else just inside their top edge; kept inside the view."""
        text = self.coach.verdict_text()
        info = self.coach.info
        if not text or info is None or not info.answer:
            return
        font = self.view.name_font()
        metrics = QFontMetrics(font)
        pad = max(6, metrics.height() // 4)
        w = min(metrics.horizontalAdvance(text) + 2 * pad, self.width() - 8)
        h = metrics.height() + pad
        lo, hi = info.answer[0][0], info.answer[-1][1]
        centre = x0 + (lo + hi) / 2 * cw
        left = min(max(centre - w / 2, 4.0), self.width() - w - 4)
        top = y0 - h - 10 if y0 - h - 10 >= 2 else y0 + 10
        box = QRectF(left, top, w, h)
        p.setPen(QPen(VERDICT_EDGE, 2))
        p.setBrush(palette.BACKGROUND)
        p.drawRoundedRect(box, 4, 4)
        p.setFont(font)
        p.setPen(palette.TEXT)
        p.drawText(box, int(Qt.AlignmentFlag.AlignCenter), metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(w - 2 * pad)))


class CoachedBoard(Protocol):
    """What the guided exercise reads of the board (:class:`~gangviz.gui.board.Board`): the
    column it puts the waiting job in (above the matrix; the layout's widget is the board), the
    matrix and the explanation above it."""

    @property
    def column_layout(self) -> QBoxLayout: ...
    @property
    def matrix(self) -> MatrixWidget: ...
    @property
    def explain(self) -> QLabel: ...


class CoachedWindow(Protocol):
    """What the guided exercise reads of the main window (:class:`~gangviz.gui.window.MainWindow`):
    the board, the narration it covers, the explanation beside it, and the window itself
    (``window()``: a top-level window is its own), which owns the coach."""

    @property
    def board(self) -> CoachedBoard: ...
    @property
    def narration(self) -> QAbstractScrollArea: ...
    @property
    def explain(self) -> QLabel: ...
    def window(self) -> QWidget: ...


class GuidedCoach(QObject):
    """Follows the window's player and does what the module docstring lists."""

    def __init__(self, window: CoachedWindow) -> None:
        super().__init__(window.window())
        self.window = window
        self.player: Player | None = None
        self.info: GateInfo | None = None
        self.guess: tuple[int, int] | None = None
        self.revealing = False
        #: the revealed move has played; the verdict stays until the student continues
        self.answered = False
        self.verdict: bool | None = None
        self._saved: tuple[str, str] | None = None
        board = window.board
        self.waiting = WaitingJob(board.column_layout.parentWidget())
        self.waiting.colours = board.matrix.colours
        board.column_layout.insertWidget(board.column_layout.indexOf(board.matrix), self.waiting)
        self.layer = RevealLayer(board.matrix, self)
        self.cover = QLabel("The narration of this step is hidden until Return reveals the move.",
                            window.narration.viewport())
        self.cover.setWordWrap(True)
        self.cover.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cover.setStyleSheet(f"background: #F3F1EC; color: {palette.MUTED_TEXT_HEX}; padding: 12px;")
        self.cover.setVisible(False)
        board.matrix.installEventFilter(self)

    def set_player(self, player: Player) -> None:
        """Follow ``player`` (the window's new one)."""
        self.player = player
        self._end()
        player.gateChanged.connect(self._gate_changed)
        player.moved.connect(self._step_over)
        player.stepped.connect(self._step_over)
        player.finished.connect(self.sync_explanation)

    # ------------------------------------------------------------------ the held move
    def _gate_changed(self, held: bool) -> None:
        p = self.player
        gate = None if p is None else p.gate
        if held and p is not None and gate is not None:
            sim = p.sim

            def name(j: int) -> str:
                status = sim.job_status(j)
                return status.spec.name if status is not None else gate.state.name(j)

            self.info = gate_info(gate.state, gate.change, p.transition_changes(), name)
            self.guess, self.verdict, self.revealing, self.answered = None, None, False, False
            self._hide_answers()
            self._show_waiting()
        elif self.info is not None:
            self.cover.setVisible(False)
            self.sync_explanation()
            self.revealing = True
            if self.guess is not None:
                self.verdict = self.guess in self.info.answer_regions
            self._show_waiting()
        self.layer.update()

    def _step_over(self, *args: object) -> None:
        """The revealed step finished: keep the verdict and pause; the position moved on from
        there (or elsewhere): clear everything."""
        p = self.player
        if self.answered:  # the student went on
            self._end()
            return
        if p is not None and (p.gate is not None or (self.revealing and p.busy)):
            return
        if p is not None and self.revealing and not self.answered and self.info is not None:
            self.answered = True
            p.pause()  # the student reads the verdict, then continues with a key
            self._show_waiting()
            self.layer.update()
            return
        self._end()

    def _end(self) -> None:
        self.cover.setVisible(False)
        self.sync_explanation()
        self.info, self.guess, self.verdict, self.revealing = None, None, None, False
        self.answered = False
        self.waiting.set_job(None)
        self.waiting.text.setText("")
        self.sync_visible()
        self.layer.update()

    def sync_visible(self) -> None:
        """Keep the waiting-job line in the layout while the guided exercise is on, so that the
        matrix does not jump when a move is held."""
        on = self.player is not None and self.player.guided and self.player.has_matrix
        self.waiting.setVisible(bool(on))
        self.sync_explanation()

    def exercise_open(self) -> bool:
        """Whether the guided exercise still has moves to ask about: it is on, the simulation
        has a matrix, and the run has not reached its end."""
        p = self.player
        if p is None or not p.guided or not p.has_matrix:
            return False
        return not (bool(p.sim.done) and p.position >= p.sim.known)

    def sync_explanation(self) -> None:
        """Cover the scenario's explanation while the exercise is open (it tells the moves the
        students are asked to guess), and show it again at the end of the run or when the
        exercise is turned off."""
        if self.exercise_open():
            self._hide_explanation()
        else:
            self._restore_explanation()

    def _hide_answers(self) -> None:
        self._hide_explanation()
        w = self.window
        self.cover.setGeometry(w.narration.viewport().rect())
        self.cover.setVisible(True)
        self.cover.raise_()

    def _hide_explanation(self) -> None:
        w = self.window
        if self._saved is None or w.explain.text() != HIDDEN_EXPLANATION:  # a new text was set
            self._saved = (w.explain.text(), w.board.explain.text())
        w.explain.setText(HIDDEN_EXPLANATION)
        w.board.explain.setText(HIDDEN_EXPLANATION)

    def _restore_answers(self) -> None:
        self.cover.setVisible(False)
        self._restore_explanation()

    def _restore_explanation(self) -> None:
        if self._saved is not None and self.window.explain.text() == HIDDEN_EXPLANATION:
            self.window.explain.setText(self._saved[0])
            self.window.board.explain.setText(self._saved[1])
        self._saved = None

    def explanation_text(self) -> str:
        """Return the scenario's explanation, also while it is covered (the presenter view
        shows it to the lecturer)."""
        w = self.window
        return self._saved[0] if self._saved is not None and w.explain.text() == HIDDEN_EXPLANATION \
            else w.explain.text()

    def verdict_text(self) -> str:
        """Return what the revealed move says about the pick ("Right: P3..P5 changes slots.",
        "Not this time: ...", or which region changes slots when nothing was picked); empty
        while the move is held."""
        info = self.info
        if info is None or not self.revealing:
            return ""
        regions = 'regions change' if len(info.answer) > 1 else 'region changes'
        if self.verdict is True:
            return f"Right: {_cols(self.guess)} changes slots."
        if self.verdict is False:
            return f"Not this time: you picked {_cols(self.guess)}; the framed {regions} slots."
        return f"The framed {regions} slots."

    def _show_waiting(self) -> None:
        info = self.info
        if info is None:
            return
        lines = []
        if info.arrival is not None and not self.answered:
            name, size, _ = info.arrival
            lines.append(f"<b>{name} × {size}</b> waits: it needs {size} "
                         f"processor{'s' if size != 1 else ''} in one slot.")
        if not self.revealing:
            lines.append("Click the region between two cuts that you think changes slots, then "
                         "press Return." if self.guess is None else
                         f"Your pick: {_cols(self.guess)}. Press Return to see the move.")
        elif self.answered:
            lines.append("Press Right to go on.")  # the verdict is drawn by the framed region
        else:
            lines.append(self.verdict_text())
        self.waiting.set_job(None if self.answered else info.arrival)
        self.waiting.text.setText(" ".join(lines))
        self.waiting.setVisible(True)

    # ------------------------------------------------------------------ the student's pick
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (event.type() == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent) and self.info is not None
                and not self.revealing and self.player is not None and self.player.gate is not None):
            self.pick_at(event.position().x())
            return True
        return False

    def pick_processor(self, col: int) -> tuple[int, int] | None:
        """Take the region around processor ``col`` (0-based) as the student's pick; return
        it (``None`` when no move is held or ``col`` lies outside the cuts)."""
        if self.info is None or self.revealing:
            return None
        region = region_of(self.info.cuts, col)
        if region is not None:
            self.guess = region
            self._show_waiting()
            self.layer.update()
        return region

    def pick_at(self, x: float) -> tuple[int, int] | None:
        """Take the region under widget x of the matrix as the student's pick; return it."""
        layout = self.window.board.matrix.current_geometry()
        if layout is None or self.info is None:
            return None
        x0, cw = layout[0], layout[1]
        col = int((x - x0) // cw)
        region = region_of(self.info.cuts, col)
        if region is None:
            return None
        self.guess = region
        self._show_waiting()
        self.layer.update()
        return region


def _cols(region: tuple[int, int] | None) -> str:
    if region is None:
        return ""
    lo, hi = region
    return f"P{lo + 1}" if hi - lo == 1 else f"P{lo + 1}..P{hi}"
