"""A user's policy in plain Python on the reference engine, checked: jobs per second.

Runs the example policy ``examples/policies/gang_sjf.py`` (shortest job first, written against
:mod:`gangviz.userpolicy`) on ``downey --jobs 10000 --load 0.7 --procs 128`` with every action
checked against the rules (the default), and prints jobs/s for the whole run (building the
simulation and starting the policy's process included), the min and median of ``--repeat``
runs: the policy in its own process (the default: it simulates the run ahead on its own copy
of the engine and sends its decisions in batches, which this process checks and applies), the
same in the engine's process (``isolated=false``: the cost of the boundary is the difference),
then with ``check=false`` and the built-in ``firstfit`` (the nearest built-in, also plain
Python) for scale. The goal is >= 2,000 jobs/s checked.

Wall-clock figures depend on how busy the machine is: the two processes of an isolated run
work side by side on two cores, and wait for each other on a busy machine. So each line also
gives the CPU seconds of this process and (Linux) of the policy's process, and the jobs per
CPU second of the two together: the cost of the boundary whatever else runs.

Usage: python benchmarks/bench_user_policy.py [--jobs 10000] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from gangviz.factory import run
from gangviz.workloads.source import load_source

POLICY = str(Path(__file__).resolve().parent.parent / "examples" / "policies" / "gang_sjf.py")


def process_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) process ``pid`` has used, from ``/proc``; 0 when unknown."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def measure(source, spec: str, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Run ``spec`` on ``source`` ``repeat`` times on the reference engine; return per run the
    jobs/s, the CPU seconds of this process and those of the policy's process (0: none)."""
    rates, mine, theirs = [], [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        done = run(source, spec, engine="reference")
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert all(r.finish is not None for r in done.simulation.jobs.values())
        close = getattr(done.policy, "close", None)
        theirs.append(process_cpu(getattr(done.policy, "process_id", None)))
        if close is not None:
            close()
        rates.append(len(source.jobs) / elapsed)
        mine.append(cpu)
    return rates, mine, theirs


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
    run(load_source("downey", jobs=20, load=0.7, procs=128), POLICY, engine="reference")  # start the fork server
    print(f"downey --jobs {args.jobs} --load 0.7 --procs 128, reference engine, {args.repeat} runs "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    for label, spec in (("user policy, checked", POLICY),
                        ("same, isolated=false", POLICY + ":isolated=false"),
                        ("user policy, --no-check", POLICY + ":check=false"),
                        ("built-in firstfit", "firstfit")):
        rates, mine, theirs = measure(source, spec, args.repeat)
        cpu = [a + b for a, b in zip(mine, theirs)]
        split = f" = {statistics.median(mine):.2f} + {statistics.median(theirs):.2f} policy's" if any(theirs) else ""
        print(f"  {label:<26} min {min(rates):,.0f} jobs/s, median {statistics.median(rates):,.0f} jobs/s; "
              f"CPU median {statistics.median(cpu):.2f} s{split}, "
              f"{args.jobs / statistics.median(cpu):,.0f} jobs per CPU second")


if __name__ == "__main__":
    main()
