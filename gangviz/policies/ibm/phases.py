"""The matrix phases shared by GS, BGS, MGS and MBGS (Zhang01 §4.2, §5.1).

Every move is a change record emitted through ``sim.emit``, so the window can replay it:

* :func:`clean_matrix` - CleanMatrix: every instance of a job outside its home row goes
  (``JobUnreplicated``).
* :func:`compact_matrix` - CompactMatrix (CollapseMatrix-1 of §5.4): jobs move from less to more
  populated rows on their own processors (``JobShifted``).
* :func:`remove_empty_rows` - rows left empty are eliminated (``SlotRemoved``), so no time slice
  is spent on an empty virtual machine.
* :func:`fill_matrix` - FillMatrix (FillMatrix-1): jobs are replicated, in starting-time order,
  into rows whose cells on their processors are idle (``JobReplicated``).
* :func:`best_fit_row` / :func:`free_cols` - the Schedule phase's best fit (§5.1).

Choices where the paper is silent (documented tie-breaks):

* *Population* of a row is its number of busy processors; rows are ordered by population, ties
  by row index (lower first).
* CompactMatrix's "for j = most populated row to least populated row" is read as the rows that
  come *after* ``i`` in the ascending order (as populated or more), so jobs only move towards
  more populated rows, as the phase's description says ("moves jobs from less populated rows to
  more populated rows"). The order is fixed when the phase starts.
* The IBM SP has no interconnect topology that constrains allocation (§4), so a job takes any
  idle processors of a row: the leftmost ones (lowest indices).
* CompactMatrix's (and CollapseMatrix-2's) "for each job in row i" takes the jobs of the row
  left to right, by their leftmost processor (:meth:`OusterhoutMatrix.row_jobs`). Nothing in
  this order depends on a job's run time or age; FillMatrix's starting-time order (§5.1: "We go
  through the jobs in starting time order") is the only order that does, and it favours the
  jobs that have run longest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

import numpy as np

from gangviz.core.changes import JobReplicated, JobShifted, JobUnreplicated
from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.policies.slots import remove_empty_slots
from gangviz.sim.policy import Host

__all__ = [
    "free_count",
    "free_cols",
    "as_cols",
    "clean_matrix",
    "compact_matrix",
    "MoveGuard",
    "remove_empty_rows",
    "fill_matrix",
    "fill_passes",
    "shift_guarded",
    "best_fit_row",
    "population_order",
    "start_order",
]


def free_count(m: OusterhoutMatrix, row: int) -> int:
    """Return the number of idle processors of ``row``."""
    return m.processors - m.busy_in_row(row)


def as_cols(cols: Iterable[int]) -> range | tuple[int, ...]:
    """Return ``cols`` sorted, as a ``range`` when contiguous, else as a tuple."""
    c = sorted(int(x) for x in cols)
    if c and c[-1] - c[0] + 1 == len(c):
        return range(c[0], c[-1] + 1)
    return tuple(c)


def free_cols(m: OusterhoutMatrix, row: int, size: int, exclude: Iterable[int] = ()) -> range | tuple[int, ...] | None:
    """Return the ``size`` leftmost idle processors of ``row`` not in ``exclude`` (or ``None``)."""
    idle = np.flatnonzero(m.cells[row] == IDLE)
    if exclude:
        idle = np.setdiff1d(idle, np.fromiter(exclude, dtype=np.int64), assume_unique=False)
    if len(idle) < size:
        return None
    return as_cols(idle[:size].tolist())


def population_order(m: OusterhoutMatrix) -> list[int]:
    """Return the rows from least to most populated (busy processors; ties: lower row first)."""
    busy = m.busy_per_row().tolist()
    return sorted(range(m.n_rows), key=lambda r: (busy[r], r))


def clean_matrix(sim: Host) -> int:
    """CleanMatrix (Zhang01 §5.1): remove every instance of a job outside its home row.

    Rows are visited first to last and each row's jobs left to right, as in the paper's loop;
    only the jobs holding extra rows are looked at. Returns the replicas removed.
    """
    m = sim.matrix
    ids, lo, _ = m.spans()
    _, _, count = m.placements()
    multi = np.flatnonzero(count > 1)
    if not len(multi):
        return 0
    rows_of = m.row_lists()
    # (row, leftmost column, job): the order of the paper's loop over rows and their cells
    found = sorted((row, first, job) for job, first in zip(ids[multi].tolist(), lo[multi].tolist())
                   for row in rows_of[job][1:])
    for row, _, job in found:
        sim.emit(JobUnreplicated(job, (row,), m.job_cols(job), "CleanMatrix: not its home row"))
    return len(found)


class MoveGuard(Protocol):
    """What compaction asks before and tells after a move (BGS: the reservation check)."""

    def allows(self, job: int, src: int, dst: int) -> bool:
        """Return whether ``job`` may move from row ``src`` to row ``dst``."""

    def moved(self, job: int, src: int, dst: int) -> None:
        """Record that ``job`` moved from ``src`` to ``dst``."""


def compact_matrix(sim: Host, guard: MoveGuard | None = None, label: str = "CompactMatrix") -> int:
    """CompactMatrix (Zhang01 §5.1): shift jobs from less populated rows to more populated rows.

    A job moves from row ``i`` to row ``j`` when all its processors are idle in ``j`` and
    ``guard.allows(job, i, j)`` (BGS: the move respects the reservations of ``j``) holds. Assumes
    the matrix is clean (home rows only). Returns the number of jobs moved.

    The rows are visited in the order of :func:`compaction_moves`. For one pair ``(i, j)`` the
    jobs of ``i`` that fit in ``j`` are found at once: the jobs of a row have disjoint
    processors, so moving one of them into ``j`` never blocks another.
    """
    m = sim.matrix
    moved = 0
    order = population_order(m)
    rows_of = m.row_lists()
    for pos, i in enumerate(order):
        for j in reversed(order[pos + 1:]):
            row_i = m.cells[i]
            below = row_i[m.cells[j] != IDLE]
            # row j may be wholly idle: then nothing of row i is blocked
            blocked = set(below[np.flatnonzero(np.concatenate(([True], below[1:] != below[:-1])))].tolist()) \
                if below.size else set()
            for job in m.row_jobs(i):
                if job in blocked:
                    continue
                rows = rows_of[job]
                if rows[0] != i or len(rows) != 1:
                    continue
                if shift_guarded(sim, guard, job, i, j, label):
                    moved += 1
    return moved


def shift_guarded(sim: Host, guard: MoveGuard | None, job: int, i: int, j: int, label: str) -> bool:
    """Move ``job`` from row ``i`` to row ``j`` (``JobShifted``, explained under ``label``)
    unless ``guard`` forbids it, and tell ``guard`` of the move; return whether it moved."""
    if guard is not None and not guard.allows(job, i, j):
        return False
    sim.emit(JobShifted(job, i, j, f"{label}: to a more populated row on its own processors"))
    if guard is not None:
        guard.moved(job, i, j)
    return True


def compaction_moves(m: OusterhoutMatrix) -> Iterator[tuple[int, int, int]]:
    """Yield ``(job, i, j)``: every job running in row ``i`` alone (its home row, no extra
    rows) with every row ``j`` it might move to, in CompactMatrix's order (Zhang01 §5.1): source
    rows from the least populated, targets from the most populated. The jobs of row ``i`` are
    listed when its first target comes up, so moves made meanwhile are seen."""
    order = population_order(m)
    for pos, i in enumerate(order):
        for j in reversed(order[pos + 1:]):
            for job in m.row_jobs(i):
                if m.home_row(job) == i and len(m.job_rows(job)) == 1:
                    yield job, i, j


def remove_empty_rows(sim: Host, why: str = "it is empty after compaction") -> int:
    """Eliminate every empty row, top first (``SlotRemoved``); return how many."""
    return remove_empty_slots(sim, why)


def start_order(sim: Host) -> list[int]:
    """Return the jobs in the matrix in starting-time order (jobs placed now: the current time;
    ties by job id, i.e. arrival order)."""
    now = sim.time
    def key(j: int) -> tuple[float, int]:
        start = sim.jobs[j].start
        return (now if start is None else start, j)
    return sorted(sim.matrix.jobs(), key=key)


def fill_passes(sim: Host, fill: Callable[[int], bool],
                order: Callable[[Host], list[int]] = start_order) -> int:
    """FillMatrix's loop (Zhang01 §5.1): ``do { for each job in starting-time order:
    fill(job) } while some call returned True``; return how many calls returned True (the
    replicas added, when ``fill`` adds at most one). ``order(sim)`` gives the order, taken
    afresh for every pass."""
    added = 0
    changed = True
    while changed:
        changed = False
        for job in order(sim):
            if fill(job):
                added += 1
                changed = True
    return added


def fill_matrix(sim: Host, label: str = "FillMatrix") -> int:
    """FillMatrix (Zhang01 §5.1): replicate jobs into holes, in starting-time order.

    ``do { for each job in starting time order: for each row: if the job can be replicated in
    the same columns, do it and break } while the matrix changes``. Rows are tried from first to
    last. Returns the replicas added.

    The test "all of the job's processors are idle in the row" reads a table of how many busy
    cells each row has on each job's processors, worked out once (a matrix product) and updated
    for the one row that changes at each replica, instead of scanning the cells per job and row.
    """
    m = sim.matrix
    n = m.n_rows
    if n < 2:  # every job holds the only row there is
        return 0
    order = start_order(sim)
    cells = m.cells
    # member[k, c]: job order[k] runs on column c (read off the jobs' home rows)
    pos = np.full(int(cells.max()) + 1, -1, dtype=np.int64)
    pos[order] = np.arange(len(order))
    rr, cc = np.nonzero(cells != IDLE)
    jj = cells[rr, cc]
    home = m.home_rows(jj) == rr
    member = np.zeros((len(order), m.processors))
    member[pos[jj[home]], cc[home]] = 1.0
    busy = (cells != IDLE).astype(np.float64)
    counts = (busy @ member.T).tolist()  # counts[row][k]: busy cells of row on order[k]'s columns
    rows_of = m.row_lists()
    have = [set(rows_of[job]) for job in order]
    added = 0
    changed = True
    while changed:
        changed = False
        for k, job in enumerate(order):
            held = have[k]
            for row in range(n):
                if row in held or counts[row][k]:
                    continue
                cols = m.job_cols(job)
                sim.emit(JobReplicated(job, (row,), cols, f"{label}: its processors are idle in this row"))
                held.add(row)
                busy[row, m.col_index_of(job)] = 1.0
                counts[row] = (busy[row] @ member.T).tolist()
                added += 1
                changed = True
                break
    return added


def best_fit_row(m: OusterhoutMatrix, size: int, rows: Iterable[int] | None = None) -> int | None:
    """Return the row with the fewest idle processors that still has ``size`` of them (best fit,
    Zhang01 §5.1 Schedule; ties: lower row), or ``None``. ``rows`` restricts the candidates."""
    best, best_free = None, None
    for r in (range(m.n_rows) if rows is None else rows):
        f = free_count(m, r)
        if f >= size and (best_free is None or f < best_free):
            best, best_free = r, f
    return best
