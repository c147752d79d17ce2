"""``gangviz run downey --policy gs|bgs|mgs|mbgs``: long model runs from columns, a stretch at
a time.

A run of a synthetic model without steps or per-job rows, under a gang policy the compiled loop
covers [Zhang01 §2-§4], needs only the jobs' numbers: they are drawn as columns
(:func:`gangviz.workloads.synthetic.uniform_log_columns`, the draws of the model, no job
object), run a stretch at a time cut where the machine is empty
(:func:`gangviz.fast.gangchunks.run_gang_chunks`: every job's start and finish and the lost
capacity of the whole run, bit for bit) and measured a block at a time
(:func:`gangviz.results.figures.columns_figures` with ``block``,
:func:`gangviz.fast.gangchunks.zhou_metrics_of_columns`): ten million jobs in well under a
gigabyte. What it prints, text or ``--json``, is what the general path prints for the run,
figure for figure and byte for byte (a property test compares the two).
"""

from __future__ import annotations

import argparse
import sys
from types import SimpleNamespace

__all__ = ["run_model_columns"]

#: jobs measured at once (:func:`gangviz.metrics.ibm_blocks.ibm_metrics_of_column_blocks`)
BLOCK = 1 << 16
#: jobs run at once before the loop looks for an empty machine to stop at (``None``: the
#: loop's own :data:`gangviz.fast.gangchunks.STRETCH`; tests make both tiny)
STRETCH: int | None = None


def run_model_columns(args: argparse.Namespace) -> int | None:
    """Run ``args`` this way, print the header and figures (or the summary JSON) and return 0;
    or return ``None`` when the run is not of this kind or an option is bad (the general path
    then runs it, and reports a bad option in its own words and order).

    Raises :class:`~gangviz.commands.errors.UserError` when the loop refuses a job.
    """
    from gangviz.commands.options import user_policy_params
    from gangviz.workloads.source import MODELS

    if (args.steps or args.jobs_out or args.ring or args.order or args.policy is None
            or args.source.lower() not in MODELS or user_policy_params(args)):
        return None
    from gangviz.core.limits import check_memory
    from gangviz.factory.policy import make, resolve, typed_params
    from gangviz.fast.gang import covers
    from gangviz.workloads.source import Source, model_options

    try:
        procs, jobs, load, seed, title = model_options(args.source, procs=args.procs,
                                                       slice_seconds=args.slice, jobs=args.jobs,
                                                       load=args.load, seed=args.seed)
        check_memory(procs, jobs, what=f"the {args.source} model")  # the general path's refusal
        source = Source("model", title, procs, [])
        choice = resolve(source, args.policy)
        if choice.entry is None or "compiled" not in choice.entry.loops:
            return None
        params = typed_params(choice)
        if not covers(choice.entry.name, params):
            return None
        policy = make("matrix", choice)
    except ValueError:
        return None
    from gangviz.commands.errors import UserError
    from gangviz.experiments.progress import announce_compiled

    announce_compiled(source, [choice.spec])
    try:
        figures = _model_figures(args.source, jobs, load, procs, seed, choice.entry.name, params,
                                 stretch=STRETCH, block=BLOCK)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    _print(SimpleNamespace(title=title, kind="model", processors=procs, jobs=range(jobs)), args,
           policy.name, dict(choice.params), figures)
    return 0


def _model_figures(model: str, jobs: int, load: float, procs: int, seed: int, policy: str,
                   params: dict, *, stretch: int | None, block: int):
    """Draw the model's jobs, run them, and return the run's
    :class:`~gangviz.results.figures.Figures` (core and Zhou00 §4.3), as
    :func:`gangviz.results.figures.run_figures` gives them for the whole run."""
    from gangviz.fast.gangchunks import run_gang_chunks, zhou_metrics_of_columns
    from gangviz.results.figures import columns_figures, zhou_own
    from gangviz.workloads.synthetic import uniform_log_columns

    cols = uniform_log_columns(jobs, load, procs=procs, seed=seed)  # job i: id i, in arrival order
    run = run_gang_chunks(cols.arrival, cols.size, cols.work, policy, params, procs, stretch=stretch,
                          starts=True)
    zhou = zhou_metrics_of_columns(cols.arrival, cols.size, cols.work, run.finish, procs, run.time,
                                   run.max_rows, run.slot_time, block=block)
    return columns_figures(cols.arrival, run.start, run.finish, cols.work, cols.size, procs,
                           slice_seconds=1.0, clock="slice", capacity=run.capacity(), family="matrix",
                           own=zhou_own(zhou, "slice", 1.0), block=block)


def _print(source, args: argparse.Namespace, name: str, parameters: dict, figures) -> None:
    """Print what :func:`gangviz.commands.run._run_source` prints for a compiled run without
    steps: the header line and the figures, or the summary document."""
    from gangviz.results.summary import header_line, machine, run_document

    mach = machine(source, args.procs, args.slice)
    if args.json:
        import json

        doc = run_document(source, mach, name, parameters, "compiled:gang", figures)
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return
    print(header_line(source.title, name, "time slots", mach, len(source.jobs)))
    print(figures.text())
