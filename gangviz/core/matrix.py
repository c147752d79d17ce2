"""The Ousterhout matrix: time slots (rows) by processors (columns).

Zhou99 §3: processors are *logically* a one-dimensional linear array
numbered 1..N, and a job may only take consecutively numbered processors; as an option
(end of §3) the array closes into a ring, where a job may wrap from P_N to P_1.

Row 0 is slot S1 (drawn at the bottom, as in the papers); column 0 is processor P1. A cell holds
the integer id of the job whose process runs there in that slot, or ``IDLE``. A job keeps one set
of columns for life (re-packing never moves a process to another processor; only migration,
:class:`~gangviz.core.changes.JobMigrated`, does) and may hold several rows: its *home* row and
the extra rows it runs in (multi-slot running, BRMS and FillMatrix).

The workload vector (WLV, idle slots per processor) is kept up to date as cells change, and the
workload tree (WLT) incrementally from it, so a query never rescans the matrix. The tree is
refreshed lazily: a mutator only widens a pending column range, and reading :attr:`tree`
brings that range up to date first. A job leaving many rows (multi-slot running) thus costs one
tree update, not one per row.

Only change records (:mod:`gangviz.core.changes`) should call the mutators below; each mutator
checks its precondition first and raises ``ValueError`` without touching the state when it fails.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from gangviz.core.limits import check_processors, check_slot_growth
from gangviz.core.wlt import WorkloadTree

IDLE = -1
#: Pending tree refreshes closer together than this many columns are merged into one.
STALE_MERGE = 256

Cols = Sequence[int]
#: The columns a job holds: a range for a contiguous run, else a tuple (as its records say).
JobCols = tuple[int, ...] | range


class PackedCells(NamedTuple):
    """:func:`pack_cells`'s encoding: the array's shape and the runs' starts and values."""

    shape: tuple[int, ...]
    starts: np.ndarray
    values: np.ndarray


class MatrixSnapshot(NamedTuple):
    """:meth:`OusterhoutMatrix.snapshot`: everything but the names and the derived arrays."""

    processors: int
    ring: bool
    cells: PackedCells
    cols: dict[int, JobCols]
    rows: dict[int, tuple[int, ...]]
    active: int | None


class Placements(NamedTuple):
    """The jobs in a matrix by ascending id, with each one's home row and the number of rows it holds."""

    ids: npt.NDArray[np.int64]
    home: npt.NDArray[np.int64]
    held: npt.NDArray[np.int64]


class Spans(NamedTuple):
    """The jobs in a matrix by ascending id, with the first and one past the last column each
    one's columns lie within."""

    ids: npt.NDArray[np.int64]
    lo: npt.NDArray[np.int64]
    hi: npt.NDArray[np.int64]


def _holds(rows: list[int], row: int) -> bool:
    """Whether a job's rows (home first, then its extra rows ascending) include ``row``."""
    if rows[0] == row:
        return True
    at = bisect_left(rows, row, lo=1)
    return at < len(rows) and rows[at] == row


def _with_row(values: np.ndarray, row: int, fill: int) -> np.ndarray:
    """Return ``values`` with a new entry (a row of ``fill``) inserted before index ``row``."""
    out = np.empty((len(values) + 1,) + values.shape[1:], dtype=values.dtype)
    out[:row] = values[:row]
    out[row] = fill
    out[row + 1 :] = values[row:]
    return out


def _without_row(values: np.ndarray, row: int) -> np.ndarray:
    """Return ``values`` without entry (or row) ``row``."""
    out = np.empty((len(values) - 1,) + values.shape[1:], dtype=values.dtype)
    out[:row] = values[:row]
    out[row:] = values[row + 1 :]
    return out


def col_index(cols: Cols) -> slice | np.ndarray:
    """Return a numpy index for ``cols``: a slice for a contiguous ``range``, else an array."""
    if isinstance(cols, range) and cols.step == 1:
        return slice(cols.start, cols.stop)
    return np.asarray(cols, dtype=np.intp)


def span(cols: Cols) -> tuple[int, int]:
    """Return ``(lo, hi)``: the smallest and one past the largest column of ``cols``."""
    if isinstance(cols, range) and cols.step == 1:
        return cols.start, cols.stop
    return min(cols), max(cols) + 1


