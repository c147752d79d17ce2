"""Presentation mode: the window as a lecturer shows it to a room.

Presentation mode (F11): :class:`Presentation` switches a :class:`~gangviz.gui.window.MainWindow`
to full screen with only the board left (title, explanation, matrix or family view, vector and
tree, timeline, caption), everything in large fonts, the job under the mouse pointer
highlighted, and the narration of the current step as a caption under the matrix. Leaving
restores the window's previous state (normal, maximised) and every hidden part.

Everything is driven from the keyboard; :data:`KEYS` lists the keys (Help -> Keys shows it).
Choices: the tool bar, menu bar, status bar, side panel and the narration/metric panels are
hidden (their actions stay live as window shortcuts); the font sizes (:data:`FONTS`) are those
of a 1920 x 1080 screen and scale with the window's height (:func:`scale_for`, so a 1280 x 720
projector shows the same layout two thirds as large, and nothing is cut); every part of the board
scales: title, explanation, matrix names and labels, WLV and tree digits, caption, and the
multi-site queue and epoch views. The explanation above the matrix is hidden on entering and
on every scenario opened while presenting (it answers the questions a lecturer asks the room,
as the playlist's notes suggest: "why can no two of these jobs share a slot?"); E shows it, and
the presenter view always shows it to the lecturer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from gangviz.gui.lecture.caption import Caption
    from gangviz.gui.lecture.coach import WaitingJob
    from gangviz.gui.matrix.vector import VectorTreeView
    from gangviz.gui.matrix.view import MatrixWidget
    from gangviz.gui.source_notes import WarningsBar

#: (key, what it does), in the order Help -> Keys lists them
KEYS: list[tuple[str, str]] = [
    ("Space", "play / pause"),
    ("Right", "the next move: each shift, migration, slot deletion, placement and termination"),
    ("Left", "back one move"),
    ("Shift+Right / Shift+Left", "a whole step forward / back (every move of one decision)"),
    ("M", "step by move on / off (off: Right and Left take whole steps)"),
    ("N", "jump to the next re-pack, migration or slot deletion"),
    ("Home", "back to the start"),
    ("+ / -", "faster / slower"),
    ("Page Down / Page Up", "next / previous built-in scenario"),
    ("G", "guided exercise on / off: pause before each re-pack and show the legal cuts"),
    ("Return", "reveal the move the guided exercise holds"),
    ("F11", "presentation mode on / off (full screen, large fonts)"),
    ("Escape", "leave presentation mode"),
    ("E", "show / hide the explanation above the matrix"),
    ("Ctrl+L", "presenter view: the note, the explanation and the step in full, in a second window"),
    ("Ctrl+E", "export the animation (GIF, MP4, PNG frames)"),
    ("Ctrl+Shift+N", "edit this scenario in the scenario editor"),
    ("Ctrl+O", "open a scenario or a trace"),
]

#: point sizes in presentation mode on a 1080-pixel-high screen (every one draws text at least
#: 18 pixels high there: digits and capitals of a 20-point font are about 19 pixels high)
FONTS: dict[str, float | None] = {"title": 28.0, "subtitle": 19.0, "explain": 19.0, "caption": 24.0, "matrix": 20.0,
         "vector": 20.0, "family": 2.0}
#: point sizes in the normal window (the board's defaults)
NORMAL_FONTS: dict[str, float | None] = {"title": 12.5, "subtitle": None, "explain": None, "caption": 11.0, "matrix": 9.5,
                "vector": 9.0, "family": 1.0}
#: the tallest a slot may be drawn, in pixels, when presenting (at 1080 pixels) and in the window
PRESENT_CELL_H = 180.0
NORMAL_CELL_H = 64.0
#: the screen height :data:`FONTS` are made for, and the range the scale is kept in
DESIGN_HEIGHT = 1080.0
SCALE_RANGE = (0.6, 1.6)


def scale_for(height: int) -> float:
    """Return the presentation scale for a window ``height`` pixels high (1 at 1080)."""
    lo, hi = SCALE_RANGE
    return min(hi, max(lo, height / DESIGN_HEIGHT))


class _ResizeWatch(QObject):
    """Re-applies the presentation sizes when the window changes size: at once, or once the
    event loop has let the window's layouts take the new size (``later``)."""

    def __init__(self, presentation: PresentationMode[Any], later: bool) -> None:
        super().__init__()
        self.presentation = presentation
        self.later = later

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        if ev.type() == QEvent.Type.Resize and self.presentation.active:
            if self.later:
                QTimer.singleShot(0, self.presentation.rescale)
            else:
                self.presentation.rescale()
        return False


