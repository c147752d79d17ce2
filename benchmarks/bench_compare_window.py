"""Benchmark of the compare window on a big workload. Prints figures; asserts nothing.

    python benchmarks/bench_compare_window.py [TRACE] [--policy gs --policy mgs ...]
    python benchmarks/bench_compare_window.py --quick     # a small synthetic workload

Prints the seconds from the start of the process to the window's first frame (the panes drawn
at t = 0, or at ``--at``, their runs going on in worker processes), to every pane filled (every
run ended and the view drawn), the peak resident memory of the window's process and of its
largest worker, and, against them, the policies' command-line runs (``gangviz run TRACE
--policy P``, each a whole process, one after the other): their sum, and that sum divided by
the workers the window used. As ``gangviz compare --window`` does, the workers are started
first and load the trace while this process loads it, and their runs start before this process
builds the window (``--cold``: they start when the window starts its runs, as for a comparison
opened from the main window). Goals on LANL-CM5 (122k jobs, 1,024 processors) with gs, mgs,
easy and brmms: first frame <= 3 s; full time <= 1.5x the sum over the workers; peak <= 1 GB.
Without a trace a 1,024-processor synthetic workload of 20,000 jobs (``--quick``: 6,000) is
used. Runs offscreen (QT_QPA_PLATFORM=offscreen is set when unset).
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FIRST_GOAL, RATIO_GOAL, PEAK_GOAL_MB = 3.0, 1.5, 1024.0


def cpu(who: int) -> float:
    """Return the user + system CPU seconds of ``who`` (``resource.RUSAGE_SELF`` or ``_CHILDREN``)."""
    ru = resource.getrusage(who)
    return ru.ru_utime + ru.ru_stime


def cli_runs(name: str, options: list[str], policies: list[str]) -> tuple[list[float], float]:
    """Return the wall seconds of ``gangviz run NAME OPTIONS --policy P`` for each policy, each a
    whole process (output thrown away), and their CPU seconds in all; raise ``SystemExit`` when
    one fails."""
    walls, cpu0 = [], cpu(resource.RUSAGE_CHILDREN)
    for spec in policies:
        cmd = [sys.executable, "-m", "gangviz", "run", name, *options, "--policy", spec]
        t = time.perf_counter()
        res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if res.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[3:])}: exit {res.returncode}: {res.stderr[-500:]}")
        walls.append(time.perf_counter() - t)
    return walls, cpu(resource.RUSAGE_CHILDREN) - cpu0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", nargs="?", help="an SWF file (default: a synthetic workload)")
    ap.add_argument("--trace", dest="trace_opt", help=argparse.SUPPRESS)  # the earlier spelling
    ap.add_argument("--policy", action="append", help="a policy spec (repeat; default gs mgs easy brmms)")
    ap.add_argument("--at", type=float, default=0.0, help="the shared time of the first frame (default 0)")
    ap.add_argument("--no-cli", action="store_true", help="skip the command-line runs")
    ap.add_argument("--quick", action="store_true", help="a 6,000-job synthetic workload, two policies")
    ap.add_argument("--cold", action="store_true",
                    help="start the workers when the window starts its runs, as a window opened from "
                         "the main window does (default: before the window is built, as the command does)")
    args = ap.parse_args()
    trace = args.trace or args.trace_opt
    policies = args.policy or (["gs", "easy"] if args.quick else ["gs", "mgs", "easy", "brmms"])
    # as ``gangviz compare --window`` does: start the workers, load the workload, start the runs,
    # build the window
    from gangviz.gui.compare.ahead import load_started
    from gangviz.workloads.source import load_source

    model = ["--jobs", "6000" if args.quick else "20000", "--procs", "1024", "--load", "0.8", "--seed", "1"]
    options: dict[str, object] = {} if trace else {"jobs": int(model[1]), "procs": 1024, "load": 0.8, "seed": 1}
    if args.cold:
        source = load_source(trace or "downey", **options)
    else:
        source = load_started(trace or "downey", options, policies)
    loaded = time.perf_counter() - T0
    from PySide6.QtWidgets import QApplication

    from gangviz.gui.compare.window import CompareWindow
    from gangviz.gui.kit.qapp import application

    app = application(offscreen=True)
    win = CompareWindow(source, policies, start=args.at, schedules=True)
    win.resize(1680, 1050)
    win.show()
    QApplication.processEvents()
    win.grab()  # the first frame, painted
    first = time.perf_counter() - T0
    assert win.runner is not None
    win.runner.wait()
    QApplication.processEvents()
    win.set_time(win.end / 2)
    win.grab()
    filled = time.perf_counter() - T0
    workers = win.runner.workers
    failures = dict(win.failures)
    win.close()
    app.processEvents()
    for proc in multiprocessing.active_children():  # the workers exit unwaited: reap them
        proc.join()
    own, workers_cpu = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)  # the workers are reaped
    used = own + workers_cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest reaped worker
    print(f"{source.title}: {len(source.jobs):,} jobs, {source.processors:,} processors, {', '.join(policies)}; "
          f"{workers} worker processes ({os.cpu_count()} cores)")
    print(f"  source loaded      {loaded:7.2f} s")
    print(f"  first frame        {first:7.2f} s   (goal <= {FIRST_GOAL:.0f} s)")
    print(f"  every pane filled  {filled:7.2f} s   failures: {failures or 'none'}; "
          f"{used:.2f} s of CPU ({own:.2f} s the window's, {workers_cpu:.2f} s the workers')")
    print(f"  peak RSS           {peak:7.0f} MB window, {child_peak:.0f} MB largest worker "
          f"(goal <= {PEAK_GOAL_MB:.0f} MB)")
    if args.no_cli:
        return
    walls, cli_cpu = cli_runs(trace or "downey", [] if trace else model, policies)
    per = sum(walls) / workers
    print(f"  gangviz run, each policy: {', '.join(f'{p} {w:.2f} s' for p, w in zip(policies, walls))}; "
          f"{cli_cpu:.2f} s of CPU in all")
    print(f"  their sum {sum(walls):.2f} s, over {workers} workers {per:.2f} s; the window's full time is "
          f"{filled / per:.2f}x that (goal <= {RATIO_GOAL}x); its CPU {used / max(cli_cpu, 1e-9):.2f}x theirs")


if __name__ == "__main__":
    main()
