"""The workload vector (WLV) and the buddy workload tree (WLT), aligned with the columns.

000_fc8d6d1d4cf9d1e1.txt §4, Fig. 5 (WLV: idle slots per processor) and Fig. 6 (WLT: a node
covers a buddy group and holds the sum of its children when both are non-zero, else 0);
001_c175c8c1780c2fd0.txt §3. Issue 5, "Beside the matrix".

Layout choices: the WLV row comes first, right under the matrix's processor labels; the tree
follows as an icicle whose levels widen downwards (pairs, fours, ..., the root at the bottom),
each node spanning exactly the processor columns it covers. The tree's leaf level *is* the WLV,
so it is not drawn twice. Values are numbers (where the digits fit) and shades (darker = more
idle slots, relative to the number of slots times the group size); zero nodes are greyed out.

The last allocation is highlighted (tie-break: the most recent ``job_placed`` at or before the
current step): under a buddy policy (BC, BR, BRMS, BRMMS) the smallest buddy node covering the
placement is outlined (for a single processor, its WLV entry); under any other policy the
placement's run of WLV entries is outlined (the consecutive non-zeros the linear re-packing
allocation of 000_fc8d6d1d4cf9d1e1.txt §4 used).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QWidget

from gangviz.gui import palette
from gangviz.gui.geometry import columns
from gangviz.gui.wiring import follow

WLV_H = 26.0
LEVEL_H = 19.0
GAP = 4.0


def last_allocation(steps, position: int, limit: int = 5000) -> tuple[int, list[int]] | None:
    """Return ``(job, cols)`` of the latest job placement in ``steps[:position]`` or ``None``.

    Looks back at most ``limit`` steps (a long run without placements shows no highlight).
    """
    for k in range(min(position, len(steps)) - 1, max(-1, position - 1 - limit), -1):
        for change in reversed(steps[k].changes):
            if change.kind == "job_placed":
                return change.job, list(change.cols)
    return None


def buddy_node(cols: list[int]) -> tuple[int, int] | None:
    """Return ``(level, index)`` of the smallest buddy node covering the contiguous ``cols``.

    A buddy scheme allocates a whole node of 2^d processors (001_c175c8c1780c2fd0.txt §3) even
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


BUDDY_POLICIES = frozenset({"bc", "br", "brms", "brmms"})


class VectorTreeView(QWidget):
    """Paints the WLV and the WLT of the player's matrix (see the module docstring)."""

    def __init__(self, player=None, parent: QWidget | None = None, *, show_tree: bool = True):
        super().__init__(parent)
        self.player = None
        self.show_tree = show_tree
        self._font = QFont(self.font())
        self._font.setPointSizeF(9.0)
        self._small = QFont(self._font)
        self._small.setPointSizeF(8.0)
        self._fm = QFontMetricsF(self._font)
        self._allocation: tuple[int, list[int]] | None = None
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        if player is not None:
            self.set_player(player)

    def set_player(self, player) -> None:
        """Show ``player``'s matrix (disconnects from the previous player)."""
        follow(self.player, player, ("frame", "moved", "stepped"), self._dirty)
        self.player = player
        self._dirty()
        self.setFixedHeight(int(self.preferred_height()))

    def preferred_height(self) -> float:
        """Return the height that fits the WLV and every tree level."""
        m = self._matrix()
        levels = (len(m.tree.levels) - 1) if (m is not None and self.show_tree) else 0
        return WLV_H + GAP + levels * LEVEL_H + 8

    def _matrix(self):
        p = self.player
        return None if p is None else p.display_state

    def _dirty(self, *args) -> None:
        p = self.player
        self._allocation = last_allocation(p.sim.steps, p.position) if p is not None else None
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), palette.BACKGROUND)
            m = self._matrix()
            if m is not None:
                self._paint(painter, m)
        finally:
            painter.end()

    def _paint(self, painter: QPainter, m) -> None:
        procs = m.processors
        x0, cw = columns(self.width(), procs)
        rows = max(m.n_rows, 1)
        wlv = m.wlv.tolist()
        painter.setFont(self._font)
        digit_w = self._fm.horizontalAdvance("00")
        y = 2.0
        self._label(painter, y, WLV_H, "WLV")
        grid_pen = QPen(palette.GRID, 1.0)
        for c, v in enumerate(wlv):
            rect = QRectF(x0 + c * cw, y, cw, WLV_H)
            painter.fillRect(rect, palette.shade(v, rows))
            if cw >= 5:
                painter.setPen(grid_pen)
                painter.drawRect(rect)
            if cw >= digit_w * (len(str(v)) / 2) + 3:
                painter.setPen(palette.text_colour(palette.shade(v, rows)) if v else palette.MUTED_TEXT)
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, str(v))
        alloc = self._allocation
        buddy = getattr(getattr(self.player.sim, "policy", None), "name", "").lower() in BUDDY_POLICIES
        node = buddy_node(alloc[1]) if (alloc and buddy) else None
        hl_pen = QPen(palette.HILITE, 3.0)
        if alloc and (node is None or node[0] == 0):
            painter.setPen(hl_pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for lo, hi in _runs(alloc[1]):
                painter.drawRect(QRectF(x0 + lo * cw + 1.5, y + 1.5, (hi - lo) * cw - 3, WLV_H - 3))
        if not self.show_tree:
            return
        y += WLV_H + GAP
        painter.setFont(self._small)
        edge_pen = QPen(palette.BACKGROUND, 1.0)
        for d in range(1, len(m.tree.levels)):
            level = m.tree.levels[d].tolist()
            span = 1 << d
            label = "root" if d == len(m.tree.levels) - 1 else f"WLT {span}"
            self._label(painter, y, LEVEL_H, label)
            top = rows * span
            for i, v in enumerate(level):
                lo = i * span
                if lo >= procs:
                    break
                hi = min(lo + span, procs)
                rect = QRectF(x0 + lo * cw, y, (hi - lo) * cw, LEVEL_H - 2)
                fill = palette.shade(v, top) if v else palette.ZERO_NODE
                painter.fillRect(rect, fill)
                painter.setPen(edge_pen)
                painter.drawRect(rect)
                if rect.width() >= self._fm.horizontalAdvance(str(v)) + 4:
                    painter.setPen(palette.text_colour(fill) if v else palette.MUTED_TEXT)
                    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, str(v))
                if node is not None and node == (d, i):
                    painter.setPen(hl_pen)
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
            y += LEVEL_H

    def _label(self, painter: QPainter, y: float, h: float, text: str) -> None:
        painter.setPen(palette.MUTED_TEXT)
        painter.drawText(QRectF(2, y, 52, h), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)


def _runs(cols: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for c in cols:
        if runs and runs[-1][1] == c:
            runs[-1] = (runs[-1][0], c + 1)
        else:
            runs.append((c, c + 1))
    return runs