def keys_html() -> str:
    """Return :data:`KEYS` as an HTML table (the Help -> Keys dialog)."""
    rows = "".join(f"<tr><td style='padding:2px 14px 2px 0'><b>{k}</b></td><td>{v}</td></tr>"
                   for k, v in KEYS)
    return f"<table>{rows}</table>"


class KeysDialog(QDialog):
    """Help -> Keys: the keyboard reference."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keys")
        lay = QVBoxLayout(self)
        self.table = QLabel(keys_html())
        self.table.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)


def _set_points(widget: QWidget, points: float | None, base: QFont) -> None:
    f = QFont(base)
    if points is not None:
        f.setPointSizeF(points)
    if widget.font().bold():
        f.setBold(True)
    widget.setFont(f)


class PresentedBoard(Protocol):
    """What presentation mode sizes on the board (:class:`~gangviz.gui.board.Board`)."""

    @property
    def title(self) -> QLabel: ...
    @property
    def subtitle(self) -> QLabel: ...
    @property
    def stamp(self) -> QLabel: ...
    @property
    def explain(self) -> QLabel: ...
    @property
    def caption(self) -> Caption: ...
    @property
    def matrix(self) -> MatrixWidget: ...
    @property
    def vector(self) -> VectorTreeView: ...
    def set_family_scale(self, scale: float, /) -> None: ...


class _Coached(Protocol):
    @property
    def waiting(self) -> WaitingJob: ...


class Shown(Protocol):
    """What presentation mode reads and sets of a window's own state: maximised or not, shown
    or not, its height, full screen, and a watcher of its resizes."""

    def installEventFilter(self, watcher: QObject, /) -> None: ...
    def isMaximized(self) -> bool: ...
    def isVisible(self) -> bool: ...
    def height(self) -> int: ...
    def showFullScreen(self) -> None: ...
    def showMaximized(self) -> None: ...
    def showNormal(self) -> None: ...


class PresentedWindow(Shown, Protocol):
    """What presentation mode reads of the main window (:class:`~gangviz.gui.window.MainWindow`):
    the board, the chrome it hides, the lines around the board it sizes, the window's font, and
    its state (:class:`Shown`)."""

    @property
    def board(self) -> PresentedBoard: ...
    @property
    def toolbar(self) -> QWidget: ...
    @property
    def side_panel(self) -> QWidget: ...
    @property
    def splitters(self) -> Mapping[str, QWidget]: ...
    @property
    def coach(self) -> _Coached: ...
    @property
    def warnings_bar(self) -> WarningsBar: ...
    def menuBar(self) -> QWidget: ...
    def statusBar(self) -> QWidget: ...
    def font(self) -> QFont: ...


def size_board(board: PresentedBoard, sizes: dict[str, float | None], k: float, base: QFont) -> None:
    """Give every part of ``board`` its size of ``sizes`` (:data:`FONTS` times ``k``, or
    :data:`NORMAL_FONTS`); ``base`` is the font a part without a size keeps. The window's
    presentation mode and the presentation export (``gangviz export --presentation``) both
    size their board here."""
    def pts(name: str) -> float | None:
        v = sizes[name]
        return None if v is None else v * (k if sizes is FONTS else 1.0)

    def need(name: str) -> float:  # a size both tables give
        v = pts(name)
        if v is None:
            raise KeyError(f"no point size for {name!r}")
        return v

    _set_points(board.title, pts("title"), base)
    _set_points(board.subtitle, pts("subtitle"), base)
    _set_points(board.stamp, pts("subtitle"), base)
    _set_points(board.explain, pts("explain"), base)
    board.caption.set_point_size(need("caption"))
    board.matrix.set_font_size(need("matrix"))
    board.vector.set_font_size(need("vector"))
    board.matrix.set_max_cell_height(PRESENT_CELL_H * k if sizes is FONTS else NORMAL_CELL_H)
    board.set_family_scale(need("family"))


W = TypeVar("W", bound=Shown)


class PresentationMode(Generic[W]):
    """What the main window's and the compare window's presentation modes share: the switch,
    the scale taken from the window's height, the parts hidden while it is on, and going full
    screen and back. A subclass says what it hides and how it sizes its texts."""

    def __init__(self, window: W, *, rescale_later: bool = False) -> None:
        self.window = window
        self.active = False
        self.scale = 1.0
        #: go full screen on entering (off for an offscreen picture of a chosen size)
        self.full_screen = True
        self._hidden: list[QWidget] = []
        self._was_maximized = False
        self._watch = _ResizeWatch(self, rescale_later)
        window.installEventFilter(self._watch)

    def toggle(self) -> bool:
        """Enter presentation mode, or leave it; return whether it is now on."""
        self.leave() if self.active else self.enter()
        return self.active

    def enter(self) -> None:
        """Turn presentation mode on (a subclass's texts and parts)."""
        raise NotImplementedError

    def leave(self) -> None:
        """Restore the window as it was before :meth:`enter`."""
        raise NotImplementedError

    def rescale(self, height: int | None = None) -> None:
        """Fit the sizes to the window's height (or ``height``), in presentation mode only."""
        raise NotImplementedError

    def _switch_on(self, parts: list[QWidget], *, unless_hidden: bool = False) -> None:
        """Mark the mode on, remember the window's state, hide the shown ``parts`` (with
        ``unless_hidden``, every part not hidden, also in a window not shown yet) and take the
        scale from the window's height (the design height for a window not shown yet)."""
        w = self.window
        self.active = True
        self._was_maximized = w.isMaximized()
        self._hidden = [c for c in parts if (not c.isHidden() if unless_hidden else c.isVisible())]
        for c in self._hidden:
            c.setVisible(False)
        self.scale = scale_for(w.height() if w.isVisible() else int(DESIGN_HEIGHT))

    def _switch_off(self) -> None:
        """Mark the mode off and show again what :meth:`_switch_on` hid."""
        self.active = False
        for c in self._hidden:
            c.setVisible(True)
        self._hidden = []

    def _full_screen(self, on: bool) -> None:
        """Go full screen, or back to the window's earlier state (when :attr:`full_screen`)."""
        if not self.full_screen:
            return
        w = self.window
        if on:
            w.showFullScreen()
        else:
            w.showMaximized() if self._was_maximized else w.showNormal()


class Presentation(PresentationMode[PresentedWindow]):
    """Enters and leaves presentation mode on ``window`` (see the module docstring)."""

    def _chrome(self) -> list[QWidget]:
        w = self.window
        return [w.toolbar, w.menuBar(), w.statusBar(), w.side_panel, w.splitters["bottom"]]

    def enter(self) -> None:
        """Go full screen with large fonts, the caption and the hover highlight."""
        if self.active:
            return
        self._switch_on(self._chrome())
        self._apply_fonts(FONTS)
        board = self.window.board
        board.explain.setVisible(False)  # it may answer what the lecturer asks: E shows it
        board.matrix.set_hover_highlight(True)
        self._full_screen(True)

    def leave(self) -> None:
        """Restore the window as it was before :meth:`enter`."""
        if not self.active:
            return
        self._switch_off()
        self._apply_fonts(NORMAL_FONTS)
        board = self.window.board
        board.explain.setVisible(False)
        board.matrix.set_hover_highlight(False)
        self._full_screen(False)

    def toggle_explanation(self) -> None:
        """Show or hide the explanation above the matrix (presentation mode only)."""
        ex = self.window.board.explain
        if self.active:
            ex.setVisible(not ex.isVisible() and bool(ex.text()))

    def rescale(self, height: int | None = None) -> None:
        """Fit the sizes to the window's current height, or to ``height`` (a window about to
        be given that height), in presentation mode only."""
        if not self.active:
            return
        scale = scale_for(self.window.height() if height is None else height)
        if abs(scale - self.scale) > 0.01:
            self.scale = scale
            self._apply_fonts(FONTS)

    def _apply_fonts(self, sizes: dict[str, float | None]) -> None:
        board = self.window.board
        base = self.window.font()
        k = self.scale if sizes is FONTS else 1.0

        def pts(name: str) -> float | None:
            v = sizes[name]
            return None if v is None else v * k

        size_board(board, sizes, k, base)
        # the lines around the board: the guided exercise's prompt and verdict, the warnings bar
        w = self.window
        for label in (w.coach.waiting.text, w.warnings_bar.label, w.warnings_bar.details,
                      w.warnings_bar.close_button):
            _set_points(label, pts("explain"), base)
        w.warnings_bar.close_button.setFixedWidth(max(28, w.warnings_bar.close_button.sizeHint().height()))
        w.coach.waiting.set_job(w.coach.waiting.job)
