"""A user's policy in plain Python on the reference engine, checked: jobs per second.

Runs the example policy ``examples/policies/gang_sjf.py`` (shortest job first, written against
:mod:`gangviz.userpolicy`) on ``downey --jobs 10000 --load 0.7 --procs 128`` with every action
checked against the rules (the default), and prints jobs/s for the whole run (building the
simulation and starting the policy's process included), the min and median of ``--repeat``
runs: the policy in its own process (the default: one round trip per decision), the same in
the engine's process (``isolated=false``: the cost of the boundary is the difference), then
with ``check=false`` and the built-in ``firstfit`` (the nearest built-in, also plain Python)
for scale. The goal is >= 2,000 jobs/s checked. On a machine whose cores are busy with other
work, each round trip waits for a core: measure on an idle one.

Usage: python benchmarks/bench_user_policy.py [--jobs 10000] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from gangviz.factory import run
from gangviz.workloads.source import load_source

POLICY = str(Path(__file__).resolve().parent.parent / "examples" / "policies" / "gang_sjf.py")


def jobs_per_second(source, spec: str, repeat: int) -> tuple[float, float]:
    """Return (min, median) jobs/s of ``repeat`` reference runs of ``spec`` on ``source``."""
    rates = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = run(source, spec, engine="reference")
        elapsed = time.perf_counter() - start
        assert all(r.finish is not None for r in done.simulation.jobs.values())
        rates.append(len(source.jobs) / elapsed)
    return min(rates), statistics.median(rates)


def main() -> None:
    """Print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="500 jobs, one run (a smoke test)")
    args = p.parse_args()
    if args.quick:
        args.jobs, args.repeat = 500, 1
    source = load_source("downey", jobs=args.jobs, load=0.7, procs=128)
    print(f"downey --jobs {args.jobs} --load 0.7 --procs 128, reference engine, {args.repeat} runs")
    for label, spec in (("user policy, checked", POLICY),
                        ("same, isolated=false", POLICY + ":isolated=false"),
                        ("user policy, --no-check", POLICY + ":check=false"),
                        ("built-in firstfit", "firstfit")):
        lo, med = jobs_per_second(source, spec, args.repeat)
        print(f"  {label:<26} min {lo:,.0f} jobs/s, median {med:,.0f} jobs/s")


if __name__ == "__main__":
    main()
