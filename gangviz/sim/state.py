"""The records a matrix simulation keeps: scripted events, job records, samples, run state.

Plain data, no behaviour beyond reading and packing: :mod:`gangviz.sim.engine` fills them in,
:mod:`gangviz.sim.history` saves and restores :class:`RunState`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np
import numpy.typing as npt

from gangviz.core.jobs import JobSpec

FloatArray = npt.NDArray[np.float64]


@dataclass(slots=True)
class JobRecord:
    """What happened to one job: its spec, when it started, when it finished."""

    spec: JobSpec
    start: float | None = None
    finish: float | None = None
    terminated: bool = False

    @property
    def turnaround(self) -> float | None:
        """Return finish - arrival, or ``None`` while the job has not finished."""
        return None if self.finish is None else self.finish - self.spec.arrival


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
_SAMPLE_INTS = (False, True, True, True, False, True, False)


class SampleLog(Sequence[Sample]):
    """The samples of a run, one per step, kept as packed doubles (56 bytes a step instead of a
    :class:`Sample` object and its floats, about 140).

    Reads like a list of :class:`Sample`: ``len``, indexing and slicing (a slice gives a list)
    and iteration make the records again on access, equal to the ones appended (counts are whole
    numbers far below 2**53, so a double holds them exactly). ``del log[k:]`` drops the tail.
    """

    __slots__ = ("_data",)
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

    @overload
    def __getitem__(self, index: int) -> Sample: ...

    @overload
    def __getitem__(self, index: slice) -> list[Sample]: ...

    def __getitem__(self, index: int | slice) -> Sample | list[Sample]:
        n = len(self)
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(n))]
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("sample index out of range")
        return self._make(i)

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
