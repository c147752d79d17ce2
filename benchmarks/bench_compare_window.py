"""Benchmark of the compare window on a big workload. Prints figures; asserts nothing.

    python benchmarks/bench_compare_window.py [--trace FILE] [--policy gs --policy mgs ...]

Prints the seconds from the start of the process to the window's first frame (the panes drawn,
their runs still going), to every pane filled, and the process's peak resident memory.
Targets on LANL-CM5 (122k jobs, 1,024 processors) with gs, mgs, easy and brmms: first frame
<= 10 s, peak <= 1.5 GB. Without ``--trace`` a 1,024-processor synthetic workload of 20,000 jobs
is generated. Runs offscreen (QT_QPA_PLATFORM=offscreen is set when unset).
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse
import os
import resource

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", help="an SWF file")
    ap.add_argument("--policy", action="append", help="a policy spec (repeat; default gs mgs easy brmms)")
    args = ap.parse_args()
    policies = args.policy or ["gs", "mgs", "easy", "brmms"]
    from gangviz.gui.compare.window import CompareWindow
    from gangviz.gui.qapp import application
    from gangviz.workloads.source import load_source

    app = application(offscreen=True)
    source = (load_source(args.trace) if args.trace
              else load_source("downey", jobs=20_000, procs=1024, load=0.8, seed=1))
    loaded = time.perf_counter() - T0
    win = CompareWindow(source, policies)
    win.resize(1680, 1050)
    win.show()
    app.processEvents()
    win.grab()  # the first frame, painted
    first = time.perf_counter() - T0
    while win.pending:
        app.processEvents()
        time.sleep(0.02)
    win.set_time(win.end / 2)
    win.grab()
    filled = time.perf_counter() - T0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{source.title}: {len(source.jobs):,} jobs, {source.processors:,} processors, {', '.join(policies)}")
    print(f"  source loaded      {loaded:7.2f} s")
    print(f"  first frame        {first:7.2f} s")
    print(f"  every pane filled  {filled:7.2f} s   failures: {win.failures or 'none'}")
    print(f"  peak RSS           {peak:7.0f} MB")


if __name__ == "__main__":
    main()
