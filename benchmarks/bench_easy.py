"""Time EASY backfilling on a ~60,000-job trace of a 128-processor machine, side by side with
AccaSim 1.1.3's EASY (``EASYBackfilling`` + ``FirstFit``) on the same file.

No ~60,000-job 128-processor trace ships here, so one is synthesised from the KTH SP2 trace
(/work/shared/workloads/KTH-SP2-1996-2.1-cln.swf, 28,476 jobs on 100 processors): shifted copies
of it are concatenated (each copy starts one day after the previous one ends) and every size
(fields 5 and 8) is scaled by 128/100 and rounded up, until 60,000 jobs. The requested memory
(field 10, unknown in KTH) is set to 1 kB per processor, because AccaSim's EASY divides by it. Both simulators read
that file; both timings include reading it.

AccaSim runs in its own virtual environment made by ``benchmarks/setup_accasim.sh`` (default
location /tmp/accasim-venv; ``--accasim-venv`` to change), never in gangviz's.

Usage: python benchmarks/bench_easy.py [--jobs 60000] [--accasim-venv PATH] [--skip-accasim]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KTH = Path("/work/shared/workloads/KTH-SP2-1996-2.1-cln.swf")
HERE = Path(__file__).resolve().parent

ACCASIM_SCRIPT = r'''
import sys, time, tempfile
t0 = time.perf_counter()
from accasim.base.simulator_class import Simulator
from accasim.base.scheduler_class import EASYBackfilling
from accasim.base.allocator_class import FirstFit
out = tempfile.mkdtemp(prefix="accasim-out-")
sim = Simulator(sys.argv[1], sys.argv[2], EASYBackfilling(FirstFit()), RESULTS_FOLDER_PATH=out,
                scheduling_output=False, pprint_output=False, benchmark_output=False,
                statistics_output=False, show_statistics=False)
sim.start_simulation()
print("ACCASIM_SECONDS", time.perf_counter() - t0)
'''


def make_trace(path: Path, n_jobs: int, procs: int = 128) -> int:
    """Write the synthesised trace to ``path``; return its job count."""
    lines = [ln.split() for ln in KTH.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith(";")]
    submits = [int(f[1]) for f in lines]
    first, last = min(submits), max(submits)
    span = last - first + 86400
    out = [f"; Version: 2.2", f"; Computer: KTH SP2 copies scaled to {procs} processors (benchmark)",
           f"; MaxJobs: {n_jobs}", f"; MaxProcs: {procs}", f"; MaxNodes: {procs}", ";"]
    k = 0
    scale = procs / 100.0
    while k < n_jobs:
        copy = k // len(lines)
        f = list(lines[k % len(lines)])
        f[0] = str(k + 1)
        f[1] = str(int(f[1]) - first + copy * span)
        for col in (4, 7):
            v = int(f[col])
            if v > 0:
                f[col] = str(min(procs, math.ceil(v * scale)))
        f[9] = "1"  # requested memory (kB per processor): AccaSim divides by it; gangviz ignores it
        out.append(" ".join(f))
        k += 1
    path.write_text("\n".join(out) + "\n")
    return n_jobs


def time_gangviz(path: Path, procs: int) -> tuple[float, int, dict]:
    """Read the trace and run EASY; return (seconds, jobs, metrics)."""
    from gangviz.metrics_ibm import ibm_metrics
    from gangviz.policies.ibm.backfill import simulate_backfill
    from gangviz.workloads.swf import read_swf

    t0 = time.perf_counter()
    wl = read_swf(path, procs=procs)
    res = simulate_backfill(wl.jobs, procs, mode="easy")
    dt = time.perf_counter() - t0
    return dt, len(wl.jobs), ibm_metrics(res.records, procs, capacity=res.capacity)


def time_accasim(venv: Path, path: Path, procs: int) -> tuple[float, float]:
    """Run AccaSim's EASY in its venv; return (seconds inside AccaSim, wall seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "sys.config"
        cfg.write_text('{"groups": {"g0": {"core": 1, "mem": 1000000000}}, "resources": {"g0": %d}, '
                       '"equivalence": {"processor": {"core": 1}}, "start_time": 0}' % procs)
        script = Path(tmp) / "run_accasim.py"
        script.write_text(ACCASIM_SCRIPT)
        t0 = time.perf_counter()
        proc = subprocess.run([str(venv / "bin" / "python"), str(script), str(path), str(cfg)],
                              capture_output=True, text=True, cwd=tmp)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"AccaSim failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    inner = [float(ln.split()[1]) for ln in proc.stdout.splitlines() if ln.startswith("ACCASIM_SECONDS")]
    return (inner[0] if inner else wall), wall


def main() -> int:
    """Build the trace if needed, time both simulators, print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=60_000)
    p.add_argument("--accasim-venv", type=Path, default=Path(os.environ.get("ACCASIM_VENV", "/tmp/accasim-venv")))
    p.add_argument("--skip-accasim", action="store_true")
    p.add_argument("--trace", type=Path, default=None, help="use this SWF file instead of the synthesised one")
    args = p.parse_args()
    procs = 128
    if args.trace is None:
        args.trace = Path(tempfile.gettempdir()) / f"kth-x128-{args.jobs}-v2.swf"
        if not args.trace.exists():
            make_trace(args.trace, args.jobs, procs)
    print(f"trace: {args.trace}")
    dt, n, m = time_gangviz(args.trace, procs)
    print(f"gangviz EASY : {n:,} jobs in {dt:.2f} s (read + simulate; {n / dt:,.0f} jobs/s); "
          f"utilization {m['utilization']:.3f}, mean wait {m['wait']:.0f} s, slowdown {m['slowdown']:.2f}")
    if args.skip_accasim:
        return 0
    if not (args.accasim_venv / "bin" / "python").exists():
        print(f"AccaSim venv missing; create it with: bash {HERE / 'setup_accasim.sh'} {args.accasim_venv}")
        return 1
    inner, wall = time_accasim(args.accasim_venv, args.trace, procs)
    print(f"AccaSim EASY : {inner:.2f} s inside AccaSim ({wall:.2f} s wall with interpreter start-up)")
    print(f"speed-up     : {inner / dt:.1f}x (target >= 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
