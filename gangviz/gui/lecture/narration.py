"""The narration log: every step in plain sentences, the current one highlighted.

Narration: a log of the steps, built from the change records (each change's
``describe``), with the current step highlighted; clicking a line jumps to that step. The log
is a list model over the player's ``known`` steps, one line per sentence, so a run of tens of
thousands of steps stays cheap (rows added in blocks). The view is a header-less
``QTableView`` with fixed row heights, which places a row by arithmetic; a ``QListView`` (40 ms
per scroll at 17,000 lines) or a ``QTreeView`` (13 ms at 8,000) lays out every row again after
rows are added. "Slot Sn runs its
time slice." lines are shown only for steps that did nothing else, in grey. Steps after the
current one (known from before a step back) are greyed; clicking a line of step k shows the
picture after step k. A step the policy was refused (a user's policy broke a rule) ends the log
with one red line naming the rule and the policy's file and line.
"""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from gangviz.gui.playback.wiring import follow
from gangviz.timefmt import clock_text

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gangviz.gui.playback.player import KnownStep, Player

SYNC_S = 0.25
_CURRENT_BG = QBrush(QColor("#FFE9A8"))
_FUTURE = QBrush(QColor("#A8A49C"))
_QUIET = QBrush(QColor("#8A8680"))
_REFUSED = QBrush(QColor("#B00016"))


_GIVES_UP = re.compile(r"^(?P<job>\S+) gives up its extra slots? (?P<rows>.+?)(?: \(.*\))?\.$")
_ALSO_RUNS = re.compile(r"^(?P<job>\S+) also runs in (?P<rows>.+?) on \S+(?: \(.*\))?\.$")


def fold_no_ops(lines: list[str]) -> list[str]:
    """Return ``lines`` with every pair "J gives up its extra slot(s) R" / "J also runs in R"
    of the same job and rows (a net no-op within one step) left out, and one line in their
    place saying how many jobs kept their extra slots ("14 jobs keep their extra slots.")."""
    gave: dict[tuple[str, str], list[int]] = {}
    for i, line in enumerate(lines):
        m = _GIVES_UP.match(line)
        if m:
            gave.setdefault((m["job"], m["rows"]), []).append(i)
    drop: set[int] = set()
    for i, line in enumerate(lines):
        m = _ALSO_RUNS.match(line)
        if m and gave.get((m["job"], m["rows"])):
            drop.add(gave[(m["job"], m["rows"])].pop(0))
            drop.add(i)
    if not drop:
        return lines
    kept = len(drop) // 2
    out = [line for i, line in enumerate(lines) if i not in drop]
    first = min(drop)
    note = f"{kept} job{' keeps its' if kept == 1 else 's keep their'} extra slots."
    return out[:first] + [note] + out[first:]


def step_lines(known: KnownStep) -> list[str]:
    """Return the narration lines of one known step (slice-only lines kept only when alone;
    no-op pairs folded by :func:`fold_no_ops`)."""
    lines = [s for s in known.narration if not s.endswith("runs its time slice.")]
    return fold_no_ops(lines) or list(known.narration) or [f"({known.cause})"]


