"""The per-job table of a run on a compiled loop, equal row for row to the reference engine's.

A compiled time-slot loop (:mod:`gangviz.fast.gang`, :mod:`gangviz.fast.buddy`) asked for its
placement keeps, per job, what :meth:`gangviz.sim.engine.Simulation.run_stats` keeps (the time
of its first slice, the most rows it held at once, the slices it ran in rows other than its
home row [Zhou00 §3]) and the placement log (:class:`gangviz.fast.placement.PlacementLog`),
from which the processors each job held in its first slice come
(:func:`gangviz.fast.intervals.first_columns`). :func:`jobs_of_compiled` turns those arrays
into the columns :func:`gangviz.results.jobs.jobs_of_simulation` gives for the same run on the
reference engine, a column at a time; :func:`save_compiled_jobs` writes them as
:func:`gangviz.results.jobs.save_simulation_jobs` does.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gangviz.results.jobs import BSLD_TAU_SECONDS, _trace_id, _trace_ids, _write_for, job_columns

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.factory.finished import FinishedRun
    from gangviz.workloads.swf import TraceColumns

__all__ = ["has_job_stats", "jobs_of_compiled", "loop_job_columns", "save_compiled_columns_jobs",
           "save_compiled_jobs"]


def has_job_stats(done: FinishedRun) -> bool:
    """Return whether ``done`` ran on a compiled loop asked for a per-job table
    (``run(..., jobs=True)``), so that :func:`jobs_of_compiled` can make it."""
    raw = getattr(done.result, "raw", None)
    return (done.engine.startswith("compiled:") and raw is not None
            and getattr(raw, "rows_held", None) is not None
            and (getattr(raw, "placement", None) is not None or getattr(raw, "first_lo", None) is not None))


def jobs_of_compiled(done: FinishedRun, *, time_scale: float = 1.0,
                     tau: float | None = None) -> dict[str, np.ndarray]:
    """Return the per-job columns (:func:`gangviz.results.jobs.job_columns`) of ``done``, a
    time-slot run on a compiled loop with its placement (:func:`has_job_stats`), rows by job
    id as :func:`gangviz.results.jobs.jobs_of_simulation` orders them; times multiplied by
    ``time_scale``, ``tau`` the bounded-slowdown threshold in those units (default 10).
    Raises ``ValueError`` when the run kept no placement."""
    columns = _compiled_columns(done, time_scale=time_scale, tau=tau)
    columns["processors"] = columns["processors"].strings()
    return columns


def _compiled_columns(done: FinishedRun, *, time_scale: float = 1.0, tau: float | None = None) -> dict[str, Any]:
    """:func:`jobs_of_compiled` with the processors as the
    :class:`~gangviz.results.texts.TextColumn` the writers take."""
    if not has_job_stats(done):
        raise ValueError(f"the {done.label} run on the {done.engine} engine kept no placement: "
                         "run it with jobs=True")
    specs = sorted(done.source.jobs, key=lambda j: (j.arrival, j.id))  # the loops' order
    by_id = np.argsort(np.fromiter((j.id for j in specs), np.int64, len(specs)), kind="stable")
    specs = [specs[i] for i in by_id.tolist()]
    nan = math.nan
    n = len(specs)
    return loop_job_columns(
        done.result.raw, _trace_ids_of(specs), np.fromiter((s.arrival for s in specs), np.float64, n),
        np.fromiter((s.size for s in specs), np.int64, n), np.fromiter((s.work for s in specs), np.float64, n),
        np.fromiter((nan if s.estimate is None else s.estimate for s in specs), np.float64, n),
        rows=by_id, time_scale=time_scale, tau=tau)


def _trace_ids_of(specs: list[Any]) -> np.ndarray | list[str]:
    """Return the ids of ``specs`` as :func:`gangviz.results.jobs._trace_id` gives them, a
    column at a time when they are the jobs of one SWF trace (their fields in one array)."""
    from gangviz.workloads.swf import SWFExtra

    extras = [s.extra for s in specs]
    if extras and all(type(e) is SWFExtra for e in extras):
        raw = extras[0].raw
        if not raw.exact and all(e.raw is raw for e in extras):
            rows = np.fromiter((e.row for e in extras), np.int64, len(extras))
            return _trace_ids(np.asarray(raw.rows[rows, 0], dtype=np.float64), raw.lines[rows])
    return [_trace_id(s) for s in specs]


def loop_job_columns(raw: Any, job_id: Sequence[Any] | np.ndarray, arrival: np.ndarray, size: np.ndarray,
                     work: np.ndarray, estimate: np.ndarray, *, rows: np.ndarray | None = None,
                     time_scale: float = 1.0, tau: float | None = None) -> dict[str, Any]:
    """Return the per-job columns of ``raw``, a compiled loop's result with what a per-job
    table needs (:class:`gangviz.fast.gang.GangRun` with its placement,
    :class:`gangviz.fast.buddy.BuddyRun` with its statistics), for the jobs described by
    ``job_id`` ... ``estimate`` (in the table's order, times in the loop's slices); ``rows[k]``
    is the loop's number of the table's row ``k`` (default: the same order). Times are
    multiplied by ``time_scale``; ``tau`` as :func:`jobs_of_compiled`. The processors are a
    :class:`~gangviz.results.texts.TextColumn` (:func:`gangviz.results.jobs.job_columns`)."""
    from gangviz.fast.intervals import first_texts, range_texts
    from gangviz.results.texts import TextColumn

    first = np.asarray(raw.first_run, dtype=np.float64)
    if getattr(raw, "first_lo", None) is not None:  # one interval per job (a buddy placement)
        texts = TextColumn(*range_texts(raw.first_lo, raw.first_hi, first))
    else:
        log = raw.placement
        texts = TextColumn(*first_texts(log.time, log.entries, log.rows, log.processors, first))
    take = slice(None) if rows is None else rows
    return job_columns(
        job_id, arrival * time_scale, np.asarray(raw.start, dtype=np.float64)[take] * time_scale,
        np.asarray(raw.finish, dtype=np.float64)[take] * time_scale, size, work * time_scale,
        estimate=estimate * time_scale,
        rows_held=np.asarray(raw.rows_held)[take],
        extra_slices=np.asarray(raw.extra_slices, dtype=np.float64)[take],
        processors=texts if rows is None else texts.take(rows),
        tau=BSLD_TAU_SECONDS if tau is None else tau,
    )


def save_compiled_jobs(done: FinishedRun, source: Any, path: str | os.PathLike[str], *, label: str,
                       tau: float | None = None) -> Path:
    """Write the per-job table of ``done`` (:func:`jobs_of_compiled`), run on ``source``, to
    ``path`` in the format of its extension, times in the source's clock; the same file
    :func:`gangviz.results.jobs.save_simulation_jobs` writes for the run on the reference
    engine. Returns the path; raises as :func:`gangviz.results.jobs.write_jobs` does."""
    columns = _compiled_columns(done, time_scale=source.slice_seconds or 1.0, tau=tau)
    specs = sorted(source.jobs, key=lambda j: j.id)
    return _write_for(columns, source.title, source.kind, source.processors, path, label, specs=specs,
                      submit_offset=source.submit_offset)


def save_compiled_columns_jobs(title: str, columns: TraceColumns, raw: Any, path: str | os.PathLike[str], *,
                               label: str, tau: float | None = None) -> Path:
    """Write the per-job table of ``raw``, a compiled loop's run with its placement of the jobs
    of a trace read as columns (a :class:`~gangviz.workloads.swf.TraceColumns`, job ``i`` the
    loop's job ``i``), to ``path``: the file :func:`save_compiled_jobs` writes for the same run
    of the trace's job objects, built without them. Returns the path; raises as
    :func:`gangviz.results.jobs.write_jobs` does."""
    c = columns
    assert c.processors is not None  # load_trace_columns refuses a trace without a machine size
    rows = c.raw_fields()
    table = loop_job_columns(raw, _trace_ids(rows[:, 0], c.line_numbers()), c.arrival, c.size, c.work, c.estimate,
                             time_scale=c.slice_seconds, tau=tau)
    return _write_for(table, title, "swf", c.processors, path, label, raw_fields=rows,
                      submit_offset=c.submit_offset)
