"""Per-job results: one row per job, and writers for the formats analysis tools read.

:func:`job_columns` builds the table from plain per-job arrays (:func:`job_table` turns it
into rows), so any policy (gang or space sharing) can produce one; :func:`jobs_of_simulation` fills those arrays from a finished
:class:`~gangviz.sim.engine.Simulation`. :func:`write_jobs` writes the table by file extension:

* ``.csv``: the column layout of Batsim's ``_jobs.csv`` output (``job_id, workload_name,
  profile, submission_time, requested_number_of_resources, requested_time, success,
  final_state, starting_time, execution_time, finish_time, waiting_time, turnaround_time,
  stretch, allocated_resources, consumed_energy, metadata``), which evalys's
  ``JobSet.from_csv`` reads, followed by four columns of gangviz's own: ``work``,
  ``bounded_slowdown``, ``rows_held``, ``extra_slices`` and ``served``. As in Batsim, ``execution_time`` is
  ``finish_time - starting_time`` and ``stretch`` is ``turnaround_time / execution_time``;
  ``allocated_resources`` is the interval set of the processors (0-based) the job held in its
  first slice (a space-sharing job: those :func:`gangviz.results.placement.place_counts`
  names), in Batsim's syntax (``0-23 25 28-29``), of any length; ``consumed_energy`` is -1 (not simulated). An undefined value is an empty field.
* ``.swf``: the Standard Workload Format with the schedule filled in: field 3 (wait) is
  ``start - submit`` and field 4 (run) is ``finish - start``, the time the job occupied the
  machine (under time sharing longer than its work); status (field 11) is 1 for a completed
  job and 5 for a terminated one. The fields the simulation does not decide keep the input
  trace's values. A job that did not finish gets -1 for wait and run, which SWF readers skip.
* ``.parquet`` (needs pyarrow: ``pip install 'gangviz[parquet]'``): the CSV's columns, typed.

Times are in the source's clock: seconds for SWF traces (relative to the first submit; the SWF
output adds the trace's first submit time back), slices otherwise.

The columns of the table (:data:`JOB_DTYPE`):

``job_id``: the id in the input (the SWF job number, else the job's name); ``arrival``;
``start``: when the job left the queue, in this table as in the run's figures: a space-sharing
job started, a time-slot job placed in a slot of the matrix (its row's first turn, its first
slice, may come a few slices later). Zhang01 §2.3 defines the wait t_s - t_a and counts
capacity as lost only "when it has jobs waiting in the queue" (eqs. 2-3): a job in the matrix
waits no longer. ``finish``; ``wait`` = start - arrival; ``response`` = finish - arrival;
``bounded_slowdown`` = max(response, tau) / max(executed, tau) with tau = 10 seconds (10 slices
for sources without a clock) and executed = min(work, finish - start), the time the job ran
(less than its work when it was stopped at its estimate), exactly as
:func:`gangviz.metrics.ibm.bounded_slowdowns` computes the run's mean [Zhang01 §2.3];
``size`` (processors); ``work`` (the job's run time on dedicated processors); ``estimate``
(``nan`` when none); ``state`` (Batsim's final-state names: ``COMPLETED_SUCCESSFULLY``,
``COMPLETED_KILLED``, ``RUNNING``, ``SUBMITTED``; a job stopped at its estimate is
``COMPLETED_KILLED``); ``served``: the time the job ran on its processors, its work or, when it
was stopped at its estimate, less (``nan`` until it finished); ``rows_held``: the most rows (time slots)
the job held at once, above 1 only when it ran in extra slots [Zhou00 §3]; ``extra_slices``:
slices it ran in rows other than its home row; ``processors``: see ``allocated_resources``.
Undefined times (a job that has not started or finished) are ``nan``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

import numpy as np

from gangviz.core.registry import family
from gangviz.metrics.ibm import bounded_slowdowns, executed_by_id
from gangviz.outputs import atomic, write_text_atomically
from gangviz.results.placement import interval_set, place_counts, place_texts
from gangviz.results.provenance import source_record
from gangviz.results.texts import TextColumn

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.core.jobs import JobSpec

#: the dtype of a per-job table (see the module docstring)
JOB_DTYPE = np.dtype([
    ("job_id", "O"), ("arrival", "f8"), ("start", "f8"), ("finish", "f8"), ("wait", "f8"),
    ("response", "f8"), ("bounded_slowdown", "f8"), ("size", "i8"), ("work", "f8"),
    ("estimate", "f8"), ("state", "U24"), ("served", "f8"), ("rows_held", "i8"), ("extra_slices", "f8"),
    ("processors", "O"),
])

#: Batsim's ``_jobs.csv`` columns, in order
BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
    "waiting_time", "turnaround_time", "stretch", "allocated_resources", "consumed_energy",
    "metadata",
)
#: gangviz's own columns after Batsim's
EXTRA_COLUMNS = ("work", "bounded_slowdown", "rows_held", "extra_slices", "served")

#: the final states by code (killed, finished, running, waiting), Batsim's names
_STATES = np.array(["COMPLETED_KILLED", "COMPLETED_SUCCESSFULLY", "RUNNING", "SUBMITTED"])

#: rows of text :func:`joined_rows` builds at a time
JOIN_ROWS = 4096

#: the bounded-slowdown threshold, in seconds
BSLD_TAU_SECONDS = 10.0

FORMATS = (".csv", ".swf", ".parquet")


def job_table(columns: dict[str, np.ndarray]) -> np.ndarray:
    """Return the per-job table (a structured array of :data:`JOB_DTYPE`) of ``columns`` as
    :func:`job_columns` returns them, as rows; the texts of any length (``job_id`` and
    ``processors`` are Python strings, never cut to a width)."""
    t = np.zeros(len(columns["job_id"]), dtype=JOB_DTYPE)
    for name in JOB_DTYPE.names or ():
        col = columns[name]
        t[name] = col.strings() if isinstance(col, TextColumn) else col
    return t


def job_columns(
    job_id: Sequence[Any] | np.ndarray,
    arrival: Sequence[float] | np.ndarray,
    start: Sequence[float] | np.ndarray,
    finish: Sequence[float] | np.ndarray,
    size: Sequence[int] | np.ndarray,
    work: Sequence[float] | np.ndarray,
    *,
    estimate: Sequence[float] | np.ndarray | None = None,
    killed: Sequence[bool] | np.ndarray | None = None,
    counted: Sequence[bool] | np.ndarray | None = None,
    rows_held: Sequence[int] | np.ndarray | None = None,
    extra_slices: Sequence[float] | np.ndarray | None = None,
    processors: Sequence[str] | TextColumn | None = None,
    served: Sequence[float] | np.ndarray | None = None,
    tau: float = BSLD_TAU_SECONDS,
) -> dict[str, Any]:
    """Return the per-job columns of plain arrays as a dict of arrays named and typed as
    :data:`JOB_DTYPE`'s fields (texts not cut to the field's width): what :func:`write_jobs`
    writes, without :func:`job_table`'s fixed-width rows.

    ``start`` and ``finish`` hold ``nan`` for a job that has not started or finished;
    ``killed`` marks terminated jobs (their ``finish`` is the termination time); ``counted``
    marks the jobs that have a bounded slowdown (default: finished and not killed; a job
    stopped at its estimate counts, one terminated by a scenario does not). Without
    ``rows_held`` a job that ran held one row; without ``extra_slices`` none ran in an extra
    one. ``processors`` given as a :class:`~gangviz.results.texts.TextColumn` stays one (what
    the writers take fastest; :func:`job_table` makes its strings). ``served`` is the time each job ran (default: ``min(work, finish - start)`` once it
    finished); a space-sharing run gives it exactly, since a job stopped at its estimate ran
    its estimate. ``tau`` is the bounded-slowdown threshold in the table's time unit. Raises
    ``ValueError`` when the arrays differ in length or ``tau`` is not > 0.
    """
    n = len(job_id)
    given = {"arrival": arrival, "start": start, "finish": finish, "size": size, "work": work,
             "estimate": estimate, "killed": killed, "rows_held": rows_held,
             "extra_slices": extra_slices, "processors": processors, "served": served}
    for name, values in given.items():
        if values is not None and len(values) != n:
            raise ValueError(f"per-job array {name!r} has {len(values)} entries, job_id has {n}")
    if not tau > 0:
        raise ValueError(f"the bounded-slowdown threshold must be > 0, got {tau}")
    t: dict[str, np.ndarray] = {}
    if isinstance(job_id, np.ndarray) and job_id.dtype.kind in "Uiu":  # converted in one call
        t["job_id"] = job_id.astype(str)
    elif (isinstance(job_id, np.ndarray) and job_id.dtype.kind == "O"
          and set(map(type, job_id.tolist())) <= {str}):  # texts already: kept, any length
        t["job_id"] = job_id.copy()
    else:
        t["job_id"] = np.array([str(v) for v in job_id], dtype=str) if n else np.zeros(0, "U1")
    for name in ("arrival", "start", "finish", "size", "work"):
        t[name] = np.asarray(given[name], dtype=JOB_DTYPE[name]).reshape(n)
    t["estimate"] = np.full(n, np.nan) if estimate is None else np.asarray(estimate, dtype=float).reshape(n)
    dead = np.zeros(n, bool) if killed is None else np.asarray(killed, dtype=bool).reshape(n)
    started = ~np.isnan(t["start"])
    finished = ~np.isnan(t["finish"])
    t["wait"] = t["start"] - t["arrival"]
    t["response"] = t["finish"] - t["arrival"]
    with np.errstate(invalid="ignore"):
        bsld = bounded_slowdowns(t["arrival"], t["start"], t["finish"], t["work"], tau)
    has = finished & ~dead if counted is None else np.asarray(counted, dtype=bool) & finished & started
    t["bounded_slowdown"] = np.where(has, bsld, np.nan)
    code = np.where(dead, 0, np.where(finished, 1, np.where(started, 2, 3)))
    t["state"] = _STATES[code]
    with np.errstate(invalid="ignore"):
        ran = (np.minimum(t["work"], t["finish"] - t["start"]) if served is None
               else np.asarray(served, dtype=float).reshape(n))
    t["served"] = np.where(finished & started, ran, np.nan)
    t["rows_held"] = (started.astype(np.int64) if rows_held is None
                      else np.asarray(rows_held).astype(np.int64).reshape(n))
    t["extra_slices"] = (np.zeros(n) if extra_slices is None
                         else np.asarray(extra_slices, dtype=float).reshape(n))
    if processors is None:
        t["processors"] = np.full(n, "", dtype=object)
    elif isinstance(processors, TextColumn):
        t["processors"] = processors  # type: ignore[assignment]  # (written as it is)
    else:  # (not from a list: numpy would look into every str for a sequence)
        t["processors"] = np.fromiter(processors, dtype=object, count=n)
    return {name: t[name] for name in JOB_DTYPE.names or ()}


def jobs_of_simulation(sim: Any, *, time_scale: float = 1.0, tau: float | None = None) -> np.ndarray:
    """Return the per-job table of a :class:`~gangviz.sim.engine.Simulation` (run or paused).

    Rows follow the job ids (the workload's order). Times are multiplied by ``time_scale``
    (a trace's seconds per slice); ``tau`` (default: 10 seconds in ``time_scale`` units, i.e.
    10 when the scale is 1) is the bounded-slowdown threshold in output units.
    """
    records = sim.records()
    _, rows_held, extra = sim.run_stats()
    ids = np.array([r.spec.id for r in records], dtype=np.int64)
    nan = math.nan
    return job_table(job_columns(
        [_trace_id(r.spec) for r in records],
        [r.spec.arrival * time_scale for r in records],
        [nan if r.start is None else r.start * time_scale for r in records],
        [nan if r.finish is None else r.finish * time_scale for r in records],
        [r.spec.size for r in records],
        [r.spec.work * time_scale for r in records],
        estimate=[nan if r.spec.estimate is None else r.spec.estimate * time_scale for r in records],
        killed=[r.terminated for r in records],
        rows_held=rows_held[ids].astype(np.int64) if len(ids) else [],
        extra_slices=extra[ids] if len(ids) else [],
        processors=[interval_set(sim.first_columns(int(j))) for j in ids.tolist()],
        tau=BSLD_TAU_SECONDS if tau is None else tau,
    ))


def jobs_of_backfill(records: Sequence[Any], *, time_scale: float = 1.0,
                     tau: float | None = None, executed: Sequence[float] | np.ndarray | None = None,
                     processors: int | None = None) -> np.ndarray:
    """Return the per-job table of a space-sharing run (FCFS, EASY, conservative) from its
    :class:`~gangviz.spacesharing.backfill.BackfillRecord` list, rows in job-id order.

    Times are multiplied by ``time_scale``; a job holds one "row" (the machine) from its start.
    A space-sharing run books counts, not named processors: given the machine's
    ``processors``, each job's are chosen after the run
    (:func:`gangviz.results.placement.place_counts`), else the column stays empty.
    ``executed`` is the time each job ran, in the order of ``records`` sorted by job id
    (:func:`gangviz.metrics.ibm.executed_by_id` of the run's result); a job that ran less than
    its work was stopped at its estimate (``kill_at_estimate``) and is ``COMPLETED_KILLED``,
    as is one whose record says ``terminated``. Without ``executed`` a job that occupied the
    machine for less than its work was stopped.
    """
    recs = sorted(records, key=lambda r: r.spec.id)
    if executed is None:
        killed = [r.terminated or (r.start is not None and r.finish is not None
                                   and r.finish - r.start < r.spec.work - 1e-9) for r in recs]
        ran = None
    else:
        ran = np.asarray(executed, dtype=float) * time_scale
        work = np.fromiter((r.spec.work for r in recs), np.float64, len(recs)) * time_scale
        killed = (ran < work) | np.fromiter((r.terminated for r in recs), bool, len(recs))
    nan = math.nan
    start = [nan if r.start is None else r.start * time_scale for r in recs]
    finish = [nan if r.finish is None else r.finish * time_scale for r in recs]
    size = [r.spec.size for r in recs]
    named = None if processors is None else place_counts(start, finish, size, processors)
    return job_table(job_columns(
        [_trace_id(r.spec) for r in recs],
        [r.spec.arrival * time_scale for r in recs],
        start,
        finish,
        size,
        [r.spec.work * time_scale for r in recs],
        estimate=[nan if r.spec.estimate is None else r.spec.estimate * time_scale for r in recs],
        killed=killed,
        counted=[not r.terminated for r in recs],
        served=ran,
        processors=named,
        tau=BSLD_TAU_SECONDS if tau is None else tau,
    ))


def save_simulation_jobs(sim: Any, source: Any, path: str | os.PathLike[str], *, label: str = "",
                         tau: float | None = None) -> Path:
    """Write the per-job table of ``sim``, run on ``source`` (a
    :class:`~gangviz.workloads.source.Source`), to ``path`` in the format of its extension,
    times in the source's clock; ``label`` (the policy) goes into the SWF header note.

    Returns the path; raises as :func:`write_jobs` does.
    """
    kind = family(sim.family)
    name = label or (sim.policy.label() if kind.labelled else sim.policy.name)
    if kind.backfills:
        return save_backfill_jobs(sim.result.records, source, path, label=name,
                                  executed=executed_by_id(sim.result), tau=tau)
    scale = source.slice_seconds or 1.0
    table = jobs_of_simulation(sim, time_scale=scale, tau=tau)
    specs = [r.spec for r in sim.records()]
    return _write_for(table, source.title, source.kind, source.processors, path, name,
                      specs=specs, submit_offset=source.submit_offset)


def sidecar_path(path: str | os.PathLike[str]) -> Path:
    """Return the sidecar of per-job file ``path``: the same name with ``.json`` added."""
    p = Path(path)
    return p.with_name(p.name + ".json")


def sidecar_document(source: Any, record: dict[str, Any], tau: float | None = None) -> dict[str, Any]:
    """Return what a per-job file's sidecar says, its file's name aside: gangviz's version,
    the ``policy`` record (:func:`gangviz.results.provenance.policy_record`), the ``source``
    record, the time unit and the bounded slowdown's threshold ``tau`` of the file's
    ``bounded_slowdown`` column (``bsld_threshold``, in the file's time unit; default 10).
    Plain data: a run in another process sends it back with the table, for
    :func:`write_sidecar_document`."""
    from gangviz.results.summary import version

    return {"gangviz": version(), "policy": record, "source": source_record(source),
            "time_unit": "s" if source.kind == "swf" else "slice",
            "bsld_threshold": BSLD_TAU_SECONDS if tau is None else float(tau)}


def write_sidecar_document(path: str | os.PathLike[str], doc: dict[str, Any]) -> Path:
    """Write the sidecar of per-job file ``path`` (:func:`sidecar_path`) saying ``doc``
    (:func:`sidecar_document`) and the file's name (``jobs_file``); return its path. Raises
    ``OSError`` when it cannot be written."""
    import json

    full = {"gangviz": doc["gangviz"], "jobs_file": Path(path).name,
            **{k: v for k, v in doc.items() if k != "gangviz"}}
    out = sidecar_path(path)
    write_text_atomically(out, json.dumps(full, indent=1) + "\n")
    return out


def write_sidecar(path: str | os.PathLike[str], source: Any, record: dict[str, Any],
                  tau: float | None = None) -> Path:
    """Write the sidecar of per-job file ``path`` (:func:`sidecar_path`): gangviz's version,
    the ``policy`` record (:func:`gangviz.results.provenance.policy_record`), the ``source``
    record and the bounded slowdown's threshold ``tau`` (:func:`sidecar_document`); return its
    path. Raises ``OSError`` when it cannot be written."""
    return write_sidecar_document(path, sidecar_document(source, record, tau))


def save_backfill_jobs(records: Sequence[Any], source: Any, path: str | os.PathLike[str], *,
                       label: str, executed: Sequence[float] | np.ndarray | None = None,
                       tau: float | None = None) -> Path:
    """Write the per-job table of a space-sharing run (its records, and the time each ran as
    :func:`jobs_of_backfill` takes it) on ``source`` to ``path``; return the path. Raises as
    :func:`write_jobs` does."""
    scale = source.slice_seconds or 1.0
    table = jobs_of_backfill(records, time_scale=scale, executed=executed, processors=source.processors,
                             tau=tau)
    specs = sorted((r.spec for r in records), key=lambda spec: spec.id)
    return _write_for(table, source.title, source.kind, source.processors, path, label, specs=specs,
                      submit_offset=source.submit_offset)


def save_columns_jobs(title: str, columns: Any, start: Sequence[float] | np.ndarray,
                      finish: Sequence[float] | np.ndarray, path: str | os.PathLike[str], *, label: str,
                      executed: Sequence[float] | np.ndarray | None = None, tau: float | None = None) -> Path:
    """Write the per-job table of a space-sharing run of a trace read as columns (a
    :class:`~gangviz.workloads.swf.TraceColumns`; ``start``/``finish`` per job, in slices) to
    ``path``, the same file :func:`save_backfill_jobs` writes for the same run, built a column
    at a time; ``executed`` is the time each job ran (the result's ``runs``). Returns the path;
    raises as :func:`write_jobs` does."""
    c = columns
    u = c.slice_seconds
    st = np.asarray(start, dtype=np.float64)
    fi = np.asarray(finish, dtype=np.float64)
    ran = None if executed is None else np.asarray(executed, dtype=np.float64)
    killed = (fi - st) < c.work - 1e-9 if ran is None else ran < c.work
    rows = c.raw_fields()
    ids = _trace_ids(rows[:, 0], c.line_numbers())
    table = job_columns(ids, c.arrival * u, st * u, fi * u, c.size, c.work * u,
                        estimate=c.estimate * u, killed=killed, counted=np.ones(len(st), bool),
                        served=None if ran is None else ran * u,
                        processors=place_texts(st * u, fi * u, c.size, c.processors),
                        tau=BSLD_TAU_SECONDS if tau is None else tau)
    return _write_for(table, title, "swf", c.processors, path, label, raw_fields=rows,
                      submit_offset=c.submit_offset)


def _trace_ids(job: np.ndarray, lines: np.ndarray) -> np.ndarray | list[str]:
    """Return the ids of a trace's jobs: the SWF job number (field 1) as :func:`number_texts`
    writes it, ``L<line>`` where it is -1: an object array of ``str`` written by the optional
    C writer (:func:`compiled_rows`, one number a line), else converted a column at a time
    when every number is a whole one (the usual case)."""
    text = compiled_rows([job], ",", quote=False) if len(job) else None
    if text is not None:
        ids = np.fromiter(text.decode("ascii").split("\n")[:-1], dtype=object, count=len(job))
        missing = np.flatnonzero(job == -1)
        if len(missing):
            ids[missing] = [f"L{ln}" for ln in np.asarray(lines)[missing].tolist()]
        return ids
    if len(job) and bool((job == np.floor(job)).all()) and float(np.abs(job).max()) < 2.0**53:
        ids = job.astype(np.int64).astype(str)
        missing = np.flatnonzero(job == -1)
        if len(missing):
            ids = ids.astype(f"U{max(ids.dtype.itemsize // 4, 21)}")
            ids[missing] = [f"L{ln}" for ln in np.asarray(lines)[missing].tolist()]
        return ids
    return [t if j != -1 else f"L{ln}" for t, j, ln in zip(number_texts(job), job.tolist(),
                                                            np.asarray(lines).tolist())]


def _write_for(table: Any, title: str, kind: str, processors: int, path: str | os.PathLike[str],
               label: str, *, specs: Sequence[Any] | None = None, raw_fields: np.ndarray | None = None,
               submit_offset: float = 0.0) -> Path:
    name = Path(title).stem.replace(".swf", "") if kind == "swf" else title
    note = f"schedule simulated by gangviz, policy {label}, {processors} processors"
    return write_jobs(table, path, workload_name=re.sub(r"[\s,]+", "_", name), processors=processors,
                      specs=specs, raw_fields=raw_fields, submit_offset=submit_offset, note=note)


def _trace_id(spec: JobSpec) -> str:
    raw = spec.extra.get("swf") if isinstance(spec.extra, Mapping) else None
    if raw is not None and len(raw) > 0 and raw[0] != -1:
        return str(raw[0])
    return spec.name


def path_for(path: str | os.PathLike[str], label: str) -> Path:
    """Return ``path`` with ``label`` added to its name (``jobs.csv``, ``bc`` -> ``jobs-bc.csv``).

    Characters other than letters, digits, ``.``, ``_`` and ``-`` in the label become ``_``
    (``random:seed=3`` -> ``random_seed_3``).
    """
    p = Path(path)
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", label)
    return p.with_name(f"{p.stem}-{safe}{p.suffix}")


def check_format(path: str | os.PathLike[str]) -> str:
    """Return the extension of ``path`` if it is a per-job format; raise ``ValueError`` otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path}: per-job output is written as {', '.join(FORMATS)} "
                         f"(by the file's extension), not {suffix or 'a file without one'!r}")
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(f"{path}: writing Parquet needs pyarrow: "
                             "pip install 'gangviz[parquet]'") from None
    return suffix


class SWFOptions(TypedDict, total=False):
    """What only the SWF output uses (every key optional): ``processors``, the machine size;
    ``specs``, the :class:`~gangviz.core.jobs.JobSpec` of each row, whose raw SWF fields the
    output keeps, or ``raw_fields``, those fields as an ``(rows, 18)`` float array;
    ``submit_offset``, seconds added to the submit times; ``note``, a header comment."""

    processors: int | None
    specs: Sequence[Any] | None
    raw_fields: np.ndarray | None
    submit_offset: float
    note: str


def write_jobs(table: Any, path: str | os.PathLike[str], *, workload_name: str = "w0",
               **swf: Unpack[SWFOptions]) -> Path:
    """Write ``table`` (a per-job table, or the dict of its columns of :func:`job_columns`) to
    ``path`` in the format of its extension (see the module docstring), in one write of the
    whole text (column by column, never cell by cell).

    ``workload_name`` fills Batsim's column of that name; ``swf`` serves the SWF output
    (:class:`SWFOptions`, :func:`write_swf_schedule`). Returns the path. Raises ``ValueError``
    for an unknown extension or Parquet without pyarrow, ``OSError`` when the file cannot be
    written.
    """
    suffix = check_format(path)
    with atomic(path) as tmp:  # an interrupted run leaves no truncated table behind
        if suffix == ".swf":
            write_swf_schedule(table, tmp, **swf)
        elif suffix == ".parquet":
            _write_parquet(table, tmp, workload_name)
        else:
            cols = batsim_columns(table, workload_name, texts_as_given=True)
            names = BATSIM_COLUMNS + EXTRA_COLUMNS
            body = compiled_rows([cols[name] for name in names], ",", quote=True)
            if body is None:
                for name in ("job_id", "allocated_resources"):
                    cols[name] = _text_array(cols[name])
                reprs = fraction_reprs([cols[name] for name in names])
                body = joined_rows([csv_cells(cols[name], reprs) for name in names], ",")
            with open(tmp, "wb") as fh:
                fh.write((",".join(BATSIM_COLUMNS + EXTRA_COLUMNS) + "\n").encode())
                fh.write(body)
    return Path(path)


def _length(table: Any) -> int:
    """Return the rows of a per-job table or of a dict of its columns (:func:`job_columns`)."""
    return len(table["job_id"]) if isinstance(table, dict) else len(table)


def batsim_columns(table: Any, workload_name: str = "w0", *,
                   texts_as_given: bool = False) -> dict[str, np.ndarray]:
    """Return the columns of ``BATSIM_COLUMNS + EXTRA_COLUMNS`` as arrays (floats with ``nan``
    where undefined, ints, or strings), computed a column at a time; ``table`` is a per-job
    table or the dict of its columns. With ``texts_as_given`` the ``job_id`` and
    ``allocated_resources`` columns are the table's own (an object array of ``str`` stays
    one, for :func:`compiled_rows`), else string arrays."""
    n = _length(table)
    start, finish = table["start"], table["finish"]
    texts = {k: table[k] if texts_as_given else _text_array(table[k]) for k in ("job_id", "processors")}
    execution = finish - start
    with np.errstate(invalid="ignore", divide="ignore"):
        stretch = np.where(execution > 0, table["response"] / execution, np.nan)
    estimate = np.where(np.isnan(table["estimate"]), -1.0, table["estimate"])
    def full(value: Any) -> np.ndarray:  # one value for every row, as a view (no copy)
        return np.broadcast_to(np.array(value), (n,))

    return {
        "job_id": texts["job_id"], "workload_name": full(workload_name), "profile": full(""),
        "submission_time": table["arrival"], "requested_number_of_resources": table["size"],
        "requested_time": estimate,
        "success": (table["state"] == "COMPLETED_SUCCESSFULLY").astype(np.int64),
        "final_state": table["state"], "starting_time": start, "execution_time": execution,
        "finish_time": finish, "waiting_time": table["wait"], "turnaround_time": table["response"],
        "stretch": stretch, "allocated_resources": texts["processors"],
        "consumed_energy": full(-1.0), "metadata": full(""),
        "work": table["work"], "bounded_slowdown": table["bounded_slowdown"],
        "rows_held": table["rows_held"], "extra_slices": table["extra_slices"],
        "served": table["served"],
    }


def _text_array(texts: Any) -> np.ndarray:
    """Return ``texts`` (a sequence of str, or a :class:`~gangviz.results.texts.TextColumn`) as
    a string array, as wide as its longest text (never cut)."""
    if isinstance(texts, TextColumn):
        texts = texts.strings()
    return np.asarray(texts, dtype=str) if len(texts) else np.zeros(0, "U1")


def compiled_rows(columns: Sequence[Any], sep: str, *, quote: bool) -> bytes | None:
    """Return the text :func:`joined_rows` gives of the cells of ``columns`` (by
    :func:`csv_cells` with ``quote``, else :func:`number_cells`), written by the optional C
    writer (``rows`` of :mod:`gangviz.results._rowtext`) straight from the columns: numeric
    arrays, string arrays, object arrays of ``str``, or
    :class:`~gangviz.results.texts.TextColumn`. Returns ``None`` when the writer is not
    built, ``GANGVIZ_PURE_PYTHON=1`` is set, or a column is of a kind it does not write (the
    numpy path then builds the same bytes)."""
    if os.environ.get("GANGVIZ_PURE_PYTHON"):
        return None
    try:
        from gangviz.results import _rowtext
    except ImportError:
        return None
    given: list[Any] = []
    for c in columns:
        if isinstance(c, TextColumn):
            given.append((c.data, c.offsets))
        elif isinstance(c, np.ndarray) and len(c) > 1 and c.ndim == 1 and c.strides[0] == 0:
            cell = _rowtext.rows([c[:1]], sep, quote)  # one value broadcast: its cell once, as bytes
            if cell is None:
                return None
            given.append(cell[:-1])
        else:
            given.append(c)
    if given and all(isinstance(c, bytes) for c in given):  # one column keeps the count of rows
        given[0] = columns[0]
    return _rowtext.rows(given, sep, quote)


def number_texts(col: np.ndarray) -> list[str]:
    """Return a numeric column as text, a column at a time: whole numbers without a decimal
    point, other floats as Python's ``repr`` writes them, ``nan`` as an empty string."""
    if col.dtype.kind in "iub":
        return list(map(str, col.astype(np.int64).tolist()))
    ok = ~np.isnan(col)
    safe = np.where(ok, col, 0.0)
    whole = ok & (safe == np.floor(safe)) & (np.abs(safe) < 2.0**53)
    if whole.all():
        return list(map(str, safe.astype(np.int64).tolist()))
    out = [""] * len(col)
    for i, v in zip(np.flatnonzero(whole).tolist(), safe[whole].astype(np.int64).tolist()):
        out[i] = str(v)
    frac = ok & ~whole
    for i, v in zip(np.flatnonzero(frac).tolist(), col[frac].tolist()):
        out[i] = repr(v)
    return out


def _int_cells(v: np.ndarray, min_width: int = 0) -> np.ndarray:
    """Return integers ``v`` as an ``(n, width)`` array of ASCII bytes, ``str(int)`` per row,
    right-aligned, padded with zero bytes (which :func:`joined_rows` drops), at least
    ``min_width`` wide; one pass of ``divmod`` per digit over the whole column."""
    v = v.astype(np.int64)
    neg = v < 0
    q = np.abs(v).astype(np.uint64)  # the least int64 keeps its magnitude as uint64
    width = len(str(int(q.max()))) if len(q) else 1
    cells = np.zeros((max(width, min_width) + 1, len(q)), np.uint8)  # digits by row, transposed at the end
    for k in range(width, 0, -1):
        q, d = np.divmod(q, np.uint64(10))
        cells[k] = d
        cells[k] += 48
        if k < width:
            cells[k][(q == 0) & (d == 0)] = 0  # a leading zero
    if neg.any():
        cells[0] = np.where(neg, np.uint8(45), np.uint8(0))
        return cells.T
    return cells[1:].T


def _text_cells(texts: np.ndarray) -> np.ndarray:
    """Return strings as an ``(n, width)`` array of their UTF-8 bytes, zero-padded, ``width``
    the longest one's (not the dtype's: a ``U64`` column of short texts stays narrow)."""
    n = len(texts)
    if texts.dtype.kind == "U" and texts.dtype.itemsize:
        # the code points as numbers: ASCII (the usual case) is their low byte, no encoding
        codes = np.ascontiguousarray(texts).view(np.uint32).reshape(n, texts.dtype.itemsize // 4)
        codes = codes[:, : _used_width(codes)]
        if not codes.size or int(codes.max()) < 128:
            return codes.astype(np.uint8)
    try:
        raw = texts.astype(np.bytes_)
    except UnicodeEncodeError:
        raw = np.char.encode(texts.astype(str), "utf-8")
    cells = raw.view(np.uint8).reshape(n, raw.dtype.itemsize)
    return cells[:, : _used_width(cells)]


def _used_width(cells: np.ndarray) -> int:
    """Return the columns of zero-padded ``cells`` up to the last one any row uses."""
    used = np.flatnonzero(cells.any(axis=0)) if len(cells) else np.zeros(0, np.int64)
    return int(used[-1]) + 1 if len(used) else 0


def _fractions(col: np.ndarray) -> np.ndarray:
    """Return where a float column holds a finite value that :func:`number_texts` writes with
    ``repr`` (not a whole number below 2**53)."""
    ok = ~np.isnan(col)
    safe = np.where(ok, col, 0.0)
    fractional: np.ndarray = ok & ~((safe == np.floor(safe)) & (np.abs(safe) < 2.0**53))
    return fractional


def fraction_reprs(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct values of ``columns`` (the float ones) that are written with
    ``repr``, sorted, and their cells (``(k, width)`` bytes, zero-padded), for
    :func:`number_cells`: each value is formatted once however many cells of however many
    columns hold it (a stretch equals the bounded slowdown of most jobs)."""
    parts = [c[_fractions(c)] for c in columns if c.dtype.kind == "f"]
    values = np.sort(np.concatenate(parts)) if parts else np.zeros(0)
    if len(values):  # distinct (not np.unique, whose first call imports numpy.ma: 40 ms)
        values = values[np.concatenate([[True], values[1:] != values[:-1]])]
    if not len(values):
        return values, np.zeros((0, 0), np.uint8)
    return values, _text_cells(np.array(list(map(repr, values.tolist()))))


def number_cells(col: np.ndarray, reprs: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Return a numeric column as the bytes of :func:`number_texts` (``(n, width)``, zero-padded):
    whole numbers as integers, converted a column at a time; only other floats go through
    Python's ``repr``, or are looked up in ``reprs`` (:func:`fraction_reprs` of columns that
    include this one)."""
    if col.dtype.kind in "iub":
        return _int_cells(col)
    ok = ~np.isnan(col)
    safe = np.where(ok, col, 0.0)
    whole = ok & (safe == np.floor(safe)) & (np.abs(safe) < 2.0**53)
    frac = ok & ~whole
    reprs_of = None
    if frac.any():
        if reprs is not None:
            values, table = reprs
            reprs_of = table[np.searchsorted(values, col[frac])]
        else:
            reprs_of = _text_cells(np.array(list(map(repr, col[frac].tolist()))))
    cells = _int_cells(np.where(whole, safe, 0.0), 0 if reprs_of is None else reprs_of.shape[1])
    cells[~whole] = 0
    if reprs_of is not None:
        cells[frac, : reprs_of.shape[1]] = reprs_of
    return cells


def csv_cells(col: np.ndarray, reprs: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Return a column as the bytes of its CSV cells (``(n, width)``, zero-padded): text quoted
    where it holds a comma or a quote, numbers as :func:`number_cells` (with ``reprs``)."""
    if col.dtype.kind in "US":
        cells = _text_cells(col)
        if ((cells == ord(",")) | (cells == ord('"'))).any():  # rare: quote in Python
            cells = _text_cells(np.array(_csv_text(col)))
        return cells
    if len(col) > 1 and (col[0] == col).all():  # a constant column (consumed_energy, ...)
        return np.repeat(csv_cells(col[:1], reprs), len(col), axis=0)
    return number_cells(col, reprs)


def joined_rows(columns: list[np.ndarray], sep: str) -> bytes:
    """Return the text of rows whose cells are ``columns`` (from :func:`csv_cells` or
    :func:`number_cells`), cells joined by ``sep``, each row ended by a newline; ``""`` for no
    rows, as UTF-8 bytes. Built as byte arrays of :data:`JOIN_ROWS` rows at a time (small
    enough to stay in the processor's cache), never cell by cell; zero bytes are padding (no
    cell of a job table holds one)."""
    if not columns or not len(columns[0]):
        return b""
    n = len(columns[0])
    width = sum(c.shape[1] + 1 for c in columns)
    rows = np.empty((min(n, JOIN_ROWS), width), np.uint8)
    parts = []
    for lo in range(0, n, JOIN_ROWS):
        hi = min(n, lo + JOIN_ROWS)
        block = rows[: hi - lo]
        x = 0
        for c in columns:
            w = c.shape[1]
            block[:, x:x + w] = c[lo:hi]
            block[:, x + w] = ord(sep)
            x += w + 1
        block[:, -1] = 10  # the last separator is the line's end
        flat = block.ravel()
        parts.append(flat[flat != 0].tobytes())
    return b"".join(parts)


def _csv_text(col: np.ndarray) -> list[str]:
    if len(col) > 1 and (col[0] == col).all():  # a constant column (workload_name, profile, ...)
        return _csv_text(col[:1]) * len(col)
    if col.dtype.kind in "US":
        text: list[str] = col.tolist()
        if any("," in v or '"' in v for v in text):
            text = ['"' + v.replace('"', '""') + '"' if ("," in v or '"' in v) else v for v in text]
        return text
    return number_texts(col)


def _write_parquet(table: np.ndarray, path: str | os.PathLike[str], workload_name: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = batsim_columns(table, workload_name)
    names = BATSIM_COLUMNS + EXTRA_COLUMNS
    ints = {"requested_number_of_resources", "success", "rows_held"}
    texts = {"job_id", "workload_name", "profile", "final_state", "allocated_resources", "metadata"}
    arrays = []
    for n in names:
        col = cols[n]
        if n in texts:
            arrays.append(pa.array(col.astype(str), type=pa.string()))
        elif n in ints:
            arrays.append(pa.array(col.astype(np.int64), type=pa.int64()))
        else:
            col = col.astype(np.float64)
            arrays.append(pa.array(col, type=pa.float64(), mask=np.isnan(col)))
    pq.write_table(pa.Table.from_arrays(arrays, names=list(names)), str(path))


def write_swf_schedule(
    table: Any,
    path: str | os.PathLike[str],
    *,
    processors: int | None = None,
    specs: Sequence[Any] | None = None,
    raw_fields: np.ndarray | None = None,
    submit_offset: float = 0.0,
    note: str = "",
) -> None:
    """Write ``table`` as SWF 2.2 with the wait and run fields filled (see the module docstring),
    a column at a time and in one write.

    ``specs`` (one per row, optional) or ``raw_fields`` (an ``(rows, 18)`` array) supply the
    input trace's raw fields; jobs without them get -1 in the fields the simulation does not
    decide. Raises ``ValueError`` when ``specs`` or ``raw_fields`` and the table differ in length.
    """
    from gangviz.workloads.swf import ALLOC, JOB, N_FIELDS, REQ_PROCS, REQ_TIME, RUN, SUBMIT, WAIT

    n = _length(table)
    if specs is not None and len(specs) != n:
        raise ValueError(f"{len(specs)} job specs for {n} table rows")
    if raw_fields is not None and len(raw_fields) != n:
        raise ValueError(f"{len(raw_fields)} rows of trace fields for {n} table rows")
    status_col = 10
    f = np.full((n, N_FIELDS), -1.0)
    has_raw = np.zeros(n, bool)
    if raw_fields is not None:
        f[:] = raw_fields
        has_raw[:] = True
    elif specs is not None:
        for i, spec in enumerate(specs):
            raw = spec.extra.get("swf") if isinstance(spec.extra, Mapping) else None
            if raw is not None and len(raw) == N_FIELDS:
                f[i] = raw
                has_raw[i] = True
    ids = table["job_id"].astype(str)
    digits = np.char.isdigit(ids)
    own_id = np.where(digits, np.where(digits, ids, "0").astype(np.float64), np.arange(1, n + 1))
    f[:, JOB] = np.where(has_raw, f[:, JOB], own_id)
    f[:, SUBMIT] = table["arrival"] + submit_offset
    state = table["state"]
    done = (state == "COMPLETED_SUCCESSFULLY") | (state == "COMPLETED_KILLED")
    ran = done & ~np.isnan(table["start"])
    f[:, WAIT] = np.where(ran, table["start"] - table["arrival"], -1)
    f[:, RUN] = np.where(ran, table["finish"] - table["start"], -1)
    f[:, ALLOC] = table["size"]
    f[:, REQ_PROCS] = np.where(has_raw, f[:, REQ_PROCS], table["size"])
    est = np.where(np.isnan(table["estimate"]), -1.0, table["estimate"])
    f[:, REQ_TIME] = np.where(has_raw, f[:, REQ_TIME], est)
    f[:, status_col] = np.where(state == "COMPLETED_SUCCESSFULLY", 1,
                                np.where(state == "COMPLETED_KILLED", 5, -1))
    lines = ["; Version: 2.2", f"; MaxJobs: {n}", f"; MaxRecords: {n}"]
    if processors:
        lines += [f"; MaxNodes: {processors}", f"; MaxProcs: {processors}"]
    if note:
        lines.append(f"; Note: {note}")
    body = compiled_rows([f[:, c] for c in range(N_FIELDS)], " ", quote=False)
    if body is None:
        reprs = fraction_reprs([f[:, c] for c in range(N_FIELDS)])
        body = joined_rows([number_cells(f[:, c], reprs) for c in range(N_FIELDS)], " ")
    write_text_atomically(path, "\n".join(lines) + "\n" + body.decode("utf-8"))
