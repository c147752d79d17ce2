"""Benchmarks of the buddy schemes. Prints figures; asserts nothing.

    python benchmarks/bench_zhou.py wlt              # allocation decision: WLT vs naive scan
    python benchmarks/bench_zhou.py schemes [--jobs N] [--engine E]  # jobs/s per scheme at rho 0.5, 0.9
    python benchmarks/bench_zhou.py runs [--jobs N] [--engine E]     # CPU time of Table 2's 16 runs of one set
    python benchmarks/bench_zhou.py table2 [--workers 2] # wall time of `gangviz repro zhou-table2`
    python benchmarks/bench_zhou.py --quick          # wlt, schemes and runs on 200 jobs, seconds
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import timeit

import numpy as np

from gangviz.core.allocation import best_block
from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.core.matrix import IDLE, OusterhoutMatrix


def random_matrix(procs: int, slots: int, seed: int = 0) -> OusterhoutMatrix:
    """A buddy-packed matrix: each slot filled with random aligned blocks, about 20% left idle."""
    rng = np.random.default_rng(seed)
    m = OusterhoutMatrix(procs)
    job = 0
    for r in range(slots):
        SlotAdded(r).apply(m)
        c = 0
        while c < procs:
            block = 1 << int(rng.integers(0, min(8, procs.bit_length())))
            block = min(block, procs - c)
            while c % block:
                block //= 2
            if rng.random() < 0.8:
                JobPlaced(job, r, range(c, c + block)).apply(m)
                job += 1
            c += block
    return m


def naive_choice(m: OusterhoutMatrix, block: int) -> int | None:
    """The same decision without WLV or WLT: scan every slot of the matrix for idle cells and
    pick the aligned block whose processors all have an idle slot, the most idle first."""
    idle = np.count_nonzero(m.cells == IDLE, axis=0)
    n = len(idle) // block
    per_block = idle.reshape(n, block)
    ok = np.all(per_block > 0, axis=1)
    if not ok.any():
        return None
    return int(np.argmax(np.where(ok, per_block.sum(axis=1), -1)))


def bench_wlt(quick: bool = False) -> None:
    """Print the time of one allocation decision on the WLT against a scan of the matrix, for
    128 to 65,536 processors (``quick``: up to 8,192, fewer repeats: a smoke run)."""
    number, repeat = (200, 3) if quick else (2000, 7)
    sizes = (128, 1024, 8192) if quick else (128, 1024, 8192, 65536)
    print(f"Allocation decision for a 4-processor job, 32 slots (best of {repeat} x {number} decisions):")
    print(f"{'P':>7} {'WLT (us)':>10} {'naive scan (us)':>16}")
    first = None
    for procs in sizes:
        # 31 packed slots and an empty one: every processor has an idle slot, so every node is
        # non-zero and each update travels all the way to the root (the worst case).
        m = random_matrix(procs, 31)
        SlotAdded(31).apply(m)
        tree = m.tree
        states = [m.wlv.copy(), m.wlv.copy()]
        states[1][0:4] += 1
        flip = [0]

        def decide(m=m, tree=tree, states=states, flip=flip):
            # One decision after one update: the leaves of one block change, as when a job ends
            # or starts there; the two states alternate so every update really changes the tree.
            flip[0] ^= 1
            tree.update(0, 4, states[flip[0]])
            return best_block(m, 4)

        wlt = min(timeit.repeat(decide, number=number, repeat=repeat)) / number * 1e6
        naive = min(timeit.repeat(lambda m=m: naive_choice(m, 4), number=20, repeat=min(repeat, 5))) / 20 * 1e6
        first = first or wlt
        print(f"{procs:>7} {wlt:>10.2f} {naive:>16.1f}")
    print(f"WLT growth from P=128 to P={sizes[-1]}: {wlt / first:.2f}x (target <= 3x at 65536)")


def warm_up() -> None:
    """Compile (or load from numba's cache) the compiled loop, and say how long that took."""
    from gangviz.experiments.repro.zhou import run_one

    t = time.perf_counter()
    run_one(("BRMMS", 0.5, 20, 1, "size", None, "compiled"))
    print(f"(compiled loop ready in {time.perf_counter() - t:.1f} s: compiled, or loaded from numba's cache)")


def bench_schemes(jobs: int, engines: list[str]) -> None:
    from gangviz.experiments.repro.zhou import run_one

    warm_up()
    print(f"Simulated jobs per second, {jobs} jobs, 128 processors, one run each:")
    for load in (0.5, 0.9):
        for scheme in ("BC", "BR", "BRMS", "BRMMS"):
            for engine in engines:
                t, cpu = time.perf_counter(), time.process_time()
                run_one((scheme, load, jobs, 1, "size", None, engine))
                dt, dcpu = time.perf_counter() - t, time.process_time() - cpu
                print(f"  rho={load}  {scheme:6} {engine:8} {jobs / dt:9.0f} jobs/s  "
                      f"({dt:.2f} s wall, {dcpu:.2f} s CPU)", flush=True)


def bench_runs(jobs: int, engines: list[str]) -> None:
    from gangviz.experiments.repro.zhou import LOADS, SCHEMES, run_one
    from gangviz.experiments.seeds import run_seed

    warm_up()
    print(f"CPU time of each run of Table 2's first job set ({jobs} jobs, 128 processors):")
    print(f"  {'':16}" + "".join(f"{e:>10}" for e in engines))
    total = dict.fromkeys(engines, 0.0)
    for li, load in enumerate(LOADS):
        seed = run_seed(2001, (li,), 0)  # the seed `repro zhou-table2` gives its first set
        for scheme in SCHEMES:
            line = f"  rho={load}  {scheme:6}"
            for engine in engines:
                cpu = time.process_time()
                run_one((scheme, load, jobs, seed, "size", None, engine))
                cpu = time.process_time() - cpu
                total[engine] += cpu
                line += f"{cpu:9.2f}s"
            print(line, flush=True)
    for engine in engines:
        print(f"one set, {engine}: {total[engine]:.1f} s of CPU; five sets on two workers: "
              f"about {5 * total[engine] / 2:.1f} s")


def bench_table2(workers: int) -> None:
    t = time.perf_counter()
    cmd = [sys.executable, "-m", "gangviz.cli", "repro", "zhou-table2", "--workers", str(workers)]
    subprocess.run(cmd, check=False)
    print(f"zhou-table2 with {workers} workers: {time.perf_counter() - t:.1f} s wall (target <= 120 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", default=None, choices=("wlt", "schemes", "runs", "table2", "all"),
                        help="which benchmark (required unless --quick)")
    parser.add_argument("--jobs", type=int, default=20000, help="jobs per run (default 20000)")
    parser.add_argument("--workers", type=int, default=2, help="workers of table2 (default 2)")
    parser.add_argument("--engine", choices=("compiled", "python", "both"), default="both",
                        help="which headless engine schemes and runs time (default both)")
    parser.add_argument("--quick", action="store_true",
                        help="wlt, schemes and runs on 200 jobs (unless WHAT and --jobs say otherwise)")
    args = parser.parse_args()
    if args.quick:
        args.what = args.what or "quick"
        args.jobs = min(args.jobs, 200)
    elif args.what is None:
        parser.error("say which benchmark: wlt, schemes, runs, table2 or all (or --quick)")
    if args.what == "quick":
        bench_wlt(quick=True)
        bench_schemes(args.jobs, ["compiled", "python"])
        bench_runs(args.jobs, ["compiled"])
        return
    engines = ["compiled", "python"] if args.engine == "both" else [args.engine]
    if args.what in ("wlt", "all"):
        bench_wlt()
    if args.what in ("schemes", "all"):
        bench_schemes(args.jobs, engines)
    if args.what in ("runs", "all"):
        bench_runs(args.jobs, engines)
    if args.what in ("table2", "all"):
        bench_table2(args.workers)


if __name__ == "__main__":
    main()