class NarrationModel(QAbstractListModel):
    """Rows = narration sentences of the player's known steps."""

    def __init__(self, player: Player, parent: QObject | None = None, *,
                 slice_seconds: float | None = None) -> None:
        super().__init__(parent)
        self.player = player
        #: seconds per slice on a trace (times read as clocks, ``31 d 04:12:09``), else ``None``
        self.slice_seconds = slice_seconds
        self.row_step: list[int] = []
        self.row_text: list[str] = []
        self.first_row: list[int] = []  # step index -> its first row
        self.refused = False  # the last row is the refused step's
        self.sync()

    def sync(self) -> None:
        """Add rows for new steps, drop rows for forgotten steps, and end with the refused
        step's line when the player failed."""
        known = self.player.known
        if self.refused:
            last = len(self.row_text) - 1
            self.beginRemoveRows(QModelIndex(), last, last)
            del self.row_text[last], self.row_step[last]
            self.endRemoveRows()
            self.refused = False
        self._sync_steps(known)
        failure = self.player.failure
        if failure is not None:
            v = self.player.violation
            text = (f"Refused at {os.path.basename(v.where)}: {v.job} breaks the rule \"{v.rule}\" "
                    f"({v.detail}); {v.where}"
                    if v is not None else f"Refused: {failure}")
            row = len(self.row_text)
            self.beginInsertRows(QModelIndex(), row, row)
            self.row_text.append(f"{clock_text(self.player.sim.time, self.slice_seconds)}  {text}")
            self.row_step.append(len(known))
            self.endInsertRows()
            self.refused = True

    def _sync_steps(self, known: list[KnownStep]) -> None:
        n = len(self.first_row)
        if n > len(known):
            keep = self.first_row[len(known)] if len(known) < n else len(self.row_text)
            self.beginRemoveRows(QModelIndex(), keep, len(self.row_text) - 1)
            del self.row_text[keep:], self.row_step[keep:], self.first_row[len(known):]
            self.endRemoveRows()
            n = len(known)
        if n < len(known):
            texts: list[str] = []
            steps: list[int] = []
            firsts: list[int] = []
            base = len(self.row_text)
            for k in range(n, len(known)):
                ks = known[k]
                firsts.append(base + len(texts))
                for line in step_lines(ks):
                    texts.append(f"{clock_text(ks.time, self.slice_seconds)}  {line}")
                    steps.append(k)
            self.beginInsertRows(QModelIndex(), base, base + len(texts) - 1)
            self.row_text.extend(texts)
            self.row_step.extend(steps)
            self.first_row.extend(firsts)
            self.endInsertRows()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self.row_text)

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        r = index.row()
        if not 0 <= r < len(self.row_text):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.row_text[r]
        step = self.row_step[r]
        current = self.player.position - 1
        if self.refused and r == len(self.row_text) - 1:
            if role == Qt.ItemDataRole.ForegroundRole:
                return _REFUSED
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"{self.row_text[r]}\n(click to show the picture the policy was refused at)"
            return None
        if role == Qt.ItemDataRole.BackgroundRole and step == current:
            return _CURRENT_BG
        if role == Qt.ItemDataRole.ForegroundRole:
            if step > current:
                return _FUTURE
            if self.row_text[r].endswith("runs its time slice."):
                return _QUIET
        if role == Qt.ItemDataRole.ToolTipRole:
            # the full sentence: a narrow log elides long lines
            return f"{self.row_text[r]}\n(step {step + 1}: click to show the picture after it)"
        return None

    def refresh_highlight(self) -> None:
        """Repaint the highlight after the position moved."""
        if self.row_text:
            self.dataChanged.emit(self.index(0), self.index(len(self.row_text) - 1),
                                  [Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole])


class NarrationView(QTableView):
    """The narration list; clicking a line moves the player to that step."""

    def __init__(self, player: Player | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.horizontalHeader().hide()
        self.horizontalHeader().setStretchLastSection(True)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(False)
        f = QFont(self.font())
        f.setPointSizeF(9.5)
        self.setFont(f)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 3)
        self.model_: NarrationModel | None = None
        self.player: Player | None = None
        self.slice_seconds: float | None = None
        self._last_sync = 0.0
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(int(SYNC_S * 1000))
        self._pending.timeout.connect(self._sync_now)
        self.clicked.connect(self._jump)
        if player is not None:
            self.set_player(player)

    def set_time_unit(self, slice_seconds: float | None) -> None:
        """Write times as a trace's clock (``slice_seconds`` seconds per slice) or, with
        ``None``, in slices; applies to the rows of the next :meth:`set_player`."""
        self.slice_seconds = slice_seconds

    def set_player(self, player: Player) -> None:
        """Show ``player``'s narration."""
        follow(self.player, player, ("moved", "stepped", "historyChanged"), self._sync)
        follow(self.player, player, ("failed",), self._failed)
        self.player = player
        old = self.model_
        self.model_ = NarrationModel(player, self, slice_seconds=self.slice_seconds)
        self.setModel(self.model_)
        if old is not None:
            old.deleteLater()
        self._sync_now()

    def _failed(self, message: str) -> None:
        self.refresh()  # once per run: the refused line shows at once

    def _sync(self, *args: object) -> None:
        # while playing fast, follow at most every SYNC_S seconds (scrollTo is costly)
        now = time.perf_counter()
        if now - self._last_sync < SYNC_S:
            if not self._pending.isActive():
                self._pending.start()
            return
        self._sync_now()

    def refresh(self) -> None:
        """Bring the rows, the highlight and the scroll position up to the player now."""
        self._pending.stop()
        self._sync_now()

    def _sync_now(self) -> None:
        self._last_sync = time.perf_counter()
        m = self.model_
        if m is None or self.player is None:  # no player followed yet
            return
        rows = len(m.row_text)
        m.sync()
        m.refresh_highlight()
        if len(m.row_text) != rows:
            self.updateGeometries()  # the scroll range follows the new rows now, not later
        cur = self.player.position - 1
        if 0 <= cur < len(m.first_row):
            # the whole step in view when it fits, its first line in any case
            end = m.first_row[cur + 1] - 1 if cur + 1 < len(m.first_row) else len(m.row_text) - 1
            self.scrollTo(m.index(end), QAbstractItemView.ScrollHint.EnsureVisible)
            self.scrollTo(m.index(m.first_row[cur]), QAbstractItemView.ScrollHint.EnsureVisible)

    def _jump(self, index: QModelIndex) -> None:
        if self.model_ is None or self.player is None:
            return
        step = self.model_.row_step[index.row()]
        self.player.go_to(min(step + 1, len(self.player.known)))
        self._sync_now()
