"""Checking a workload before a matrix simulation takes it: times, ids, sizes, limits.

A large trace is checked in a few array operations (:func:`plain_times`); anything unusual
falls back to job-by-job checks that name the first bad job.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from gangviz.core.jobs import JobColumns, JobSpec, ScriptEvent
from gangviz.core.limits import (
    ESTIMATE_SLOTS,
    MAX_JOBS,
    MAX_SLICES,
    LimitError,
    check_jobs,
    check_memory,
    check_slices,
)
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.sim.policy import Policy
from gangviz.sim.state import JobTable


class PlainWorkload(NamedTuple):
    """A workload that passed the bulk checks: its specs by (arrival, id), ids and work."""

    specs: Sequence[JobSpec]
    ids: npt.NDArray[np.int64]
    work: npt.NDArray[np.float64]


def plain_times(specs: Sequence[JobSpec], overhead: float) -> PlainWorkload | None:
    """Return the :class:`PlainWorkload` of ``specs`` when every arrival and work is a plain
    int or float within the limits :func:`check_times` enforces and every id is a non-negative
    int; ``None`` otherwise (then the caller sorts and checks job by job, which names the first
    bad job). Never raises: it only decides whether the bulk path may be taken.
    """
    if not specs:
        return None
    if isinstance(specs, JobColumns):  # in arrival order, ids 0..n-1: checked without a spec
        return _plain_columns(specs, overhead)
    arrival = [s.arrival for s in specs]
    work = [s.work for s in specs]
    ids = [s.id for s in specs]
    if not {type(v) for v in arrival} | {type(v) for v in work} <= {float, int}:
        return None
    if {type(i) for i in ids} != {int}:
        return None
    try:
        a = np.array(arrival, dtype=np.float64)
        w = np.array(work, dtype=np.float64)
        i = np.array(ids, dtype=np.int64)
    except OverflowError:
        return None
    if not _within_limits(a, w, overhead) or i.min() < 0:
        return None
    order = np.lexsort((i, a))  # stable, like sorted() on (arrival, id)
    if np.any(order[1:] < order[:-1]):
        specs = [specs[k] for k in order.tolist()]
        i, w = i[order], w[order]
    return PlainWorkload(specs, i, w)


def _within_limits(a: npt.NDArray[np.float64], w: npt.NDArray[np.float64], overhead: float) -> bool:
    """Whether every arrival ``a`` and work ``w`` is within the limits of :func:`check_times`."""
    with np.errstate(all="ignore"):
        ok = np.isfinite(a) & (a >= 0) & (a <= MAX_SLICES)
        finite_w = np.isfinite(w) & (w > 0) & (w <= MAX_SLICES) & (w / (1.0 - overhead) <= MAX_SLICES)
        ok &= finite_w | (w == math.inf)
    return bool(ok.all())


def _plain_columns(jobs: JobColumns, overhead: float) -> PlainWorkload | None:
    """:func:`plain_times` of job columns, from the columns (no spec is made)."""
    work = jobs.work.astype(np.float64)
    if not _within_limits(jobs.arrival.astype(np.float64, copy=False), work, overhead):
        return None
    return PlainWorkload(jobs, jobs.ids(), work)


def check_times(name: str, arrival: float, work: float, overhead: float) -> None:
    """Raise :class:`LimitError` unless the job's arrival and work are within the limits
    (endless work is allowed) and its work in slices of service keeps below the clock limit."""
    check_slices(arrival, f"job {name}: arrival", "the workload")
    if not math.isinf(work) or work < 0:
        check_slices(work, f"job {name}: work", "the workload", positive=True)
        if work / (1.0 - overhead) > MAX_SLICES:
            raise LimitError(f"job {name}: work {work:g} needs {work / (1.0 - overhead):.4g} "
                             f"slices at overhead {overhead:g}, over the limit of "
                             f"{MAX_SLICES:.4g} slices")


def check_script(script: Sequence[ScriptEvent], overhead: float) -> None:
    """Raise :class:`LimitError` for a scripted event or submitted job beyond the limits."""
    for event in script:
        check_slices(event.at, f"event time of the event at t={event.at!r}", "at")
        for name, _size, work in event.submit:
            check_times(name, event.at, work, overhead)


def job_records(specs: Sequence[JobSpec], ids: npt.NDArray[np.int64] | None = None) -> JobTable:
    """Return a fresh :class:`JobTable` of ``specs`` (``ids``: their ids, when known);
    ``ValueError`` naming a duplicate or negative id."""
    if ids is None and any(spec.id < 0 for spec in specs):
        bad = next(spec for spec in specs if spec.id < 0)
        raise ValueError(f"job {bad.name}: id must be >= 0, got {bad.id}")
    return JobTable(specs, ids)


class Workload(NamedTuple):
    """A checked workload: specs by (arrival, id), the table of job records, and when the bulk
    checks passed the ids and work of the specs (else ``None``)."""

    specs: Sequence[JobSpec]
    jobs: JobTable
    ids: npt.NDArray[np.int64] | None
    work: npt.NDArray[np.float64] | None


def load_workload(specs: Sequence[JobSpec], processors: int, overhead: float, initial: OusterhoutMatrix | None,
                  script: Sequence[ScriptEvent]) -> Workload:
    """Check and sort ``specs`` and ``script`` for a machine of ``processors``; return the
    :class:`Workload`. Raises :class:`LimitError` or ``ValueError`` naming the first bad job."""
    plain = plain_times(specs, overhead)
    specs = sorted(specs, key=lambda j: (j.arrival, j.id)) if plain is None else plain.specs
    if len(specs) > MAX_JOBS:
        check_jobs(len(specs), "the workload")
    check_memory(processors, len(specs), max(initial.n_rows if initial is not None else 0, ESTIMATE_SLOTS))
    if plain is None:
        for spec in specs:
            check_times(spec.name, spec.arrival, spec.work, overhead)
    check_script(script, overhead)
    jobs = job_records(specs, None if plain is None else plain.ids)
    if plain is None:
        return Workload(specs, jobs, None, None)
    return Workload(specs, jobs, plain.ids, plain.work)


_ID, _NAME, _SIZE = attrgetter("id"), attrgetter("name"), attrgetter("size")


def ids_by_name(jobs: JobTable) -> dict[str, int]:
    """Return the id of every job of ``jobs`` by name, in the table's order (a name given twice
    maps to the later job)."""
    spec = jobs.spec
    return {spec(job).name: job for job in jobs}


def queue_workload(specs: Sequence[JobSpec], matrix: OusterhoutMatrix, has_initial: bool,
                   policy: Policy) -> Sequence[JobSpec]:
    """Name the jobs in ``matrix`` and return the jobs still to come (those not in a starting
    matrix). Raises ``ValueError`` for a job size the policy can never run."""
    if isinstance(specs, JobColumns) and not has_initial and not matrix.names:
        return _queue_columns(specs, matrix, policy)
    names = matrix.names
    # attrgetter and zip walk the specs in C: a tenth of the time of a loop on a large trace
    ids, labels = list(map(_ID, specs)), list(map(_NAME, specs))
    if names:
        for job, label in zip(ids, labels):
            names.setdefault(job, label)
    else:
        names.update(zip(ids, labels))
    pending = [s for s in specs if s.id not in matrix] if has_initial else specs
    sizes = list(map(_SIZE, pending))
    processors = matrix.processors
    # The base rule (1..processors) is checked in bulk; a policy with its own rule sees every job.
    if (type(policy).check_job is not Policy.check_job
            or (sizes and not (1 <= min(sizes) and max(sizes) <= processors))):
        for spec in pending:
            policy.check_job(spec.size, processors)
    return pending


def _queue_columns(jobs: JobColumns, matrix: OusterhoutMatrix, policy: Policy) -> JobColumns:
    """:func:`queue_workload` of job columns on an empty matrix: the names follow the columns'
    rule (:class:`ColumnNames`) and the sizes are checked from the column."""
    matrix.names = ColumnNames(jobs)
    processors = matrix.processors
    if type(policy).check_job is not Policy.check_job:
        for size in np.unique(jobs.size).tolist():
            policy.check_job(int(size), processors)
    elif len(jobs) and not (1 <= int(jobs.size.min()) and int(jobs.size.max()) <= processors):
        bad = int(np.flatnonzero((jobs.size < 1) | (jobs.size > processors))[0])
        policy.check_job(int(jobs.size[bad]), processors)
    return jobs


class ColumnNames(dict[int, str]):
    """The names of the jobs of :class:`~gangviz.core.jobs.JobColumns` by id, made when read
    (``J`` and the id + 1) instead of kept; a name set later (a submitted job) is kept."""

    def __init__(self, jobs: JobColumns) -> None:
        super().__init__()
        self._count = len(jobs)
        self._name = jobs.name

    def _known(self, job: object) -> bool:
        return bool(isinstance(job, (int, np.integer)) and 0 <= job < self._count)

    def __missing__(self, job: int) -> str:
        if self._known(job):
            return self._name(int(job))
        raise KeyError(job)

    def get(self, job: int, default: Any = None) -> Any:
        """The name of ``job``, or ``default`` for an unknown id."""
        if dict.__contains__(self, job):
            return dict.__getitem__(self, job)
        return self._name(int(job)) if self._known(job) else default

    def __contains__(self, job: object) -> bool:
        return dict.__contains__(self, job) or self._known(job)
