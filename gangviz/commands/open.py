"""``gangviz open [SOURCE] [--policy P] [--screenshot out.png [--step N]]``: the window.

Without ``--screenshot`` the window opens on SOURCE (default: the
Fig. 2 re-packing scenario ``fig2-repacking``, ready to press Play). With ``--screenshot`` the
window is rendered offscreen after N steps, saved as a PNG and the command exits 0.

Qt is imported inside :func:`run` only, so the command line (and every other command) works
where PySide6 is not installed.
"""

from __future__ import annotations

import argparse

from gangviz.commands.errors import UserError
from gangviz.commands.options import add_source_options
from gangviz.experiments.argtypes import whole_number
from gangviz.outputs import check_output


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1400x900, got {text!r}") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"width and height must be in 200..8000, got {text!r}")
    return w, h


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``open`` sub-command."""
    p = sub.add_parser("open", help="open the window (default: the Fig. 2 re-packing scenario)")
    p.add_argument("source", nargs="?", default=None,
                   help="scenario (.toml or built-in name), SWF trace, model name 'downey', or a "
                   "session saved with File > Save session (.toml)")
    p.add_argument("--policy", help="policy name (default: the scenario's, else repack)")
    p.add_argument("--screenshot", metavar="PNG", help="render offscreen, save the picture and exit")
    p.add_argument("--force", action="store_true", help="overwrite an existing --screenshot file")
    p.add_argument("--step", type=whole_number, default=0, help="steps to take before the screenshot (default 0)")
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
    if args.step < 0:
        raise UserError(f"--step must be >= 0, got {args.step}")
    if args.screenshot:
        try:
            check_output(args.screenshot, force=args.force)
        except ValueError as exc:
            raise UserError(str(exc)) from None
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
                             step=args.step, size=args.size, watch=args.watch,
                             presentation=args.presentation, **source_args)
        print(out)
        return 0
    from gangviz.display_check import problem

    reason = problem()
    if reason:
        raise UserError(reason)
    if args.source is None:
        return app.run(None, args.policy, presentation=args.presentation)
    return app.run(args.source, args.policy, presentation=args.presentation, **source_args)
