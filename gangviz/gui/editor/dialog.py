"""The scenario editor (File > New scenario): a lecturer's own example without writing TOML.

Set processors and slots, paint jobs into the matrix by dragging along a slot (name and size
follow the drag), give jobs a work, script events (terminate a job, submit one at time t), pick
a policy, press Play to run it in the window at once, and Save it as a scenario file that
``gangviz open`` and ``gangviz export`` read. Everything the editor writes goes through the same
reader as a file opened from disk (:class:`~gangviz.workloads.painting.EditorDoc`), so a problem
is reported exactly as ``gangviz open`` would report it, in a message box, and nothing is lost.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QSize, Qt, QTemporaryDir
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gangviz.core import registry
from gangviz.core.limits import MAX_NAME_CHARS, MAX_SLICES, MAX_TITLE_CHARS
from gangviz.gui import palette
from gangviz.gui.editor.grid import PaintGrid
from gangviz.inputs import quoted
from gangviz.workloads.painting import POLICY_CHOICES, EditorDoc, Event, PaintError, slug
from gangviz.workloads.scenario import Scenario, ScenarioError

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player

EVENT_COLUMNS = ("at", "action", "job", "size", "work")
#: how much larger the editor's text is in large-text mode
LARGE = 1.8


class _Presenting(Protocol):
    @property
    def active(self) -> bool: ...


class EditingWindow(Protocol):
    """What the editor reads of the main window (:class:`~gangviz.gui.window.MainWindow`): the
    temporary folder it keeps for unsaved scenarios, how it opens and plays a scenario, whether
    it is presenting and its size, and the window itself (``window()``: a top-level window is
    its own), which owns the editor."""

    editor_tmp: QTemporaryDir | None

    @property
    def player(self) -> Player | None: ...
    @property
    def presentation(self) -> _Presenting: ...
    def open_source(self, name: str, *, remember: bool = ...) -> bool: ...
    def size(self) -> QSize: ...
    def window(self) -> QWidget: ...


class ScenarioEditor(QDialog):
    """The editor dialog over an :class:`EditorDoc`; ``window`` (the main window) plays it."""

    def __init__(self, window: EditingWindow | None = None, doc: EditorDoc | None = None, path: str | None = None) -> None:
        super().__init__(None if window is None else window.window())
        self.main_window = window
        self.doc = doc or EditorDoc()
        self.path = path
        self.setWindowTitle("Scenario editor")
        self.resize(900, 720)
        self._normal_font = QFont(self.font())
        self._build()
        self._load_fields()
        presenting = window is not None and getattr(getattr(window, "presentation", None), "active", False)
        if presenting:  # opened in front of a room: large text from the start
            self.set_large_text(True)

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        form = QFormLayout()
        self.title = QLineEdit()
        self.title.setMaxLength(MAX_TITLE_CHARS)  # what the scenario reader takes back
        form.addRow("Title", self.title)
        shape = QHBoxLayout()
        self.procs = QSpinBox()
        self.procs.setRange(1, 64)
        self.slots = QSpinBox()
        self.slots.setRange(1, 16)
        self.policy = QComboBox()
        self.policy.setEditable(True)
        self.policy.addItems(POLICY_CHOICES)
        w: QWidget
        for label, w in (("Processors", self.procs), ("Slots", self.slots), ("Policy", self.policy)):
            shape.addWidget(QLabel(label))
            shape.addWidget(w)
        shape.addStretch(1)
        form.addRow(shape)
        self.explanation = QPlainTextEdit()
        self.explanation.setPlaceholderText("One paragraph for the audience: what happens and why.")
        self.explanation.setFixedHeight(70)
        form.addRow("Explanation", self.explanation)

        self.grid = PaintGrid(self.doc)
        self.grid.painted.connect(self._painted)
        self.grid.erased.connect(lambda name: self._say(f"{name} erased."))
        self.grid.refused.connect(lambda text: self._say(text, error=True))
        hint = QLabel("Drag along a slot to paint a job; right-click a job to erase it.")
        hint.setStyleSheet(f"color: {palette.MUTED_TEXT_HEX}")
        self.hint = hint
        self.large = QCheckBox("Large text")
        self.large.setToolTip("Names and labels twice as large, to edit in front of a room")
        self.large.toggled.connect(lambda on: self.set_large_text(on))

        job_row = QHBoxLayout()
        self.job_name = QLineEdit()
        self.job_name.setMaximumWidth(90)
        self.job_name.setMaxLength(MAX_NAME_CHARS)
        self.job_work = QDoubleSpinBox()
        self.job_work.setRange(0, 1e6)
        self.job_work.setDecimals(1)
        self.job_work.setSpecialValueText("endless")
        self.apply_job = QPushButton("Apply to job")
        self.apply_job.clicked.connect(self._apply_job)
        for label, w in (("Job", self.job_name), ("work (slices)", self.job_work)):
            job_row.addWidget(QLabel(label))
            job_row.addWidget(w)
        job_row.addWidget(self.apply_job)
        job_row.addStretch(1)

        self.events = QTableWidget(0, len(EVENT_COLUMNS))
        self.events.setHorizontalHeaderLabels(EVENT_COLUMNS)
        self.events.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.events.setMaximumHeight(150)
        ev_buttons = QHBoxLayout()
        self.add_terminate = QPushButton("+ Terminate at t")
        self.add_terminate.clicked.connect(lambda: self.add_event("terminate"))
        self.add_submit = QPushButton("+ Submit at t")
        self.add_submit.clicked.connect(lambda: self.add_event("submit"))
        self.remove_event = QPushButton("Remove event")
        self.remove_event.clicked.connect(self._remove_event)
        for b in (self.add_terminate, self.add_submit, self.remove_event):
            ev_buttons.addWidget(b)
        ev_buttons.addStretch(1)

        self.status = QLabel()
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox()
        self.play_button = buttons.addButton("Play", QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button = buttons.addButton("Save…", QDialogButtonBox.ButtonRole.ActionRole)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.play_button.clicked.connect(self.play)
        self.save_button.clicked.connect(self.ask_save)
        close.clicked.connect(self.close)

        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.grid, 3)
        hint_row = QHBoxLayout()
        hint_row.addWidget(hint, 1)
        hint_row.addWidget(self.large)
        lay.addLayout(hint_row)
        lay.addLayout(job_row)
        lay.addWidget(QLabel("Scripted events"))
        lay.addWidget(self.events)
        lay.addLayout(ev_buttons)
        lay.addWidget(self.status)
        lay.addWidget(buttons)
        self.procs.valueChanged.connect(self._reshape)
        self.slots.valueChanged.connect(self._reshape)

    def set_large_text(self, on: bool) -> None:
        """Large-text mode (for a projector): every text of the editor :data:`LARGE` times its
        size, the grid's names and labels too; off restores the normal sizes."""
        if self.large.isChecked() != bool(on):
            self.large.setChecked(bool(on))  # comes back here through the toggled signal
            return
        f = QFont(self._normal_font)
        if on:
            f.setPointSizeF(self._normal_font.pointSizeF() * LARGE)
        self.setFont(f)
        self.hint.setFont(f)  # a label with a style sheet does not take its parent's font
        self.explanation.setFixedHeight(round(70 * (LARGE if on else 1.0)))
        self.grid.set_text_scale(LARGE if on else 1.0)

    def _load_fields(self) -> None:
        d = self.doc
        self.title.setText(d.title)
        self.explanation.setPlainText(d.explanation)
        for w, v in ((self.procs, d.processors), (self.slots, max(d.slots, 1))):
            w.blockSignals(True)
            w.setValue(v)
            w.blockSignals(False)
        self.policy.setCurrentText(d.policy)
        self.events.setRowCount(0)
        for e in d.events:
            self._event_row(e)
        painted = d.other is None
        for widget in (self.grid, self.procs, self.slots, self.add_submit, self.add_terminate, self.events):
            widget.setEnabled(painted)
        if not painted:
            self._say("This scenario is not an Ousterhout matrix: the editor keeps it as it is "
                      "and can save or play it, but paints matrices only.")

    # ------------------------------------------------------------------ editing
    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #C0392B" if error else "")

    def _reshape(self) -> None:
        try:
            self.doc.resize(self.procs.value(), self.slots.value())
        except PaintError as exc:
            self.grid.message = (exc.row, exc.col, str(exc))
            self._say(str(exc), error=True)
            for w, v in ((self.procs, self.doc.processors), (self.slots, self.doc.slots)):
                w.blockSignals(True)
                w.setValue(v)
                w.blockSignals(False)
        self.grid.update()

    def _painted(self, name: str) -> None:
        cols = self.doc.job_cols(name)
        if cols is None:  # (the grid says painted only after a job is painted)
            return
        lo, hi = cols
        self.job_name.setText(name)
        self.job_work.setValue(self.doc.works.get(name, 0.0))
        self._say(f"{name} painted on {hi - lo + 1} processor{'s' if hi > lo else ''}.")

    def _apply_job(self) -> None:
        """Rename the job last painted (or named in the box) and set its work."""
        old = self._selected or self.job_name.text()
        new = self.job_name.text().strip()
        if old not in self.doc.names():
            self._say(f"no job {old!r} in the matrix", error=True)
            return
        if not new or any(ch.isspace() for ch in new) or new in (".", "-", "_"):
            self._say("a job name is one word, not '.', '-' or '_'", error=True)
            return
        if new != old and (new in self.doc.names() or any(e.name == new for e in self.doc.events)):
            self._say(f"a job named {new!r} already exists", error=True)
            return
        self.doc.cells = [[new if n == old else n for n in row] for row in self.doc.cells]
        self.doc.works.pop(old, None)
        if self.job_work.value() > 0:
            self.doc.works[new] = self.job_work.value()
        for e in self.doc.events:
            if e.name == old and e.kind == "terminate":
                e.name = new
        self._refresh_events()
        self.grid.update()
        self._say(f"{new}: work {self.doc.works.get(new, math.inf):g} slices.")

    @property
    def _selected(self) -> str | None:
        text = self.job_name.text()
        names = self.doc.names()
        return text if text in names else (names[-1] if names else None)

    def add_event(self, kind: str, at: float = 1.0, name: str | None = None, size: int = 1,
                  work: float = 2.0) -> Event:
        """Add a scripted event (``"terminate"`` the named job, default the last painted;
        ``"submit"`` a new job, default the next free name) and return it."""
        if kind == "terminate":
            name = name or self._selected or ""
        else:
            name = name or self.doc.next_name()
        e = Event(float(at), kind, name, int(size), float(work))
        self.doc.events.append(e)
        self._event_row(e)
        return e

    def _event_row(self, e: Event) -> None:
        r = self.events.rowCount()
        self.events.insertRow(r)
        values = (f"{e.at:g}", e.kind, e.name, str(e.size) if e.kind == "submit" else "",
                  f"{e.work:g}" if e.kind == "submit" else "")
        for c, v in enumerate(values):
            item = QTableWidgetItem(v)
            if c == 1:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.events.setItem(r, c, item)

    def _refresh_events(self) -> None:
        self.events.setRowCount(0)
        for e in self.doc.events:
            self._event_row(e)

    def _remove_event(self) -> None:
        r = self.events.currentRow()
        if 0 <= r < len(self.doc.events):
            del self.doc.events[r]
            self.events.removeRow(r)

    def _read_events(self) -> None:
        """Copy the table's cells into the document; raises ``ValueError`` naming the bad cell."""
        def cell(r: int, c: int) -> str:
            item = self.events.item(r, c)
            return item.text().strip() if item else ""

        for r, e in enumerate(self.doc.events):
            e.at = event_number(cell(r, 0), r, "at", "a time in slices >= 0", low=0.0)
            if e.kind == "submit":
                e.size = int(event_number(cell(r, 3), r, "size", "a whole number of processors >= 1",
                                          low=1.0, whole=True))
                e.work = event_number(cell(r, 4), r, "work", "a number of slices > 0", low=0.0,
                                      above=True)
            e.name = cell(r, 2)

    def sync(self) -> None:
        """Copy every field into the document; raises ``ValueError`` for an unreadable event."""
        d = self.doc
        d.title = self.title.text().strip() or "My scenario"
        d.explanation = " ".join(self.explanation.toPlainText().split())
        d.policy = self.policy.currentText().strip() or registry.family(registry.MATRIX).default or ""
        if d.other is not None:
            d.other.update(title=d.title, explanation=d.explanation)
            if d.policy:
                d.other["policy"] = d.policy
            if not d.explanation:
                d.other.pop("explanation", None)
            return
        self._read_events()

    def scenario(self) -> Scenario | None:
        """The scenario as it stands, or ``None`` after showing why it cannot be read."""
        try:
            self.sync()
            return self.doc.to_scenario(self.path or "<editor>")
        except (ValueError, ScenarioError) as exc:
            msg = str(exc).replace("<editor>:", "line ")
            self._say(msg, error=True)
            QMessageBox.warning(self, "Scenario editor", msg)
            return None

    # ------------------------------------------------------------------ play / save
    def save(self, path: str | Path) -> bool:
        """Write the scenario to ``path``; return success (a failure is shown, nothing lost)."""
        if self.scenario() is None:
            return False
        try:
            from gangviz.outputs import write_text_atomically

            write_text_atomically(path, self.doc.toml())
        except OSError as exc:
            QMessageBox.critical(self, "Cannot save", f"{path}:\n{exc}")
            return False
        self.path = str(path)
        self._say(f"Saved {path}.")
        return True

    def ask_save(self) -> None:
        """Ask for a file name and save there."""
        start = self.path or f"{slug(self.title.text())}.toml"
        path, _ = QFileDialog.getSaveFileName(self, "Save scenario", start, "Scenarios (*.toml)")
        if path:
            self.save(path if path.endswith(".toml") else path + ".toml")

    def play(self) -> bool:
        """Open the scenario in the window and play it; return success. An unsaved scenario is
        written to a temporary file that lives as long as the editor."""
        if self.scenario() is None or self.main_window is None:
            return False
        if self.path:
            if not self.save(self.path):
                return False
            target = self.path
        else:
            # The window may reload the file (Reset) after the editor is gone: the temporary
            # directory belongs to the window.
            tmp = self.main_window.editor_tmp
            if tmp is None:
                tmp = QTemporaryDir()
                self.main_window.editor_tmp = tmp
            target = str(Path(tmp.path()) / f"{slug(self.doc.title)}.toml")
            Path(target).write_text(self.doc.toml(), encoding="utf-8")
        if not self.main_window.open_source(target, remember=bool(self.path)):
            return False
        if self.main_window.player is not None:
            self.main_window.player.play()
        self._say("Playing in the window.")
        return True


