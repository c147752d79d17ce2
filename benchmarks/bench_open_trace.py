"""Time ``gangviz open TRACE --policy gs --screenshot out.png`` (start to saved picture) and its
peak memory, each run a fresh process. Prints figures; asserts nothing.

    python benchmarks/bench_open_trace.py [--trace PATH] [--runs 5] [--policy gs]
    python benchmarks/bench_open_trace.py --quick      # a 2,000-job trace, one run

Targets on LANL-CM5 (122,060 jobs on 1,024 processors, e.g. ``--trace
LANL-CM5-1994-4.1-cln.swf.gz`` from the Parallel Workloads Archive): <= 1.5 s wall and <= 200 MiB
peak resident memory. Without ``--trace`` the trace is built like it: the first 300 jobs of the
KTH-SP2 trace in ``resources/workloads/`` repeated with shifted submit times and renumbered to
``--jobs`` jobs (default 122,060) on a machine of ``MaxProcs: 1024``, written to a temporary
directory that is removed afterwards (as is the picture). Each counted run follows ``--warmup``
runs; per run the wall time and the peak resident set size of the process (the kernel's
accounting of the finished child: ``wait4``, Linux) are printed, then their min and median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import make_trace

ROOT = Path(__file__).resolve().parent.parent
KTH = ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
#: the machine size of the built trace (LANL-CM5's)
PROCS = 1024
TARGET_SECONDS = 1.5
TARGET_MIB = 200


def one_run(trace: Path, policy: str, png: Path) -> tuple[float, float]:
    """Run the screenshot command once; return (wall seconds, peak resident MiB)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "gangviz", "open", str(trace), "--policy", policy,
           "--screenshot", str(png), "--force"]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"the command failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    return wall, usage.ru_maxrss / 1024  # KiB on Linux


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return 0."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", type=Path, default=None, help="an SWF trace (default: built, see above)")
    ap.add_argument("--jobs", type=int, default=122_060, help="jobs of the built trace (default 122060)")
    ap.add_argument("--policy", default="gs", help="policy to open the trace with (default gs)")
    ap.add_argument("--runs", type=int, default=5, help="counted runs (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="runs not counted, first (default 1)")
    ap.add_argument("--quick", action="store_true", help="a 2,000-job trace, one run, no warm-up")
    args = ap.parse_args(argv)
    if args.quick:
        args.jobs, args.runs, args.warmup = min(args.jobs, 2000), 1, 0
    with tempfile.TemporaryDirectory() as tmp:
        trace = args.trace
        if trace is None:
            trace = Path(tmp) / "built.swf"
            n = make_trace(KTH, args.jobs, trace,
                           header=[f"; MaxNodes: {PROCS}", f"; MaxProcs: {PROCS}"])
            label = f"{n:,} jobs built from {KTH.name}, 1,024 processors"
        else:
            label = trace.name
        png = Path(tmp) / "out.png"
        for _ in range(args.warmup):
            one_run(trace, args.policy, png)
        walls, peaks = [], []
        for i in range(args.runs):
            wall, peak = one_run(trace, args.policy, png)
            walls.append(wall)
            peaks.append(peak)
            print(f"run {i + 1}: {wall:.2f} s wall, {peak:.0f} MiB peak resident")
    print(f"open --screenshot, {label}, policy {args.policy}, {args.runs} run{'s' if args.runs != 1 else ''}:")
    print(f"  wall: min {min(walls):.2f} s, median {statistics.median(walls):.2f} s "
          f"(target <= {TARGET_SECONDS} s on LANL-CM5)")
    print(f"  peak resident: min {min(peaks):.0f} MiB, median {statistics.median(peaks):.0f} MiB "
          f"(target <= {TARGET_MIB} MiB on LANL-CM5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
