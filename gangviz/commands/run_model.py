"""``gangviz run downey --policy gs|bgs|mgs|mbgs``: long model runs from columns.

When nothing per job is asked for (no steps, JSON or per-job file), a run of a synthetic model
under a gang policy the compiled loop covers needs only the jobs' numbers: they are drawn as
columns (:func:`gangviz.workloads.synthetic.uniform_log_columns`, no job object) and run a
stretch at a time (:func:`gangviz.fast.gangchunks.run_gang_chunks`), so ten million jobs fit in
well under a gigabyte. The figures and the text printed are those of the general path.
"""

from __future__ import annotations

import argparse


def run_model_columns(args: argparse.Namespace) -> int | None:
    """Run ``args`` this way and return 0, or return ``None`` when the run is not of this kind
    (the general path then runs it, and reports any bad option in its own order)."""
    from gangviz.workloads.source import MODELS

    if (args.json or args.steps or args.jobs_out or getattr(args, "ring", False) or args.policy is None
            or args.source.lower() not in MODELS):
        return None
    from gangviz.factory.policy import parse_policy_spec
    from gangviz.fast.gang import covers

    try:
        name, params = parse_policy_spec(args.policy)
        if not covers(name, params):
            return None
        from gangviz.workloads.source import Source, model_options

        procs, seed, title = model_options(args.source, procs=args.procs, slice_seconds=args.slice,
                                           jobs=args.jobs, load=args.load, seed=args.seed)
        from gangviz.factory.policy import make, resolve
        from gangviz.fast.gangchunks import run_gang_chunks, zhou_metrics_of_columns
        from gangviz.workloads.synthetic import uniform_log_columns

        source = Source("model", title, procs, [])
        choice = resolve(source, args.policy)
        policy = make("matrix", choice)
        cols = uniform_log_columns(args.jobs, args.load, procs=procs, seed=seed)
        run = run_gang_chunks(cols.arrival, cols.size, cols.work, choice.name, choice.params, procs)
        metrics = zhou_metrics_of_columns(cols.arrival, cols.size, cols.work, run.finish, procs,
                                          run.time, run.max_rows, run.slot_time)
    except ValueError:
        return None
    from gangviz.experiments.numbers import number, plural
    from gangviz.metrics import json_ready

    print(f"{title} — policy {policy.name}, {plural(procs, 'processor')}")
    print("final matrix (top slot first):")
    print("  (no slots)")
    print("metrics: " + ", ".join(f"{k}={number(v)}" for k, v in json_ready(metrics).items() if v is not None))
    return 0
