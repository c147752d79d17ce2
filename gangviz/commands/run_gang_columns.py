"""``gangviz run downey|TRACE --policy gs|bgs|mgs|mbgs``: gang runs from columns, a stretch at
a time.

A run of a synthetic model or an SWF trace without steps or per-job rows, under a gang policy
the compiled loop covers [Zhang01 §2-§4], needs only the jobs' numbers: they are drawn or read
as columns (:func:`gangviz.workloads.synthetic.uniform_log_columns`, the model's own draws;
:func:`gangviz.workloads.source.load_trace_columns`, the trace's jobs; no job object), run a
stretch at a time cut where the machine is empty (:func:`gangviz.fast.gang_chunks.run_gang_chunks`:
every job's start and finish and the lost capacity of the whole run, bit for bit) and measured
a block at a time (:func:`gangviz.results.figures.columns_figures` with ``block``,
:func:`gangviz.fast.gang_chunks.zhou_metrics_of_columns`): ten million jobs in well under a
gigabyte. What it prints, text or ``--json``, is what the general path prints for the run,
figure for figure and byte for byte (a property test compares the two).
"""

from __future__ import annotations

import argparse
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from gangviz.workloads.source import Source, SourceKind

if TYPE_CHECKING:
    from gangviz.results.figures import Figures

__all__ = ["run_gang_columns"]

#: jobs measured at once (:func:`gangviz.metrics.reduce.core_figures`)
BLOCK = 1 << 16
#: jobs run at once before the loop looks for an empty machine to stop at (``None``: the
#: loop's own :data:`gangviz.fast.gang_chunks.STRETCH`; tests make both tiny)
STRETCH: int | None = None


def run_gang_columns(args: argparse.Namespace) -> int | None:
    """Run ``args`` this way, print the header and figures (or the summary JSON) and return 0;
    or return ``None`` when the run is not of this kind or an option or the input is bad (the
    general path then runs it, and reports the fault in its own words and order).

    Raises :class:`~gangviz.commands.errors.UserError` when the loop refuses a job.
    """
    from gangviz.commands.options import user_policy_params
    from gangviz.workloads.source import MODELS

    if (args.steps or args.ring or args.order or args.policy is None or user_policy_params(args)
            or (args.jobs_out and args.source.lower() in MODELS)):
        return None
    try:
        if args.source.lower() in MODELS:
            found = _model_columns(args)
        else:
            found = _trace_columns(args)
    except ValueError:
        return None
    if found is None:
        return None
    source, cols, name, params, policy, parameters = found
    from gangviz.commands.errors import UserError
    from gangviz.experiments.progress import announce_compiled

    if source.kind == "swf":
        from gangviz.workloads.source import print_warnings

        print_warnings(source.title, cols.warnings)
    from gangviz.workloads.source import Source

    announce_compiled(Source(source.kind, source.title, source.processors, []), [args.policy],
                      jobs=bool(args.jobs_out))
    try:
        figures, run = _figures(source, cols, name, params, args.bsld_threshold, placement=bool(args.jobs_out))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if args.jobs_out:
        _save_jobs(args, source, cols, run, parameters)
    _print(source, args, policy.name, parameters, figures)
    return 0


def _save_jobs(args: argparse.Namespace, source: Source, cols: Any, run: Any, parameters: dict[str, Any]) -> None:
    """Write the per-job file of ``run`` (the loop's run of the trace's columns ``cols``, with
    its placement) to ``args.jobs_out`` and its sidecar: the file and sidecar the general path
    writes for the run."""
    from gangviz.results.compiled_jobs import save_compiled_columns_jobs
    from gangviz.results.jobs import write_sidecar
    from gangviz.results.provenance import policy_record

    save_compiled_columns_jobs(source.title, cols, run, args.jobs_out, label=args.policy, tau=args.bsld_threshold)
    write_sidecar(args.jobs_out, source, policy_record(source, args.policy, "matrix", parameters, "compiled:gang"),
                  args.bsld_threshold)


def _policy(kind: SourceKind, spec: str) -> tuple[str, dict[str, Any], Any, dict[str, Any]] | None:
    """Return ``(name, typed parameters, policy object, parameters as given)`` of ``spec`` when
    the compiled gang loop covers it, else ``None``; raises ``ValueError`` for a bad spec."""
    from gangviz.factory.policy import make, resolve, typed_params
    from gangviz.fast.gang import covers
    from gangviz.workloads.source import Source

    choice = resolve(Source(kind, "", 1, []), spec)
    if choice.entry is None or "compiled" not in choice.entry.loops:
        return None
    params = typed_params(choice)
    if not covers(choice.entry.name, params):
        return None
    return choice.entry.name, params, make("matrix", choice), dict(choice.params)


