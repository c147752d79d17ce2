"""Run a space-sharing policy on a trace read as columns, for ``gangviz run``.

The IBM study (Zhang01 §2.3) measures gang and space-sharing runs with the same figures; every
run of :mod:`gangviz.commands.run` prints them (:mod:`gangviz.results.figures`). A space-sharing
run of an SWF trace without steps needs only the trace's numbers: :func:`print_trace_run` runs it
on the columns, without a job object, and prints what the general path prints for it, figure for
figure (summary JSON and per-job file included).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gangviz.metrics.ibm import ibm_metrics
from gangviz.spacesharing.backfill import BackfillResult, simulate_backfill
from gangviz.spacesharing.policy import SpaceSharingPolicy
from gangviz.workloads.source import Source

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.core.jobs import JobSpec
    from gangviz.workloads.swf import TraceColumns

__all__ = ["print_trace_run", "run_space_sharing"]


def run_space_sharing(jobs: list[JobSpec], processors: int, policy: SpaceSharingPolicy, *,
                      time_unit: float = 1.0) -> tuple[BackfillResult, dict[str, Any]]:
    """Run ``policy`` on ``jobs`` to the end; return the result and its IBM metrics.

    Raises ``ValueError`` for a job larger than the machine, or when no job finished.
    """
    res = simulate_backfill(jobs, processors, mode=policy.mode, estimates=policy.estimates,
                            kill_at_estimate=policy.kill)
    return res, ibm_metrics(res.records, processors, time_unit=time_unit, capacity=res.capacity)


def print_trace_run(title: str, columns: TraceColumns, policy: SpaceSharingPolicy, *,
                    procs: int | None = None, slice_seconds: float | None = None,
                    parameters: dict[str, Any] | None = None,
                    as_json: bool = False, jobs_out: str | None = None,
                    path: str | None = None, spec: str | None = None, gamma: float = 10.0) -> int:
    """``gangviz run TRACE --policy NAME`` without steps: run ``policy`` on the jobs of a trace
    as columns (a :class:`~gangviz.workloads.swf.TraceColumns`) and print the header and the
    figures (text, or the summary JSON), writing ``jobs_out`` when given; return 0.
    ``procs``/``slice_seconds`` are the options as given, ``path`` the trace's file and
    ``spec`` the policy as given (for the header's provenance), ``gamma`` the bounded
    slowdown's threshold in seconds.

    Raises ``ValueError`` for a job larger than the machine.
    """
    from gangviz.results.figures import columns_figures
    from gangviz.results.provenance import policy_record, provenance_lines
    from gangviz.results.summary import header_line, machine, run_document
    from gangviz.spacesharing.backfill import simulate_backfill_columns

    c = columns
    processors = c.processors
    assert processors is not None  # load_trace_columns refuses a trace without a machine size
    res = simulate_backfill_columns(c.arrival, c.size, c.work, c.estimate, processors, mode=policy.mode,
                                    estimates=policy.estimates, kill_at_estimate=policy.kill)
    source = Source("swf", title, processors, [], slice_seconds=c.slice_seconds, count=len(c),
                    warnings=list(c.warnings), path=Path(path) if path else None)
    label = spec or policy.label()
    record = policy_record(source, label, "space-sharing", dict(parameters or {}), "backfill")
    import numpy as np

    # as arrays once, for the figures and the per-job file
    start, finish, ran = (np.asarray(x, dtype=np.float64) for x in (res.start, res.finish, res.runs))
    if jobs_out:
        from gangviz.results.jobs import save_columns_jobs, write_sidecar

        save_columns_jobs(title, c, start, finish, jobs_out, label=policy.label(), executed=ran, tau=gamma)
        write_sidecar(jobs_out, source, record, gamma)
    figures = columns_figures(c.arrival, start, finish, c.work, c.size, processors,
                              slice_seconds=c.slice_seconds, clock="s", capacity=res.capacity,
                              executed=ran, gamma=gamma)
    mach = machine(source, procs, slice_seconds)
    if as_json:
        import json

        doc = run_document(source, mach, policy.label(), dict(parameters or {}), "backfill",
                           figures, record)
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return 0
    print(header_line(title, record["name"], "space sharing", mach, len(c)))
    print("\n".join(provenance_lines(source, {label: record}, figures)))
    print(figures.text())
    return 0


def _nan_to_none(d: object) -> object:
    if isinstance(d, dict):
        return {k: _nan_to_none(v) for k, v in d.items()}
    return None if isinstance(d, float) and math.isnan(d) else d
