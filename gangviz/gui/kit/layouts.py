"""Small layout pieces the windows and dialogs share: a dialog's form with Ok and Cancel, a
bold heading, a splitter of panes."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QSplitter, QWidget

#: the point size of a board's heading (the policy or scenario it shows)
HEADING_POINTS = 12.5


def ok_cancel(dialog: QDialog) -> QDialogButtonBox:
    """Return Ok and Cancel buttons that accept and reject ``dialog``."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


def fill_form(dialog: QDialog, form: QFormLayout, rows: Sequence[tuple[str, QWidget]]) -> None:
    """Add ``rows`` (label, field) to ``form``, then :func:`ok_cancel` buttons for ``dialog``."""
    for label, field in rows:
        form.addRow(label, field)
    form.addRow(ok_cancel(dialog))


def heading_label() -> QLabel:
    """Return an empty label in the bold heading font (:data:`HEADING_POINTS`)."""
    label = QLabel()
    f = QFont(label.font())
    f.setPointSizeF(HEADING_POINTS)
    f.setBold(True)
    label.setFont(f)
    return label


def splitter(orientation: Qt.Orientation, panes: Sequence[QWidget], stretch: Sequence[int]) -> QSplitter:
    """Return a splitter holding ``panes`` in order, each growing by its ``stretch`` factor."""
    split = QSplitter(orientation)
    for i, (pane, factor) in enumerate(zip(panes, stretch, strict=True)):
        split.addWidget(pane)
        split.setStretchFactor(i, factor)
    return split
