"""``gangviz validate FILE...``: check SWF traces and summarise what they hold."""

from __future__ import annotations

import argparse
import sys

from gangviz.experiments.argtypes import number, positive_int
from gangviz.workloads.validate import validate_paths


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``validate`` sub-command (exit 0 when every file is usable, 1 otherwise)."""
    p = sub.add_parser(
        "validate",
        help="check SWF workload files and summarise them",
        description="Read each SWF file (plain or .gz/.bz2/.xz) and print jobs, processors, time "
        "span, offered load, size and run-time histograms, and the warnings. Exits 0 when every "
        "file is usable, 1 otherwise.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="SWF trace(s)")
    p.add_argument("--procs", type=positive_int, default=None,
                   help="machine size; wins over the MaxProcs/MaxNodes header")
    p.add_argument("--slice", type=number, default=1.0, dest="slice_seconds", metavar="SECONDS",
                   help="length of one time slice in seconds (default 1)")
    p.add_argument("--strict", action="store_true",
                   help="treat every skipped job as an error")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    return validate_paths(args.files, procs=args.procs, slice_seconds=args.slice_seconds,
                          strict=args.strict, out=sys.stdout)
