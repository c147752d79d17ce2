"""Speed of the epoch policies and of the closed-system simulation (prints figures).

    python benchmarks/bench_epoch.py            # 300 cases per point, 2,000 departures
    python benchmarks/bench_epoch.py --quick    # 20 cases, 200 departures: a check that it runs
"""

import argparse
import random
import time

from gangviz.epoch.epochs import SearchStats, opt_epoch_epochs
from gangviz.epoch.policies import make_policy
from gangviz.epoch.sim import EpochSimulation
from gangviz.epoch.workload import draw_mins


def main() -> None:
    """Print milliseconds per schedule of each policy and departures per second."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=300, help="random minima per point (default 300)")
    ap.add_argument("--departures", type=int, default=2000,
                    help="departures of each closed-system run (default 2000)")
    ap.add_argument("--quick", action="store_true", help="20 cases and 200 departures")
    args = ap.parse_args()
    if args.quick:
        args.cases, args.departures = min(args.cases, 20), min(args.departures, 200)
    for jobs, load in ((8, 1.0), (16, 2.0), (32, 2.0)):
        rng = random.Random(jobs)
        cases = [draw_mins(rng, 128, jobs, load) for _ in range(args.cases)]
        for name in ("BUDDY*", "HYBRID(1)", "EQUI-EPOCH", "OPT-EPOCH(1)", "HEURISTIC(1)",
                     "OPT-EPOCH(2)"):
            pol = make_policy(name)
            t = time.perf_counter()
            for mins in cases:
                pol(128, mins)
            dt = (time.perf_counter() - t) / len(cases) * 1e3
            print(f"N=128 J={jobs:2d} load={load:.0%} {name:13s} {dt:7.3f} ms/schedule")
        stats = SearchStats()
        epochs = sum(len(opt_epoch_epochs(128, m, 1, stats)) for m in cases)
        print(f"  OPT-EPOCH(1) assignments tested per epoch: {stats.assignments / epochs:.2f} "
              f"(paper, §4.2: 1.08 on average)")
    for name in ("OPT-EPOCH(1)", "HEURISTIC(1)", "BUDDY*"):
        t = time.perf_counter()
        sim = EpochSimulation(128, 16, name, static=True, load=2.0, seed=1, departures=args.departures)
        sim.run()
        dt = time.perf_counter() - t
        print(f"closed system N=128 J=16 {name:13s}: {args.departures / dt:8.0f} departures/s")


if __name__ == "__main__":
    main()
