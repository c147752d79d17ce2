"""Starting the application: the interactive window and the offscreen screenshot.

Command line: ``gangviz`` opens the window on the Fig. 2 re-packing scenario, ready to
press Play; ``gangviz open FILE --policy P --screenshot out.png [--step N]`` renders the window
offscreen at step N, saves the picture and exits.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gangviz.gui.kit.qapp import application, exec_until_signal

if TYPE_CHECKING:
    from gangviz.gui.window import MainWindow

#: default window size of a screenshot (width, height)
SCREENSHOT_SIZE = (1400, 900)


def screenshot(source: str, out: str, *, policy: str | None = None, step: int = 0,
               move: int | None = None, guided: str | None = None, pick: int | None = None,
               size: tuple[int, int] = SCREENSHOT_SIZE, watch: bool | None = None,
               presentation: bool = False, **source_args: Any) -> str:
    """Render the window on ``source`` after ``step`` steps offscreen and save it to ``out``;
    with ``move``, step ``step`` is shown stopped after its ``move``-th move (1-based,
    :meth:`~gangviz.gui.playback.player.Player.go_to_move`). With ``guided`` (``"held"`` or
    ``"answered"``) the guided exercise plays on from there to its next held move
    (:func:`hold_guided`); ``pick`` is then the student's pick (a processor, 1-based).

    The picture is ``size`` pixels (also for a session saved in presentation mode, which is
    drawn at that size rather than full screen); ``presentation`` draws presentation mode.

    Returns ``out``. Raises ``ValueError``/``OSError`` when the source does not load, the step or
    move is not in the run, a session
    or playlist does not apply whole (what a message box would say, :mod:`gangviz.gui.kit.headless`)
    or the picture cannot be written.
    """
    from PySide6.QtCore import QSettings

    app = application(offscreen=True)
    from gangviz.gui.kit.headless import dialogs_raise
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
            go_to_step(win, step, move)
            if guided:
                hold_guided(win, answered=guided == "answered", pick=pick)
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


def go_to_step(win: MainWindow, step: int, move: int | None) -> None:
    """Show ``win``'s simulation after ``step`` steps (its end when it has fewer), or stopped on
    move ``move`` of step ``step``; raise ``ValueError`` when the run has no such move."""
    p = win.player
    if p is None:
        return
    if move is not None:
        p.go_to_move(step, move)
    elif step:
        p.go_to(step, now=True)  # past the end: the run's last picture


#: the guided exercise looks this many steps ahead for a move to hold before it gives up
GUIDED_LOOKAHEAD = 500


def hold_guided(win: MainWindow, *, answered: bool = False, pick: int | None = None) -> None:
    """Turn the guided exercise on and play ``win``'s simulation on to its next held move (the
    question); with ``answered``, pick the region around processor ``pick`` (1-based) if given
    and reveal the move to its end (the verdict). Raises ``ValueError`` when no move is held
    within :data:`GUIDED_LOOKAHEAD` steps or ``pick`` lies outside the legal cuts."""
    p = win.player
    if p is None or not p.has_matrix:
        raise ValueError("the guided exercise needs a matrix simulation")
    win.set_guided(True)
    start = p.position
    for _ in range(GUIDED_LOOKAHEAD):
        taken = p.step_forward()
        while p.gate is None and p.busy:
            p.advance_animation(0.05)
        if p.gate is not None:
            break
        if taken is None:
            raise ValueError(f"the run has no re-pack to ask about after step {start}")
    else:
        raise ValueError(f"no re-pack to ask about in the {GUIDED_LOOKAHEAD} steps after step {start}")
    if not answered:
        return
    if pick is not None and win.coach.pick_processor(pick - 1) is None:
        cuts = win.coach.info.cuts if win.coach.info is not None else []
        raise ValueError(f"--pick {pick}: pick a processor between the legal cuts "
                         f"(P{cuts[0] + 1}..P{cuts[-1]})" if cuts else f"--pick {pick}: no region to pick")
    p.reveal()
    while p.busy:
        p.advance_animation(0.05)


def run(source: str | None = None, policy: str | None = None, *, presentation: bool = False,
        step: int = 0, move: int | None = None, guided: str | None = None, **source_args: Any) -> int:
    """Open the window on ``source`` (default: the Fig. 2 scenario), in presentation mode when
    ``presentation``, at ``step`` (and ``move``, as :func:`screenshot`; with ``guided``, the
    guided exercise on and holding its next move), and run the event loop; return its exit
    code (130 or 143 when Ctrl-C or SIGTERM ended it)."""
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
    try:
        go_to_step(win, step, move)
        if guided:
            hold_guided(win, answered=False)
    except ValueError as exc:
        win.statusBar().showMessage(str(exc), 10000)
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
    from gangviz.gui.kit.headless import DialogError
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
