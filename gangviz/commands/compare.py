"""``gangviz compare WORKLOAD --policy A --policy B ... [--json | --csv]``.

Runs each time-slot policy on the same workload (scenario, SWF trace or synthetic model) and
prints the final metrics per policy with the best value of each row marked; the numbers come
from :func:`gangviz.experiments.compare.compare`, as in the compare window. A policy may carry
parameters: ``--policy random:seed=3``.
"""

from __future__ import annotations

import argparse
import sys

from gangviz.cli import UserError
from gangviz.experiments.compare import compare
from gangviz.workloads.source import load_source


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compare`` sub-command."""
    p = sub.add_parser("compare", help="run several policies on one workload and compare their metrics")
    p.add_argument("workload", help="scenario (.toml or built-in name), SWF trace, or model name 'downey'")
    p.add_argument("--policy", action="append", default=[], metavar="NAME[:k=v,...]",
                   help="a policy to compare (give 2 or more), e.g. --policy bc --policy brmms")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print one JSON document")
    fmt.add_argument("--csv", action="store_true", help="print the table as CSV")
    p.add_argument("--procs", type=int, help="processors (overrides the trace header / model default)")
    p.add_argument("--slice", type=float, default=None, help="seconds per slice for SWF traces")
    p.add_argument("--jobs", type=int, default=200, help="jobs of a synthetic model (default 200)")
    p.add_argument("--load", type=float, default=0.5, help="offered load of a synthetic model")
    p.add_argument("--seed", type=int, default=1, help="seed of a synthetic model")
    p.add_argument("--ring", action="store_true", help="processors form a ring")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compare the policies of ``args``; print a table, JSON or CSV; return 0."""
    if len(args.policy) < 2:
        raise UserError("compare needs at least two --policy options, e.g. --policy bc --policy brmms")
    source = load_source(args.workload, procs=args.procs, slice_seconds=args.slice, jobs=args.jobs,
                         load=args.load, seed=args.seed)
    result = compare(source, args.policy, ring=True if args.ring else None)
    if args.json:
        sys.stdout.write(result.to_json() + "\n")
    elif args.csv:
        sys.stdout.write(result.to_csv())
    else:
        print(f"{result.title}, {result.processors} processors")
        print(result.to_text())
    return 0
