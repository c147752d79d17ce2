"""The records a matrix simulation keeps: scripted events, job records, samples, run state.

Plain data, no behaviour beyond reading and packing: :mod:`gangviz.sim.engine` fills them in,
:mod:`gangviz.sim.history` saves and restores :class:`RunState`.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from gangviz.core.jobs import JobColumns, JobSpec
from gangviz.core.lazy import MadeOnRead

FloatArray = npt.NDArray[np.float64]


class JobRecord:
    """What happened to one job: its spec, when it started, when it finished; a view of one
    row of a :class:`JobTable`, made when asked (a simulation keeps no object per job).

    ``start`` and ``finish`` are ``None`` until the job starts or finishes; setting them (or
    ``terminated``) writes the table. Two records are equal when their four fields are.
    """

    __slots__ = ("_table", "id")

    def __init__(self, table: JobTable, job: int) -> None:
        self._table, self.id = table, job

    @property
    def spec(self) -> JobSpec:
        """Return the job's :class:`~gangviz.core.jobs.JobSpec`."""
        return self._table.spec(self.id)

    @property
    def start(self) -> float | None:
        """Return the time the job was placed, or ``None`` before."""
        v = self._table.start[self.id]
        return None if v != v else float(v)  # NaN: not yet

    @start.setter
    def start(self, value: float | None) -> None:
        self._table.start[self.id] = math.nan if value is None else value

    @property
    def finish(self) -> float | None:
        """Return the time the job finished or was terminated, or ``None`` before."""
        v = self._table.finish[self.id]
        return None if v != v else float(v)

    @finish.setter
    def finish(self, value: float | None) -> None:
        self._table.finish[self.id] = math.nan if value is None else value

    @property
    def terminated(self) -> bool:
        """Return whether a script or the user terminated the job."""
        return bool(self._table.terminated[self.id])

    @terminated.setter
    def terminated(self, value: bool) -> None:
        self._table.terminated[self.id] = value

    @property
    def turnaround(self) -> float | None:
        """Return finish - arrival, or ``None`` while the job has not finished."""
        finish = self.finish
        return None if finish is None else finish - self.spec.arrival

    def _fields(self) -> tuple[JobSpec, float | None, float | None, bool]:
        return self.spec, self.start, self.finish, self.terminated

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JobRecord):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        spec, start, finish, terminated = self._fields()
        return f"JobRecord(spec={spec!r}, start={start!r}, finish={finish!r}, terminated={terminated!r})"


class JobTable(Mapping[int, JobRecord]):
    """The job records of a simulation as columns indexed by job id: ``start`` and ``finish``
    (float arrays, NaN before the job starts or finishes) and ``terminated`` (bool array), with
    the specs by id. Reads like a dict of :class:`JobRecord` by id, in the order the jobs were
    given (then submitted), making each record when asked.

    Raises ``ValueError`` naming a duplicate id.
    """

    __slots__ = ("_added", "_count", "_order", "_specs", "finish", "start", "terminated")

    def __init__(self, specs: Sequence[JobSpec], ids: npt.NDArray[np.int64] | None = None) -> None:
        order = np.fromiter((s.id for s in specs), dtype=np.int64, count=len(specs)) if ids is None else ids
        size = int(order.max()) + 1 if len(order) else 0
        by_id: Sequence[JobSpec | None]
        if isinstance(specs, JobColumns):  # ids 0..n-1; a spec is made when read
            by_id = specs
        elif len(order) and np.array_equal(order, np.arange(size)):
            by_id = list(specs)
        else:
            by_id = [None] * size
            for spec in specs:
                if by_id[spec.id] is not None:
                    raise ValueError(f"duplicate job id {spec.id}")
                by_id[spec.id] = spec
        self._specs = by_id
        self._order = order  # ids in the order given
        self._added: list[int] = []  # ids submitted later, in order
        self._count = len(specs)
        self.start = np.full(size, math.nan)
        self.finish = np.full(size, math.nan)
        self.terminated = np.zeros(size, dtype=bool)

    @property
    def end(self) -> int:
        """Return one more than the largest id the table has room for (0 when empty)."""
        return len(self._specs)

    def spec(self, job: int) -> JobSpec:
        """Return the spec of ``job``; ``KeyError`` when there is no such job."""
        spec = self._specs[job] if 0 <= job < len(self._specs) else None
        if spec is None:
            raise KeyError(job)
        return spec

    def completed(self) -> list[int]:
        """Return the ids of the jobs that finished and were not terminated, in the table's
        order (the order the jobs were given, then submitted)."""
        done = ~np.isnan(self.finish) & ~self.terminated
        ids: list[int] = self._order[done[self._order]].tolist()
        return ids + [j for j in self._added if done[j]]

    def add(self, spec: JobSpec) -> None:
        """Add a job submitted during the run (its id is not in the table yet)."""
        job = spec.id
        if job >= len(self._specs):
            grow = max(job + 1, 2 * len(self._specs)) - len(self._specs)
            self._listed().extend([None] * grow)
            self.start = np.concatenate([self.start, np.full(grow, math.nan)])
            self.finish = np.concatenate([self.finish, np.full(grow, math.nan)])
            self.terminated = np.concatenate([self.terminated, np.zeros(grow, dtype=bool)])
        self._listed()[job] = spec
        self.start[job] = self.finish[job] = math.nan
        self.terminated[job] = False
        self._added.append(job)
        self._count += 1

    def remove(self, job: int) -> None:
        """Forget a job added by :meth:`add` (stepping back before its submission)."""
        self._listed()[job] = None
        self.start[job] = self.finish[job] = math.nan
        self.terminated[job] = False
        self._added.remove(job)
        self._count -= 1

    def _listed(self) -> list[JobSpec | None]:
        """The specs as a list that takes a submitted job (made from columns the first time)."""
        if not isinstance(self._specs, list):
            self._specs = list(self._specs)
        return self._specs

    def __getitem__(self, job: int) -> JobRecord:
        if job in self:
            return JobRecord(self, job)
        raise KeyError(job)

    def __contains__(self, job: object) -> bool:
        if not (isinstance(job, (int, np.integer)) and 0 <= job < len(self._specs)):
            return False
        return isinstance(self._specs, JobColumns) or self._specs[job] is not None

    def __iter__(self) -> Iterator[int]:
        yield from self._order.tolist()
        yield from list(self._added)

    def __len__(self) -> int:
        return self._count


