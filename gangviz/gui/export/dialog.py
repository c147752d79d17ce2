"""File -> Export animation: choose format, size, frame rate and length; export with progress.

Export. The dialog offers GIF, MP4 and PNG frames; MP4 is disabled, with the reason
beside it and in its tooltip, when ``imageio-ffmpeg`` is not importable
(:func:`gangviz.gui.export.video.mp4_unavailable`). The export replays the shown simulation from its
start (a fresh simulation from the window's ``sim_factory``, so what is on screen is not
disturbed) under a cancellable ``QProgressDialog`` whose maximum is the number of steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QSpinBox,
    QStatusBar,
    QWidget,
)

from gangviz.gui.export.render import (
    DEFAULT_FPS,
    DEFAULT_SIZE,
    FPS_RANGE,
    MAX_STEPS,
    SIZE_RANGE,
    ExportCancelled,
    ExportResult,
    export_animation,
)
from gangviz.gui.export.video import mp4_unavailable
from gangviz.gui.kit.layouts import fill_form

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player
    from gangviz.sim.protocol import Simulation

FORMATS = [("gif", "GIF (Pillow)"), ("mp4", "MP4 (H.264, imageio-ffmpeg)"), ("frames", "PNG frames (a folder)")]


class _Titled(Protocol):
    @property
    def title(self) -> QLabel: ...
    @property
    def subtitle(self) -> QLabel: ...


class ExportedWindow(Protocol):
    """What the export reads of the main window (:class:`~gangviz.gui.window.MainWindow`): how it
    makes a fresh simulation of what it shows, how far its player went, the board's titles,
    the slice length, the name shown and the last folder used, its status bar, and the window
    itself (``window()``: a top-level window is its own), which owns the dialogs."""

    @property
    def sim_factory(self) -> Callable[[], Simulation] | None: ...
    @property
    def player(self) -> Player | None: ...
    @property
    def board(self) -> _Titled: ...
    @property
    def source_name(self) -> str | None: ...
    @property
    def settings(self) -> QSettings: ...
    def slice_seconds(self) -> float | None: ...
    def statusBar(self) -> QStatusBar: ...
    def window(self) -> QWidget: ...


class ExportDialog(QDialog):
    """Asks for the format, size, frame rate and number of steps of an export."""

    def __init__(self, parent: QWidget | None = None, *, steps_hint: int = 0) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export animation")
        form = QFormLayout(self)
        self.format = QComboBox()
        for key, text in FORMATS:
            self.format.addItem(text, key)
        self.mp4_reason = mp4_unavailable()
        self.mp4_note = QLabel()
        self.mp4_note.setWordWrap(True)
        self.mp4_note.setStyleSheet("color: #8A5A00;")
        if self.mp4_reason is not None:
            model = self.format.model()
            item = model.item(1) if isinstance(model, QStandardItemModel) else None
            if item is not None:
                item.setEnabled(False)
                item.setToolTip(self.mp4_reason)
            self.format.setItemText(1, "MP4 (unavailable: imageio-ffmpeg is not installed)")
            self.mp4_note.setText(self.mp4_reason)
        self.mp4_note.setVisible(self.mp4_reason is not None)
        self.width_box = self._spin(*SIZE_RANGE, DEFAULT_SIZE[0], " px")
        self.height_box = self._spin(*SIZE_RANGE, DEFAULT_SIZE[1], " px")
        self.fps_box = self._spin(*FPS_RANGE, DEFAULT_FPS, " fps")
        self.steps_box = self._spin(0, MAX_STEPS, steps_hint, "")
        self.steps_box.setSpecialValueText("to the end")
        self.by_move_box = QCheckBox("Move by move: each move rests with its own caption")
        self.present_box = QCheckBox("Presentation sizes (large fonts for a projector)")
        fill_form(self, form, [("Format", self.format), ("", self.mp4_note), ("Width", self.width_box),
                               ("Height", self.height_box), ("Frame rate", self.fps_box),
                               ("Steps", self.steps_box), ("", self.by_move_box), ("", self.present_box)])

    @staticmethod
    def _spin(lo: int, hi: int, value: int, suffix: str) -> QSpinBox:
        s = QSpinBox()
        s.setRange(lo, hi)
        s.setValue(value)
        s.setSuffix(suffix)
        return s

    def mp4_enabled(self) -> bool:
        """Return whether the MP4 entry can be chosen."""
        # a QComboBox's own model (``format`` gets no other) is a QStandardItemModel
        item = cast(QStandardItemModel, self.format.model()).item(1)
        return bool(item.isEnabled())

    def values(self) -> dict[str, Any]:
        """Return ``kind``, ``size``, ``fps``, ``steps`` (``None``: to the end), ``by_move`` and
        ``presentation``."""
        steps = self.steps_box.value()
        return {"kind": self.format.currentData(), "size": (self.width_box.value(), self.height_box.value()),
                "fps": self.fps_box.value(), "steps": steps or None, "by_move": self.by_move_box.isChecked(),
                "presentation": self.present_box.isChecked()}


def export_with_progress(window: ExportedWindow, out: str, size: tuple[int, int], fps: int,
                         steps: int | None, *, by_move: bool = False,
                         presentation: bool = False) -> ExportResult | None:
    """Export the window's scenario from its start into ``out`` under a cancellable progress
    dialog (move by move and at presentation sizes when asked:
    :func:`~gangviz.gui.export.render.render`); return the result, or ``None`` when cancelled
    or failed (a message box says why)."""
    frame = window.window()
    if window.sim_factory is None:
        QMessageBox.warning(frame, "Export", "Open a scenario first.")
        return None
    try:
        sim = window.sim_factory()
    except (ValueError, OSError) as exc:
        QMessageBox.critical(frame, "Export", str(exc))
        return None
    total = steps or max(window.player.furthest if window.player else 0, 1)
    dlg = QProgressDialog("Rendering the animation…", "Cancel", 0, total, frame)
    dlg.setWindowTitle("Export animation")
    dlg.setWindowModality(Qt.WindowModality.WindowModal)
    dlg.setMinimumDuration(0)
    dlg.setValue(0)

    def progress(done: int, _total: int) -> bool:
        if done > dlg.maximum():
            dlg.setMaximum(done + 1)
        dlg.setValue(done)
        QApplication.processEvents()
        return not dlg.wasCanceled()

    try:
        result = export_animation(sim, out, size=size, fps=fps, steps=steps,
                                  title=window.board.title.text(), subtitle=window.board.subtitle.text(),
                                  progress=progress, slice_seconds=window.slice_seconds(),
                                  by_move=by_move, presentation=presentation)
    except ExportCancelled:
        window.statusBar().showMessage("Export cancelled", 5000)
        return None
    except (ValueError, OSError) as exc:
        QMessageBox.critical(frame, "Export", str(exc))
        return None
    finally:
        dlg.reset()
        dlg.deleteLater()
    window.statusBar().showMessage(f"Exported {result.frames} frames to {result.path}", 8000)
    return result


def run_export_dialog(window: ExportedWindow) -> ExportResult | None:
    """Ask for the options and a destination, then export; return the result or ``None``."""
    frame = window.window()
    dlg = ExportDialog(frame, steps_hint=0)
    if not dlg.exec():
        return None
    v = dlg.values()
    start = str(window.settings.value("last_dir", "")) if hasattr(window, "settings") else ""
    base = (window.source_name or "animation").split("/")[-1].removesuffix(".toml")
    if v["kind"] == "frames":
        out = QFileDialog.getExistingDirectory(frame, "Folder for the PNG frames", start)
    else:
        ext = v["kind"]
        out, _ = QFileDialog.getSaveFileName(frame, "Export animation", f"{start}/{base}.{ext}".lstrip("/"),
                                             f"{ext.upper()} (*.{ext})")
        if out and not out.lower().endswith(f".{ext}"):
            out += f".{ext}"
    if not out:
        return None
    if v["kind"] == "frames" and not out.endswith("/"):
        out += "/"
    return export_with_progress(window, out, v["size"], v["fps"], v["steps"], by_move=v["by_move"],
                                presentation=v["presentation"])
