"""``gangviz open [SOURCE] [--policy P] [--screenshot out.png [--step N[.M]]]``: the window.

Without ``--screenshot`` the window opens on SOURCE (default: the
Fig. 2 re-packing scenario ``fig2-repacking``, ready to press Play). With ``--screenshot`` the
window is rendered offscreen after N steps, saved as a PNG and the command exits 0; ``--step
N.M`` stops on move M of step N instead (each shift, migration, slot deletion, placement and
termination of a step is a move, counted from 1: Zhou et al.'s Fig. 2(b) is ``--step 1.4``).

Qt is imported inside :func:`run` only, so the command line (and every other command) works
where PySide6 is not installed.
"""

from __future__ import annotations

import argparse
import re

from gangviz.commands.errors import UserError, check_screenshot
from gangviz.commands.options import add_source_options


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1400x900, got {text!r}") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"width and height must be in 200..8000, got {text!r}")
    return w, h


def _step(text: str) -> tuple[int, int | None]:
    """Parse ``N`` (steps) or ``N.M`` (move M of step N) into ``(N, M or None)``; a sign is
    kept so that :func:`run` can say what a negative step means."""
    m = re.fullmatch(r"(-?[0-9]+)(?:\.([0-9]+))?", text.strip())
    if m is None:
        raise argparse.ArgumentTypeError(
            f"expected N (whole steps) or N.M (move M of step N, e.g. 1.4) in ASCII digits, "
            f"got {text!r:.80}")
    return int(m.group(1)), None if m.group(2) is None else int(m.group(2))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``open`` sub-command."""
    p = sub.add_parser("open", help="open the window (default: the Fig. 2 re-packing scenario)")
    p.add_argument("source", nargs="?", default=None,
                   help="scenario (.toml or built-in name), SWF trace, model name 'downey', or a "
                   "session saved with File > Save session (.toml)")
    p.add_argument("--policy", help="policy name (default: the scenario's, else repack)")
    p.add_argument("--screenshot", metavar="PNG", help="render offscreen, save the picture and exit")
    p.add_argument("--force", action="store_true", help="overwrite an existing --screenshot file")
    p.add_argument("--step", type=_step, default=(0, None), metavar="N[.M]",
                   help="show the picture after N whole steps (default 0), or N.M: step N stopped "
                   "after its M-th move (a shift, migration, slot deletion, placement or "
                   "termination, counted from 1; move 10 is N.10); Zhou's Fig. 2(b), (c), (d) are "
                   "fig2-repacking --step 1.4, 1.6, 1.8")
    p.add_argument("--guided", nargs="?", const="held", choices=("held", "answered"),
                   help="the guided exercise: after --step, play on to the next re-pack and hold it "
                   "(held, the default: the question, the legal cuts, the waiting job), or reveal it "
                   "(answered: the verdict, the framed region that moves)")
    p.add_argument("--pick", type=int, metavar="P",
                   help="with --guided answered: the student's pick, the region around processor P "
                   "(counted from 1)")
    p.add_argument("--size", type=_size, default=(1400, 900), help="screenshot size WxH (default 1400x900)")
    p.add_argument("--presentation", action="store_true",
                   help="presentation mode (large fonts, the caption under the matrix); with "
                   "--screenshot drawn at --size, e.g. 1920x1080")
    p.add_argument("--watch", action=argparse.BooleanOptionalAction, default=None,
                   help="step slice by slice (default: on for scenarios, off for workloads)")
    add_source_options(p, ring=False)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Open the window, or save a screenshot when ``--screenshot`` is given; return the exit code.

    Raises ``UserError`` when PySide6 is missing, for a negative ``--step`` or a source that does
    not load in screenshot mode.
    """
    steps, move = args.step
    if steps < 0:
        raise UserError(f"--step must be >= 0, got {steps}")
    if move is not None and (steps < 1 or move < 1):
        raise UserError(f"--step {steps}.{move}: steps and moves count from 1")
    if args.pick is not None and args.guided != "answered":
        raise UserError("--pick needs --guided answered")
    check_screenshot(args.screenshot, args.force)
    source_args = {k: v for k, v in (("jobs", args.jobs), ("load", args.load), ("seed", args.seed))
                   if v is not None}
    if args.procs is not None:
        source_args["procs"] = args.procs
    if args.slice is not None:
        source_args["slice_seconds"] = args.slice
    try:
        from gangviz.gui import app
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise UserError(f"the window needs PySide6 and pyqtgraph ({exc})") from None
    if args.screenshot:
        out = app.screenshot(args.source or "fig2-repacking", args.screenshot, policy=args.policy,
                             step=steps, move=move, guided=args.guided, pick=args.pick,
                             size=args.size, watch=args.watch,
                             presentation=args.presentation, **source_args)
        print(out)
        return 0
    from gangviz.display_check import problem

    reason = problem()
    if reason:
        raise UserError(reason)
    if args.source is None:
        return app.run(None, args.policy, presentation=args.presentation, step=steps, move=move,
                       guided=args.guided)
    return app.run(args.source, args.policy, presentation=args.presentation, step=steps, move=move,
                   guided=args.guided, **source_args)
