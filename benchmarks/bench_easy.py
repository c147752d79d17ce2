"""EASY backfilling against a peer: AccaSim 1.1.3's ``EASYBackfilling`` with ``FirstFit`` on a flat
machine, on the normalised NASA-iPSC and SDSC-SP2 traces shipped in resources/workloads/
(written by benchmarks/normalise_trace.py: sizes kept, run times clipped to the request).

For each trace it prints

* how many jobs start at a different time in the two schedules, and how many jobs the EASY rule
  checker (gangviz.spacesharing.checker) finds in AccaSim's schedule that could have started
  earlier (the peer's rule violations: AccaSim retries a blocked head only at its reserved time,
  so a head that fits earlier waits). A difference counts as explained when the job is such a
  violation or starts after AccaSim's first violation (from then on the two machines are in
  different states); the unexplained ones are listed (0 on both traces: up to AccaSim's first
  violation the two schedules are identical);
* the checker's verdict on gangviz's own schedule (0 violations expected);
* mean waits, and the time of each simulator (AccaSim's time includes writing its schedule);
* whole-process times, start-up included, as a user meets them: ``gangviz run TRACE --policy
  easy`` (median of 3 runs after a warm-up) against AccaSim's script, wall and CPU (user +
  system) seconds, and their ratios. On a shared machine the CPU ratio is the steadier one.

Both simulators use the requested time (field 9) as the estimate, as AccaSim reads it.
AccaSim runs in its own virtual environment; ``--setup`` creates it under the temporary
directory (``<tmp>/gangviz-bench-accasim``) with benchmarks/setup_accasim.sh, never in gangviz's.
Every file written goes to a temporary directory that is removed at the end.

Usage: python benchmarks/bench_easy.py [--setup] [--trace nasa|sdsc|all] [--skip-accasim] [--quick]
"""

from __future__ import annotations

import argparse
import calendar
import gzip
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TRACES = {
    "nasa": ROOT / "resources" / "workloads" / "NASA-iPSC-1993-3.1-cln-norm.swf.gz",
    "sdsc": ROOT / "resources" / "workloads" / "SDSC-SP2-1998-4.2-cln-norm.swf.gz",
}
VENV = Path(tempfile.gettempdir()) / "gangviz-bench-accasim" / "venv"

ACCASIM_SCRIPT = r'''
import sys, time
t0 = time.perf_counter()
from accasim.base.simulator_class import Simulator
from accasim.base.scheduler_class import EASYBackfilling
from accasim.base.allocator_class import FirstFit
sim = Simulator(sys.argv[1], sys.argv[2], EASYBackfilling(FirstFit()), RESULTS_FOLDER_PATH=sys.argv[3],
                scheduling_output=True, pprint_output=False, benchmark_output=False,
                statistics_output=False, show_statistics=False)
sim.start_simulation()
print("ACCASIM_SECONDS", time.perf_counter() - t0)
'''

# job id ; user ; queued__assigned nodes__start ; end ; ...
_LINE = re.compile(r"^(\d+);[^;]*;([0-9: -]+)__.*__([0-9: -]+);([0-9: -]+);")


def _epoch(text: str) -> int:
    return calendar.timegm(datetime.strptime(text.strip(), "%Y-%m-%d %H:%M:%S").timetuple())


def read_accasim_schedule(path: Path) -> dict[int, int]:
    """Return job number -> start time (s) from AccaSim's dispatching plan (run with TZ=UTC)."""
    out = {}
    for line in path.read_text().splitlines():
        m = _LINE.match(line)
        if m:
            out[int(m.group(1))] = _epoch(m.group(3))
    return out


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def whole_process(cmd: list[str], **kw) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``cmd`` to its end; return (the completed process, wall seconds, CPU seconds: user +
    system of the child, start-up included)."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return proc, time.perf_counter() - t0, _child_cpu() - cpu0


