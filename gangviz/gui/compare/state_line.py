"""The state line of a compare pane ("t = 279 slices · 3 slots · 6 running · 0 waiting").

A narrow pane wraps the line between its parts, never inside one ("9 | running"), and a
separator never ends or starts a line: the parts are laid out afresh at every width, joined by
" · " within a line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QLabel

SEPARATOR = "  ·  "


def wrap_parts(parts: Sequence[str], fits: float, advance: Callable[[str], float]) -> list[str]:
    """Return the lines of ``parts`` joined by :data:`SEPARATOR`, each at most ``fits`` wide
    where it can be (a part wider than that is a line of its own), as measured by
    ``advance(text)``."""
    lines: list[str] = []
    for part in parts:
        if lines and advance(lines[-1] + SEPARATOR + part) <= fits:
            lines[-1] += SEPARATOR + part
        else:
            lines.append(part)
    return lines


class StateLine(QLabel):
    """A label showing parts joined by " · ", wrapped between parts (see the module docstring)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self._parts: list[str] = [text] if text else []
        self.setWordWrap(True)  # a single part wider than the pane still wraps

    def set_parts(self, parts: Sequence[str]) -> None:
        """Show ``parts`` (each kept whole on one line where the width allows)."""
        self._parts = list(parts)
        self._lay_out()

    def setText(self, text: str) -> None:
        """Show ``text`` as one part."""
        self._parts = [text]
        super().setText(text)

    def parts(self) -> list[str]:
        """Return the parts shown."""
        return list(self._parts)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._lay_out()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode: lay out at the new size
            self._lay_out()

    def _lay_out(self) -> None:
        metrics = QFontMetricsF(self.font())
        room = max(1.0, self.contentsRect().width() - 2.0)
        lines = wrap_parts(self._parts, room, metrics.horizontalAdvance)
        QLabel.setText(self, "\n".join(lines))
