"""Wall and CPU time of every paper reproduction as the README types it, ``gangviz repro
TARGET`` (the default ``--workers``: all cores), each a whole process. Prints figures; asserts
nothing.

    python benchmarks/bench_repro.py [TARGET ...] [--workers N] [--runs 3]
    python benchmarks/bench_repro.py --quick      # zhou-table1 once: a check that it runs

Goal on a 2-core machine: every reproduction in <= 60 s wall on its default run. The targets are
those ``gangviz repro`` lists (the modules of ``gangviz.experiments.repro`` with ``TARGETS``).
Per target: each run's wall time (start of the process to its exit) and CPU time (the process
and its workers, the kernel's accounting of the children reaped), then the min and median of
the runs. The reproductions' own output is thrown away; a run that fails prints its exit
status and the end of its error output.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

from gangviz.commands.repro import targets

GOAL_SECONDS = 60.0


def children_cpu() -> float:
    """Return the user + system seconds of the children reaped so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def one_run(target: str, workers: int | None) -> tuple[float, float] | None:
    """Run ``gangviz repro TARGET`` (with ``--workers N`` unless ``workers`` is ``None``) once;
    return (wall s, CPU s), or None (and print why) when it exits with an error."""
    cmd = [sys.executable, "-m", "gangviz.cli", "repro", target]
    cmd += [] if workers is None else ["--workers", str(workers)]
    cpu0, t0 = children_cpu(), time.perf_counter()
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if res.returncode not in (0, 3):  # 3: a finding does not hold, which --strict alone reports
        print(f"  {target}: exit status {res.returncode}: {res.stderr[-1000:]}")
        return None
    return wall, cpu


def main() -> None:
    """Time the reproductions asked for (default: all) and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target", nargs="*", help="reproductions to time (default: every one)")
    ap.add_argument("--workers", type=int, default=None,
                    help="worker processes of each run (default: the command's own, all cores)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each target (default 3)")
    ap.add_argument("--quick", action="store_true", help="zhou-table1 once: a check that it runs")
    args = ap.parse_args()
    known = list(targets())
    chosen = ["zhou-table1"] if args.quick else (args.target or known)
    unknown = [t for t in chosen if t not in known]
    if unknown:
        ap.error(f"unknown target {', '.join(unknown)}; gangviz repro lists {', '.join(known)}")
    runs = 1 if args.quick else max(args.runs, 1)
    from gangviz.experiments.options import default_workers

    workers = f"--workers {args.workers}" if args.workers else f"(default: {default_workers()} workers)"
    print(f"gangviz repro TARGET {workers}, whole process, {runs} run(s) each "
          f"(goal: <= {GOAL_SECONDS:.0f} s wall)")
    print(f"{'target':<14} {'wall min':>9} {'median':>7} {'CPU min':>8} {'median':>7}   runs (wall s)")
    for target in chosen:
        done = [r for r in (one_run(target, args.workers) for _ in range(runs)) if r is not None]
        if not done:
            continue
        walls, cpus = [w for w, _ in done], [c for _, c in done]
        print(f"{target:<14} {min(walls):>8.1f}s {statistics.median(walls):>6.1f}s {min(cpus):>7.1f}s "
              f"{statistics.median(cpus):>6.1f}s   {', '.join(f'{w:.1f}' for w in walls)}", flush=True)


if __name__ == "__main__":
    main()
