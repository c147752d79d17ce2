"""Rendering an animation offscreen through the window's own views, for the export.

Export: the narration is burnt in as captions, the user chooses the size and the frame
rate, a progress callback reports the work and may cancel it. The frames are grabbed from a
:class:`gangviz.gui.board.Board` (title, matrix with its vector and tree, or the family view,
timeline and caption) that is never shown on screen, fed by a :class:`~gangviz.gui.playback.player.Player`
at the lecture pace (speed 1x), so the export looks exactly like the window.

Timing (all in frame periods, *ticks*, of ``1000 / fps`` ms):

* the starting picture rests ``hold_ticks(fps)`` ticks;
* each change of a matrix step animates in :func:`frames_for` frames at ``t = 1/n, 2/n, ..., 1``
  of the scene interpolation (:func:`gangviz.gui.matrix.scene.build_scene`; ``t = 0`` is the previous
  frame already), one tick each: ``n = max(2, round(fps * CHANGE_SECONDS * animation_weight(change)))``;
  a slot deletion first rests :func:`pause_ticks` on its ``t = 0`` picture (the key moment);
* a step of a model without a matrix (multi-site, epoch) animates in ``frames_for(None, fps)``
  frames of its view's own transition;
* the last frame of every step then rests ``hold_ticks(fps)`` more ticks
  (``round(fps * HOLD_SECONDS)``, at least 1).

A step without changes adds one frame. A step that shows a BUDDY schedule then shows its
construction, one frame per piece resting ``1 + hold_ticks(fps)`` ticks
(:mod:`gangviz.gui.families.epoch_construction`). Every frame carries the simulated time ``t`` and the step
in its subtitle (:func:`frame_stamp`); for a matrix simulation the export first counts the steps
it will show, so the timeline spans the whole run and its handle follows the frames. When the requested size is below the board's minimum size
(about 480 x 330 with a matrix), the board is rendered at its minimum and scaled down. ``steps`` limits the number of steps; by default the
export runs to the end of the simulation, at most :data:`MAX_STEPS` steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from gangviz.core import registry
from gangviz.core.changes import JobMigrated
from gangviz.core.record import Change
from gangviz.gui.export.video import FramesWriter, GifWriter, Mp4Writer, output_kind
from gangviz.gui.families.table import FamilyView, FamilyWidget, family_view
from gangviz.gui.playback.player import (
    CHANGE_SECONDS,
    DEFAULT_SPEED_LEVEL,
    HOLD_SECONDS,
    KEY_KINDS,
    KEY_PAUSE_SECONDS,
    Player,
    animation_weight,
)
from gangviz.sim.protocol import Simulation
from gangviz.timefmt import clock_text

DEFAULT_SIZE = (960, 600)
DEFAULT_FPS = 10
MAX_STEPS = 2000
FPS_RANGE = (1, 60)
SIZE_RANGE = (200, 4000)
START_CAPTION = "The starting picture."
CAPTION_POINTS = 13.0


class ExportCancelled(Exception):
    """The progress callback asked to stop; the partial output was removed or left unfinished."""


@dataclass
class ExportResult:
    """What an export wrote: ``frames`` images in the file (GIF frames, PNG files, MP4 frames),
    ``ticks`` frame periods in all, ``steps`` simulation steps shown."""

    path: str
    kind: str
    frames: int
    ticks: int
    steps: int
    fps: int


def frames_for(change: Change | None, fps: int) -> int:
    """Return the number of frames ``change`` animates in at ``fps`` (``None``: a whole step of
    a model without a matrix)."""
    return max(2, round(fps * CHANGE_SECONDS * animation_weight(change)))


def pause_ticks(change: Change | None, fps: int) -> int:
    """Return the ticks the picture rests on ``change`` before it plays: a key moment (a slot
    deletion, :data:`gangviz.gui.playback.player.KEY_KINDS`) rests ``KEY_PAUSE_SECONDS``, as in the
    window; any other change 0."""
    return round(fps * KEY_PAUSE_SECONDS) if change is not None and change.kind in KEY_KINDS else 0


def hold_ticks(fps: int) -> int:
    """Return the ticks the picture rests after each step (and at the start)."""
    return max(1, round(fps * HOLD_SECONDS))


def check_options(size: tuple[int, int], fps: int, steps: int | None) -> None:
    """Raise ``ValueError`` naming the allowed range when ``size``, ``fps`` or ``steps`` is out
    of range."""
    lo, hi = SIZE_RANGE
    if not all(lo <= v <= hi for v in size):
        raise ValueError(f"size must be WIDTHxHEIGHT with both in {lo}..{hi}, got {size[0]}x{size[1]}")
    if not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
        raise ValueError(f"fps must be in {FPS_RANGE[0]}..{FPS_RANGE[1]}, got {fps}")
    if steps is not None and not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"steps must be in 1..{MAX_STEPS}, got {steps}")


def image_rgb(img: QImage) -> np.ndarray:
    """Return ``img`` as a height x width x 3 ``uint8`` array (a copy)."""
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    w, h, bpl = img.width(), img.height(), img.bytesPerLine()
    arr = np.frombuffer(img.constBits(), dtype=np.uint8, count=bpl * h).reshape(h, bpl)
    return arr[:, : w * 3].reshape(h, w, 3).copy()


def has_matrix_view(sim: Simulation) -> bool:
    """Return whether ``sim`` is drawn as an Ousterhout matrix (else by its family view)."""
    return registry.family(sim.family).matrix


def frame_stamp(subtitle: str, time: float, position: int, total: int | None,
                slice_seconds: float | None = None, move: tuple[int, int] | None = None) -> str:
    """Return the subtitle of one frame: ``subtitle`` then ``t = ...``, ``step k of n`` and,
    exported by move, ``move i of m`` (``move``; left out for a step of one move); the time
    as the window's clock writes it (:func:`gangviz.timefmt.clock_text`: ``04:12:09`` for a
    trace of ``slice_seconds`` seconds per slice, ``12.5 slices`` without)."""
    step = f"step {position:,}" + (f" of {total:,}" if total else "")
    parts = [subtitle] if subtitle else []
    moved = [f"move {move[0]} of {move[1]}"] if move is not None and move[1] > 1 else []
    return "   ·   ".join(parts + [f"t = {clock_text(time, slice_seconds)}", step] + moved)


#: exported by move, the picture rests this long on each move, its caption on screen
MOVE_HOLD_SECONDS = 1.2


def move_hold_ticks(fps: int) -> int:
    """Return the ticks the picture rests on each move when exported by move."""
    return max(1, round(fps * MOVE_HOLD_SECONDS))


def count_ahead(sim: Simulation, limit: int) -> int | None:
    """Return how many steps ``sim`` takes from where it is (at most ``limit``), leaving it
    where it was; ``None`` when the count is not worked out: a simulation that keeps no history
    (it cannot go back). A space-sharing run has all its decisions made up front, so stepping
    through them is cheap; the scenarios of the other families are a few dozen steps."""
    if not sim.record:
        return None
    start = sim.position
    n = 0
    while n < limit and sim.step() is not None:
        n += 1
    sim.go_to(start)
    return n


def keys_ahead(sim: Simulation, limit: int) -> set[str] | None:
    """Return the key entries (:meth:`~gangviz.gui.matrix.vector.VectorTreeView.shown_keys`)
    that the next ``limit`` steps of a matrix ``sim`` show at some frame, leaving it where it
    was, so that an export's key lists them on every frame; ``None`` when they are not worked
    out (no history to go back, another family)."""
    if not registry.family(sim.family).matrix or not sim.record:
        return None
    from gangviz.gui.matrix.scene import replica_mask

    start = sim.position
    keys = {"shade", "running"}
    if replica_mask(sim.snapshot()).any():
        keys.add("hatch")
    n = 0
    while n < limit and (step := sim.step()) is not None:
        n += 1
        for c in step.changes:
            if c.kind == "job_placed":
                keys.add("alloc")
            elif c.kind == "job_replicated":
                keys.add("hatch")
            elif c.kind in ("job_shifted", "region_swapped", "job_removed", "job_migrated"):
                keys.add("move")
            if isinstance(c, JobMigrated) and c.cost:
                keys.add("migration")
    sim.go_to(start)
    return keys


def _family_frames(drawn: FamilyView, view: FamilyWidget, fps: int, hold: int, grab: Callable[[int], None]) -> None:
    """Grab the frames of one step drawn by a family ``view``: its step animation driven frame
    by frame, then (the epoch view's BUDDY layer) the schedule built piece by piece, each piece
    with its min-seg resting as long as a step does."""
    anim = drawn.animation(view)
    n = frames_for(None, fps)
    running = anim is not None and anim.state() == anim.State.Running
    if running:
        anim.pause()
    for j in range(1, n + 1):
        if running:
            anim.setCurrentTime(int(round(anim.duration() * j / n)))
        grab(1 + (hold if j == n else 0))
    if running:
        anim.stop()
    cons = drawn.construction(view)
    if cons is not None and not cons.building:
        cons.start()
    if cons is not None and cons.building:
        cons.timer.stop()
        while cons.building:
            cons.advance()
            grab(1 + hold)


def render(sim: Simulation, size: tuple[int, int], fps: int, on_frame: Callable[[QImage, int], None], *,
           title: str = "", subtitle: str = "", steps: int | None = None,
           progress: Callable[[int, int], bool] | None = None,
           slice_seconds: float | None = None, by_move: bool = False, presentation: bool = False) -> int:
    """Play ``sim`` from where it is and hand every frame to ``on_frame(image, ticks)``.

    ``by_move``: a matrix simulation is played move by move as a lecturer steps it
    (:meth:`~gangviz.gui.playback.player.Player.step_move`): each move slides at the lecture pace and
    rests :func:`move_hold_ticks` with its own caption; steps in which nothing moves are passed
    over. ``presentation``: the board has presentation mode's sizes for the frame's height
    (:func:`gangviz.gui.lecture.presentation.size_board`) and the key lists, on every frame,
    what the whole export shows.

    ``slice_seconds`` is the clock of a trace (seconds per slice; ``None``: times in slices),
    for the frame stamp and the matrix's texts.

    ``progress(done, total)`` is called after each step (``total`` is ``steps`` or
    :data:`MAX_STEPS`); returning False stops the render with :class:`ExportCancelled`.
    Returns the number of steps rendered.
    """
    from gangviz.gui.board import Board

    ahead = count_ahead(sim, steps if steps is not None else MAX_STEPS)
    keys = keys_ahead(sim, steps if steps is not None else MAX_STEPS)
    board = Board()
    board.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    board.resize(*size)
    player = Player(sim, board, speed_level=DEFAULT_SPEED_LEVEL)
    try:
        board.set_player(player)
        board.title.setText(title)
        board.subtitle.setText(subtitle)
        board.caption.set_point_size(CAPTION_POINTS)
        if presentation:
            from gangviz.gui.lecture.presentation import FONTS, scale_for, size_board

            size_board(board, FONTS, scale_for(size[1]), board.font())
            board.matrix.set_hover_highlight(False)
        board.caption.set_start_text(START_CAPTION)
        board.matrix.setMinimumSize(120, 60)
        board.vector.fixed_keys = keys  # the same key on every frame
        board.matrix.slice_seconds = slice_seconds
        if not has_matrix_view(sim):
            board.vector.setVisible(False)
        board.show()
        board.resize(*size)
        total = None if ahead is None else player.position + ahead
        board.timeline.total = total or 0

        def grab(ticks: int) -> None:
            stop = player.move_stop
            move = (stop.number, stop.count) if stop is not None else None
            board.subtitle.setText(frame_stamp(subtitle, float(sim.time),
                                               player.position, total, slice_seconds, move))
            board.column_layout.activate()  # parts that changed height (the caption) are laid out again
            img = board.grab().toImage()
            if (img.width(), img.height()) != tuple(size):
                # the board's parts have minimum sizes; a smaller frame is the board scaled down
                img = img.scaled(size[0], size[1], Qt.AspectRatioMode.IgnoreAspectRatio,
                                 Qt.TransformationMode.SmoothTransformation)
            on_frame(img, ticks)

        hold = hold_ticks(fps)
        grab(hold)
        limit = steps if steps is not None else MAX_STEPS
        done = 0
        has_matrix = has_matrix_view(sim)
        drawn = family_view(sim)
        if has_matrix and by_move:
            return _render_moves(player, limit, fps, hold, grab, progress)
        while done < limit:
            step = player.step_forward(animate=has_matrix)
            if step is None:
                break
            player.timer.stop()  # frames are driven below, never by the clock
            done += 1
            if has_matrix and step.changes:
                for change in step.changes:
                    if pause_ticks(change, fps):  # the key moment rests on screen, as in the window
                        player.advance_animation(KEY_PAUSE_SECONDS)
                        grab(pause_ticks(change, fps))
                    n = frames_for(change, fps)
                    d = CHANGE_SECONDS * animation_weight(change)
                    for j in range(1, n + 1):
                        # the last frame lands just past the change's end, so it completes
                        player.advance_animation(d / n * (1 + 1e-9) if j == n else d / n)
                        grab(1 + (hold if j == n and change is step.changes[-1] else 0))
            elif drawn is not None and board.family is not None:
                _family_frames(drawn, board.family[0], fps, hold, grab)
            else:
                grab(1 + hold)
            if progress is not None and not progress(done, limit):
                raise ExportCancelled(f"cancelled after {done} steps")
        return done
    finally:
        player.stop()
        board.close()
        board.deleteLater()


def _render_moves(player: Player, limit: int, fps: int, hold: int, grab: Callable[[int], None],
                  progress: Callable[[int, int], bool] | None) -> int:
    """Grab the frames of a matrix simulation played move by move (see :func:`render`), up
    to ``limit`` steps from where it is; return the steps rendered."""
    start = player.position
    rest = move_hold_ticks(fps)
    dt = 1.0 / fps
    while True:
        stop = player.move_stop
        if (stop is None or stop.number == stop.count) and player.position - start >= limit:
            break  # a step is shown to its last move
        if not player.step_move(animate=True):
            break
        player.timer.stop()  # frames are driven below, never by the clock
        while player.busy:
            player.advance_animation(dt)
            if player.busy:
                grab(1)
        grab(rest + (hold if player.move_stop is None or player.move_stop.number == player.move_stop.count else 0))
        if progress is not None and not progress(player.position - start, limit):
            raise ExportCancelled(f"cancelled after {player.position - start} steps")
    return player.position - start


def export_animation(sim: Simulation, out: str | Path, *, size: tuple[int, int] = DEFAULT_SIZE, fps: int = DEFAULT_FPS,
                     steps: int | None = None, title: str = "", subtitle: str = "",
                     progress: Callable[[int, int], bool] | None = None,
                     slice_seconds: float | None = None, by_move: bool = False,
                     presentation: bool = False) -> ExportResult:
    """Render ``sim`` (see :func:`render`, also for ``by_move`` and ``presentation``) into
    ``out`` (``.gif``, ``.mp4`` or a folder); ``slice_seconds`` is the trace's clock for the
    frames' times (``None``: slices).

    Raises ``ValueError`` for an unknown output type, options out of range or MP4 without
    imageio-ffmpeg (the message says why); ``OSError`` when the output cannot be written;
    :class:`ExportCancelled` when ``progress`` returns False (a cancelled GIF or MP4 file is
    removed; PNGs written so far stay).
    """
    kind = output_kind(out)
    check_options(size, fps, steps)
    if kind == "mp4":
        size = (size[0] - size[0] % 2, size[1] - size[1] % 2)
    ticks = 0

    writer: GifWriter | Mp4Writer | FramesWriter
    if kind == "gif":
        writer = GifWriter(out, fps)
    elif kind == "mp4":
        writer = Mp4Writer(out, fps, size)
    else:
        writer = FramesWriter(out, fps)

    def on_frame(img: QImage, k: int) -> None:
        nonlocal ticks
        ticks += k
        if isinstance(writer, FramesWriter):
            writer.add_png(img.save, k)
        else:
            writer.add(image_rgb(img), k)

    try:
        done = render(sim, size, fps, on_frame, title=title, subtitle=subtitle, steps=steps,
                      progress=progress, slice_seconds=slice_seconds, by_move=by_move,
                      presentation=presentation)
    except BaseException:  # cancelled, interrupted or failed: no half-written file stays
        if not isinstance(writer, FramesWriter):
            writer.discard()
        raise
    frames = writer.close()
    return ExportResult(str(out), kind, frames, ticks, done, fps)