def processor_label(col: int) -> str:
    """Return the paper's name of column ``col`` (0-based): ``P1`` for 0."""
    return f"P{col + 1}"


def slot_label(row: int) -> str:
    """Return the paper's name of row ``row`` (0-based): ``S1`` for 0."""
    return f"S{row + 1}"


def pack_cells(cells: np.ndarray) -> PackedCells:
    """Return ``cells`` run-length encoded: ``(shape, starts, values)`` of the runs of equal
    ids in row-major order. A matrix row holds a few long runs (jobs are contiguous), so a
    snapshot of 1,024 x 14 cells takes about a kilobyte instead of 57; :func:`unpack_cells`
    gives the same array back."""
    flat = cells.ravel()
    if flat.size == 0:
        return PackedCells(cells.shape, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=cells.dtype))
    starts = np.concatenate(([0], np.flatnonzero(flat[1:] != flat[:-1]) + 1)).astype(np.int32)
    return PackedCells(cells.shape, starts, flat[starts].copy())


def unpack_cells(packed: PackedCells) -> np.ndarray:
    """Return the cell array :func:`pack_cells` encoded (a fresh, writable array)."""
    shape, starts, values = packed
    size = int(np.prod(shape))
    lengths = np.diff(np.append(starts, size))
    return np.repeat(values, lengths).reshape(shape)


