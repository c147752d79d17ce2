"""File > Save session / Open session / Recent sessions: the window's state in a TOML file.

The file format and its checks live in :mod:`gangviz.session` (Qt-free); this module reads the
state off a :class:`~gangviz.gui.window.MainWindow` (:func:`capture`), puts it back
(:func:`apply`), and adds the File menu entries. Recent sessions are kept in the window's
``QSettings`` under ``recent_sessions``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QSettings, QTemporaryDir
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QStatusBar, QWidget

from gangviz.gui.families.table import watch_of
from gangviz.session import Session, SessionError, read_session, write_session

if TYPE_CHECKING:
    from gangviz.gui.compare.window import CompareWindow
    from gangviz.gui.matrix.view import MatrixWidget
    from gangviz.gui.playback.player import Player
    from gangviz.gui.plots.metrics import MetricsPanel
    from gangviz.sim.protocol import Simulation
    from gangviz.workloads.playlist import Playlist
    from gangviz.workloads.source import Source

MAX_RECENT = 8
KEY = "recent_sessions"


class _Presenting(Protocol):
    @property
    def active(self) -> bool: ...


class _WithMatrix(Protocol):
    @property
    def matrix(self) -> MatrixWidget: ...


class SessionWindow(Protocol):
    """What a session reads of the main window (:class:`~gangviz.gui.window.MainWindow`) and
    puts back: what it shows and how it was opened, the player's step, the plots' zoom, the
    matrix's processor range, the playlist entry, the compare windows it opened, presentation
    mode, its settings, File menu entries and status bar, and the window itself (``window()``:
    a top-level window is its own), which owns the dialogs."""

    playlist: Playlist | None
    playlist_index: int
    act_open_session: QAction
    act_save_session: QAction
    recent_sessions_menu: QMenu
    source: Source | None
    source_name: str | None
    source_args: dict[str, Any]
    source_params: dict[str, Any]
    player: Player | None
    editor_tmp: QTemporaryDir | None
    _user_spec: str | None
    settings: QSettings

    @property
    def _children(self) -> Sequence[object]: ...
    @property
    def metrics(self) -> MetricsPanel: ...
    @property
    def board(self) -> _WithMatrix: ...
    @property
    def presentation(self) -> _Presenting: ...
    def policy_of(self, source: Source, sim: Simulation, /) -> str: ...
    def in_playlist(self) -> bool: ...
    def label_playlist_entry(self) -> None: ...
    def open_source(self, name: str, policy: str | None = ..., params: dict[str, Any] | None = ..., *,
                    watch: bool | None = ..., remember: bool = ..., **source_args: Any) -> bool: ...
    def open_compare(self, policies: list[str] | None = ..., /) -> CompareWindow | None: ...
    def toggle_presentation(self) -> bool: ...
    def statusBar(self) -> QStatusBar: ...
    def window(self) -> QWidget: ...


def capture(window: SessionWindow) -> Session:
    """Return the :class:`Session` of what ``window`` shows.

    Raises ``ValueError`` when the window shows nothing that was opened by name (a model built
    from the Other models menu cannot be reopened from a file) or an unsaved editor scenario.
    """
    if window.source_name is None or window.player is None or window.source is None:
        raise ValueError("open a scenario, a trace or a model first: this view cannot be saved")
    tmp = window.editor_tmp
    if tmp is not None and Path(tmp.path()) in Path(str(window.source_name)).parents:
        # an unsaved editor scenario lives in a folder that goes when the program ends
        raise ValueError("save the scenario in the editor first: the window shows an unsaved "
                         "copy that will be gone when gangviz closes")
    sim = window.player.sim
    watch = watch_of(sim)
    zoom = {}
    for plot in window.metrics.plots:
        vb = plot.plot.getViewBox()
        auto_x, auto_y = vb.autoRangeEnabled()
        fixed_y = not vb.state["mouseEnabled"][1]  # a ratio's 0-1 axis is fixed, not a zoom
        if not auto_x or (not auto_y and not fixed_y):  # zoomed or panned by hand
            (x0, x1), (y0, y1) = vb.viewRange()
            zoom[plot.title] = (float(x0), float(x1), float(y0), float(y1))
    from gangviz.gui.compare.window import CompareWindow

    compare = []
    for child in window._children:
        if isinstance(child, CompareWindow) and child.isVisible():
            # the panes' order (the order asked for), not the chooser's alphabetical list
            compare = list(child.sims or child.chooser.checked())
            break
    in_playlist = window.in_playlist()
    # a user's policy by the spec that loads it again (its file), a built-in by its name
    policy = window._user_spec or window.policy_of(window.source, sim)
    return Session(str(window.source_name), dict(window.source_args), policy,
                   dict(window.source_params or {}),
                   None if watch is None else bool(watch), int(window.player.position),
                   bool(window.presentation.active), zoom, compare, _matrix_range(window),
                   _playlist_name(window.playlist.path) if in_playlist and window.playlist is not None else None,
                   window.playlist_index if in_playlist else 0)


def _playlist_name(path: str) -> str:
    """Return a built-in playlist by its name (it moves with the installation), else ``path``."""
    from gangviz.workloads.playlist import PLAYLISTS

    p = Path(path)
    return p.stem if p.parent.resolve() == PLAYLISTS.resolve() else path


def _matrix_range(window: SessionWindow) -> tuple[float, float] | None:
    """Return the matrix's zoomed processor range ``(first, count)``, or ``None`` when the
    whole machine is on show."""
    view = window.board.matrix.column_range
    if view.count >= view.processors:
        return None
    return float(view.first), float(view.count)


def apply(window: SessionWindow, session: Session) -> bool:
    """Show ``session`` in ``window``: source, policy, parameters, step, zoom, compare window,
    presentation mode. Returns success; on failure a message box says why and the current
    simulation stays. A playlist that no longer loads (or lost the entry), or compare policies
    that cannot run, are said in a message box; the scenario opens without them. Offscreen
    (:mod:`gangviz.gui.kit.headless`) each of these raises instead."""
    playlist, name = None, session.source
    try:
        playlist = playlist_of(session)
        if playlist is not None:
            name = playlist.items[session.entry].source
    except (ValueError, OSError) as exc:
        QMessageBox.warning(window.window(), "Open session", f"{exc}\n(the scenario opens without its playlist)")
    if not window.open_source(name, session.policy, session.params or None,
                              watch=session.watch, remember=False, **session.source_args):
        return False
    if playlist is not None:
        window.playlist, window.playlist_index = playlist, session.entry
        window.label_playlist_entry()
    if session.step and window.player is not None:
        window.player.go_to(session.step, now=True)
    window.metrics.refresh()
    by_title = {p.title: p for p in window.metrics.plots}
    for title, (x0, x1, y0, y1) in session.zoom.items():
        plot = by_title.get(title)
        if plot is not None:
            plot.plot.getViewBox().setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
    if session.processors is not None:
        window.board.matrix.column_range.show(*session.processors)
    if session.compare:
        compare = window.open_compare(list(session.compare))
        if compare is not None and compare.error is not None:
            QMessageBox.critical(window.window(), "Open session", f"compare.policies: {compare.error}")
    if session.presentation != window.presentation.active:
        window.toggle_presentation()
    return True


def playlist_of(session: Session) -> Playlist | None:
    """Return the loaded playlist ``session`` is an entry of, or ``None`` when it names none.

    Raises ``ValueError`` naming ``source.playlist`` when the playlist does not load or has no
    entry ``source.entry``, ``OSError`` when it cannot be read.
    """
    if session.playlist is None:
        return None
    from gangviz.workloads.playlist import load_playlist

    try:
        playlist = load_playlist(session.playlist)
    except FileNotFoundError as exc:
        raise ValueError(f"source.playlist: {exc}") from None
    if session.entry >= len(playlist.items):
        raise ValueError(f"source.entry: {session.entry} is out of range: the playlist {playlist.path} "
                         f"has entries 0..{len(playlist.items) - 1}")
    return playlist


def open_session(window: SessionWindow, path: str | os.PathLike[str]) -> bool:
    """Read the session file ``path`` and :func:`apply` it; return success (a message box
    names the problem otherwise)."""
    try:
        session = read_session(path)
    except (SessionError, OSError) as exc:
        QMessageBox.critical(window.window(), "Open session", str(exc))
        return False
    if not apply(window, session):
        return False
    remember(window, str(path))
    return True


def save_session(window: SessionWindow, path: str | os.PathLike[str]) -> Path | None:
    """Write the window's session to ``path``; return it, or ``None`` after a message box."""
    try:
        out = write_session(capture(window), path)
    except (ValueError, OSError) as exc:
        QMessageBox.critical(window.window(), "Save session", str(exc))
        return None
    remember(window, str(out))
    window.statusBar().showMessage(f"Session saved: {out}", 5000)
    return out


