"""``gangviz plot-sweep results.csv --metric t_ta [--x load] [--where jobs=200] -o out.png``.

Draws one metric of a finished (or partial) sweep results CSV against a swept axis, one curve
per policy with its 95 % confidence band (:mod:`gangviz.gui.plots.sweep`), offscreen, and writes it
as PNG or SVG (or the plotted points as CSV). Qt is imported only when the command runs.
"""

from __future__ import annotations

import argparse

from gangviz.commands.errors import UserError
from gangviz.experiments.sweep import load_summaries
from gangviz.experiments.tasks import METRICS
from gangviz.outputs import check_output


def _where(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected AXIS=VALUE, got {text!r}")
    return key.strip(), value.strip()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``plot-sweep`` sub-command."""
    p = sub.add_parser("plot-sweep", help="plot a sweep's metric against load per policy with 95%% CI bands",
                       description="Render one metric of a gangviz sweep results CSV against a swept "
                       "axis, one curve per policy with its 95% confidence band.")
    p.add_argument("results", help="results CSV written by gangviz sweep")
    p.add_argument("--metric", default="t_ta", choices=METRICS, help="metric to plot (default t_ta)")
    p.add_argument("--x", default=None, metavar="AXIS", help="swept axis on x (default: load, else the first)")
    p.add_argument("--where", action="append", type=_where, default=[], metavar="AXIS=VALUE",
                   help="hold another axis at VALUE (default: its first value)")
    p.add_argument("-o", "--out", required=True, help="output .png, .svg, or .csv (the plotted points)")
    p.add_argument("--size", default="900x560", help="picture size WxH (default 900x560)")
    p.add_argument("--force", action="store_true", help="overwrite an existing -o file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Render the plot; print the output path; return 0."""
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
        if w < 100 or h < 100:
            raise ValueError
    except ValueError:
        raise UserError(f"--size must be WxH with both >= 100, got {args.size!r}") from None
    if not args.out.lower().endswith((".png", ".svg", ".csv")):
        raise UserError(f"{args.out}: write the plot as .png, .svg or .csv")
    try:
        check_output(args.out, force=args.force)
        load_summaries(args.results)  # a bad results file fails here, before Qt starts
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        from gangviz.gui.plots.sweep import render_sweep_plot
    except ImportError as exc:
        raise UserError(f"plot-sweep needs the GUI (PySide6, pyqtgraph): {exc}") from None
    out = render_sweep_plot(args.results, args.out, args.metric, x=args.x, where=dict(args.where),
                            size=(w, h))
    print(out)
    return 0
