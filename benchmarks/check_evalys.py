"""Read a per-job CSV written by ``gangviz run ... --jobs-out FILE.csv`` with evalys.

evalys is not a dependency of gangviz; run this with a Python that has it, e.g. a throw-away
environment::

    python -m venv ev && ev/bin/pip install evalys      # any folder of your choice
    gangviz run resources/workloads/KTH-SP2-1996-2.1-cln-first300.swf --procs 128 \\
        --policy br --jobs-out jobs.csv
    ev/bin/python benchmarks/check_evalys.py jobs.csv [gantt.png]

It prints what evalys's ``JobSet.from_csv`` made of the file and, given a PNG name, draws
evalys's Gantt chart. Exits 1 when evalys cannot read the file. ``--quick`` writes the per-job
file of the shipped KTH excerpt under BR into a temporary folder and reads it (evalys needed;
without it, it says so and exits 0 after checking that the file was written).
"""

from __future__ import annotations

import sys


def _quick() -> int:
    """Write the KTH excerpt's per-job CSV under BR to a temporary folder and read it back."""
    import importlib.util
    import subprocess
    import tempfile
    from pathlib import Path

    trace = Path(__file__).resolve().parent.parent / "resources/workloads/KTH-SP2-1996-2.1-cln-first300.swf"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "jobs.csv"
        subprocess.run([sys.executable, "-m", "gangviz", "run", str(trace), "--procs", "128",
                        "--policy", "br", "--jobs-out", str(out)], check=True, stdout=subprocess.DEVNULL)
        if importlib.util.find_spec("evalys") is None:
            rows = len(out.read_text().splitlines()) - 1
            print(f"wrote {rows} job rows; evalys is not installed here, so it did not read them")
            return 0
        return main([str(out)])


def main(argv: list[str]) -> int:
    """Read ``argv[0]`` with evalys, print a summary, optionally save a Gantt chart; return the exit code."""
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="?", help="a per-job CSV written by gangviz --jobs-out")
    ap.add_argument("gantt", nargs="?", help="a PNG file for evalys's Gantt chart")
    ap.add_argument("--quick", action="store_true", help="check the shipped trace's file in a temp folder")
    args = ap.parse_args(argv)
    if args.quick:
        return _quick()
    if not args.csv:
        ap.print_usage()
        return 2
    argv = [args.csv] + ([args.gantt] if args.gantt else [])
    import matplotlib

    matplotlib.use("Agg")
    from evalys.jobset import JobSet

    js = JobSet.from_csv(argv[0])
    df = js.df
    print(f"evalys read {len(df)} jobs from {argv[0]}")
    print(f"resources: {js.res_bounds} (MaxProcs {js.MaxProcs})")
    print(f"columns: {', '.join(df.columns)}")
    print(f"states: {df['final_state'].value_counts().to_dict()}")
    print(f"waiting_time: mean {df['waiting_time'].mean():.6g}, max {df['waiting_time'].max():.6g}")
    print(f"turnaround_time: mean {df['turnaround_time'].mean():.6g}")
    print(f"makespan: {df['finish_time'].max() - df['submission_time'].min():.6g}")
    print(df[["jobID", "submission_time", "starting_time", "finish_time", "allocated_resources"]].head(5)
          .to_string(index=False))
    if len(argv) > 1:
        import matplotlib.pyplot as plt

        js.gantt()
        plt.savefig(argv[1], dpi=80)
        print(f"Gantt chart: {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
