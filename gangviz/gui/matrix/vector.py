"""The workload vector (WLV) and the buddy workload tree (WLT), aligned with the columns.

Zhou99 §4, Fig. 5 (WLV: idle slots per processor) and Fig. 6 (WLT: a node
covers a buddy group and holds the sum of its children when both are non-zero, else 0);
Zhou00 §3.

Layout choices: the WLV row comes first, right under the matrix's processor labels; the tree
follows as an icicle whose levels widen downwards (pairs, fours, ..., the root at the bottom),
each node spanning exactly the processor columns it covers. The tree's leaf level *is* the WLV,
so it is not drawn twice. Values are numbers (where the digits fit) and shades (darker = more
idle slots, relative to the number of slots times the group size); zero nodes are greyed out.

The last allocation is highlighted (tie-break: the most recent ``job_placed`` at or before the
current step): under a buddy policy (BC, BR, BRMS, BRMMS) the smallest buddy node covering the
placement is outlined (for a single processor, its WLV entry); under any other policy the
placement's run of WLV entries is outlined (the consecutive non-zeros the linear re-packing
allocation of Zhou99 §4 used).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QWidget

from gangviz.core.changes import JobMigrated, JobPlaced
from gangviz.gui import palette
from gangviz.gui.families.table import engine_of
from gangviz.gui.matrix.cues import MOVING as MOVING_KINDS
from gangviz.gui.matrix.geometry import RIGHT, ColumnRange, column_runs, columns
from gangviz.gui.matrix.marks import hatch
from gangviz.gui.matrix.scene import replica_mask
from gangviz.gui.matrix.style import STYLES, Ghost, Icon, ghost_edge, ghost_fill, migration_icon
from gangviz.gui.playback.wiring import follow
from gangviz.sim.protocol import Simulation
from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from gangviz.core.matrix import OusterhoutMatrix
    from gangviz.gui.playback.player import Player

WLV_H = 26.0
LEVEL_H = 19.0
GAP = 4.0


def last_allocation(sim: Simulation, position: int, limit: int = 5000) -> tuple[int, list[int]] | None:
    """Return ``(job, cols)`` of the latest job placement in ``sim``'s first ``position`` steps
    (read with :meth:`~gangviz.sim.protocol.Simulation.step_at`), or ``None``.

    Looks back at most ``limit`` steps (a long run without placements shows no highlight).
    """
    for k in range(min(position, sim.known) - 1, max(-1, position - 1 - limit), -1):
        for change in reversed(sim.step_at(k).changes):
            if isinstance(change, JobPlaced):
                return change.job, list(change.cols)
    return None


def buddy_node(cols: list[int]) -> tuple[int, int] | None:
    """Return ``(level, index)`` of the smallest buddy node covering the contiguous ``cols``.

    A buddy scheme allocates a whole node of 2^d processors (Zhou00 §3) even
    when the job uses fewer, so the node is the smallest aligned group holding every column.
    Returns ``None`` for an empty or non-contiguous set.
    """
    n = len(cols)
    if n == 0 or cols != list(range(cols[0], cols[0] + n)):
        return None
    level = (n - 1).bit_length()
    while (cols[0] >> level) != (cols[-1] >> level):
        level += 1
    return level, cols[0] >> level


def tree_hidden_reason(policy: str) -> str | None:
    """Return why the workload tree is not drawn under ``policy``, or ``None`` when the policy
    allocates by it (the registry's ``wlt`` trait: the buddy schemes [Zhou00 §3] and re-packing,
    whose Fig. 6 deletes a slot when the tree's root turns non-zero [Zhou99 §4]); under any
    other policy the tree means nothing and is not drawn."""
    if _has_trait(policy, "wlt"):
        return None
    return (f"Workload tree not shown: {printable(policy)} does not allocate by buddy groups "
            "(only the buddy schemes and re-packing use it).")


#: a tree level is drawn when its nodes are at least this wide on screen (pixels)
MIN_NODE_PX = 12.0
#: the key wraps onto more lines only on a board at least this high (pixels)
KEY_WRAP_HEIGHT = 400
#: the key's entry on the shades, where its whole text is wider than the view (a narrow pane)
SHADE_SHORT = "WLV / tree: idle slots"
#: the tree never takes more than this share of the board's height (the matrix keeps the rest)
MAX_SHARE = 0.30


class VectorTreeView(QWidget):
    """Paints the WLV and the WLT of the player's matrix (see the module docstring).

    At any machine size the view draws the processors of its :class:`ColumnRange` (shared with
    the matrix, so both zoom and pan together). Tree levels whose nodes would be narrower than
    :data:`MIN_NODE_PX` are left out, and so are the finest of the rest when the tree would
    take more than :data:`MAX_SHARE` of its parent's height (a click on the gutter shows every
    level that fits the matrix's height, another click folds them again). Hovering a WLV entry
    or a tree node marks its processors in the matrix; hovering a job in the matrix outlines
    its WLV entries here (both through the shared range). A key under the tree names what the
    rows count and the overlays mean.
    """

    def __init__(self, player: Player | None = None, parent: QWidget | None = None, *,
                 show_tree: bool = True) -> None:
        super().__init__(parent)
        self.player: Player | None = None
        self.show_tree = show_tree
        self.expanded = False
        self.show_key = True
        #: the key's entries when fixed (an export lists what the whole animation shows, so
        #: the key never changes between frames), else ``None``: what the screen shows now
        self.fixed_keys: set[str] | None = None
        self.column_range = ColumnRange()
        self._own_range = self.column_range
        self._font = QFont(self.font())
        self._small = QFont(self._font)
        self.set_font_size(9.0)
        self._allocation: tuple[int, list[int]] | None = None
        self._levels: list[int] = []
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.setMouseTracking(True)
        if player is not None:
            self.set_player(player)

    def set_font_size(self, points: float) -> None:
        """Draw the digits and labels at ``points`` (9 in the window, larger when presenting)."""
        self._font.setPointSizeF(points)
        self._small = QFont(self._font)
        if points < 12:  # in the window the tree's digits are a little smaller than the WLV's
            self._small.setPointSizeF(points * 0.9)
        self._fm = QFontMetricsF(self._font)
        self._fm_small = QFontMetricsF(self._small)
        self.wlv_h = max(WLV_H, self._fm.height() + 8)
        self.level_h = max(LEVEL_H, self._fm_small.height() + 5)
        self.key_h = self._fm_small.height() + 6
        self._relayout()

    def set_column_range(self, rng: ColumnRange) -> None:
        """Follow ``rng`` (the matrix's processors on show) instead of the view's own range."""
        for lst, fn in ((self.column_range.listeners, self._relayout), (self.column_range.hover_listeners, self.update)):
            if fn in lst:
                lst.remove(fn)
        self.column_range = rng
        rng.listeners.append(self._relayout)
        rng.hover_listeners.append(self.update)
        self._relayout()

    def set_player(self, player: Player) -> None:
        """Show ``player``'s matrix (disconnects from the previous player)."""
        follow(self.player, player, ("frame", "moved", "stepped"), self._dirty)
        self.player = player
        m = self._matrix()
        if m is not None and self.column_range is self._own_range:
            self.column_range.set_processors(m.processors)
        self._dirty()
        self._relayout()

    def _relayout(self) -> None:
        h = int(self.preferred_height())
        if h != self.height() or self.minimumHeight() != h:
            self.setFixedHeight(h)
        self.update()

    def tree_levels(self) -> list[int]:
        """Return the tree levels drawn (1 = pairs ... the root), coarsest last."""
        m = self._matrix()
        if m is None or not self.show_tree or self.tree_reason() is not None:
            return []
        _x0, cw = columns(max(self.width(), 200), m.processors, self.column_range)
        depth = len(m.tree.levels) - 1
        levels = [d for d in range(1, depth + 1) if (1 << d) * cw >= (3.0 if self.expanded else MIN_NODE_PX)]
        parent = self.parentWidget()
        share = 0.55 if self.expanded else MAX_SHARE
        room = (parent.height() * share if parent is not None and parent.height() > 100 else 10 * self.level_h)
        matrix = getattr(parent, "matrix", None)
        if parent is not None and matrix is not None and matrix.isVisible() and matrix.height() > 0:
            # the matrix and this view share what the board leaves them: never more than half
            room = min(room, (matrix.height() + self.height()) / 2)
            # and never so much that the matrix would go under its least height (the window
            # would then grow past the size it was given)
            lay = parent.layout()
            others = sum(w.height() for w in parent.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                         if w.isVisible() and w is not self and w is not matrix and not w.isWindow()
                         and lay is not None and lay.indexOf(w) >= 0)
            room = min(room, parent.height() - others - matrix.minimumHeight())
        room -= self.wlv_h + GAP + 8 + (self.key_h * len(self._key_lines()) if self.show_key else 0)
        fit = max(int(room // self.level_h), 1)
        if len(levels) > fit:  # keep the coarse levels (the root side), fold the finest
            levels = levels[len(levels) - fit:]
        return levels

    def tree_reason(self) -> str | None:
        """Return why the tree is hidden for the policy on show (``None``: it is drawn)."""
        if self.player is None or not self.show_tree:
            return None
        return tree_hidden_reason(self.player.sim.policy_name)

    def preferred_height(self) -> float:
        """Return the height that fits the WLV, the tree levels drawn (or the line saying why
        there are none) and the key."""
        rows = len(self.tree_levels()) if self.tree_reason() is None else 1
        # room for every entry the key may list, so the board does not jump as entries come and go
        key = self.key_h * len(self._key_lines(every=True)) if self.show_key else 0
        return self.wlv_h + GAP + rows * self.level_h + 8 + key

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        h = int(self.preferred_height())
        if h != self.height():
            self.setFixedHeight(h)

    def _matrix(self) -> OusterhoutMatrix | None:
        p = self.player
        return None if p is None else p.display_state

    def _dirty(self, *args: object) -> None:
        p = self.player
        alloc = last_allocation(p.sim, p.position) if p is not None else None
        if alloc is not None and p is not None:
            m = p.display_state
            # the outline goes when its job has left the matrix (or moved off those processors)
            if m is None or alloc[0] not in m or not set(alloc[1]) <= set(m.job_cols(alloc[0])):
                alloc = None
        self._allocation = alloc
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        if int(self.preferred_height()) != self.height():
            QTimer.singleShot(0, self._relayout)  # the board's height changed: levels to fold
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), palette.BACKGROUND)
            m = self._matrix()
            if m is not None:
                self._paint(painter, m)
        finally:
            painter.end()

    def _geometry(self, m: OusterhoutMatrix) -> tuple[float, float, int, int, float, float]:
        """Return (x0, cw, lo, hi, left, right): the columns and the processors on show."""
        x0, cw = columns(self.width(), m.processors, self.column_range)
        rng = self.column_range
        if rng.processors == m.processors:
            lo, hi = rng.visible()
            left = x0 + rng.first * cw
        else:
            lo, hi, left = 0, m.processors, x0
        return x0, cw, lo, hi, left, min(self.width() - RIGHT, x0 + m.processors * cw)

    def _paint(self, painter: QPainter, m: OusterhoutMatrix) -> None:
        if self.player is None:  # (the matrix drawn is the player's)
            return
        sim = engine_of(self.player.sim)
        procs = m.processors
        x0, cw, lo, hi, left, right = self._geometry(m)
        rows = max(m.n_rows, 1)
        wlv = m.wlv
        painter.setFont(self._font)
        digit_w = self._fm.horizontalAdvance("0")
        y = 2.0
        self._label(painter, y, self.wlv_h, "idle", bold=True)
        painter.save()
        painter.setClipRect(QRectF(left, 0, right - left, self.height()))
        grid_pen = QPen(palette.GRID, 1.0)
        if cw >= 3:
            for c in range(lo, hi):
                v = int(wlv[c])
                rect = QRectF(x0 + c * cw, y, cw, self.wlv_h)
                painter.fillRect(rect, palette.shade(v, rows))
                if cw >= 5:
                    painter.setPen(grid_pen)
                    painter.drawRect(rect)
                if cw >= digit_w * len(str(v)) + 3:
                    painter.setPen(palette.text_colour(palette.shade(v, rows)) if v else palette.MUTED_TEXT)
                    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, str(v))
        else:  # narrower than 3 px: one shade per pixel, the most idle processor under it
            px = max(int(right - left), 1)
            sample = np.clip((self.column_range.first + np.arange(px + 1) / cw).astype(np.int64), 0, procs)
            sample[-1] = max(sample[-1], sample[-2] + 1) if px > 0 else sample[-1]
            starts = np.minimum(sample[:-1], procs - 1)
            peak = np.maximum.reduceat(np.asarray(wlv), starts) if len(wlv) else np.zeros(px)
            for i, v in enumerate(peak.tolist()):
                painter.fillRect(QRectF(left + i, y, 1.0, self.wlv_h), palette.shade(v, rows))
        alloc = self._allocation
        buddy = _is_buddy(sim.policy_name)
        node = buddy_node(alloc[1]) if (alloc and buddy) else None
        hl_pen = QPen(palette.LAST_ALLOC, 3.0)
        if alloc and (node is None or node[0] == 0 or node[0] not in self.tree_levels()):
            painter.setPen(hl_pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for a, b in column_runs(alloc[1]):
                painter.drawRect(QRectF(x0 + a * cw + 1.5, y + 1.5, max((b - a) * cw - 3, 3.0), self.wlv_h - 3))
        job_cols = self.column_range.hover_job_cols
        if job_cols:
            painter.setPen(QPen(palette.LINK, 3.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for a, b in column_runs(sorted(job_cols)):
                painter.drawRect(QRectF(x0 + a * cw + 1.5, y + 1.5, max((b - a) * cw - 3, 3.0), self.wlv_h - 3))
        real = sim.real_processors
        if real < procs:  # padded processors do not exist: their entries are hatched over
            pad = QRectF(x0 + real * cw, y, (procs - real) * cw, self.wlv_h)
            painter.fillRect(pad, QColor(palette.ABSENT_HEX))
            painter.fillRect(pad, QBrush(QColor("#8A8680"), Qt.BrushStyle.BDiagPattern))
        painter.restore()
        y += self.wlv_h + GAP
        reason = self.tree_reason()
        if reason is not None:
            painter.setFont(self._small)
            painter.setPen(palette.MUTED_TEXT)
            room = self.width() - left - RIGHT
            fm = QFontMetricsF(self._small)
            # a narrow view (a compare pane) says it shorter rather than cutting the sentence
            policy = printable(self.player.sim.policy_name) if self.player is not None else ""
            forms = [reason, f"No workload tree: {policy} does not use buddy groups", "No workload tree"]
            reason = next((f for f in forms if fm.horizontalAdvance(f) <= room), forms[-1])
            painter.drawText(QRectF(left, y, room, self.level_h),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, reason)
            y += self.level_h
        elif self.show_tree:
            y = self._paint_tree(painter, m, x0, cw, lo, hi, left, right, y, rows, node, hl_pen)
        if self.show_key:
            self._paint_key(painter, y + 4)

    def _paint_tree(self, painter: QPainter, m: OusterhoutMatrix, x0: float, cw: float, lo: int, hi: int,
                    left: float, right: float, y: float, rows: int, node: tuple[int, int] | None,
                    hl_pen: QPen) -> float:
        painter.setFont(self._small)
        edge_pen = QPen(palette.BACKGROUND, 1.0)
        depth = len(m.tree.levels) - 1
        self._levels = self.tree_levels()
        link = self.column_range.hover_cols
        # "WLT 8192" may not fit the gutter: then every level is named by its size alone
        short = any(self._fm_small.horizontalAdvance(f"WLT {1 << d}") > self.column_range.gutter - 10
                    for d in self._levels if d != depth)
        for d in self._levels:
            level = m.tree.levels[d]
            span = 1 << d
            label = "root" if d == depth else (f"{span}" if short else f"WLT {span}")
            self._label(painter, y, self.level_h, label)
            painter.save()
            painter.setClipRect(QRectF(left, 0, right - left, self.height()))
            top = rows * span
            for i in range(lo // span, min(len(level), -(-hi // span))):
                v = int(level[i])
                a = i * span
                b = min(a + span, m.processors)
                rect = QRectF(x0 + a * cw, y, (b - a) * cw, self.level_h - 2)
                fill = palette.shade(v, top) if v else palette.ZERO_NODE
                painter.fillRect(rect, fill)
                painter.setPen(edge_pen)
                painter.drawRect(rect)
                if rect.width() >= self._fm_small.horizontalAdvance(str(v)) + 4:
                    painter.setPen(palette.text_colour(fill) if v else palette.MUTED_TEXT)
                    painter.drawText(rect.intersected(QRectF(left, y, right - left, self.level_h)),
                                     Qt.AlignmentFlag.AlignCenter, str(v))
                if node is not None and node == (d, i):
                    painter.setPen(hl_pen)
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
                if link is not None and link == (a, b):
                    painter.setPen(QPen(palette.LINK, 3.0))
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
            painter.restore()
            y += self.level_h
        return y

    def shown_keys(self) -> set[str]:
        """Return the key entries for what the screen shows now: ``"running"`` (a slot runs),
        ``"alloc"`` (the last allocation is outlined), ``"hatch"`` (a job runs in an extra
        slot), ``"move"`` (a moved job's ghost and trail, a left job's ghost), ``"migration"``
        (a migration's cost badge is drawn), ``"pointer"`` (processors under the pointer) and
        ``"shade"`` (the WLV and tree are always drawn); :attr:`fixed_keys` instead when set."""
        if self.fixed_keys is not None:
            return set(self.fixed_keys)
        out = {"shade"}
        p, m = self.player, self._matrix()
        if p is None or m is None:
            return out
        if m.active_row is not None:
            out.add("running")
        if self._allocation is not None:
            out.add("alloc")
        if replica_mask(m).any():
            out.add("hatch")
        tr, stop = p.transition, p.move_stop
        if tr is not None and tr.change.kind in MOVING_KINDS and 0.0 < tr.t < 1.0:
            out.add("migration" if isinstance(tr.change, JobMigrated) and tr.change.cost else "move")
            if isinstance(tr.change, JobMigrated):
                out.add("move")
        elif tr is None and stop is not None and (stop.change.kind in MOVING_KINDS or stop.change.kind == "job_removed"):
            out.add("move")
            if isinstance(stop.change, JobMigrated) and stop.change.cost:
                out.add("migration")
        if self.column_range.hover_cols is not None:
            out.add("pointer")
        return out

    def _key_items(self, every: bool = False) -> list[tuple[str, QColor | None, str]]:
        """The key's entries ``(icon kind, frame colour, text)``: those of what is shown
        (:meth:`shown_keys`), or ``every`` one."""
        shown = self.shown_keys()
        entries: list[tuple[str, str, QColor | None, str]] = [
            ("running", "frame", palette.ACCENT, "running slot"),
            ("alloc", "frame", palette.LAST_ALLOC, "last allocation"),
            ("hatch", "hatch", None, "extra slot (replica)"),
            ("move", "move", None, _icon_text("job_shifted")),
            ("migration", "migration", None, _icon_text("job_migrated")),
            ("pointer", "frame", palette.LINK, "processors under the pointer"),
            ("shade", "shade", None, "WLV / tree: idle slots per processor / per buddy group")]
        return [(kind, colour, text) for key, kind, colour, text in entries if every or key in shown]

    def _key_lines(self, every: bool = False) -> list[list[tuple[str, QColor | None, str, float]]]:
        """Return the key's entries laid out in lines that fit the view's width. An entry is never
        cut at the edge: it starts the next line on a board at least :data:`KEY_WRAP_HEIGHT`
        high, and is left out on a smaller one (a small export frame keeps its matrix); the last
        entry, how to read the shades, is left out rather than given a line of its own, and
        says only :data:`SHADE_SHORT` where its whole text is wider than the view."""
        fm = self._fm_small
        s = fm.height() * 0.8
        start = float(self.column_range.gutter)
        room = max(self.width() - RIGHT - start, 100.0)
        lines: list[list[tuple[str, QColor | None, str, float]]] = [[]]
        used = 0.0
        parent = self.parentWidget()
        wrap = parent is None or parent.height() >= KEY_WRAP_HEIGHT
        for kind, colour, text in self._key_items(every):
            w = s + 6 + fm.horizontalAdvance(text) + 18
            if kind == "shade" and w > room:  # a narrow pane: the short form, else nothing
                text = SHADE_SHORT
                w = s + 6 + fm.horizontalAdvance(text) + 18
            if w > room:
                continue  # wider than the view: left out, never cut at the edge
            if lines[-1] and used + w > room:
                if kind == "shade" or not wrap:  # left out whole, never cut at the edge
                    continue
                lines.append([])
                used = 0.0
            lines[-1].append((kind, colour, text, w))
            used += w
        return lines

    def _paint_key(self, painter: QPainter, y: float) -> None:
        """The key: what the rows count and what each outline means, on as many lines as it
        needs."""
        painter.setFont(self._small)
        fm = self._fm_small
        h = fm.height()
        s = h * 0.8
        for line in self._key_lines():
            x = float(self.column_range.gutter)
            for kind, colour, text, w in line:
                self._key_icon(painter, kind, colour, QRectF(x, y + (h - s) / 2, s, s))
                painter.setPen(palette.MUTED_TEXT)
                painter.drawText(QRectF(x + s + 6, y, w, h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 text)
                x += w
            y += h + 2

    @staticmethod
    def _key_icon(painter: QPainter, kind: str, colour: QColor | None, box: QRectF) -> None:
        """Draw the key's icon of ``kind`` in ``box``; ``colour`` is a frame's (the others have none)."""
        s = box.width()
        if kind == "frame" and colour is not None:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(colour, 3.0))
            painter.drawRect(box.adjusted(1.5, 1.5, -1.5, -1.5))
        elif kind == "hatch":  # as the matrix draws an extra slot
            painter.fillRect(box, palette.JOB_COLOURS[0])
            hatch(painter, box, 1.0, stripe=max(2.0, s / 7))
        elif kind == "move":
            # as the move cues draw a re-pack: the ghost with its dashed edge, a dashed trail
            style = STYLES["job_shifted"]
            ghost, width = style.ghost or Ghost(), (style.icon or Icon()).width
            colour = palette.JOB_COLOURS[1]
            painter.setBrush(ghost_fill(ghost, colour))
            painter.setPen(QPen(ghost_edge(ghost, colour), width, Qt.PenStyle.DashLine))
            painter.drawRect(box.adjusted(0.5, 0.5, -s / 2, -0.5))
            painter.drawLine(QPointF(box.center().x(), box.center().y()), QPointF(box.right(), box.center().y()))
        elif kind == "migration":
            migration_icon(painter, box)
        else:
            painter.fillRect(box, palette.shade(2, 3))

    def _label(self, painter: QPainter, y: float, h: float, text: str, bold: bool = False) -> None:
        m = self._matrix()
        x0, cw = columns(self.width(), m.processors if m is not None else 1, self.column_range)
        left = x0 + (self.column_range.first * cw if m is not None and self.column_range.processors == m.processors else 0)
        painter.setPen(palette.TEXT if bold else palette.MUTED_TEXT)
        painter.drawText(QRectF(2, y, left - 8, h), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)

    # ----------------------------------------------------------- interaction
    def _cols_at(self, x: float, y: float) -> tuple[int, int] | None:
        """Return the processors ``[lo, hi)`` of the WLV entry or tree node at (x, y)."""
        m = self._matrix()
        if m is None:
            return None
        x0, cw, lo, hi, left, right = self._geometry(m)
        if not left <= x < right:
            return None
        c = int((x - x0) // cw)
        if not 0 <= c < m.processors:
            return None
        if 2 <= y < 2 + self.wlv_h:
            return c, c + 1
        row = int((y - 2 - self.wlv_h - GAP) // self.level_h)
        levels = self.tree_levels()
        if y >= 2 + self.wlv_h + GAP and 0 <= row < len(levels):
            span = 1 << levels[row]
            a = c // span * span
            return a, min(a + span, m.processors)
        return None

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:
        self.column_range.set_hover(self._cols_at(ev.position().x(), ev.position().y()), [])
        super().mouseMoveEvent(ev)

    def leaveEvent(self, ev: QEvent) -> None:
        self.column_range.set_hover(None, [])
        super().leaveEvent(ev)

    def mousePressEvent(self, ev: QMouseEvent) -> None:
        if ev.position().x() < self.column_range.gutter:
            self.expanded = not self.expanded  # a click on the gutter folds or unfolds the tree
            self._relayout()
            return
        super().mousePressEvent(ev)




def _icon_text(kind: str) -> str:
    """The key's text of change ``kind``'s icon (:data:`~gangviz.gui.matrix.style.STYLES`)."""
    icon = STYLES[kind].icon
    return "" if icon is None else icon.text


def _is_buddy(name: str) -> bool:
    """Whether the registry says policy ``name`` allocates aligned buddy blocks."""
    return _has_trait(name, "buddy")


def _has_trait(name: str, trait: str) -> bool:
    """Whether the registry gives policy ``name`` (any case, with or without parameters, as
    ``"BR(limit=2)"`` or ``"br:occupy=size"``) the ``trait``."""
    from gangviz.core.registry import REGISTRY

    base = str(name).strip().lower().split("(", 1)[0].split(":", 1)[0].split(" ", 1)[0]
    entry = REGISTRY.get(base)
    return entry is not None and trait in entry.traits