def gangviz_whole_process(swf: Path, runs: int = 3) -> tuple[float, float]:
    """Time ``gangviz run SWF --policy easy`` as a user runs it (a fresh interpreter each time);
    return the median (wall, CPU) seconds of ``runs`` runs after one warm-up."""
    cmd = [sys.executable, "-m", "gangviz", "run", str(swf), "--policy", "easy"]
    walls, cpus = [], []
    for k in range(runs + 1):
        proc, wall, cpu = whole_process(cmd, cwd=ROOT)
        if proc.returncode != 0:
            raise SystemExit(f"gangviz run failed:\n{proc.stderr[-2000:]}")
        if k:
            walls.append(wall)
            cpus.append(cpu)
    return sorted(walls)[len(walls) // 2], sorted(cpus)[len(cpus) // 2]


def run_accasim(swf: Path, procs: int, tmp: Path) -> tuple[dict[int, int], float, float, float]:
    """Run AccaSim's EASY on ``swf``; return (job number -> start, seconds inside AccaSim, whole
    process wall and CPU seconds)."""
    cfg = tmp / "sys.config"
    cfg.write_text(json.dumps({"groups": {"g0": {"core": 1, "mem": 1000000000}}, "resources": {"g0": procs},
                               "equivalence": {"processor": {"core": 1}}, "start_time": 0}))
    script = tmp / "run_accasim.py"
    script.write_text(ACCASIM_SCRIPT)
    out = tmp / "accasim-out"
    proc, wall, cpu = whole_process([str(VENV / "bin" / "python"), str(script), str(swf), str(cfg), str(out)],
                                    cwd=tmp, env={**os.environ, "TZ": "UTC"})
    if proc.returncode != 0:
        raise SystemExit(f"AccaSim failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    inner = [float(ln.split()[1]) for ln in proc.stdout.splitlines() if ln.startswith("ACCASIM_SECONDS")]
    sched = next(out.glob("sched-*"))
    return read_accasim_schedule(sched), inner[0], wall, cpu


def setup() -> None:
    """Create AccaSim's private venv with setup_accasim.sh."""
    VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["bash", str(HERE / "setup_accasim.sh"), str(VENV)], check=True)


def compare_trace(key: str, tmp: Path, skip_accasim: bool) -> None:
    """Run both simulators on one trace and print the comparison."""
    sys.path.insert(0, str(ROOT))
    from gangviz.metrics.ibm import ibm_metrics
    from gangviz.spacesharing.backfill import simulate_backfill
    from gangviz.spacesharing.checker import check_schedule
    from gangviz.workloads.swf import read_swf

    src = TRACES[key]
    tmp = tmp / key  # one folder per trace: AccaSim's output of one must not be read for another
    tmp.mkdir()
    swf = tmp / src.name.removesuffix(".gz")
    swf.write_bytes(gzip.decompress(src.read_bytes()))
    t0 = time.perf_counter()
    wl = read_swf(swf)
    res = simulate_backfill(wl.jobs, wl.processors, mode="easy")
    ours_s = time.perf_counter() - t0
    m = ibm_metrics(res.records, wl.processors, capacity=res.capacity)
    number = {j.id: int(j.name[1:]) for j in wl.jobs}
    ours = {number[r.spec.id]: r.start for r in res.records}
    own = check_schedule(wl.jobs, {r.spec.id: r.start for r in res.records}, wl.processors, "easy")
    print(f"{src.name}: {len(wl.jobs):,} jobs on {wl.processors} processors")
    print(f"  gangviz EASY : read + simulate {ours_s:.2f} s; mean wait {m['wait']:,.0f} s; "
          f"rule violations in its schedule: {len(own)}")
    whole_wall, whole_cpu = gangviz_whole_process(swf)
    print(f"  gangviz run {swf.name} --policy easy, whole process (median of 3): "
          f"{whole_wall:.2f} s wall, {whole_cpu:.2f} s CPU")
    if skip_accasim:
        return
    theirs, acc_s, acc_wall, acc_cpu = run_accasim(swf, wl.processors, tmp)
    if set(theirs) != set(ours):
        print(f"  AccaSim scheduled {len(theirs):,} jobs, gangviz {len(ours):,}")
    by_number = {int(j.name[1:]): j for j in wl.jobs}
    common = sorted(set(theirs) & set(ours))
    waits = [theirs[k] - by_number[k].arrival for k in common]
    print(f"  AccaSim EASY : {acc_s:.1f} s inside AccaSim (with its schedule output); "
          f"mean wait {sum(waits) / len(waits):,.0f} s; speed ratio {acc_s / ours_s:.0f}x")
    print(f"  whole process: AccaSim {acc_wall:.1f} s wall, {acc_cpu:.1f} s CPU; gangviz run is "
          f"{acc_wall / whole_wall:.0f}x faster by wall time, {acc_cpu / whole_cpu:.0f}x by CPU time")
    differ = [k for k in common if theirs[k] != ours[k]]
    peer = check_schedule(wl.jobs, {j.id: theirs[int(j.name[1:])] for j in wl.jobs if int(j.name[1:]) in theirs},
                          wl.processors, "easy") if set(theirs) == set(ours) else []
    late = {int(wl.jobs[v.job].name[1:]) for v in peer if v.rule == "could start"}
    other = {int(wl.jobs[v.job].name[1:]) for v in peer if v.rule != "could start"}
    print(f"  jobs starting at different times: {len(differ):,}")
    print(f"  AccaSim rule violations (a job could have started earlier): {len(late):,}")
    if other:
        print(f"  AccaSim backfills past the head's current shadow time: {len(other):,} (it keeps the "
              f"reservation it computed when the head blocked, also after jobs end early)")
    # A difference is explained when the peer broke the rule at or before that job's start: from
    # the first violation on, the two schedules run on different states.
    first_violation = min((v.time for v in peer), default=None)
    unexplained = [k for k in differ if k not in late and (first_violation is None
                                                            or min(theirs[k], ours[k]) < first_violation)]
    print(f"  differences not explained by an AccaSim violation (a violating job, or any job after "
          f"the first violation at t = {first_violation if first_violation is not None else '-'}): "
          f"{len(unexplained)}")
    for k in unexplained[:10]:
        j = by_number[k]
        print(f"    J{k}: arrives {j.arrival:g}, {j.size} processors; gangviz starts it at {ours[k]:g}, "
              f"AccaSim at {theirs[k]:g}")


def main() -> int:
    """Parse the options and compare on each trace asked for."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--setup", action="store_true", help="create AccaSim's private venv first")
    p.add_argument("--trace", choices=("nasa", "sdsc", "all"), default="all")
    p.add_argument("--skip-accasim", action="store_true", help="time gangviz and check its schedules only")
    p.add_argument("--quick", action="store_true",
                   help="NASA-iPSC only, gangviz only (no AccaSim): a few seconds")
    args = p.parse_args()
    if args.quick:
        args.trace, args.skip_accasim = "nasa", True
    if args.setup:
        setup()
    if not args.skip_accasim and not (VENV / "bin" / "python").exists():
        print(f"AccaSim is not set up; run: python benchmarks/bench_easy.py --setup "
              f"(creates {VENV})", file=sys.stderr)
        return 1
    keys = ("nasa", "sdsc") if args.trace == "all" else (args.trace,)
    with tempfile.TemporaryDirectory(prefix="gangviz-bench-easy-") as tmp:
        for key in keys:
            compare_trace(key, Path(tmp), args.skip_accasim)
    return 0


if __name__ == "__main__":
    sys.exit(main())
