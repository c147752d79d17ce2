"""Speed of the IBM study's gang policies GS, BGS, MGS and MBGS, on the compiled loop
(gangviz.fast.gang) and on the reference engine. Prints figures; asserts nothing.

    python benchmarks/bench_ibm.py policies [--jobs N] [--multiplier M] [--decide event|boundary]
    python benchmarks/bench_ibm.py trace [PATH] [--jobs N] [--slice SECONDS] [--decide ...]
    python benchmarks/bench_ibm.py --trace PATH --engine compiled    # a whole trace, compiled only
    python benchmarks/bench_ibm.py --quick          # both, small: a smoke run of a few seconds

``policies`` runs a generated workload of the study (Zhang01 §2.2, calibrated to offer
0.55 x multiplier; the default multiplier 1.4 offers 0.77, mid-to-high load). ``trace`` runs an SWF
file, by default the 300-job excerpt of KTH-SP2 shipped in ``resources/workloads/`` (any other
trace, e.g. a Parallel Workloads Archive file, can be given as PATH or with ``--trace``). Each
line gives the simulation's CPU seconds (``time.process_time``, so a busy machine does not
distort it), wall seconds and jobs per CPU second; reading or generating the workload is not
counted, nor is loading the compiled code (one tiny run first). ``--engine`` picks the compiled
loop, the reference engine or both (default; then each line also gives the speed-up). The
compiled loop runs decisions at events only: with ``--decide boundary`` only the reference runs.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gangviz.fast.gang import job_arrays, run_gang, warm_up
from gangviz.policies.ibm import BGS, GS, MBGS, MGS
from gangviz.sim.engine import Simulation
from gangviz.workloads.ibm import PROCESSORS, zhang_workload
from gangviz.workloads.swf import read_swf

POLICIES = {"GS": GS, "BGS": BGS, "MGS": MGS, "MBGS": MBGS}
ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def time_run(jobs, processors: int, policy) -> tuple[float, float]:
    """Return (CPU seconds, wall seconds) of running ``jobs`` under ``policy`` to the end on the
    reference engine."""
    sim = Simulation(jobs, policy, processors, record=False)
    c0, w0 = time.process_time(), time.perf_counter()
    sim.run()
    return time.process_time() - c0, time.perf_counter() - w0


def time_compiled(arrays, processors: int, name: str, mpl: int) -> tuple[float, float]:
    """Return (CPU seconds, wall seconds) of the same run on the compiled loop."""
    c0, w0 = time.process_time(), time.perf_counter()
    run_gang(arrays, name, {"mpl": mpl}, processors)
    return time.process_time() - c0, time.perf_counter() - w0


def report(title: str, jobs, processors: int, names: list[str], decide: str, mpl: int, engine: str) -> None:
    """Print one line per policy and engine: CPU s, wall s, jobs per CPU second (and, with
    both engines, the compiled loop's speed-up in CPU time)."""
    print(f"{title}: {len(jobs)} jobs, {processors} processors, MPL {mpl}, decisions at "
          f"{'every arrival and departure' if decide == 'event' else 'slice boundaries'}")
    engines = [e for e in ("compiled", "reference") if engine in (e, "both")]
    if decide != "event" and "compiled" in engines:
        print("  (the compiled loop decides at events only: reference engine alone)")
        engines = ["reference"]
    print(f"  {'policy':<6} {'engine':<9} {'cpu s':>8} {'wall s':>8} {'jobs/s':>9}")
    arrays = job_arrays(jobs)
    for name in names:
        cpu_of = {}
        for eng in engines:
            if eng == "compiled":
                cpu, wall = time_compiled(arrays, processors, name, mpl)
            else:
                cpu, wall = time_run(jobs, processors, POLICIES[name](mpl, decide=decide))
            cpu_of[eng] = cpu
            print(f"  {name:<6} {eng:<9} {cpu:>8.2f} {wall:>8.2f} {len(jobs) / max(cpu, 1e-9):>9.0f}", flush=True)
        if len(cpu_of) == 2:
            print(f"  {name:<6} speed-up {cpu_of['reference'] / max(cpu_of['compiled'], 1e-9):>8.1f}x", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the benchmark, return 0."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("what", nargs="?", choices=("policies", "trace"), default=None,
                   help="which benchmark (default: both, with --quick)")
    p.add_argument("path", nargs="?", default=str(SHIPPED), help="SWF trace for 'trace' (default: the shipped KTH excerpt)")
    p.add_argument("--jobs", type=int, default=None, help="jobs (policies: default 5000; trace: all)")
    p.add_argument("--multiplier", type=float, default=1.4, help="service-time multiplier of the generated workload")
    p.add_argument("--slice", type=float, default=200.0, help="seconds per slice for a trace (default 200, the paper's)")
    p.add_argument("--decide", choices=("event", "boundary"), default="event", help="time model (default event)")
    p.add_argument("--mpl", type=int, default=5, help="multiprogramming level (default 5)")
    p.add_argument("--policy", action="append", choices=tuple(POLICIES), help="policy (repeatable; default all four)")
    p.add_argument("--trace", metavar="PATH", help="run this SWF trace (the same as: trace PATH)")
    p.add_argument("--engine", choices=("compiled", "reference", "both"), default="both",
                   help="compiled loop, reference engine or both (default both)")
    p.add_argument("--quick", action="store_true", help="small runs: a smoke test of a few seconds")
    args = p.parse_args(argv)
    if args.trace:
        args.what, args.path = "trace", args.trace
    names = args.policy or list(POLICIES)
    if args.engine != "reference" and args.decide == "event":
        warm_up()
    if args.what in (None, "policies") and (args.what or args.quick):
        n = args.jobs or (200 if args.quick else 5000)
        w = zhang_workload(n, args.multiplier, seed=1000, calibrate=True)
        report(f"generated workload (Zhang01 §2.2, multiplier {args.multiplier:g})", w.jobs, PROCESSORS, names,
               args.decide, args.mpl, args.engine)
    if args.what in (None, "trace") and (args.what or args.quick):
        w = read_swf(args.path, slice_seconds=args.slice)
        jobs = w.jobs[: args.jobs or (200 if args.quick else None)]
        report(f"trace {Path(args.path).name} ({args.slice:g} s slices)", jobs, w.processors, names,
               args.decide, args.mpl, args.engine)
    if args.what is None and not args.quick:
        p.print_help()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
