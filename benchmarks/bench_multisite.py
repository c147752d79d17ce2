"""Throughput of the multi-site fast path and the projected time of ``gangviz repro papazachos``.

Runs one replication of each of the 24 cells (3 size distributions x 4 loads x 2 policies) of
[Papazachos §4.2] on one core, on the compiled loop (``--engine python``: the reference loop
in plain Python), prints gangs per second per cell, and projects the full default
reproduction (10 replications x 64,000 gangs, 15.36 M gangs) over the workers.
``--full`` also runs that reproduction on a process pool and prints the actual time.

    python benchmarks/bench_multisite.py [--jobs 16000] [--engine compiled|python] [--full]
    python benchmarks/bench_multisite.py --quick     # 500 gangs per cell: a check that it runs
"""

from __future__ import annotations

import argparse
import time

from gangviz.experiments.numbers import plural
from gangviz.experiments.options import default_workers
from gangviz.experiments.repro.papazachos import DISTRIBUTIONS, LAMBDAS, simulate
from gangviz.multisite.batch import RunSpec
from gangviz.multisite.compiled import run_compiled, warm_up
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.fast import run_fast

ENGINES = {"compiled": run_compiled, "python": run_fast}


def main() -> None:
    """Print per-cell throughput, the projection and (with --full) the measured full run."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=16000, help="gangs per measured run (default 16000)")
    ap.add_argument("--full", action="store_true", help="also run the full reproduction")
    ap.add_argument("--workers", type=int, default=default_workers(),
                    help=f"workers of the projection and --full (default: all cores, {default_workers()})")
    ap.add_argument("--engine", choices=sorted(ENGINES), default="compiled",
                    help="the loop of the measured runs (default: compiled; --full always runs it)")
    ap.add_argument("--quick", action="store_true", help="500 gangs per cell, no --full")
    args = ap.parse_args()
    if args.quick:
        args.jobs, args.full = min(args.jobs, 500), False
    run = ENGINES[args.engine]
    t0 = time.perf_counter()
    warm_up()
    print(f"compiled loop ready in {time.perf_counter() - t0:.2f} s (a compile the first time, "
          "then a load from the cache)")
    total_cpu = 0.0
    print(f"{args.engine} loop, {args.jobs:,} gangs per run")
    print(f"{'sizes':>15} {'lambda':>6} {'policy':>8} {'gangs/s':>9}")
    for d, (name, dist, sigma) in enumerate(DISTRIBUTIONS):
        for li, lam in enumerate(LAMBDAS):
            for migrate in (False, True):
                cfg = MultiSiteConfig(arrival_rate=lam, size_dist=dist, sigma=sigma, migrate=migrate)
                spec = RunSpec(cfg, (99, d, li, 0), args.jobs)
                t0 = time.perf_counter()
                run(cfg, spec.seed(), spec.n_gangs)
                dt = time.perf_counter() - t0
                total_cpu += dt * 10 * 64000 / args.jobs
                print(f"{name:>15} {lam:>6.2f} {cfg.policy:>8} {args.jobs / dt:>9,.0f}")
    gangs = 2 * len(DISTRIBUTIONS) * len(LAMBDAS) * 10 * 64000
    print(f"\nmean single-core throughput: {gangs / total_cpu:,.0f} gangs/s")
    print(f"projected full reproduction ({gangs / 1e6:.2f} M gangs): {total_cpu:,.0f} s on one core, "
          f"{total_cpu / args.workers:,.0f} s on {plural(args.workers, 'worker')} (goal: 60 s wall with --workers 2)")
    if args.full:
        t0 = time.perf_counter()
        simulate(10, 64000, args.workers)
        dt = time.perf_counter() - t0
        print(f"actual full reproduction on {plural(args.workers, 'worker')}: {dt:,.0f} s "
              f"({gangs / dt:,.0f} gangs/s)")


if __name__ == "__main__":
    main()
