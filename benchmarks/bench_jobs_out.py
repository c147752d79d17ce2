"""What a per-job file costs on each family's fast path: ``gangviz run TRACE --policy P
--jobs-out FILE`` against the same run without, for gs (the compiled gang loop), brmms (the
compiled buddy loop) and easy (the compiled backfilling loop).

    python benchmarks/bench_jobs_out.py [--trace PATH] [--policy gs --policy easy] [--repeat 5]

Each command runs as a whole process, as a user meets it (start-up, reading the trace and
writing the file included): a warm-up of each first (numba's cache filled), then ``--repeat``
pairs, the plain run and the run with ``--jobs-out`` in turn, so that a drifting machine
affects both alike. Prints, per policy, the wall and CPU (user + system) seconds of each, min
and median, and the pair-by-pair ratios; on a shared machine the CPU ratio is the steadier one.
The goal: ``--jobs-out`` within 1.3 times the plain run. The default trace is the normalised
SDSC-SP2 shipped in ``resources/workloads/``; the per-job files go to a temporary directory that
is removed at the end.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDSC = ROOT / "resources" / "workloads" / "SDSC-SP2-1998-4.2-cln-norm.swf.gz"
POLICIES = ("gs", "brmms", "easy")


def timed(argv: list[str]) -> tuple[float, float]:
    """Run ``argv`` to its end (output discarded); return its wall and CPU (user + system)
    seconds. Raises ``CalledProcessError`` when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def line(label: str, plain: list[float], jobs: list[float]) -> str:
    """One line of the report: the two series and their pair-by-pair ratios."""
    ratios = [b / a for a, b in zip(plain, jobs)]
    return (f"  {label:4}  plain {min(plain):7.2f} / {statistics.median(plain):7.2f} s   "
            f"--jobs-out {min(jobs):7.2f} / {statistics.median(jobs):7.2f} s   "
            f"ratio {min(ratios):5.2f} / {statistics.median(ratios):5.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(SDSC))
    ap.add_argument("--policy", action="append", help=f"policy to time (repeatable; default {', '.join(POLICIES)})")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    gv = [sys.executable, "-m", "gangviz"]
    print(f"{Path(args.trace).name}: min / median of {args.repeat} paired runs (after a warm-up)")
    with tempfile.TemporaryDirectory() as tmp:
        for policy in args.policy or POLICIES:
            plain = gv + ["run", args.trace, "--policy", policy]
            jobs = plain + ["--jobs-out", str(Path(tmp) / f"{policy}.csv"), "--force"]
            timed(plain)
            timed(jobs)
            runs = [(timed(plain), timed(jobs)) for _ in range(args.repeat)]
            print(policy)
            print(line("wall", [p[0] for p, _ in runs], [j[0] for _, j in runs]))
            print(line("cpu", [p[1] for p, _ in runs], [j[1] for _, j in runs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
