"""What the window says about a source it opens: its warnings, and the options it needs.

* :class:`WarningsBar`: a thin bar above the simulation with the number of reader warnings
  ("3 warnings about trace.swf"), a *Details* button listing them all, and a close button;
  hidden when the shown source has none, replaced whenever another source opens.
* :class:`SourceOptionsDialog`: asked when a trace gives no machine size (no ``MaxProcs``):
  processors and slice length, within the limits of :mod:`gangviz.core.limits`, instead of a
  refusal that tells the user to pass ``--procs``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gangviz.core.limits import MAX_PROCESSORS, MAX_SLICE_SECONDS, MIN_SLICE_SECONDS
from gangviz.gui.kit.layouts import ok_cancel


class WarningsBar(QFrame):
    """A dismissable bar: the count of the shown source's warnings and a *Details* button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("warningsBar")
        self.setStyleSheet("#warningsBar { background: #FFF4CE; border-bottom: 1px solid #E0C97A; }")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 3, 4, 3)
        self.label = QLabel()
        # A long warning is cut at the window's edge instead of widening the window.
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.details = QPushButton("Details…")
        self.close_button = QPushButton("✕")
        self.close_button.setFlat(True)
        self.close_button.setToolTip("Hide the warnings")
        self.close_button.setFixedWidth(28)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.details)
        lay.addWidget(self.close_button)
        self.details.clicked.connect(self.show_details)
        self.close_button.clicked.connect(self.hide)
        self.title = ""
        self.warnings: list[str] = []
        self.hide()

    def set_warnings(self, title: str, warnings: list[str]) -> None:
        """Show ``warnings`` about ``title`` (hide the bar when there are none)."""
        self.title, self.warnings = title, list(warnings)
        n = len(self.warnings)
        self.label.setText(f"⚠ {n} warning{'s' if n != 1 else ''} about {title}: {self.warnings[0]}"
                           if n else "")
        self.label.setToolTip("\n".join(self.warnings))
        self.setVisible(bool(n))

    def details_text(self) -> str:
        """Return the text the *Details* box shows: every warning, one per paragraph."""
        return "\n\n".join(f"• {w}" for w in self.warnings)

    def show_details(self) -> None:
        """Show every warning in a message box."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Warnings", f"Warnings about {self.title}",
                          QMessageBox.StandardButton.Ok, self)
        box.setInformativeText(self.details_text())
        box.exec()


class SourceOptionsDialog(QDialog):
    """Asks for what a trace does not say: processors and seconds per slice."""

    def __init__(self, name: str, reason: str, parent: QWidget | None = None, *,
                 procs: int | None = None, slice_seconds: float | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Source options")
        lay = QVBoxLayout(self)
        why = QLabel(f"{reason}\n\nGive the machine size to open {name}.")
        why.setWordWrap(True)
        why.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(why)
        form = QFormLayout()
        self.procs = QSpinBox()
        self.procs.setRange(1, MAX_PROCESSORS)
        self.procs.setValue(procs or 128)
        self.procs.setToolTip(f"1 to {MAX_PROCESSORS:,} processors")
        self.slice = QDoubleSpinBox()
        self.slice.setDecimals(6)
        self.slice.setRange(MIN_SLICE_SECONDS, MAX_SLICE_SECONDS)
        self.slice.setValue(slice_seconds or 1.0)
        self.slice.setSuffix(" s")
        form.addRow("Processors:", self.procs)
        form.addRow("Slice length:", self.slice)
        lay.addLayout(form)
        lay.addWidget(ok_cancel(self))

    def options(self) -> dict[str, Any]:
        """Return the chosen source options (``procs``, ``slice_seconds``)."""
        return {"procs": int(self.procs.value()), "slice_seconds": float(self.slice.value())}


def ask_source_options(parent: QWidget, name: str, reason: str, current: dict[str, Any]) -> dict[str, Any] | None:
    """Ask for processors and slice length for ``name``; return the options, or ``None`` when
    the user cancels. ``current`` holds the options already given (they preset the fields)."""
    dlg = SourceOptionsDialog(name, reason, parent, procs=current.get("procs"),
                              slice_seconds=current.get("slice_seconds"))
    try:
        return dlg.options() if dlg.exec() == QDialog.DialogCode.Accepted else None
    finally:
        dlg.deleteLater()