def ask_save(window: SessionWindow) -> Path | None:
    """File > Save session: ask for a file name and save."""
    start = str(window.settings.value("last_dir", str(Path.home())))
    path, _ = QFileDialog.getSaveFileName(window.window(), "Save session", str(Path(start) / "session.toml"),
                                          "Session files (*.toml)")
    return save_session(window, path) if path else None


def ask_open(window: SessionWindow) -> bool:
    """File > Open session: ask for a session file and open it."""
    start = str(window.settings.value("last_dir", str(Path.home())))
    path, _ = QFileDialog.getOpenFileName(window.window(), "Open session", start, "Session files (*.toml)")
    return open_session(window, path) if path else False


def recent(settings: QSettings) -> list[str]:
    """Return the recent session files, newest first."""
    value = settings.value(KEY, [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def remember(window: SessionWindow, path: str) -> None:
    """Put ``path`` first in the recent sessions and refresh the menu."""
    full = str(Path(path).resolve())
    items = [full] + [r for r in recent(window.settings) if r != full]
    window.settings.setValue(KEY, items[:MAX_RECENT])
    fill_recent(window)


def fill_recent(window: SessionWindow) -> None:
    """Rebuild the Recent sessions menu from the settings."""
    menu: QMenu = window.recent_sessions_menu
    menu.clear()
    for name in recent(window.settings):
        a = menu.addAction(name)
        a.triggered.connect(lambda checked=False, n=name: open_session(window, n))
    menu.setEnabled(bool(recent(window.settings)))


def add_session_actions(window: SessionWindow, menu: QMenu) -> None:
    """Add Open session, Save session and Recent sessions to the File ``menu``."""
    a = menu.addAction("Open &session…")
    a.triggered.connect(lambda: ask_open(window))
    window.act_open_session = a
    a = menu.addAction("Save s&ession…")
    a.triggered.connect(lambda: ask_save(window))
    window.act_save_session = a
    window.recent_sessions_menu = menu.addMenu("Recent sess&ions")
    fill_recent(window)