class OusterhoutMatrix:
    """The global scheduling matrix with its workload vector and workload tree.

    Args:
        processors: number of columns N >= 1.
        ring: if true, processors form a ring (a job may wrap from the last column to the first).
    """

    def __init__(self, processors: int, ring: bool = False) -> None:
        processors = check_processors(processors)
        self.processors = processors
        self.ring = ring
        self._cells = np.full((0, processors), IDLE, dtype=np.int32)
        self._wlv = np.zeros(processors, dtype=np.int64)
        # Per row: how many of its cells are allocated (kept in step with the cells).
        self._row_busy = np.zeros(0, dtype=np.int64)
        # Per processor: how many of its cells hold an extra row of a job (multi-slot running).
        self._extra = np.zeros(processors, dtype=np.int64)
        self._tree = WorkloadTree(processors)
        self._stale: tuple[int, int] | None = None
        self._cols: dict[int, JobCols] = {}
        # Per job: the numpy index of its columns (col_index of _cols), made once per placement.
        self._idx: dict[int, slice | np.ndarray] = {}
        self._rows: dict[int, list[int]] = {}
        # Per job id: home row (-1: not in the matrix) and number of rows, kept in step with
        # _rows so the engine reads every job's placement without a Python loop.
        self._home_of = np.full(0, -1, dtype=np.int64)
        self._count_of = np.zeros(0, dtype=np.int64)
        # Per job id: the span (first column, one past the last) of its columns; valid only
        # where _count_of is non-zero.
        self._lo_of = np.zeros(0, dtype=np.int64)
        self._hi_of = np.zeros(0, dtype=np.int64)
        # The ids of the jobs in the matrix, ascending; None until asked for after a job came
        # or went (the arrays above are as long as the largest id ever seen).
        self._ids: np.ndarray | None = None
        self.names: dict[int, str] = {}
        self.active_row: int | None = None

    # ------------------------------------------------------------------ queries
    @property
    def tree(self) -> WorkloadTree:
        """Return the workload tree, brought up to date with the WLV."""
        if self._stale is not None:
            lo, hi = self._stale
            self._stale = None
            self._tree.update(lo, hi, self._wlv)
        return self._tree

    @property
    def n_rows(self) -> int:
        """Return the number of time slots."""
        return self._cells.shape[0]

    @property
    def cells(self) -> np.ndarray:
        """Return the (rows x processors) int32 array of job ids (``IDLE`` = -1); read only."""
        view = self._cells.view()
        view.flags.writeable = False
        return view

    @property
    def wlv(self) -> np.ndarray:
        """Return the workload vector: idle slots per processor (read only)."""
        view = self._wlv.view()
        view.flags.writeable = False
        return view

    def jobs(self) -> list[int]:
        """Return the ids of the jobs in the matrix, in placement order."""
        return list(self._rows)

    def __contains__(self, job: int) -> bool:
        return job in self._rows

    def placements(self) -> Placements:
        """Return the :class:`Placements` ``(ids, home rows, row counts)`` of the jobs in the
        matrix, by ascending id."""
        ids = self._present()
        return Placements(ids, self._home_of[ids], self._count_of[ids])

    def spans(self) -> Spans:
        """Return the :class:`Spans` ``(ids, lo, hi)`` of the jobs in the matrix, by ascending
        id: each job's columns lie within ``[lo, hi)``."""
        ids = self._present()
        return Spans(ids, self._lo_of[ids], self._hi_of[ids])

    def _present(self) -> np.ndarray:
        """Return the ids of the jobs in the matrix, ascending (cached until one comes or goes)."""
        if self._ids is None:
            if 16 * len(self._rows) < len(self._count_of):  # few jobs: sorting them is cheaper
                self._ids = np.fromiter(sorted(self._rows), np.int64, len(self._rows))
            else:
                self._ids = np.flatnonzero(self._count_of)
            self._ids.flags.writeable = False
        return self._ids

    @property
    def n_jobs(self) -> int:
        """Return how many jobs are in the matrix."""
        return len(self._rows)

    def row_lists(self) -> Mapping[int, Sequence[int]]:
        """Return a read-only view of every job's rows (home row first, then its extra rows
        ascending), by job id: for loops over many jobs, where :meth:`job_rows` would copy."""
        return MappingProxyType(self._rows)

    def rows_flat(self, jobs: Sequence[int], total: int) -> npt.NDArray[np.int64]:
        """Return the rows of each of ``jobs`` (as :meth:`job_rows`) one after the other, as one
        array of ``total`` entries (the jobs' row counts added up); ``KeyError`` for a job not
        in the matrix."""
        rows = self._rows
        return np.fromiter(chain.from_iterable(rows[j] for j in jobs), np.int64, total)

    def home_rows(self, jobs: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Return the home row of each job id of ``jobs`` (-1 for an id not in the matrix;
        ``IndexError`` for an id above every id the matrix has seen)."""
        return self._home_of[jobs]

    def col_index_of(self, job: int) -> slice | npt.NDArray[np.intp]:
        """Return the numpy index of ``job``'s columns (:func:`col_index` of :meth:`job_cols`,
        made once per placement); ``KeyError`` if the job is not in the matrix."""
        return self._idx[job]

    def job_cols(self, job: int) -> JobCols:
        """Return the columns of ``job``; raises ``KeyError`` if it is not in the matrix."""
        return self._cols[job]

    def job_rows(self, job: int) -> list[int]:
        """Return the rows of ``job``: home row first, then its extra rows in ascending order.

        Raises ``KeyError`` if the job is not in the matrix.
        """
        return list(self._rows[job])

    def home_row(self, job: int) -> int:
        """Return the home row of ``job``; raises ``KeyError`` if absent."""
        return self._rows[job][0]

    def replica_rows(self, job: int) -> list[int]:
        """Return the extra rows ``job`` runs in (multi-slot running), possibly empty."""
        return list(self._rows[job][1:])

    def row_jobs(self, row: int) -> list[int]:
        """Return the distinct job ids in ``row``, left to right."""
        ids = self._cells[row]
        ids = ids[ids != IDLE]
        if not len(ids):
            return []
        # The id at the start of every run of equal cells, left to right; a job whose cells are
        # not contiguous (a migrated job's need not be) starts several runs: keep its first.
        starts = ids[np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))]
        return list(dict.fromkeys(starts.tolist()))

    def is_idle(self, row: int, cols: Cols) -> bool:
        """Return whether every cell of ``cols`` in ``row`` is idle."""
        return bool(self._cells[row, col_index(cols)].max() == IDLE)  # IDLE is below every id

    def fits(self, job: int, row: int) -> bool:
        """Return whether every cell of ``job``'s columns is idle in ``row`` (``KeyError`` if
        the job is not in the matrix)."""
        return bool(self._cells[row, self._idx[job]].max() == IDLE)

    def row_is_empty(self, row: int) -> bool:
        """Return whether ``row`` holds no job at all."""
        return not self._row_busy[row]

    def busy_in_row(self, row: int) -> int:
        """Return how many processors are allocated in ``row``."""
        return int(self._row_busy[row])

    def extra_per_processor(self) -> np.ndarray:
        """Return, per processor, how many of its cells hold an extra (replica) row of a job,
        i.e. how many more idle slots it would have if every job gave up its extra slots
        (read only)."""
        view = self._extra.view()
        view.flags.writeable = False
        return view

    def busy_per_row(self) -> np.ndarray:
        """Return, per row, how many processors are allocated in it (read only)."""
        view = self._row_busy.view()
        view.flags.writeable = False
        return view

    def name(self, job: int) -> str:
        """Return the label of ``job`` (``"J<id>"`` when it has no name)."""
        return self.names.get(job, f"J{job}")

    def region_cols(self, lo: int, hi: int) -> range | list[int]:
        """Return the columns of the region ``[lo, hi)``; on a ring ``hi`` may exceed N (wraps)."""
        if hi <= self.processors:
            return range(lo, hi)
        if not self.ring:
            raise ValueError(f"region [{lo}, {hi}) exceeds {self.processors} processors")
        n = self.processors
        return [c % n for c in range(lo, hi)]

    # ---------------------------------------------------------------- rendering
    def to_rows(self, idle: str = ".") -> list[str]:
        """Return the matrix as text rows, top slot first, in the scenario notation."""
        width = max([len(idle)] + [len(self.name(j)) for j in self._rows])
        out = []
        for r in range(self.n_rows - 1, -1, -1):
            tokens = [idle if j == IDLE else self.name(int(j)) for j in self._cells[r].tolist()]
            out.append(" ".join(t.ljust(width) for t in tokens).rstrip())
        return out

    def __repr__(self) -> str:
        body = "\n".join(self.to_rows())
        return f"OusterhoutMatrix({self.n_rows}x{self.processors})\n{body}"

    def state_key(self) -> tuple[Any, ...]:
        """Return a hashable summary of the whole state (cells, placements, active row)."""
        return (
            self._cells.shape,
            self._cells.tobytes(),
            tuple(sorted((j, tuple(c)) for j, c in self._cols.items())),
            tuple(sorted((j, tuple(r)) for j, r in self._rows.items())),
            self.active_row,
        )

    def snapshot(self) -> MatrixSnapshot:
        """Return a compact copy of the state (cells and placements) for :meth:`from_snapshot`."""
        return MatrixSnapshot(
            self.processors,
            self.ring,
            pack_cells(self._cells),
            dict(self._cols),
            {j: tuple(r) for j, r in self._rows.items()},
            self.active_row,
        )

    @classmethod
    def from_snapshot(cls, snap: MatrixSnapshot, names: dict[int, str] | None = None) -> OusterhoutMatrix:
        """Rebuild a matrix (with its WLV and WLT) from :meth:`snapshot`; ``names`` is shared."""
        processors, ring, cells, cols, rows, active = snap
        m = cls(processors, ring)
        m._cells = unpack_cells(cells)
        m._cols = dict(cols)
        m._rows = {j: list(r) for j, r in rows.items()}
        m._reindex()
        m._wlv = m.n_rows - np.count_nonzero(m._cells != IDLE, axis=0).astype(np.int64)
        m._row_busy = np.count_nonzero(m._cells != IDLE, axis=1).astype(np.int64)
        m._extra = m._count_extra()
        m._tree.rebuild(m._wlv)
        if names is not None:
            m.names = names
        m.active_row = active
        return m

    def copy(self) -> OusterhoutMatrix:
        """Return an independent copy (names are shared: they never change once given)."""
        other = OusterhoutMatrix.__new__(OusterhoutMatrix)
        other.processors = self.processors
        other.ring = self.ring
        other._cells = self._cells.copy()
        other._wlv = self._wlv.copy()
        other._row_busy = self._row_busy.copy()
        other._extra = self._extra.copy()
        other._tree = WorkloadTree(self.processors)
        other._tree.rebuild(self._wlv)
        other._stale = None
        other._cols = dict(self._cols)
        other._idx = dict(self._idx)
        other._rows = {j: list(r) for j, r in self._rows.items()}
        other._home_of = self._home_of.copy()
        other._count_of = self._count_of.copy()
        other._lo_of = self._lo_of.copy()
        other._hi_of = self._hi_of.copy()
        other._ids = None
        other.names = self.names
        other.active_row = self.active_row
        return other

    # ---------------------------------------------------------------- mutators
    def insert_row(self, row: int) -> None:
        """Insert an empty slot at index ``row`` (0..n_rows); rows above move up."""
        if not 0 <= row <= self.n_rows:
            raise ValueError(f"cannot add slot at {row}: matrix has {self.n_rows} slots")
        check_slot_growth(self.processors, self.n_rows + 1)
        self._cells = _with_row(self._cells, row, IDLE)
        self._row_busy = _with_row(self._row_busy, row, 0)
        self._shift_rows(row, +1)
        self._wlv += 1
        self._rebuild_tree()

    def delete_row(self, row: int) -> None:
        """Remove the empty slot ``row``; rows above move down. Raises if it is not empty."""
        if not 0 <= row < self.n_rows:
            raise ValueError(f"no slot {slot_label(row)}: matrix has {self.n_rows} slots")
        if not self.row_is_empty(row):
            raise ValueError(f"slot {slot_label(row)} is not empty")
        self._cells = _without_row(self._cells, row)
        self._row_busy = _without_row(self._row_busy, row)
        self._shift_rows(row + 1, -1)
        self._wlv -= 1
        self._rebuild_tree()

    def _shift_rows(self, first: int, by: int) -> None:
        """Add ``by`` to every row index >= ``first`` held by a job. Only jobs whose home row
        is that high, or that hold several rows, are visited."""
        home = self._home_of
        ids = self._present()
        high = home[ids] >= first
        for job in ids[high | (self._count_of[ids] > 1)].tolist():
            rows = self._rows[job]
            if rows[0] >= first:
                rows[0] += by
            at = bisect_left(rows, first, lo=1)  # extra rows are ascending: shift the tail
            if at < len(rows):
                rows[at:] = [r + by for r in rows[at:]]
        home[ids[high]] += by

    def _note(self, job: int) -> None:
        """Bring the per-id placement arrays up to date for ``job``."""
        if job >= len(self._home_of):
            grow = max(job + 1, 2 * len(self._home_of), 64)
            self._home_of = np.concatenate([self._home_of, np.full(grow - len(self._home_of), -1, np.int64)])
            self._count_of = np.concatenate([self._count_of, np.zeros(grow - len(self._count_of), np.int64)])
            self._lo_of = np.concatenate([self._lo_of, np.zeros(grow - len(self._lo_of), np.int64)])
            self._hi_of = np.concatenate([self._hi_of, np.zeros(grow - len(self._hi_of), np.int64)])
        rows = self._rows.get(job)
        if rows:
            self._home_of[job] = rows[0]
            self._count_of[job] = len(rows)
        else:
            self._home_of[job] = -1
            self._count_of[job] = 0

    def _count_extra(self) -> np.ndarray:
        """Count, from the placements, the extra-row cells of every processor."""
        extra = np.zeros(self.processors, dtype=np.int64)
        for job, rows in self._rows.items():
            if len(rows) > 1:
                extra[col_index(self._cols[job])] += len(rows) - 1
        return extra

    def _reindex(self) -> None:
        """Rebuild the per-id placement arrays from ``_rows``."""
        size = max(self._rows, default=-1) + 1
        self._home_of = np.full(size, -1, dtype=np.int64)
        self._count_of = np.zeros(size, dtype=np.int64)
        self._lo_of = np.zeros(size, dtype=np.int64)
        self._hi_of = np.zeros(size, dtype=np.int64)
        self._ids = None
        self._idx = {job: col_index(cols) for job, cols in self._cols.items()}
        for job in self._rows:
            self._note(job)
            self._lo_of[job], self._hi_of[job] = span(self._cols[job])

    def _rebuild_tree(self) -> None:
        # Every leaf changed; the tree is brought up to date when next read (BC never reads it).
        self._stale = (0, self.processors)

    def _refresh(self, cols: Cols) -> None:
        """Mark the tree stale over ``cols``. Ranges are merged while the union stays within
        ``STALE_MERGE`` columns or they overlap; a far-away pending range is refreshed first,
        so on a wide machine the range to refresh stays narrow."""
        lo, hi = span(cols)
        stale = self._stale
        if stale is None:
            self._stale = (lo, hi)
        elif (lo <= stale[1] and stale[0] <= hi) or max(hi, stale[1]) - min(lo, stale[0]) <= STALE_MERGE:
            self._stale = (min(lo, stale[0]), max(hi, stale[1]))
        else:
            self._tree.update(stale[0], stale[1], self._wlv)
            self._stale = (lo, hi)

    def put(self, job: int, row: int, cols: JobCols, home: bool) -> None:
        """Allocate ``cols`` of ``row`` to ``job`` (as its home row or as an extra row)."""
        if not 0 <= row < self.n_rows:
            raise ValueError(f"no slot {slot_label(row)}: matrix has {self.n_rows} slots")
        if len(cols) == 0:
            raise ValueError("a job needs at least one processor")
        idx = col_index(cols)
        if np.maximum.reduce(self._cells[row, idx]) != IDLE:  # (the ufunc: ndarray.max adds a call)
            raise ValueError(f"cells of {self.name(job)} in {slot_label(row)} are not idle")
        if home:
            if job in self._rows:
                raise ValueError(f"{self.name(job)} is already in the matrix")
        else:
            if job not in self._rows:
                raise ValueError(f"{self.name(job)} has no home row to replicate")
            own = self._cols[job]
            if own != cols and tuple(own) != tuple(cols):
                raise ValueError(f"a replica of {self.name(job)} must use the same processors")
            if _holds(self._rows[job], row):
                raise ValueError(f"{self.name(job)} already runs in {slot_label(row)}")
        self._cells[row, idx] = job
        self._wlv[idx] -= 1
        self._row_busy[row] += len(cols)
        if not home:
            self._extra[idx] += 1
        if home:
            self._cols[job] = cols
            self._idx[job] = idx
            self._rows[job] = [row]
            self._ids = None
        else:
            insort(self._rows[job], row, lo=1)
        self._note(job)
        if home:
            self._lo_of[job], self._hi_of[job] = span(cols)
        self._refresh(cols)

    def clear(self, job: int, row: int) -> None:
        """Free ``job``'s cells in ``row``; removing the home row requires no extra rows."""
        rows = self._rows.get(job)
        if rows is None or not _holds(rows, row):
            raise ValueError(f"{self.name(job)} does not run in {slot_label(row)}")
        if row == rows[0] and len(rows) > 1:
            raise ValueError(f"{self.name(job)} still runs in extra slots")
        cols = self._cols[job]
        idx = self._idx[job]
        self._cells[row, idx] = IDLE
        self._wlv[idx] += 1
        self._row_busy[row] -= len(cols)
        if row != rows[0]:
            self._extra[idx] -= 1
        rows.remove(row)
        if not rows:
            del self._rows[job]
            self._ids = None
            del self._cols[job]
            del self._idx[job]
        self._note(job)
        self._refresh(cols)

    def put_extra(self, job: int, rows: Sequence[int]) -> None:
        """Let ``job`` also run in each of ``rows`` on its own columns, in one pass.

        The same as ``put(job, row, job_cols(job), home=False)`` for each row in turn. Raises
        ``ValueError``, changing nothing, if the job is absent, a row is out of range, repeated
        or already the job's, or a cell is not idle.
        """
        own = self._rows.get(job)
        if own is None:
            raise ValueError(f"{self.name(job)} has no home row to replicate")
        rows = list(rows)
        if len(rows) == 1:  # the usual case: a slot that a re-pack has just made idle
            self.put(job, rows[0], self._cols[job], home=False)
            return
        if not rows:
            return
        n = self.n_rows
        if len(set(rows)) != len(rows) or not set(own).isdisjoint(rows) or not 0 <= min(rows) <= max(rows) < n:
            raise ValueError(f"{self.name(job)} cannot take extra slots {[slot_label(r) for r in rows]}")
        cols = self._cols[job]
        idx = self._idx[job]
        at = np.asarray(rows, dtype=np.intp)
        block = (at, idx) if isinstance(idx, slice) else (at[:, None], idx)
        if self._cells[block].max() != IDLE:
            raise ValueError(f"cells of {self.name(job)} in its new extra slots are not idle")
        self._cells[block] = job
        self._wlv[idx] -= len(rows)
        self._row_busy[at] += len(cols)
        self._extra[idx] += len(rows)
        own.extend(rows)
        own[1:] = sorted(own[1:])
        self._note(job)
        self._refresh(cols)

    def clear_extra(self, job: int, rows: Sequence[int]) -> None:
        """Free ``job``'s cells in each of its extra ``rows``, in one pass.

        The same as ``clear(job, row)`` for each row in turn. Raises ``ValueError``, changing
        nothing, unless every row is a distinct extra row of the job.
        """
        own = self._rows.get(job)
        rows = list(rows)
        if own is None or len(set(rows)) != len(rows) or not set(own[1:]).issuperset(rows):
            raise ValueError(f"{self.name(job)} does not run in extra slots {[slot_label(r) for r in rows]}")
        if not rows:
            return
        cols = self._cols[job]
        idx = self._idx[job]
        at = np.asarray(rows, dtype=np.intp)
        self._cells[(at, idx) if isinstance(idx, slice) else (at[:, None], idx)] = IDLE
        self._wlv[idx] += len(rows)
        self._row_busy[at] -= len(cols)
        self._extra[idx] -= len(rows)
        gone = set(rows)
        own[1:] = [r for r in own[1:] if r not in gone]
        self._note(job)
        self._refresh(cols)

    def move(self, job: int, src: int, dst: int) -> None:
        """Move ``job``'s cells from row ``src`` to idle cells of row ``dst`` (same columns)."""
        rows = self._rows.get(job)
        if rows is None or not _holds(rows, src):
            raise ValueError(f"{self.name(job)} does not run in {slot_label(src)}")
        if _holds(rows, dst):
            raise ValueError(f"{self.name(job)} already runs in {slot_label(dst)}")
        cols = self._cols[job]
        idx = self._idx[job]
        if not 0 <= dst < self.n_rows or self._cells[dst, idx].max() != IDLE:
            raise ValueError(f"cells of {self.name(job)} in {slot_label(dst)} are not idle")
        self._cells[src, idx] = IDLE
        self._cells[dst, idx] = job
        self._row_busy[src] -= len(cols)
        self._row_busy[dst] += len(cols)
        if rows[0] == src:
            rows[0] = dst
            self._home_of[job] = dst
        else:
            del rows[bisect_left(rows, src, lo=1)]
            insort(rows, dst, lo=1)

    def relocate(self, job: int, src: int, dst: int, new_cols: JobCols) -> None:
        """Migrate ``job`` (one row only) to ``new_cols`` of row ``dst``."""
        rows = self._rows.get(job)
        if rows is None or rows != [src]:
            raise ValueError(f"{self.name(job)} must run in {slot_label(src)} alone to migrate")
        old = self._cols[job]
        self.clear(job, src)
        try:
            self.put(job, dst, new_cols, home=True)
        except ValueError:
            self.put(job, src, old, home=True)
            raise

    def swap(self, row_a: int, row_b: int, lo: int, hi: int) -> None:
        """Exchange the contents of rows ``row_a`` and ``row_b`` on the region ``[lo, hi)``.

        Raises ``ValueError`` unless both region ends are legal cuts in both rows, i.e. every
        job touching the region lies entirely inside it.
        """
        n = self.n_rows
        if not (0 <= row_a < n and 0 <= row_b < n) or row_a == row_b:
            raise ValueError(f"cannot swap slots {row_a} and {row_b} of {n}")
        cols = self.region_cols(lo, hi)
        idx = col_index(cols)
        inside = set(cols)
        a_part = self._cells[row_a, idx].copy()
        b_part = self._cells[row_b, idx].copy()
        moved = set(a_part[a_part != IDLE].tolist()) | set(b_part[b_part != IDLE].tolist())
        for job in moved:
            if not inside.issuperset(self._cols[job]):
                raise ValueError(
                    f"illegal cut: {self.name(job)} crosses the region "
                    f"{processor_label(lo)}..{processor_label((hi - 1) % self.processors)}"
                )
        self._cells[row_a, idx] = b_part
        self._cells[row_b, idx] = a_part
        shift = int(np.count_nonzero(b_part != IDLE)) - int(np.count_nonzero(a_part != IDLE))
        self._row_busy[row_a] += shift
        self._row_busy[row_b] -= shift
        in_a = set(a_part[a_part != IDLE].tolist())
        in_b = set(b_part[b_part != IDLE].tolist())
        for job in moved:
            rows = self._rows[job]
            for i, r in enumerate(rows):
                if r == row_a and job in in_a:
                    rows[i] = row_b
                elif r == row_b and job in in_b:
                    rows[i] = row_a
            rows[1:] = sorted(rows[1:])
            self._note(job)

    def set_active(self, row: int | None) -> None:
        """Mark ``row`` as the slot whose time slice is running (``None``: none).

        The mark is a plain index that adding or removing slots does not move: the engine
        emits a :class:`~gangviz.core.changes.RowActivated` at the end of every step, so the
        mark is right whenever a step is complete, and inverting a step restores it exactly.
        """
        self.active_row = row

    def check(self) -> None:
        """Verify every invariant of the state; raise ``AssertionError`` naming the first broken.

        Used by the tests: cells agree with placements; each job's processes share each of its
        rows on its own columns; WLV and WLT agree with the cells.
        """
        seen = np.full(self._cells.shape, IDLE, dtype=np.int32)
        for job, rows in self._rows.items():
            cols = self._cols[job]
            assert len(set(rows)) == len(rows), f"{self.name(job)} holds a row twice"
            idx = col_index(cols)
            for r in rows:
                assert np.all(self._cells[r, idx] == job), f"{self.name(job)} split in S{r + 1}"
                seen[r, idx] = job
        assert np.array_equal(seen, self._cells), "cells hold a job the placements do not know"
        ids, home, count = self.placements()
        assert ids.tolist() == sorted(self._rows), "placement arrays list other jobs"
        assert home.tolist() == [self._rows[j][0] for j in ids.tolist()], "home rows out of date"
        assert count.tolist() == [len(self._rows[j]) for j in ids.tolist()], "row counts out of date"
        _, lo, hi = self.spans()
        assert list(zip(lo.tolist(), hi.tolist())) == [span(self._cols[j]) for j in ids.tolist()], "spans out of date"
        idle = self.n_rows - np.count_nonzero(self._cells != IDLE, axis=0)
        assert np.array_equal(idle, self._wlv), "WLV out of date"
        busy = np.count_nonzero(self._cells != IDLE, axis=1)
        assert np.array_equal(busy, self._row_busy), "row busy counts out of date"
        assert np.array_equal(self._count_extra(), self._extra), "extra cells per processor out of date"
        fresh = WorkloadTree(self.processors)
        fresh.rebuild(idle)
        for a, b in zip(fresh.levels, self.tree.levels):
            assert np.array_equal(a, b), "WLT out of date"

    @classmethod
    def from_rows(
        cls, rows: Iterable[Sequence[int]], processors: int | None = None, ring: bool = False
    ) -> OusterhoutMatrix:
        """Build a matrix from rows of job ids (bottom slot first; ``IDLE`` for idle).

        The first row in which a job appears (from the bottom) becomes its home row; the
        others are extra rows. Raises ``ValueError`` if a job's columns differ between rows.
        """
        rows = [list(r) for r in rows]
        n = processors if processors is not None else (len(rows[0]) if rows else 1)
        m = cls(n, ring=ring)
        for r, ids in enumerate(rows):
            if len(ids) != n:
                raise ValueError(f"row {r} has {len(ids)} cells, expected {n}")
        # every slot at once (no job is placed yet): adding them one by one copies the cells
        # once per slot, quadratic in the slots
        check_slot_growth(n, len(rows))
        m._cells = np.full((len(rows), n), IDLE, dtype=m._cells.dtype)
        m._row_busy = np.zeros(len(rows), dtype=m._row_busy.dtype)
        m._wlv += len(rows)
        m._rebuild_tree()
        for r, ids in enumerate(rows):
            found: dict[int, list[int]] = {}
            for c, j in enumerate(ids):
                if j != IDLE:
                    found.setdefault(int(j), []).append(c)
            for j, cs in found.items():
                cols: JobCols = range(cs[0], cs[-1] + 1) if cs == list(range(cs[0], cs[-1] + 1)) else tuple(cs)
                if j in m:
                    if tuple(m.job_cols(j)) != tuple(cols):
                        raise ValueError(f"job {j} uses different processors in different rows")
                    m.put(j, r, m.job_cols(j), home=False)
                else:
                    m.put(j, r, cols, home=True)
        return m
