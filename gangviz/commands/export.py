"""``gangviz export SCENARIO --policy P out.gif|out.mp4|frames/ [--size WxH] [--fps N] [--steps N]
[--by-move] [--presentation]``.

Renders the scenario's animation offscreen through the window's own views
(:mod:`gangviz.gui.export.render`), with the narration burnt in as captions, and writes a GIF (Pillow),
an MP4 (only when the optional ``imageio-ffmpeg`` package is installed; otherwise the command
says why and exits 1) or numbered PNG frames into a folder. SCENARIO is anything ``gangviz open``
accepts; scenarios of every model (matrix, multisite, epoch) export.

Qt is imported inside :func:`run` only, so the command line works where PySide6 is missing.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

from gangviz.commands.errors import UserError
from gangviz.commands.options import add_source_options
from gangviz.experiments.progress import ProgressBar
from gangviz.outputs import check_frames_folder, check_output, clear_frames


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 960x600, got {text!r}") from None
    return w, h


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``export`` sub-command."""
    p = sub.add_parser("export", help="save a scenario's animation as a GIF, an MP4 or PNG frames")
    p.add_argument("source", help="scenario (.toml or built-in name), SWF trace, or model name")
    p.add_argument("out", help="out.gif, out.mp4 (needs imageio-ffmpeg) or a folder frames/")
    p.add_argument("--policy", help="policy name (default: the scenario's)")
    p.add_argument("--size", type=_size, default=(960, 600), help="frame size WxH (default 960x600)")
    p.add_argument("--fps", type=int, default=10, help="frames per second (1..60, default 10)")
    p.add_argument("--steps", type=int, help="simulation steps to show (default: to the end)")
    p.add_argument("--by-move", action="store_true",
                   help="play move by move, as a lecturer steps it: each termination, shift, swap, "
                   "migration, slot deletion and placement slides, then rests with its own caption")
    p.add_argument("--presentation", action="store_true",
                   help="presentation mode's sizes for the frame height (use e.g. --size 1920x1080)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_source_options(p, ring=False)
    p.add_argument("--force", action="store_true", help="overwrite an existing file or frames")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export the animation; print the output path and a summary; return 0.

    Raises ``UserError`` for a bad output type, options out of range, MP4 without
    imageio-ffmpeg, a source that does not load, or PySide6 missing.
    """
    from gangviz.gui.export.video import mp4_unavailable, output_kind

    try:
        kind = output_kind(args.out)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if kind == "mp4":
        reason = mp4_unavailable()
        if reason is not None:
            raise UserError(reason)
    # the writer makes a file's missing folders; frames go into a folder of their own
    check = check_frames_folder if kind == "frames" else partial(check_output, make_parents=True)
    try:
        check(args.out, force=args.force)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        from gangviz.gui.kit import qapp
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise UserError(f"the export needs PySide6 ({exc})") from None
    qapp.application(offscreen=True)
    from gangviz.factory import build, policy_name
    from gangviz.gui.export.render import check_options, export_animation
    from gangviz.workloads.source import load_source, print_warnings

    try:
        check_options(args.size, args.fps, args.steps)
        source = load_source(args.source, procs=args.procs, slice_seconds=args.slice,
                             jobs=args.jobs, load=args.load, seed=args.seed)
        print_warnings(source.title, source.warnings)
        sim = build(source, args.policy)
    except (ValueError, OSError, KeyError) as exc:
        raise UserError(str(exc)) from None

    # With --steps the total is known: a bar (plain lines off a terminal). Without it the
    # animation's length is known only at its end: a step counter, on a terminal only.
    bar = ProgressBar(args.steps, label="steps") if args.steps and not args.quiet else None
    counter = not args.quiet and bar is None and sys.stderr.isatty()
    shown = []

    def progress(done: int, total: int) -> bool:
        if bar is not None:
            bar.update(min(done, args.steps))
            shown.append(done)
        elif counter:
            print(f"\rstep {done:,}", end="", file=sys.stderr)
            shown.append(done)
        return True

    if kind == "frames" and args.force:
        clear_frames(args.out)  # written fresh: no stale frames of a longer export stay behind

    subtitle = f"policy {policy_name(source, args.policy)}"
    try:
        result = export_animation(sim, args.out, size=args.size, fps=args.fps, steps=args.steps,
                                  title=source.title, subtitle=subtitle, progress=progress,
                                  slice_seconds=source.slice_seconds if source.kind == "swf" else None,
                                  by_move=args.by_move, presentation=args.presentation)
    except (ValueError, OSError) as exc:
        if shown:
            print(file=sys.stderr)  # the message starts on its own line, not after "step N"
        raise UserError(str(exc)) from None
    if bar is not None:
        bar.close()
    elif counter:
        print(file=sys.stderr)
    print(result.path)
    print(f"{result.kind}: {result.frames} frames, {result.steps} steps, "
          f"{result.ticks / result.fps:.1f} s at {result.fps} fps", file=sys.stderr)
    return 0
