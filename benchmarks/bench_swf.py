"""Time read_swf on a 120,000-job trace and on the trace it is built from; compare with pandas.

    python benchmarks/bench_swf.py [--trace PATH] [--jobs 120000] [--repeat 5]
    python benchmarks/bench_swf.py --quick      # 5,000 jobs, one repetition

The large trace is the first 300 jobs of the KTH-SP2 trace that ship in
``resources/workloads/`` (or ``--trace``) repeated with shifted submit times and renumbered
jobs, written to a temporary directory that is removed afterwards. Prints the best of
``--repeat`` runs. The pandas comparison (``read_csv(sep=r"\\s+", comment=";", header=None)``)
runs only when pandas is importable; pandas is not a dependency of gangviz.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _timing import best_of, make_trace

from gangviz.workloads.swf import read_swf

KTH = Path(__file__).resolve().parent.parent / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace", type=Path, default=KTH,
                    help="trace to repeat (default: resources/workloads/KTH-SP2-1996-2.1-cln-first300.swf)")
    ap.add_argument("--jobs", type=int, default=120_000, help="jobs of the large trace (default 120000)")
    ap.add_argument("--repeat", type=int, default=5, help="repetitions; the best counts (default 5)")
    ap.add_argument("--quick", action="store_true", help="5,000 jobs, one repetition")
    args = ap.parse_args()
    if args.quick:
        args.jobs, args.repeat = min(args.jobs, 5000), 1
    try:
        import pandas as pd
    except ImportError:
        pd = None
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.swf"
        n = make_trace(args.trace, args.jobs, big)
        size_mb = big.stat().st_size / 1e6
        for label, path in ((f"{n}-job trace ({size_mb:.1f} MB)", big),
                            (f"{args.trace.name}", args.trace)):
            w = read_swf(path)
            t = best_of(lambda path=path: read_swf(path), args.repeat)
            line = f"read_swf  {label}: {t:.3f} s ({len(w.jobs)} jobs, {len(w.jobs) / t:,.0f} jobs/s)"
            if pd is not None:
                tp = best_of(lambda path=path: pd.read_csv(path, sep=r"\s+", comment=";", header=None), args.repeat)
                line += f"; pandas.read_csv {tp:.3f} s; read_swf / pandas = {t / tp:.2f}"
            else:
                line += "; pandas not importable, no comparison"
            print(line)


if __name__ == "__main__":
    main()
