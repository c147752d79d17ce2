"""Small layout pieces the windows and dialogs share: a dialog's form with Ok and Cancel."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QWidget


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
