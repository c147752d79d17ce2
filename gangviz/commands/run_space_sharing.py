"""Run a space-sharing policy headless.

The IBM study (Zhang01 §2.3) measures gang and space-sharing runs with the same figures:
:func:`gangviz.metrics.ibm.ibm_metrics`. :func:`run_space_sharing` computes them for a
backfilling run, :func:`gangviz.metrics.ibm.engine_ibm_metrics` for a time-slot engine run, so a
table may mix them; :func:`gangviz.metrics.zhou.zhou_metrics_of_result` gives the time-slot
figures of Zhou00 §4.3 for a backfilling run.
"""

from __future__ import annotations

import math
import sys

from gangviz.metrics.ibm import ibm_metrics
from gangviz.spacesharing.backfill import BackfillResult, simulate_backfill
from gangviz.spacesharing.policy import SpaceSharingPolicy

__all__ = ["print_run", "print_trace_run", "run_space_sharing", "IBM_TABLE"]

#: The IBM figures a comparison table shows, in order.
IBM_TABLE = ("wait", "response", "slowdown", "utilization", "loss_of_capacity")


def run_space_sharing(jobs, processors: int, policy: SpaceSharingPolicy, *,
                      time_unit: float = 1.0, order=None, user: bool = False) -> tuple[BackfillResult, dict]:
    """Run ``policy`` on ``jobs`` to the end (the queue sorted by ``order``, a key of a job's
    spec, when given; ``user``: a user's policy, which simulates itself); return the result and
    its IBM metrics.

    Raises ``ValueError`` for a job larger than the machine, or when no job finished.
    """
    if user:
        res = policy.simulate(jobs, processors)
    else:
        res = simulate_backfill(jobs, processors, mode=policy.mode, estimates=policy.estimates,
                                kill_at_estimate=policy.kill, order=order)
    return res, ibm_metrics(res.records, processors, time_unit=time_unit, capacity=res.capacity)


def print_run(source, policy: SpaceSharingPolicy, *, as_json: bool, steps: bool,
              jobs_out: str | None = None, choice=None, order: str | None = None) -> int:
    """``gangviz run`` for a space-sharing policy: run ``source`` (a
    :class:`~gangviz.workloads.source.Source`) to the end and print text or JSON; return 0.
    ``choice`` is the resolved policy spec (:class:`gangviz.factory.PolicyChoice`) the factory
    builds the step-able simulation from when ``steps`` asks for one; ``order`` a queue order
    (``file.py:function``) or ``None``.

    Times are printed in seconds (job times times the trace's slice length); the metrics are
    those of :func:`gangviz.metrics.ibm.ibm_metrics`; ``steps`` adds the narration of every
    decision; ``jobs_out`` names a per-job file to write (see :mod:`gangviz.results.jobs`).
    Raises ``ValueError`` for a job larger than the machine (the caller turns it into a message).
    """
    unit = source.slice_seconds
    narration = []
    if steps:
        from gangviz.factory.build import build_resolved

        sim = build_resolved(source, choice, policy, order=order)
        sim.run()
        res, metrics = sim.result, sim.ibm_metrics()
        narration = [(s.time * unit, line) for s in sim.steps for line in s.narration]
    else:
        from gangviz.userpolicy.loader import order_key

        user = choice is not None and choice.entry is not None and "user" in choice.entry.traits
        res, metrics = run_space_sharing(source.jobs, source.processors, policy, time_unit=unit,
                                         order=order_key(order) if order else None, user=user)
    if jobs_out:
        import re
        from pathlib import Path

        from gangviz.results.jobs import jobs_of_backfill, write_jobs

        name = Path(source.title).stem.replace(".swf", "") if source.kind == "swf" else source.title
        write_jobs(jobs_of_backfill(res.records, time_scale=unit), jobs_out,
                   workload_name=re.sub(r"[\s,]+", "_", name), processors=source.processors,
                   specs=sorted((r.spec for r in res.records), key=lambda spec: spec.id),
                   submit_offset=getattr(source, "submit_offset", 0.0),
                   note=f"schedule simulated by gangviz, policy {policy.label()}, "
                        f"{source.processors} processors")
    clean = _nan_to_none(metrics)
    if as_json:
        import json

        jobs = [{"id": r.spec.id, "name": r.spec.name, "arrival": r.spec.arrival * unit,
                 "size": r.spec.size, "start": r.start * unit, "finish": r.finish * unit,
                 "reservation": None if r.reservation is None or not math.isfinite(r.reservation)
                 else r.reservation * unit} for r in res.records]
        doc = {"policy": policy.label(), "family": "space-sharing", "processors": source.processors,
               "jobs": jobs, "steps": [{"time": t, "narration": line} for t, line in narration],
               "metrics": clean}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    _print_text(source.title, policy, source.processors, len(res.records), narration, clean)
    return 0


def print_trace_run(title: str, columns, policy: SpaceSharingPolicy) -> int:
    """``gangviz run TRACE --policy NAME`` without steps, JSON or a per-job file: run ``policy``
    on the jobs of a trace as columns (a :class:`~gangviz.workloads.swf.TraceColumns`) and print
    what :func:`print_run` prints for it, figure for figure, without making a job object; return 0.

    Raises ``ValueError`` as :func:`print_run` does.
    """
    from gangviz.metrics.ibm import ibm_metrics_of_columns
    from gangviz.spacesharing.backfill import simulate_backfill_columns

    c = columns
    res = simulate_backfill_columns(c.arrival, c.size, c.work, c.estimate, c.processors, mode=policy.mode,
                                    estimates=policy.estimates, kill_at_estimate=policy.kill)
    metrics = ibm_metrics_of_columns(c.arrival, res.start, res.finish, c.work, c.size, c.processors,
                                     time_unit=c.slice_seconds, capacity=res.capacity)
    _print_text(title, policy, c.processors, len(c), [], _nan_to_none(metrics))
    return 0


def _print_text(title: str, policy: SpaceSharingPolicy, processors: int, jobs: int, narration: list,
                metrics: dict) -> None:
    from gangviz.experiments.numbers import number

    print(f"{title} — policy {policy.label()} (space sharing), {processors} processors, {jobs} jobs")
    for t, line in narration:
        print(f"  t={t:g} s: {line}")
    print("metrics (seconds): " + ", ".join(f"{k}={number(v)}" for k, v in metrics.items()
                                            if isinstance(v, float) and not k.startswith("std")))


def _nan_to_none(d):
    if isinstance(d, dict):
        return {k: _nan_to_none(v) for k, v in d.items()}
    return None if isinstance(d, float) and math.isnan(d) else d
