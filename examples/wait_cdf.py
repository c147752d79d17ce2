"""Compare three gang-scheduling policies on a shipped trace and plot their wait-time CDFs.

Run from the repository root (needs matplotlib: ``pip install matplotlib``)::

    python examples/wait_cdf.py                 # writes wait_cdf.png
    python examples/wait_cdf.py out.png         # or a name of your choice

It uses the notebook API: :func:`gangviz.compare` runs buddy-based allocation without (BR)
and with (BRMS) multi-slot running and the plain buddy scheme (BC) [Zhou00 §3] on the same
jobs; each result's ``jobs`` table has one row per job (wait, response, bounded slowdown,
...). The left panel is the distribution of waits (time from arrival to the first slice a job
ran), the right one of bounded slowdowns.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np

import gangviz

TRACE = Path(__file__).resolve().parent.parent / "resources" / "workloads" / "downey-200-load0.5-seed1.swf"
POLICIES = ["bc", "br", "brms"]


def cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the sorted values and the fraction of values at or below each."""
    x = np.sort(values[~np.isnan(values)])
    return x, np.arange(1, len(x) + 1) / len(x)


def main(out: str = "wait_cdf.png") -> Path:
    """Run the comparison, print the mean wait and response per policy, save the plot; return its path."""
    results = gangviz.compare(TRACE, POLICIES)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    print(f"{'policy':8} {'mean wait':>10} {'mean response':>16} {'mean bsld':>10}")
    for policy, result in results.items():
        jobs = result.jobs
        print(f"{policy:8} {jobs['wait'].mean():10.2f} {jobs['response'].mean():16.2f} "
              f"{np.nanmean(jobs['bounded_slowdown']):10.3f}")
        left.step(*cdf(jobs["wait"]), where="post", label=policy.upper())
        right.step(*cdf(jobs["bounded_slowdown"]), where="post", label=policy.upper())
    unit = next(iter(results.values())).time_unit
    left.set(xlabel=f"wait ({unit})", ylabel="fraction of jobs", title="Wait before the first slice")
    right.set(xlabel="bounded slowdown", title="Bounded slowdown (tau = 10 s)")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    fig.suptitle(f"{TRACE.name}, {next(iter(results.values())).processors} processors")
    path = Path(out)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"plot: {path}")
    return path


if __name__ == "__main__":
    main(*sys.argv[1:2])
