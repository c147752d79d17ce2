"""How cost grows with the size of the input. Prints figures; asserts nothing.

    python benchmarks/bench_scale.py buddy [--jobs 10000 40000 160000]  # BRMMS at rho 0.9: us per job
    python benchmarks/bench_scale.py buddy --load 0.8 --changes  # another load; the matrix's changes per job
    python benchmarks/bench_scale.py run [--jobs 10000000]    # `gangviz run downey --policy gs`: peak memory
    python benchmarks/bench_scale.py convert [--records 1000000]  # `gangviz convert`: peak memory / file size
    python benchmarks/bench_scale.py --quick                  # all three on small sizes, seconds

``buddy`` times the compiled loop alone (the workload drawn and the loop loaded first) on
Zhou00 §4.2's model with 128 processors, and prints what the run's own behaviour makes the loop
do: the utilisation reached (busy processors x time over 128 x the end time, against the offered
load), the mean response time in slices and the most slots. With ``--changes`` it runs each size
again keeping the placement log (:mod:`gangviz.fast.placement`) and prints how much the matrix
itself changes per job: runs of processors whose job changed at a decision, and cells. A loop
that keeps the matrix (this one does) does at least that work; where the utilisation stays below the
offered load the backlog grows through the run, and so does that work per job (about 0.8 GB of
log at 160,000 jobs and rho 0.9).
``run`` and ``convert`` run the command in a child process, which reports its own peak resident
memory (``VmHWM`` of ``/proc/self/status``; ``ru_maxrss`` where there is none); ``convert`` first writes a sacct file of that many
records to a temporary folder, removed afterwards.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path


def bench_buddy(sizes: list[int], load: float = 0.9, changes: bool = False) -> None:
    """Print the compiled BRMMS loop's microseconds per job at ``load`` for each job count, with
    the utilisation, mean response and most slots of the run (and, with ``changes``, the
    matrix's changes per job from a second run that keeps the placement log)."""
    from gangviz.fast.buddy import run_buddy
    from gangviz.workloads.synthetic import uniform_log_columns

    procs = 128
    print(f"BRMMS, downey model, rho {load}, {procs} processors, compiled loop (wall; CPU, which a loaded "
          "machine disturbs less):")
    head = (f"{'jobs':>9} {'us/job':>8} {'CPU us/job':>10} {'utilisation':>11} {'response':>13} "
            f"{'most slots':>10}")
    print(head + (f" {'runs changed/job':>16} {'cells/job':>9}" if changes else ""))
    first = None
    for n in sizes:
        c = uniform_log_columns(n, load, procs=procs, seed=1)
        ids = list(range(n))
        run_buddy(ids[:20], c.arrival[:20], c.size[:20], c.work[:20], "BRMMS", procs)  # load the loop
        t0, c0 = time.perf_counter(), time.process_time()
        r = run_buddy(ids, c.arrival, c.size, c.work, "BRMMS", procs)
        per_job = (time.perf_counter() - t0) / n * 1e6
        cpu = (time.process_time() - c0) / n * 1e6
        first = first or (per_job, cpu)
        utilisation = r.busy_time / (procs * r.time)
        response = float((r.finish - c.arrival).mean())
        line = (f"{n:>9,} {per_job:>8.1f} {cpu:>10.1f} {utilisation:>11.3f} {response:>6,.0f} slices "
                f"{r.max_slots:>10}")
        if changes:
            log = run_buddy(ids, c.arrival, c.size, c.work, "BRMMS", procs, placement=True).placement
            cells = log.entries[:, 0] >= 0  # the entries that are cells, not a new slot count
            spans = (log.entries[cells, 2] - log.entries[cells, 1]).astype("int64")
            line += f" {int(cells.sum()) / n:>16.1f} {int(spans.sum()) / n:>9,.0f}"
            del log
        print(line + f"   ({per_job / first[0]:.2f}x the first; CPU {cpu / first[1]:.2f}x)")


#: Runs gangviz's command line in the child and reports the child's own peak memory: the
#: high-water mark of its address space (``VmHWM``), which, unlike ``ru_maxrss``, does not keep
#: the benchmark's own memory that the child had before it loaded Python.
CHILD = """import sys
from gangviz.cli import main
code = main(sys.argv[1:])
try:
    with open("/proc/self/status") as fh:
        kb = next(int(ln.split()[1]) for ln in fh if ln.startswith("VmHWM"))
except (OSError, StopIteration):
    import resource
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // (1024 if sys.platform == "darwin" else 1)
print(f"PEAK_KB {kb}", file=sys.stderr)
sys.exit(code)
"""


def peak_of(args: list[str], cwd: str) -> tuple[float, float]:
    """Run ``gangviz ARGS`` in a child process; return (wall seconds, its peak resident MB).
    Raises ``RuntimeError`` with its error output when it fails."""
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    peaks = [ln for ln in res.stderr.splitlines() if ln.startswith("PEAK_KB ")]
    if res.returncode or not peaks:
        raise RuntimeError(f"gangviz {' '.join(args)} exited {res.returncode}: {res.stderr[-2000:]}")
    return wall, int(peaks[-1].split()[1]) * 1024 / 1e6


def bench_run(jobs: int, tmp: str) -> None:
    """Print wall time and peak memory of ``gangviz run downey --jobs N --policy gs``."""
    wall, peak = peak_of(["run", "downey", "--jobs", str(jobs), "--policy", "gs"], tmp)
    print(f"gangviz run downey --jobs {jobs:,} --policy gs: {wall:.1f} s wall, peak {peak:,.0f} MB "
          f"({peak * 1e6 / jobs:,.0f} bytes a job; goal for 10,000,000 jobs: 1,000 MB)")


def write_sacct(path: Path, records: int, seed: int = 1) -> None:
    """Write ``records`` sacct --parsable2 records (every one convertible) to ``path``."""
    rnd = random.Random(seed)
    t0 = datetime(2024, 3, 1, tzinfo=UTC)
    states = ["COMPLETED"] * 6 + ["FAILED", "TIMEOUT", "CANCELLED by 1000"]
    fmt = "%Y-%m-%dT%H:%M:%S"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("JobID|User|Partition|Submit|Start|End|AllocCPUS|Timelimit|State\n")
        s = 0
        for i in range(records):
            s += rnd.randrange(0, 60)
            sub = t0 + timedelta(seconds=s)
            st = sub + timedelta(seconds=rnd.randrange(0, 3600))
            en = st + timedelta(seconds=rnd.randrange(1, 7200))
            fh.write(f"{1000 + i}|u{rnd.randrange(50)}|p{rnd.randrange(4)}|{sub:{fmt}}|{st:{fmt}}|"
                     f"{en:{fmt}}|{rnd.choice((1, 2, 4, 8, 16, 32, 64))}|{rnd.randrange(1, 48):02d}:00:00|"
                     f"{rnd.choice(states)}\n")


def bench_convert(records: int, tmp: str) -> None:
    """Print wall time and peak memory of ``gangviz convert`` on ``records`` sacct records."""
    src = Path(tmp) / "sacct.txt"
    write_sacct(src, records)
    size = src.stat().st_size / 1e6
    wall, peak = peak_of(["convert", str(src), str(Path(tmp) / "out.swf")], tmp)
    print(f"gangviz convert, {records:,} sacct records ({size:,.1f} MB): {wall:.1f} s wall, peak {peak:,.0f} MB "
          f"= {peak / size:.2f}x the file (goal: <= 3x)")


def main() -> None:
    """Run the benchmark asked for (default: all three)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("which", nargs="?", choices=("buddy", "run", "convert"), help="one benchmark (default: all)")
    ap.add_argument("--jobs", type=int, nargs="+", default=None,
                    help="job counts (buddy: 10000 40000 160000; run: 10000000)")
    ap.add_argument("--load", type=float, default=0.9, help="buddy: the offered load rho (default 0.9)")
    ap.add_argument("--changes", action="store_true",
                    help="buddy: also count the matrix's changes per job (a second run keeping the placement log)")
    ap.add_argument("--records", type=int, default=1_000_000, help="sacct records of convert (default 1,000,000)")
    ap.add_argument("--quick", action="store_true", help="small sizes: a check that it runs")
    args = ap.parse_args()
    which = [args.which] if args.which else ["buddy", "run", "convert"]
    with tempfile.TemporaryDirectory() as tmp:
        if "buddy" in which:
            bench_buddy(args.jobs or ([1000, 4000] if args.quick else [10_000, 40_000, 160_000]), args.load,
                        args.changes)
        if "run" in which:
            for n in args.jobs if args.jobs and args.which == "run" else [20_000 if args.quick else 10_000_000]:
                bench_run(n, tmp)
        if "convert" in which:
            bench_convert(2_000 if args.quick else args.records, tmp)


if __name__ == "__main__":
    main()
