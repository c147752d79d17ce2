"""What writing results costs: the CPU of ``gangviz run`` with ``--json`` or ``--jobs-out``
against the same run without, and of the Python API against the command line.

    python benchmarks/bench_results.py [--trace PATH] [--policy easy] [--repeat 5]
    python benchmarks/bench_results.py --api-policy mgs --trace KTH-SP2-1996-2.1-cln.swf

Each command runs as a whole process (a warm-up first, then ``--repeat`` times, alternating
with the plain run so that a drifting machine affects both alike); the CPU time is the
children's user + system time from ``getrusage``. Prints the minimum and median of each and of
the pair-by-pair ratios. The goals: ``--json`` within 1.2 times the plain run,
``--jobs-out`` within 1.3 times, the API within 1.2 times the command line. The default trace
is the normalised SDSC-SP2 that ships in ``resources/workloads/``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from _timing import ratios, spread

ROOT = Path(__file__).resolve().parent.parent
SDSC = ROOT / "resources" / "workloads" / "SDSC-SP2-1998-4.2-cln-norm.swf.gz"


def cpu_of(argv: list[str]) -> float:
    """Run ``argv`` to its end (output discarded); return its user + system CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(a: list[str], b: list[str], repeat: int) -> tuple[list[float], list[float]]:
    """CPU seconds of ``a`` and ``b``, run in turn ``repeat`` times after one warm-up each."""
    cpu_of(a)
    cpu_of(b)
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(cpu_of(a))
        tb.append(cpu_of(b))
    return ta, tb


def report(name: str, ta: list[float], tb: list[float]) -> None:
    """Print the min / median CPU of ``ta``, of ``tb`` and of their pair-by-pair ratios."""
    print(f"{name:28} {spread(ta)} s  against {spread(tb)} s  ratio {spread(ratios(tb, ta), '.2f')}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(SDSC))
    ap.add_argument("--policy", default="easy")
    ap.add_argument("--api-policy", default=None, help="also time gangviz.simulate with this policy")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    gv = [sys.executable, "-m", "gangviz"]
    plain = gv + ["run", args.trace, "--policy", args.policy]
    with tempfile.TemporaryDirectory() as tmp:
        report("--json", *paired(plain + ["--json"], plain, args.repeat))
        for ext in ("csv", "swf", "parquet"):
            if ext == "parquet":
                try:
                    import pyarrow  # noqa: F401
                except ImportError:
                    continue
            out = str(Path(tmp) / f"jobs.{ext}")
            report(f"--jobs-out .{ext}", *paired(plain + ["--jobs-out", out, "--force"], plain, args.repeat))
    if args.api_policy:
        code = f"import gangviz; gangviz.simulate({args.trace!r}, {args.api_policy!r})"
        cli = gv + ["run", args.trace, "--policy", args.api_policy]
        report(f"API simulate {args.api_policy}", *paired([sys.executable, "-c", code], cli, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
