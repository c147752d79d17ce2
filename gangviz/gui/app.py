"""Starting the application: the interactive window and the offscreen screenshot.

Command line: ``gangviz`` opens the window on the Fig. 2 re-packing scenario, ready to
press Play; ``gangviz open FILE --policy P --screenshot out.png [--step N]`` renders the window
offscreen at step N, saves the picture and exits.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gangviz.gui.qapp import application, exec_until_signal

if TYPE_CHECKING:
    from gangviz.gui.window import MainWindow

#: default window size of a screenshot (width, height)
SCREENSHOT_SIZE = (1400, 900)


def screenshot(source: str, out: str, *, policy: str | None = None, step: int = 0,
               size: tuple[int, int] = SCREENSHOT_SIZE, watch: bool | None = None,
               presentation: bool = False, **source_args: Any) -> str:
    """Render the window on ``source`` after ``step`` steps offscreen and save it to ``out``.

    The picture is ``size`` pixels (also for a session saved in presentation mode, which is
    drawn at that size rather than full screen); ``presentation`` draws presentation mode.

    Returns ``out``. Raises ``ValueError``/``OSError`` when the source does not load, a session
    or playlist does not apply whole (what a message box would say, :mod:`gangviz.gui.headless`)
    or the picture cannot be written.
    """
    from PySide6.QtCore import QSettings

    app = application(offscreen=True)
    from gangviz.gui.headless import dialogs_raise
    from gangviz.gui.window import MainWindow

    with dialogs_raise():  # offscreen, an error is raised and printed, never a dialog
        settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "gangviz", "screenshot")
        win = MainWindow(source="", settings=settings)
        win.presentation.full_screen = False  # the picture is ``size``, not the offscreen screen's
        try:
            from gangviz.workloads.playlist import load_playlist, playlist_path

            if _is_session(source):
                _open_session_or_raise(win, source)
            elif playlist_path(str(source)) is not None:  # a lecture playlist: its first entry
                win.playlist = load_playlist(source)
                item = win.playlist.items[0]
                source_obj, sim = win.build_simulation(item.source, policy, None, watch)
                win.show_source(source_obj, item.source, sim, None, {})
                win.playlist_index = 0
                win.label_playlist_entry()
            else:
                source_obj, sim = win.build_simulation(source, policy, None, watch, **source_args)
                win.show_source(source_obj, source, sim, None, source_args)
            win.resize(*size)
            win.show()
            if presentation and not win.presentation.active:
                win.toggle_presentation()
            win.presentation.rescale(size[1])  # fonts for the asked height, so the window fits in it
            win.resize(*size)
            if step and win.player is not None:
                win.player.go_to(step, now=True)
            win.metrics.refresh()
            win.narration.refresh()
            app.processEvents()
            for _ in range(2):  # views that size themselves while painting settle, then fit the size
                win.grab()
                app.processEvents()
                win.resize(*size)
                app.processEvents()
            pixmap = win.grab()
            from gangviz.outputs import atomic

            try:
                with atomic(out) as tmp:
                    if not pixmap.save(str(tmp)):  # the format by the name, as ``out``
                        raise OSError(_unsaved_reason(out))
            except FileNotFoundError:  # the folder does not exist
                raise OSError(_unsaved_reason(out)) from None
        finally:
            if win.player is not None:
                win.player.stop()
            win.metrics._pending.stop()
            win.close()
            win.deleteLater()
            app.processEvents()
    return str(out)


def run(source: str | None = None, policy: str | None = None, *, presentation: bool = False,
        **source_args: Any) -> int:
    """Open the window on ``source`` (default: the Fig. 2 scenario), in presentation mode when
    ``presentation``, and run the event loop; return its exit code (130 or 143 when Ctrl-C or
    SIGTERM ended it)."""
    app = application()
    from gangviz.gui.window import DEFAULT_SOURCE, MainWindow

    win = MainWindow(source="")
    if source and _is_session(source):
        from gangviz.gui.session import open_session

        if not open_session(win, source):
            win.open_source(DEFAULT_SOURCE, remember=False)
    elif not win.open_source(source or DEFAULT_SOURCE, policy, remember=source is not None, **source_args):
        if source is not None:
            win.open_source(DEFAULT_SOURCE, remember=False)
    win.show()
    if presentation and not win.presentation.active:
        win.toggle_presentation()
    code = exec_until_signal(app)  # Ctrl-C and SIGTERM end it too, with 130 and 143
    if win.player is not None:
        win.player.stop()
    return code


def _unsaved_reason(out: str | Path) -> str:
    """Return why a picture could not be saved to ``out``: a missing folder, an unknown file
    type, or (else) a folder it may not write to."""
    from PySide6.QtGui import QImageWriter

    path = Path(out)
    if not path.parent.is_dir():
        return f"{out}: cannot write the picture: the folder {path.parent} does not exist"
    kinds = {f.toStdString().lower() for f in QImageWriter.supportedImageFormats()}
    if path.suffix.lower().lstrip(".") not in kinds:
        return f"{out}: cannot write the picture: use a .png file name"
    return f"{out}: cannot write the picture: is the folder {path.parent} writable?"


def _is_session(source: str) -> bool:
    from gangviz.session import is_session_file

    return is_session_file(source)


def _open_session_or_raise(win: MainWindow, path: str) -> None:
    """Apply the session file ``path`` to ``win`` offscreen; raise ``ValueError`` instead of a
    message box when it cannot be used."""
    from gangviz.gui.headless import DialogError
    from gangviz.gui.session import apply, playlist_of
    from gangviz.session import read_session

    session = read_session(path)
    try:
        playlist_of(session)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    source_obj, sim = win.build_simulation(session.source, session.policy, session.params or None,
                                           session.watch, **session.source_args)
    win.show_source(source_obj, session.source, sim, session.params, session.source_args)
    try:
        if not apply(win, session):  # pragma: no cover - the source loaded just above
            raise ValueError(f"{path}: the session could not be opened")
    except DialogError as exc:
        raise ValueError(f"{path}: {exc}") from None
