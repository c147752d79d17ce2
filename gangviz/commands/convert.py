"""``gangviz convert SACCT.txt OUT.swf``: turn Slurm accounting output into an SWF trace.

Reads what ``sacct --parsable2 --format=JobID,Submit,Start,End,AllocCPUS,Timelimit,State``
prints (see :mod:`gangviz.workloads.sacct`) and writes SWF 2.2 with the Parallel Workloads
Archive header, ready for ``gangviz validate``, ``run``, ``compare`` and the window. Records
that cannot be replayed are skipped with one warning per reason on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys

from gangviz.commands.errors import UserError
from gangviz.core.limits import MAX_PROCESSORS
from gangviz.experiments.argtypes import positive_int
from gangviz.workloads.sacct import convert_sacct


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``convert`` sub-command."""
    p = sub.add_parser("convert", help="convert Slurm sacct --parsable2 output to an SWF trace",
                       description="Convert the output of 'sacct --parsable2 --format=JobID,Submit,"
                       "Start,End,AllocCPUS,Timelimit,State' to SWF 2.2 with the Parallel Workloads "
                       "Archive header.")
    p.add_argument("input", help="sacct --parsable2 output ('|'-separated, with its header line)")
    p.add_argument("output", help="the SWF file to write")
    p.add_argument("--procs", type=positive_int, default=None,
                   help="machine size for MaxProcs (default: the largest job)")
    p.add_argument("--nodes", action="store_true",
                   help="size jobs by the NNodes column instead of AllocCPUS")
    p.add_argument("--computer", help="the Computer header line (default: the Cluster column, if any)")
    p.add_argument("--strict", action="store_true", help="treat every skipped record as an error")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Convert ``args.input`` to ``args.output``; print the summary; return 0."""
    from gangviz.outputs import check_output

    if args.procs is not None and args.procs > MAX_PROCESSORS:
        raise UserError(f"--procs must be at most {MAX_PROCESSORS:,} processors, got {args.procs:,}")
    if os.path.exists(args.output) and os.path.exists(args.input) and os.path.samefile(args.input, args.output):
        raise UserError(f"{args.output}: the output is the input file; write the SWF file elsewhere")
    check_output(args.output, force=args.force)
    log = convert_sacct(args.input, args.output, procs=args.procs, nodes=args.nodes,
                        strict=args.strict, computer=args.computer)
    for w in log.warnings:
        print(f"gangviz: warning: {args.input}: {w}", file=sys.stderr)
    steps = f", {log.steps} job steps left out" if log.steps else ""
    print(f"{args.output}: {len(log.records)} jobs{steps}")
    return 0