def _model_columns(args: argparse.Namespace) -> tuple[Any, ...] | None:
    """The model's run as :func:`run_gang_columns` takes it, or ``None``."""
    from gangviz.core.limits import BYTES_PER_COLUMN_JOB, check_memory
    from gangviz.workloads.source import model_options
    from gangviz.workloads.synthetic import uniform_log_columns

    procs, jobs, load, seed, title = model_options(args.source, procs=args.procs, slice_seconds=args.slice,
                                                   jobs=args.jobs, load=args.load, seed=args.seed)
    # a job costs columns only here; over the budget even so, the general path says so
    check_memory(procs, jobs, what=f"the {args.source} model", per_job=BYTES_PER_COLUMN_JOB)
    policy = _policy("model", args.policy)
    if policy is None:
        return None
    c = uniform_log_columns(jobs, load, procs=procs, seed=seed)  # job i: id i, in arrival order
    cols = SimpleNamespace(arrival=c.arrival, size=c.size, work=c.work, estimate=None, warnings=[])
    source = Source("model", title, procs, [], slice_seconds=1.0, count=jobs, seed=seed)
    return (source, cols, *policy)


def _trace_columns(args: argparse.Namespace) -> tuple[Any, ...] | None:
    """The trace's run as :func:`run_gang_columns` takes it, or ``None`` (not a trace; a job
    the compiled loop does not cover, which the general path runs on the reference engine)."""
    from pathlib import Path

    from gangviz.workloads.source import load_trace_columns

    if args.jobs is not None or args.load is not None or args.seed is not None:
        return None  # the general path says why they do not apply
    policy = _policy("swf", args.policy)
    if policy is None:
        return None
    c = load_trace_columns(args.source, procs=args.procs, slice_seconds=args.slice)
    if c is None or not len(c) or np.any(c.arrival[1:] < c.arrival[:-1]):
        return None
    if not (np.all(np.isfinite(c.work)) and np.all((c.size >= 1) & (c.size <= c.processors))):
        return None
    assert c.processors is not None  # load_trace_columns refuses a trace without a machine size
    source = Source("swf", Path(args.source).name, c.processors, [], slice_seconds=c.slice_seconds,
                    count=len(c), warnings=list(c.warnings), path=Path(args.source))
    return (source, c, *policy)


def _figures(source: Source, cols: Any, policy: str, params: dict[str, Any], gamma: float = 10.0, *,
             placement: bool = False) -> tuple[Figures, Any]:
    """Run the jobs of ``cols`` (job i: id i, arrivals in order) and return the run's
    :class:`~gangviz.results.figures.Figures` (core and Zhou00 §4.3), as
    :func:`gangviz.results.figures.run_figures` gives them for the whole run, and the run.
    With ``placement`` the run is one stretch that keeps where every job ran
    (:func:`gangviz.fast.gang.run_gang`, for a per-job file), with the same figures."""
    from gangviz.fast.gang_chunks import run_gang_chunks, zhou_metrics_of_columns
    from gangviz.results.figures import clock_of, columns_figures, zhou_own

    procs, clock = source.processors, clock_of(source)
    seconds = float(source.slice_seconds or 1.0)
    run: Any
    if placement:
        from gangviz.fast.gang import JobArrays, run_gang

        estimate = np.full(len(cols.arrival), np.nan) if cols.estimate is None else cols.estimate
        jobs = JobArrays(np.arange(len(cols.arrival)), cols.arrival, cols.size, cols.work, estimate)
        run = run_gang(jobs, policy, params, procs, placement=True)
    else:
        run = run_gang_chunks(cols.arrival, cols.size, cols.work, policy, params, procs, stretch=STRETCH,
                              starts=True, estimate=cols.estimate)
    zhou = zhou_metrics_of_columns(cols.arrival, cols.size, cols.work, run.finish, procs, run.time,
                                   run.max_rows, run.slot_time, block=BLOCK)
    return columns_figures(cols.arrival, run.start, run.finish, cols.work, cols.size, procs,
                           slice_seconds=seconds, clock=clock, capacity=run.capacity(), family="matrix",
                           own=zhou_own(zhou, clock, seconds), block=BLOCK, gamma=gamma), run


def _print(source: Source, args: argparse.Namespace, name: str, parameters: dict[str, Any],
           figures: Figures) -> None:
    """Print what :func:`gangviz.commands.run._run_source` prints for a compiled run without
    steps: the header line and the figures, or the summary document."""
    from gangviz.results.provenance import policy_record, provenance_lines
    from gangviz.results.summary import header_line, machine, run_document

    mach = machine(source, args.procs, args.slice)
    record = policy_record(source, args.policy, "matrix", parameters, "compiled:gang")
    if args.json:
        import json

        doc = run_document(source, mach, name, parameters, "compiled:gang", figures, record)
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return
    print(header_line(source.title, record["name"], "time slots", mach, source.job_count))
    print("\n".join(provenance_lines(source, {args.policy: record}, figures)))
    print(figures.text())
