"""The compare window's summary table: the final metrics per policy, the best of each row marked.

Compare window: a summary table lists the final metrics and marks the best value in
each row. The numbers and the marks come from a
:class:`~gangviz.experiments.compare.Comparison` (so they are those of ``gangviz compare``); which
value is best follows the comparison's goals (:data:`~gangviz.experiments.compare.GOALS`, from the table of figures: utilisation,
throughput and r_a higher, the rest lower;
ties all marked, undefined values never). A best cell is bold, carries ``★`` and a green tint, so
the mark does not rely on colour alone. Each cell keeps its exact value under ``Qt.UserRole``.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from gangviz.experiments.compare import Comparison
from gangviz.experiments.tasks import METRICS
from gangviz.results.figures import definitions, format_value, title
from gangviz.timefmt import format_time
from gangviz.userpolicy.errors import printable

MARK = "★"
BEST_BG = QColor("#E3F1E8")


def cell_text(value: float, best: bool, unit: str = "") -> str:
    """Return the shown text of a metric value: four significant digits with thousands
    separators (``0.2083``, ``2,441``, ``62,293,404``: :func:`~gangviz.results.figures.format_value`,
    as the printed tables), a time in seconds as people read it in its own unit (``40.68 min``:
    :func:`~gangviz.timefmt.format_time`), ``-`` when undefined."""
    if math.isnan(value):
        text = "-"
    elif unit == "s":
        text = format_time(value, 1.0)
    else:
        text = format_value(value)
    return f"{text} {MARK}" if best else text


def row_title(key: str, goal: str | None, unit: str) -> str:
    """Return a row's header: the figure in words, its goal's arrow, and its unit unless the
    cells carry it (times in seconds) or it has none (a ratio, a fraction)."""
    arrow = {"max": " ↑", "min": " ↓"}.get(goal or "", "")
    shown = unit and unit not in ("ratio", "fraction", "s")
    return f"{title(key)}{arrow}" + (f" ({unit})" if shown else "")


class SummaryTable(QTableWidget):
    """Rows = metrics, columns = policies (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: Comparison | None = None
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setAlternatingRowColors(False)
        self.verticalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        # the columns share the width left by the row titles, each at least its widest cell
        # (:meth:`fit_columns`), so that no figure is cut short on a narrow table
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.setStyleSheet("QTableWidget { gridline-color: #E0DDD6; }")

    def set_comparison(self, comparison: Comparison, colours: list[QColor] | None = None) -> None:
        """Fill the table from ``comparison``; ``colours`` tint the policy headers."""
        self.comparison = comparison
        labels = list(comparison.labels)
        self.clear()
        keys, goals = comparison.keys, comparison.goals
        self.setRowCount(len(keys))
        self.setColumnCount(len(labels))
        for j, lab in enumerate(labels):
            head = QTableWidgetItem(printable(lab))  # a user policy's name may hold control characters
            head.setData(Qt.ItemDataRole.UserRole, lab)
            head.setToolTip(printable(lab))  # a long label (a policy and its order) is cut in the header
            f = QFont(self.font())
            f.setBold(True)
            head.setFont(f)
            if colours:
                head.setForeground(QBrush(colours[j]))
            self.setHorizontalHeaderItem(j, head)
        units = getattr(comparison, "units", {}) or {}
        clock = "s" if units.get("wait") == "s" else "slice"
        gamma = getattr(comparison, "gamma", None)
        meaning = definitions(clock) if gamma is None else definitions(clock, gamma)
        for i, m in enumerate(keys):
            goal = goals.get(m)
            unit = units.get(m, "")
            # Γ is in the row's tooltip and the note above the table: a longer title would widen
            # the projected table past its room
            vh = QTableWidgetItem(row_title(m, goal, unit))
            text = meaning.get(m, m)
            vh.setToolTip(f"{m}: " + text + (f" ({'higher' if goal == 'max' else 'lower'} is better)" if goal else ""))
            self.setVerticalHeaderItem(i, vh)
            for j, lab in enumerate(labels):
                v = comparison.metrics[lab][m]
                best = lab in comparison.best.get(m, ())
                lacking = m in getattr(comparison, "lacks", {}).get(lab, ())
                item = QTableWidgetItem("(none)" if lacking else cell_text(v, best, unit))
                if lacking:
                    item.setToolTip(f"{printable(lab)}'s family has no {m}")
                item.setData(Qt.ItemDataRole.UserRole, v)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if best:
                    f = QFont(self.font())
                    f.setBold(True)
                    item.setFont(f)
                    item.setBackground(QBrush(BEST_BG))
                    item.setToolTip(f"best {m} ({text})")
                self.setItem(i, j, item)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Size the policy columns: each as wide as its widest shown cell or heading, and the
        width left over shared equally among them."""
        n = self.columnCount()
        if n == 0:
            return
        header = self.horizontalHeader()
        need = [max(self.sizeHintForColumn(j), header.sectionSizeHint(j)) for j in range(n)]
        spare = max(0, self.viewport().width() - sum(need))
        for j, width in enumerate(need):
            header.resizeSection(j, width + spare // n)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.fit_columns()

    def values(self) -> dict[str, dict[str, float]]:
        """Return the exact values shown: ``{policy: {metric: value}}``."""
        out: dict[str, dict[str, float]] = {}
        for j in range(self.columnCount()):
            lab = self._header(j).data(Qt.ItemDataRole.UserRole)
            out[lab] = {m: self._cell(i, j).data(Qt.ItemDataRole.UserRole) for i, m in enumerate(self._keys())}
        return out

    def marked(self) -> dict[str, tuple[str, ...]]:
        """Return, per metric, the policies whose cell is marked best (bold and ``★``)."""
        out = {}
        goals = self.comparison.goals if self.comparison is not None else {}
        for i, m in enumerate(self._keys()):
            if goals and m not in goals:
                continue  # a count: no best
            out[m] = tuple(self._header(j).data(Qt.ItemDataRole.UserRole) for j in range(self.columnCount())
                           if self._cell(i, j).font().bold() and self._cell(i, j).text().endswith(MARK))
        return out

    def _cell(self, i: int, j: int) -> QTableWidgetItem:
        item = self.item(i, j)
        assert item is not None, "set_comparison fills every cell"
        return item

    def _header(self, j: int) -> QTableWidgetItem:
        item = self.horizontalHeaderItem(j)
        assert item is not None, "set_comparison names every column"
        return item

    def _keys(self) -> tuple[str, ...]:
        return self.comparison.keys if self.comparison is not None else METRICS

    def export_csv(self, path: str | Path) -> Path:
        """Write the table as CSV (the same text as ``gangviz compare --csv``); return the path.

        Raises ``ValueError`` when the table is empty and ``OSError`` when the file cannot be
        written.
        """
        if self.comparison is None:
            raise ValueError("there is no comparison to export yet")
        path = Path(path)
        from gangviz.outputs import write_text_atomically

        write_text_atomically(path, self.comparison.to_csv())
        return path
