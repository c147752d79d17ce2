"""What a per-job file costs on each family's fast path: ``gangviz run TRACE --policy P
--jobs-out FILE`` against the same run without, for gs (the compiled gang loop), brmms (the
compiled buddy loop), easy and fcfs (the C loop of EASY/FCFS) and conservative (the C
conservative loop).

    python benchmarks/bench_jobs_out.py [--trace PATH ...] [--policy easy --policy gs ...]
                                        [--repeat 5] [--in-process | --whole-process]
                                        [--baseline CHECKOUT]

Two measures, both by default:

* whole process (``--whole-process``): each command runs as a user meets it (start-up, reading
  the trace and writing the file included), a warm-up of each first (numba's cache filled),
  then ``--repeat`` pairs, the plain run and the run with ``--jobs-out`` in turn, so that a
  drifting machine affects both alike; wall and CPU (user + system) seconds;
* in process (``--in-process``): the command's own work without the interpreter's start-up and
  imports, ``gangviz.cli.main`` called in this process, the two in turn as above (a warm-up of
  each first); wall and CPU seconds.

With ``--baseline`` (another checkout of gangviz, its extensions built) the whole-process
measure also runs that checkout's code, its four commands in turn with this one's in every
repeat, so that a before/after pair on a loaded machine shares its drift.

Prints, per trace and policy, the plain run's and the ``--jobs-out`` run's seconds (min and
median) and the pair-by-pair ratios (min and median); on a shared machine the CPU ratio is the
steadier one. The goal: ``--jobs-out`` within 1.3 times the plain run. ``--procs`` (or a
``TRACE:PROCS`` argument) sets the machine (the buddy schemes need a power of two). The default
trace is the normalised SDSC-SP2 shipped in ``resources/workloads/``; the per-job files go to a
temporary directory that is removed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import ratios, spread

ROOT = Path(__file__).resolve().parent.parent
SDSC = ROOT / "resources" / "workloads" / "SDSC-SP2-1998-4.2-cln-norm.swf.gz"
POLICIES = ("gs", "brmms", "easy", "fcfs", "conservative")


def timed(argv: list[str], checkout: Path | None = None) -> tuple[float, float]:
    """Run ``argv`` to its end (output discarded), with ``checkout``'s gangviz first on the path
    when given; return its wall and CPU (user + system) seconds. Raises
    ``CalledProcessError`` when it fails."""
    env = None if checkout is None else {**os.environ, "PYTHONPATH": str(checkout)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env,
                   cwd=checkout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def called(args: list[str]) -> tuple[float, float]:
    """Run ``gangviz ARGS`` in this process (output discarded); return its wall and CPU
    seconds (this process's, ``time.process_time``). Raises ``RuntimeError`` when it exits
    with an error."""
    from gangviz.cli import main

    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = main(args)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if status:
        raise RuntimeError(f"gangviz {' '.join(args)} exited with {status}")
    return wall, cpu


def line(label: str, plain: list[float], jobs: list[float]) -> str:
    """One line of the report: the two series and their pair-by-pair ratios."""
    return (f"    {label:24}  plain {spread(plain)} s   --jobs-out {spread(jobs)} s   "
            f"ratio {spread(ratios(plain, jobs), '5.2f')}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", action="append",
                    help="an SWF trace, TRACE or TRACE:PROCS (repeatable; default the shipped SDSC-SP2)")
    ap.add_argument("--policy", action="append", help=f"policy to time (repeatable; default {', '.join(POLICIES)})")
    ap.add_argument("--procs", type=int, help="processors for every trace without its own :PROCS")
    ap.add_argument("--repeat", type=int, default=5)
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--in-process", action="store_true", help="only the in-process measure")
    which.add_argument("--whole-process", action="store_true", help="only the whole-process measure")
    ap.add_argument("--baseline", type=Path, help="another checkout to pair with this one (whole process)")
    args = ap.parse_args()
    checkouts: list[tuple[str, Path | None]] = [("", ROOT)]
    if args.baseline:
        checkouts = [("baseline ", args.baseline.resolve()), ("this ", ROOT)]
    gv = [sys.executable, "-m", "gangviz"]
    print(f"min / median of {args.repeat} paired runs (after a warm-up); ratio = --jobs-out / plain")
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.trace or [str(SDSC)]:
            trace, procs = spec, args.procs
            head, colon, tail = spec.rpartition(":")
            if colon and tail.isdigit():
                trace, procs = head, int(tail)
            trace = str(Path(trace).resolve())  # (the runs start in the checkout's folder)
            print(f"{Path(trace).name}" + (f" --procs {procs}" if procs else ""))
            for policy in args.policy or POLICIES:
                plain = ["run", trace, "--policy", policy] + (["--procs", str(procs)] if procs else [])
                jobs = plain + ["--jobs-out", str(Path(tmp) / f"{policy}.csv"), "--force"]
                print(f"  {policy}")
                if not args.in_process:
                    runs: dict[str, list[tuple[tuple[float, float], tuple[float, float]]]] = {}
                    for rep in range(args.repeat + 1):  # the first a warm-up
                        for who, checkout in checkouts:
                            pair = timed(gv + plain, checkout), timed(gv + jobs, checkout)
                            if rep:
                                runs.setdefault(who, []).append(pair)
                    for who, _ in checkouts:
                        got = runs[who]
                        print(line(f"{who}process wall", [p[0] for p, _ in got], [j[0] for _, j in got]))
                        print(line(f"{who}process cpu", [p[1] for p, _ in got], [j[1] for _, j in got]))
                if not args.whole_process:
                    called(plain)
                    called(jobs)
                    pairs = [(called(plain), called(jobs)) for _ in range(args.repeat)]
                    print(line("in-process wall", [p[0] for p, _ in pairs], [j[0] for _, j in pairs]))
                    print(line("in-process cpu", [p[1] for p, _ in pairs], [j[1] for _, j in pairs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
