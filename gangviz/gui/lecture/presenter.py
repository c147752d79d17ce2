"""The presenter view: a second window for the lecturer's own screen.

A lecture playlist's notes ("Ask: why can no two of these jobs share a slot?") and the
scenario's explanation are meant for the lecturer, and some of them tell what is about to
happen. The projected window never shows a note; this window does, beside the explanation
(also while the guided exercise covers it on the projected screen) and the full narration of
the step on screen, including a move the guided exercise holds. View -> Presenter view (Ctrl+L)
opens and closes it; put it on the laptop's screen while the main window is projected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from gangviz.gui.playback.wiring import follow

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player
    from gangviz.workloads.playlist import Playlist

#: what the presenter view says when the source on screen has no note
NO_NOTE = "No note for this scenario."


class _Titled(Protocol):
    @property
    def title(self) -> QLabel: ...


class _Explaining(Protocol):
    def explanation_text(self) -> str: ...


class LecturedWindow(Protocol):
    """What the presenter view reads of the main window (:class:`~gangviz.gui.window.MainWindow`):
    the board's title, the coach's explanation, the playlist and its entry on screen, and the
    window itself (``window()``: a top-level window is its own), which owns the view."""

    @property
    def board(self) -> _Titled: ...
    @property
    def coach(self) -> _Explaining: ...
    @property
    def playlist(self) -> Playlist | None: ...
    @property
    def playlist_index(self) -> int: ...
    def in_playlist(self) -> bool: ...
    def window(self) -> QWidget: ...


class PresenterView(QWidget):
    """The lecturer's window: where the lecture is, the entry's note, the explanation and the
    narration of the current step (see the module docstring)."""

    def __init__(self, window: LecturedWindow) -> None:
        super().__init__(window.window(), Qt.WindowType.Window)  # its own window, owned by the main one
        self.window_ = window
        self.player: Player | None = None
        self.setWindowTitle("gangviz: presenter view")
        lay = QVBoxLayout(self)
        self.where = QLabel()
        self.where.setWordWrap(True)
        self.note = QLabel()
        self.explanation = QLabel()
        self.step = QLabel()
        lay.addWidget(self.where)
        for title, label in (("Note", self.note), ("Explanation", self.explanation),
                             ("This step, in full", self.step)):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            box = QGroupBox(title)
            QVBoxLayout(box).addWidget(label)
            lay.addWidget(box)
        lay.addStretch(1)
        self.resize(560, 640)
        close = QShortcut(QKeySequence("Ctrl+L"), self)
        close.activated.connect(self.close)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the presenter view (its own close button, or Ctrl+L there) unticks View ->
        Presenter view."""
        act = getattr(self.window_, "act_presenter", None)
        if act is not None:
            act.setChecked(False)
        super().closeEvent(event)

    def set_player(self, player: Player) -> None:
        """Follow ``player`` (the main window's new one)."""
        follow(self.player, player, ("stepped", "moved", "gateChanged"), self.refresh)
        self.player = player
        self.refresh()

    def note_text(self) -> str:
        """Return the note of the playlist entry on screen (:data:`NO_NOTE` when there is
        none)."""
        w = self.window_
        if w.in_playlist() and w.playlist is not None:
            note = w.playlist.items[w.playlist_index].note
            if note:
                return note
        return NO_NOTE

    def refresh(self, *args: object) -> None:
        """Show the current entry's note, the explanation and the step's narration."""
        w = self.window_
        where = w.board.title.text()
        if w.in_playlist() and w.playlist is not None:
            where = (f"{w.playlist.title}: {w.playlist_index + 1} of {len(w.playlist.items)}"
                     f"\n{where}")
        self.where.setText(where)
        self.note.setText(self.note_text())
        self.explanation.setText(w.coach.explanation_text())
        p = self.player
        lines: list[str] = (p.known[p.position - 1].narration
                            if p is not None and 0 < p.position <= len(p.known) else [])
        self.step.setText(" ".join(lines) if lines else "Before the first step.")