@dataclass(slots=True)
class Sample:
    """The machine at one step, for the live metric panels."""

    time: float
    slots: int
    waiting: int
    running: int
    active_ratio: float
    finished: int
    mean_turnaround: float


_SAMPLE_FIELDS = ("time", "slots", "waiting", "running", "active_ratio", "finished", "mean_turnaround")


class SampleLog(MadeOnRead[Sample]):
    """The samples of a run, one per step, kept as packed doubles (56 bytes a step instead of a
    :class:`Sample` object and its floats, about 140).

    Reads like a list of :class:`Sample`: ``len``, indexing and slicing (a slice gives a list)
    and iteration make the records again on access, equal to the ones appended (counts are whole
    numbers far below 2**53, so a double holds them exactly). ``del log[k:]`` drops the tail.
    """

    __slots__ = ("_data",)
    _ITEM = "sample"
    _WIDTH = len(_SAMPLE_FIELDS)

    def __init__(self) -> None:
        self._data = array("d")

    def append(self, sample: Sample) -> None:
        """Add ``sample`` at the end."""
        self._data.extend((sample.time, sample.slots, sample.waiting, sample.running,
                           sample.active_ratio, sample.finished, sample.mean_turnaround))

    def __len__(self) -> int:
        return len(self._data) // self._WIDTH

    def _make(self, i: int) -> Sample:
        w = self._WIDTH
        v = self._data[i * w:(i + 1) * w]
        return Sample(v[0], int(v[1]), int(v[2]), int(v[3]), v[4], int(v[5]), v[6])

    def __delitem__(self, index: slice) -> None:
        """Drop ``log[k:]`` (only a tail can be dropped; the history is cut, never holed)."""
        if not isinstance(index, slice) or index.step not in (None, 1) or index.stop not in (None, len(self)):
            raise TypeError("only a tail log[k:] can be deleted")
        start = index.indices(len(self))[0]
        del self._data[start * self._WIDTH:]

    def column(self, field: str) -> FloatArray:
        """Return one field of every sample as a new float array."""
        return np.frombuffer(self._data, dtype=np.float64)[_SAMPLE_FIELDS.index(field)::self._WIDTH].copy()


@dataclass
class RunState:
    """Everything that changes as the simulation runs (saved whole in snapshots)."""

    time: float = 0.0
    decided: bool = False
    next_row: int = 0
    next_arrival: int = 0
    next_script: int = 0
    served: FloatArray = field(default_factory=lambda: np.zeros(0))  # slices received, by job id
    finish: dict[int, float] = field(default_factory=dict)
    waiting: list[int] = field(default_factory=list)
    lost: dict[int, float] = field(default_factory=dict)
    row_time: float = 0.0
    busy_time: float = 0.0
    max_rows: int = 0
    finished: int = 0
    turnaround_sum: float = 0.0
    #: per job id: time of the first slice it ran (nan before), most rows held at once, slices
    #: run in rows other than its home row (saved in snapshots for the running jobs only)
    first_run: FloatArray = field(default_factory=lambda: np.zeros(0))
    rows_held: FloatArray = field(default_factory=lambda: np.zeros(0))
    extra_slices: FloatArray = field(default_factory=lambda: np.zeros(0))
    unstarted: list[int] = field(default_factory=list)  # placed jobs whose row's turn has not come
