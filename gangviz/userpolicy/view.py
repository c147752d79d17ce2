"""The read-only view a user's policy decides from: the machine, the jobs and the queue.

A :class:`MatrixView` is made afresh at each decision point; it copies nothing it does not have
to, and offers no way to change the simulation (a policy acts through
:class:`gangviz.userpolicy.actions.MatrixActions`). Times and work are in slices.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from gangviz.core.matrix import IDLE

__all__ = ["JobView", "MatrixView"]


@dataclass(frozen=True, slots=True)
class JobView:
    """One job as a policy sees it.

    ``size`` processors, ``work`` slices of service in all, ``remaining`` still to serve,
    ``arrival`` time, the user's ``estimate`` (``None`` when the trace has none); for a running
    job its home ``slot`` and ``processors`` (``None`` and ``()`` while it waits).
    """

    id: int
    name: str
    size: int
    work: float
    remaining: float
    arrival: float
    estimate: float | None = None
    slot: int | None = None
    processors: tuple[int, ...] = ()


class MatrixView:
    """The Ousterhout matrix, the jobs and the queue at one decision point (read-only).

    ``time`` (slices), ``processors`` (N), ``slots`` (rows of the matrix), ``arrived`` and
    ``completed`` (the jobs that caused this decision), ``waiting`` (the queue, in the
    engine's order: arrival, or the ``--order`` given), ``running``, and ``rng``, the seeded
    random generator the policy must use for any random choice.
    """

    def __init__(self, sim: Any, arrived: list[int], completed: list[int], rng: np.random.Generator) -> None:
        self._sim = sim
        self.time: float = sim.time
        self.processors: int = sim.matrix.processors
        self.rng = rng
        self.completed: tuple[int, ...] = tuple(completed)
        self._arrived = tuple(arrived)

    def _job(self, job: int) -> JobView:
        sim = self._sim
        spec = sim.jobs[job].spec
        m = sim.matrix
        if job in m:
            cols = m.job_cols(job)
            return JobView(job, spec.name, spec.size, spec.work, sim.remaining(job), spec.arrival,
                           spec.estimate, m.home_row(job), tuple(cols))
        return JobView(job, spec.name, spec.size, spec.work, spec.work, spec.arrival, spec.estimate)

    def job(self, job: int) -> JobView:
        """Return the job with id ``job``; raises ``KeyError`` for an unknown id."""
        if job not in self._sim.jobs:
            raise KeyError(f"no job {job}")
        return self._job(job)

    @property
    def slots(self) -> int:
        """The number of time slots (rows) now."""
        return int(self._sim.matrix.n_rows)

    @property
    def waiting(self) -> list[JobView]:
        """The jobs waiting to be placed, in queue order (placed ones drop out at once)."""
        m = self._sim.matrix
        return [self._job(j) for j in self._sim.waiting if j not in m]

    @property
    def arrived(self) -> list[JobView]:
        """The jobs that arrived at this decision point."""
        return [self._job(j) for j in self._arrived]

    @property
    def running(self) -> list[JobView]:
        """The jobs in the matrix."""
        return [self._job(j) for j in self._sim.matrix.jobs()]

    def row(self, slot: int) -> tuple[int | None, ...]:
        """Return slot ``slot`` as one entry per processor: a job id or ``None`` (idle)."""
        self._check_slot(slot)
        return tuple([None if c < 0 else c for c in self._sim.matrix.cells[slot].tolist()])

    def is_empty(self, slot: int) -> bool:
        """Whether slot ``slot`` runs no job."""
        return bool(self._sim.matrix.row_is_empty(self._check_slot(slot)))

    def busy(self, slot: int) -> int:
        """Return how many processors of slot ``slot`` run a job."""
        return int(self._sim.matrix.busy_in_row(self._check_slot(slot)))

    def idle(self, slot: int) -> list[int]:
        """Return the idle processors of slot ``slot``."""
        self._check_slot(slot)
        return [int(p) for p in np.flatnonzero(self._sim.matrix.cells[slot] == IDLE)]

    def runs(self, slot: int, size: int) -> list[int]:
        """Return the first processors of every run of ``size`` consecutive idle processors
        in slot ``slot``, leftmost first."""
        row = self._sim.matrix.cells[self._check_slot(slot)]
        if size < 1 or size > len(row):
            return []
        starts, ends = _idle_runs(row)
        return [p for s, e in zip(starts, ends) if e - s >= size for p in range(s, e - size + 1)]

    def empty_slots(self) -> list[int]:
        """Return the slots that run no job, lowest first."""
        busy = self._sim.matrix.busy_per_row()
        return np.flatnonzero(busy == 0).tolist() if busy.size and not busy.all() else []

    def first_fit(self, size: int) -> tuple[int, int] | None:
        """Return ``(slot, first processor)`` of the lowest slot with ``size`` consecutive idle
        processors (its leftmost such run), or ``None`` when no slot has one."""
        m = self._sim.matrix
        if size < 1:
            return None
        for slot in np.flatnonzero(m.processors - m.busy_per_row() >= size).tolist():
            starts, ends = _idle_runs(m.cells[slot])
            for s, e in zip(starts, ends):
                if e - s >= size:
                    return slot, s
        return None

    def fits(self, slot: int, processors: list[int] | tuple[int, ...] | range) -> bool:
        """Whether every processor of ``processors`` is idle in slot ``slot``."""
        row = self._sim.matrix.cells[self._check_slot(slot)]
        return all(0 <= p < len(row) and row[p] == IDLE for p in processors)

    def load(self) -> list[int]:
        """Return the workload vector: per processor, how many slots it is busy in."""
        return [int(v) for v in self._sim.matrix.wlv.tolist()]

    def __iter__(self) -> Iterator[tuple[int | None, ...]]:
        for slot in range(self.slots):
            yield self.row(slot)

    def _check_slot(self, slot: int) -> int:
        if type(slot) is int and 0 <= slot < self._sim.matrix.n_rows:
            return slot
        if not isinstance(slot, (int, np.integer)) or not 0 <= slot < self.slots:
            raise IndexError(f"no slot {slot!r}: the matrix has {self.slots} slots (0..{self.slots - 1})")
        return int(slot)


def _idle_runs(row: np.ndarray) -> tuple[list[int], list[int]]:
    """Return the first processor and one past the last of every maximal run of idle
    processors of ``row``, leftmost first."""
    idle = np.zeros(len(row) + 2, dtype=bool)
    np.equal(row, IDLE, out=idle[1:-1])
    edges: list[int] = np.flatnonzero(idle[1:] != idle[:-1]).tolist()
    return edges[0::2], edges[1::2]
