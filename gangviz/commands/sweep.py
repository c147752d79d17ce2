"""``gangviz sweep FILE --out results.csv [--workers N | --scheduler ADDRESS] [--resume]``.

Runs a sweep file (:mod:`gangviz.experiments.sweepfile`) through
:func:`gangviz.experiments.sweep.run_sweep`, with a progress bar on stderr, and prints the
summary (mean ± 95 % CI half-width of each metric per cell). Exit code 0 when every run
succeeded, 1 for bad input or when some runs failed (their rows say why; ``--resume`` retries
them), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from gangviz.commands.errors import UserError
from gangviz.core import registry
from gangviz.experiments.numbers import mean_ci, plural
from gangviz.experiments.options import add_out, add_workers
from gangviz.experiments.progress import ProgressBar, compile_fast_loop
from gangviz.experiments.runner import cap_workers
from gangviz.experiments.sweep import SweepReport, run_sweep
from gangviz.experiments.sweepfile import load_sweep
from gangviz.experiments.tasks import METRICS
from gangviz.workloads.source import print_warnings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``sweep`` sub-command."""
    p = sub.add_parser("sweep", help="run a parameter sweep file on local processes or a Dask cluster",
                       description="Run every cell of a sweep file (TOML) with its replications and "
                       "write one CSV row per run and a summary row (mean, 95% CI) per cell.")
    p.add_argument("file", help="sweep file (.toml); see resources/sweeps/")
    add_out(p, "results CSV, written as runs complete", required=True)
    where = p.add_mutually_exclusive_group()
    add_workers(where)
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="Dask scheduler address, e.g. tcp://127.0.0.1:8786 (needs gangviz[cluster])")
    again = p.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="keep the runs already in --out and compute only the missing ones")
    again.add_argument("--force", action="store_true", help="overwrite an existing --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary table")
    p.add_argument("--keep-jobs", action="store_true",
                   help="also write each run's per-job table (Batsim-layout CSV) into a folder next "
                   "to --out (results.csv -> results-jobs/); runs use the reference engine")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the sweep named by ``args``; return 0 (all ok) or 1 (some runs failed)."""
    sweep = load_sweep(args.file)
    print_warnings(sweep.workload, sweep.warnings)
    if args.scheduler:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UserError("--scheduler needs Dask: pip install 'gangviz[cluster]'") from None
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
    workers = args.workers
    if not args.scheduler:
        workers, note = cap_workers(args.workers, len(sweep.tasks()))
        if note:
            print(f"gangviz: {note}", file=sys.stderr)
        if any(p in registry.REGISTRY and registry.REGISTRY[p].group == "buddy" for p in sweep.policies):
            compile_fast_loop()  # once here, so the workers load it from numba's cache
    bar = None if args.quiet else ProgressBar(len(sweep.tasks()))
    try:
        report = run_sweep(sweep, args.out, workers=workers, scheduler=args.scheduler,
                           existing="resume" if args.resume else "overwrite" if args.force else "refuse",
                           jobs_dir=_jobs_dir(args.out) if args.keep_jobs else None,
                           progress=None if bar is None else _progress_on(bar))
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(f"gangviz: interrupted; the finished runs are in {args.out}; "
              f"add --resume to complete the sweep", file=sys.stderr)
        return 130
    if bar is not None:
        bar.close()
    if not args.quiet:
        _print_summary(sweep.axis_names, report)
    print(f"{plural(report.computed, 'run')} computed, {report.reused:,} reused, "
          f"{len(report.failures):,} failed; results in {args.out}", file=sys.stderr)
    for cell, rep, message in report.failures:
        where = ", ".join(f"{a}={v}" for a, v in zip(sweep.axis_names, cell.values))
        print(f"gangviz: run failed: policy {cell.policy}{', ' + where if where else ''}, "
              f"replication {rep}: {message}", file=sys.stderr)
    return 1 if report.failures else 0


def _jobs_dir(out: str) -> str:
    """Return the per-job folder next to the results file ``out`` (``results.csv`` -> ``results-jobs``)."""
    p = Path(out)
    return str(p.with_name(p.stem + "-jobs"))


def _progress_on(bar: ProgressBar) -> Callable[[int, int], None]:
    """Return the sweep's ``progress(done, total)`` drawing on ``bar``."""
    first = [True]

    def progress(done: int, _total: int) -> None:
        # run_sweep's first call counts the runs --resume reused: they stay out of the ETA
        if first[0]:
            first[0] = False
            bar.begin(done)
        else:
            bar.update(done)

    return progress


def _print_summary(axes: list[str], report: SweepReport) -> None:
    cols = ["policy", *axes, "n", *METRICS]
    rows = []
    for c in report.cells:
        cells = [c.policy, *map(str, c.values), str(c.n)]
        for m in METRICS:
            mean, half = c.mean[m], c.ci95[m]
            cells.append(mean_ci(mean, half))
        rows.append(cells)
    widths = [max(len(r[i]) for r in [cols, *rows]) for i in range(len(cols))]
    for r in [cols, *rows]:
        print("  ".join(v.rjust(w) for v, w in zip(r, widths)))
