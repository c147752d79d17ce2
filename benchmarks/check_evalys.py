"""Read a per-job CSV written by ``gangviz run ... --jobs-out FILE.csv`` with evalys.

evalys is not a dependency of gangviz; run this with a Python that has it, e.g. a throw-away
environment::

    python -m venv /tmp/ev && /tmp/ev/bin/pip install evalys
    gangviz run resources/workloads/KTH-SP2-1996-2.1-cln-first300.swf --procs 128 \\
        --policy br --jobs-out jobs.csv
    /tmp/ev/bin/python benchmarks/check_evalys.py jobs.csv [gantt.png]

It prints what evalys's ``JobSet.from_csv`` made of the file and, given a PNG name, draws
evalys's Gantt chart. Exits 1 when evalys cannot read the file.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    """Read ``argv[0]`` with evalys, print a summary, optionally save a Gantt chart; return the exit code."""
    if not argv:
        print(__doc__)
        return 2
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
