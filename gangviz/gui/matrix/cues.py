"""Animation cues over the matrix: where a moving job came from and where it goes.

While a shift, a region swap or a migration is animated, a *ghost* (the job's colour, faint,
with a dashed outline) stays on the cells the job is leaving, and a *trail* (a dashed arrow)
runs from there to its new place. The trail runs just left of the job's block (just right of it
when the left would cross the name of a job in a row between), never through its middle, so it
never crosses the job's name; nothing of the layer is drawn over a sliding block
(it is clipped out), so the ghost's outline never strikes through a name mid-tween.

A layer of its own, above the matrix view, so it is in the window, in presentation mode and
in every exported frame (:mod:`gangviz.gui.export.render` grabs the same board). Which cells move is
worked out by :func:`cue_moves` (Qt-free data in, plain tuples out).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPaintEvent,
)

from gangviz.core.changes import JobMigrated, JobRemoved, JobShifted, RegionSwapped, cost_label
from gangviz.core.matrix import IDLE
from gangviz.core.record import Change
from gangviz.gui import palette
from gangviz.gui.kit.overlay import ViewOverlay
from gangviz.gui.matrix.geometry import column_runs
from gangviz.gui.matrix.marks import draw_badge
from gangviz.gui.matrix.style import draw_ghost, draw_trail, style_of

if TYPE_CHECKING:
    from gangviz.gui.matrix.view import MatrixWidget
    from gangviz.gui.playback.player import Player

#: one job's move: ``(job, from row, its column runs there, to row, its column runs there)``
CueMove = tuple[int, int, list[tuple[int, int]], int, list[tuple[int, int]]]

#: kinds of change that move jobs between cells
MOVING = ("job_shifted", "region_swapped", "job_migrated")


def _runs(cols: Iterable[int]) -> list[tuple[int, int]]:
    """``[lo, hi)`` runs of consecutive columns, lowest first."""
    return column_runs(sorted(int(c) for c in cols))


def cue_moves(state: Any, change: Change) -> list[CueMove]:
    """Return ``(job, src_row, src_runs, dst_row, dst_runs)`` for every job ``change`` moves
    on ``state`` (the matrix before it); runs are ``[lo, hi)`` column ranges."""
    if isinstance(change, JobShifted):
        runs = _runs(state.job_cols(change.job))
        return [(change.job, change.src_row, runs, change.dst_row, runs)]
    if isinstance(change, JobMigrated):
        return [(change.job, change.src_row, _runs(change.src_cols), change.dst_row, _runs(change.dst_cols))]
    if isinstance(change, RegionSwapped):
        out: list[CueMove] = []
        n = state.processors
        for job in change.moved_a:
            runs = _runs([c for c in state.job_cols(job) if change.lo <= c < change.hi
                          or change.lo <= c + n < change.hi])
            out.append((job, change.row_a, runs, change.row_b, runs))
        for job in change.moved_b:
            runs = _runs([c for c in state.job_cols(job) if change.lo <= c < change.hi
                          or change.lo <= c + n < change.hi])
            out.append((job, change.row_b, runs, change.row_a, runs))
        return out
    return []


class MoveCues(ViewOverlay):
    """The ghost-and-trail layer over ``view`` (a :class:`~gangviz.gui.matrix.view.MatrixWidget`)."""

    raise_on_resize = True

    def __init__(self, view: MatrixWidget) -> None:
        super().__init__(view)
        self.view: MatrixWidget = view
        self.player: Player | None = None

    def set_player(self, player: Player) -> None:
        """Follow ``player``'s animation frames."""
        if self.player is not None:
            for sig in (self.player.frame, self.player.moved):
                try:
                    sig.disconnect(self.update)
                except (RuntimeError, TypeError):
                    pass
        self.player = player
        player.frame.connect(self.update)
        player.moved.connect(self.update)
        self.update()

    def current(self) -> list[CueMove]:
        """Return the moves to cue now: a moving change mid-tween, or the move stepping by move
        stopped on (its ghost and trail stay while it is shown; a job that left keeps a ghost
        of the cells it left, as the paper's "(J')" in Zhou99 Fig. 2(a)); else nothing."""
        p = self.player
        tr = None if p is None else p.transition
        if tr is None:
            stop = None if p is None else p.move_stop
            if stop is None:
                return []
            if isinstance(stop.change, JobRemoved):
                runs = _runs(stop.change.cols)
                return [(stop.change.job, stop.change.row, runs, stop.change.row, runs)]
            return cue_moves(stop.state, stop.change) if stop.change.kind in MOVING else []
        if tr.change.kind not in MOVING or not (0.0 < tr.t < 1.0):
            return []
        return cue_moves(tr.state, tr.change)

    def kind(self) -> str:
        """Return the kind of the change cued now (:meth:`current`), ``""`` when none."""
        p = self.player
        if p is None:
            return ""
        if p.transition is not None:
            return str(p.transition.change.kind)
        stop = p.move_stop
        return "" if stop is None else str(stop.change.kind)

    def _free_runs(self, row: int, runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The parts of ``runs`` of ``row`` where a ghost may be drawn: all of them mid-tween;
        at a stop only the cells left idle (after a swap another job stands where the ghost
        would be, and its colour stays clean; the trail still shows where the job came from)."""
        p = self.player
        if p is None or p.transition is not None or p.move_stop is None:
            return runs
        state = p.display_state
        if state is None or row >= state.n_rows:
            return runs
        cells = state.cells[row]
        return _runs(c for lo, hi in runs for c in range(lo, hi) if cells[c] == IDLE)

    def badge(self) -> tuple[str, int, int] | None:
        """Return the migration badge drawn at a stop: ``(text, row, last column)`` of a
        migration stopped on that lost service, else ``None`` (mid-tween the matrix view draws
        it on the sliding block)."""
        p = self.player
        stop = None if p is None or p.transition is not None else p.move_stop
        if stop is None or not isinstance(stop.change, JobMigrated) or not stop.change.cost:
            return None
        return f"cost {cost_label(stop.change.cost)}", int(stop.change.dst_row), max(int(c) for c in stop.change.dst_cols)

    def trail(self, src: int, src_runs: list[tuple[int, int]], dst: int, dst_runs: list[tuple[int, int]],
              geom: tuple[float, float, float, np.ndarray, np.ndarray]) -> tuple[QPointF, QPointF]:
        """Return the ends of the trail of a move from ``src`` to ``dst`` (rows, with their
        column runs) in the view's geometry ``geom``: just left of the block's left edge, from
        the middle of one row to the middle of the other, so it is never hidden by the sliding
        block nor drawn through its name; when that would cross the name of a job in a row
        between, just right of the block, else along a cell edge inside it from the edge of one
        row to the edge of the other (clear of the names in both)."""
        x0, cw, _, tops, row_h = geom
        (slo, shi), (dlo, dhi) = (src_runs[0][0], src_runs[-1][1]), (dst_runs[0][0], dst_runs[-1][1])
        names = self._names_between(src, dst, x0, cw)
        on_left = (x0 + slo * cw - 5, x0 + dlo * cw - 5)
        on_right = (x0 + shi * cw + 5, x0 + dhi * cw + 5)
        ya, yb = float(tops[src] + row_h[src] / 2), float(tops[dst] + row_h[dst] / 2)
        xa, xb = on_left
        if _crosses(names, *on_left):
            inner = [(x0 + c * cw, x0 + c * cw) for c in range(max(slo, dlo) + 1, min(shi, dhi))]
            clear = [x for x in (on_right, *inner) if not _crosses(names, *x)]
            if clear:
                xa, xb = clear[0]
                if clear[0] != on_right:  # over the block itself: from edge to edge
                    down = tops[dst] > tops[src]  # the new place is lower on the screen
                    ya = float(tops[src] + (row_h[src] if down else 0.0))
                    yb = float(tops[dst] + (0.0 if down else row_h[dst]))
        return QPointF(xa, ya), QPointF(xb, yb)

    def _names_between(self, src: int, dst: int, x0: float, cw: float) -> list[tuple[float, float]]:
        """The ``(left, right)`` x spans of the job names drawn in the rows strictly between
        ``src`` and ``dst`` of the state shown (as the matrix view centres them in each run)."""
        state = None if self.player is None else self.player.display_state
        lo, hi = sorted((src, dst))
        if state is None or hi - lo < 2:
            return []
        metrics = QFontMetricsF(self.view.name_font())
        spans = []
        for row in range(lo + 1, min(hi, state.n_rows)):
            cells = state.cells[row]
            for a, b in _job_runs(cells):
                width = metrics.horizontalAdvance(state.name(int(cells[a])))
                if (b - a) * cw >= width + 6:
                    centre = x0 + (a + b) * cw / 2
                    spans.append((centre - width / 2 - 3, centre + width / 2 + 3))
        return spans

    def _left_name(self, job: int) -> str:
        """The name of a job that left, in parentheses (as the paper marks a terminated job)."""
        stop = None if self.player is None else self.player.move_stop
        if stop is None or not isinstance(stop.change, JobRemoved):
            return ""
        return f"({stop.state.name(job)})"

    def _moving_rects(self, x0: float, cw: float, ch: float, tops: np.ndarray) -> list[QRectF]:
        """Where the sliding blocks are drawn in this frame (as the matrix view draws them)."""
        from gangviz.gui.matrix.scene import build_scene

        tr = None if self.player is None else self.player.transition
        if tr is None:
            return []
        rects = []
        n = len(tops)
        for mv in build_scene(tr.state, tr.change, tr.t).movers:
            if mv.ghost or n == 0:
                continue
            pos = min(max(mv.row(), 0.0), n - 1.0)
            lo = int(pos)
            y = float(tops[lo] + ((tops[lo + 1] - tops[lo]) * (pos - lo) if lo < n - 1 else 0.0))
            for a, b in _runs(round(mv.col(i)) for i in range(len(mv.cols0))):
                rects.append(QRectF(x0 + a * cw, y, (b - a) * cw, ch))
        return rects

    def paintEvent(self, event: QPaintEvent) -> None:
        moves = self.current()
        geom = self.view.current_geometry() if moves else None
        if not moves or geom is None:
            return
        badge = self.badge()
        x0, cw, ch, tops, row_h = geom
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        # Nothing is drawn over a block while it slides: its name stays clear.
        keep = QPainterPath()
        keep.addRect(QRectF(self.rect()))
        for rect in self._moving_rects(x0, cw, ch, tops):
            hole = QPainterPath()
            hole.addRect(rect.adjusted(-1, -1, 1, 1))
            keep = keep.subtracted(hole)
        p.setClipPath(keep)
        style = style_of(self.kind())
        for job, src, src_runs, dst, dst_runs in moves:
            if src >= len(tops) or dst >= len(tops):
                continue
            colour = self.view.colours.colour(job)
            gone = self._left_name(job)
            if style.ghost is not None:
                inset = style.ghost.inset
                for lo, hi in self._free_runs(src, src_runs):
                    rect = QRectF(x0 + lo * cw + inset, float(tops[src]) + inset,
                                  (hi - lo) * cw - 2 * inset, float(row_h[src]) - 2 * inset)
                    draw_ghost(p, style.ghost, colour, rect)
                    if gone:
                        p.setFont(self.view.name_font())
                        p.setPen(palette.TEXT)
                        p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), gone)
            if style.trail is None:
                continue
            a, b = self.trail(src, src_runs, dst, dst_runs, geom)
            if (a - b).manhattanLength() < 4:
                continue
            draw_trail(p, style.trail, colour, a, b)
        if badge is not None and badge[1] < len(tops):
            text, row, col = badge
            font = self.view.name_font()
            font.setBold(True)
            draw_badge(p, text, QPointF(x0 + (col + 1) * cw + 6, float(tops[row] + row_h[row] / 2)), font,
                       right_limit=self.width() - 4.0)
        p.end()


def _job_runs(cells: np.ndarray) -> list[tuple[int, int]]:
    """The ``(first, end)`` column runs of one job each in a row of cells (idle cells skipped)."""
    change = np.flatnonzero(np.diff(cells)) + 1
    starts = np.concatenate(([0], change)).tolist()
    ends = np.concatenate((change, [len(cells)])).tolist()
    return [(a, b) for a, b in zip(starts, ends) if cells[a] != IDLE]


def _crosses(names: list[tuple[float, float]], xa: float, xb: float) -> bool:
    """Whether a trail from x ``xa`` to ``xb`` (nearly upright) passes over one of ``names``."""
    lo, hi = min(xa, xb), max(xa, xb)
    return any(left <= hi and lo <= right for left, right in names)