_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def event_number(text: str, row: int, column: str, allowed: str, *, low: float,
                 above: bool = False, whole: bool = False) -> float:
    """Return the number in an event cell; raise ``ValueError`` naming the event, the column,
    the token (quoted, at most 80 characters) and what is allowed when it is not a finite
    number in ASCII digits at least ``low`` (above it, with ``above``; whole, with ``whole``):
    NaN, inf or 1e400 can be neither played nor saved."""
    value = float(text) if _NUMBER.fullmatch(text) else math.nan
    bad = (not math.isfinite(value) or value < low or (above and value == low)
           or (whole and not value.is_integer()) or value > MAX_SLICES)
    if bad:
        raise ValueError(f"event {row + 1}, {column}: {quoted(text)} is not allowed; give {allowed} "
                         f"(a finite number up to {MAX_SLICES:.4g})")
    return value


def open_editor(window: EditingWindow | None, scenario: Scenario | None = None, path: str | None = None) -> ScenarioEditor:
    """Show the editor (non-modal) on ``scenario`` (default: an empty 8 x 2 matrix)."""
    doc = EditorDoc.from_scenario(scenario) if scenario is not None else EditorDoc()
    ed = ScenarioEditor(window, doc, path)
    ed.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
    if window is not None and window.presentation.active:
        ed.resize(window.size() * 0.9)  # large text needs the room
    ed.show()
    return ed

