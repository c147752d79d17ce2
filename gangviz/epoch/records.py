"""Change records of the epoch model (the protocol of :mod:`gangviz.core.record`).

The state they act on is :class:`EpochState`: the jobs in the closed system with their remaining
work, the current quantum's schedule, the finished jobs, and the clock. Records store the values
before and after (not differences), so apply then invert restores floats bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gangviz.core.record import Change, job_label
from gangviz.epoch.model import Schedule


@dataclass(slots=True)
class RunningJob:
    """A job in the system: its minimum nodes, work (units of sequential service), speedup
    parameter beta, arrival time and remaining work."""

    id: int
    min_nodes: int
    work: float
    beta: float
    arrival: float
    remaining: float


@dataclass(frozen=True, slots=True)
class FinishedJob:
    """A departed job and its response time ``departure - arrival``."""

    id: int
    min_nodes: int
    work: float
    beta: float
    arrival: float
    departure: float

    @property
    def response(self) -> float:
        """Return departure - arrival."""
        return self.departure - self.arrival


@dataclass(slots=True)
class EpochState:
    """The epoch model's mutable state (N, clock, jobs, schedule, finished jobs)."""

    nodes: int
    time: float = 0.0
    jobs: dict[int, RunningJob] = field(default_factory=dict)
    schedule: Schedule | None = None
    finished: list[FinishedJob] = field(default_factory=list)
    arrived: int = 0

    def snapshot(self) -> tuple[Any, ...]:
        """Return a comparable copy of everything (for tests and stepping back)."""
        return (self.nodes, self.time, self.arrived, self.schedule, tuple(self.finished),
                tuple(sorted((j.id, j.min_nodes, j.work, j.beta, j.arrival, j.remaining)
                             for j in self.jobs.values())))


@dataclass(frozen=True, slots=True)
class _JobRecord(Change):
    """What the arrival and departure records of one job carry: its id, M, work and beta."""

    job: int
    min_nodes: int
    work: float
    beta: float


@dataclass(frozen=True, slots=True)
class JobArrived(_JobRecord):
    """Job ``job`` enters the closed system at ``time`` with its M, work and beta."""

    kind: ClassVar[str] = "job_arrived"
    time: float

    def apply(self, state: EpochState) -> None:
        """Add the job with all its work remaining; ``ValueError`` if the id is present."""
        if self.job in state.jobs:
            raise ValueError(f"job {self.job} is already in the system")
        state.jobs[self.job] = RunningJob(self.job, self.min_nodes, self.work, self.beta,
                                          self.time, self.work)
        state.arrived += 1

    def invert(self) -> JobWithdrawn:
        """Return the withdrawal of this job."""
        return JobWithdrawn(self.job, self.min_nodes, self.work, self.beta, self.time)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say which job arrived and what it needs."""
        return (f"{job_label(self.job, names)} arrives needing at least {self.min_nodes} node{'' if self.min_nodes == 1 else 's'} "
                f"(memory), work {self.work:.0f}.")


@dataclass(frozen=True, slots=True)
class JobWithdrawn(_JobRecord):
    """Undo of :class:`JobArrived`: the job leaves without having run."""

    kind: ClassVar[str] = "job_withdrawn"
    time: float

    def apply(self, state: EpochState) -> None:
        """Remove the untouched job; ``ValueError`` if it is missing or has been served."""
        j = state.jobs.get(self.job)
        if j is None or j.remaining != self.work:
            raise ValueError(f"job {self.job} cannot be withdrawn (missing or already served)")
        del state.jobs[self.job]
        state.arrived -= 1

    def invert(self) -> JobArrived:
        """Return the arrival."""
        return JobArrived(self.job, self.min_nodes, self.work, self.beta, self.time)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say the job is withdrawn."""
        return f"{job_label(self.job, names)} is withdrawn before running."


@dataclass(frozen=True, slots=True)
class JobDeparted(_JobRecord):
    """Job ``job`` completes its work at ``time`` and leaves."""

    kind: ClassVar[str] = "job_departed"
    arrival: float
    time: float

    def apply(self, state: EpochState) -> None:
        """Move the job to the finished list; ``ValueError`` unless it has no work left."""
        j = state.jobs.get(self.job)
        if j is None or j.remaining != 0.0:
            raise ValueError(f"job {self.job} cannot depart (missing or work remaining)")
        del state.jobs[self.job]
        state.finished.append(FinishedJob(self.job, self.min_nodes, self.work, self.beta,
                                          self.arrival, self.time))

    def invert(self) -> JobReturned:
        """Return the record that puts the job back."""
        return JobReturned(self.job, self.min_nodes, self.work, self.beta, self.arrival,
                           self.time)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say which job completed and its response time."""
        return (f"{job_label(self.job, names)} completes and departs; response time "
                f"{self.time - self.arrival:.1f}.")


@dataclass(frozen=True, slots=True)
class JobReturned(_JobRecord):
    """Undo of :class:`JobDeparted`: the finished job is back, with no work left."""

    kind: ClassVar[str] = "job_returned"
    arrival: float
    time: float

    def apply(self, state: EpochState) -> None:
        """Take the job off the finished list; ``ValueError`` unless it is the last finished."""
        if not state.finished or state.finished[-1].id != self.job:
            raise ValueError(f"job {self.job} is not the last finished job")
        state.finished.pop()
        state.jobs[self.job] = RunningJob(self.job, self.min_nodes, self.work, self.beta,
                                          self.arrival, 0.0)

    def invert(self) -> JobDeparted:
        """Return the departure."""
        return JobDeparted(self.job, self.min_nodes, self.work, self.beta, self.arrival,
                           self.time)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say the job is back."""
        return f"{job_label(self.job, names)} is back in the system (undo of its departure)."


@dataclass(frozen=True, slots=True)
class Served(Change):
    """The clock runs from ``start`` to ``end``; remaining work goes from ``before`` to
    ``after`` (pairs ``(job, remaining)``) as the quantum's schedule repeats."""

    kind: ClassVar[str] = "served"
    start: float
    end: float
    before: tuple[tuple[int, float], ...]
    after: tuple[tuple[int, float], ...]

    def apply(self, state: EpochState) -> None:
        """Advance the clock and set remaining work; ``ValueError`` on a mismatched state."""
        if state.time != self.start:
            raise ValueError(f"clock is at {state.time}, record starts at {self.start}")
        for job, rem in self.before:
            if job not in state.jobs or state.jobs[job].remaining != rem:
                raise ValueError(f"job {job} does not have {rem} work remaining")
        for job, rem in self.after:
            state.jobs[job].remaining = rem
        state.time = self.end

    def invert(self) -> Served:
        """Return the record that winds the clock and the work back."""
        return Served(self.end, self.start, self.after, self.before)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say how long the schedule ran."""
        return (f"The schedule repeats from t = {self.start:.2f} to {self.end:.2f}, "
                f"each job served in its piece of every quantum.")


@dataclass(frozen=True, slots=True)
class ScheduleRebuilt(Change):
    """The policy recomputes the quantum's schedule after an arrival or departure (§2.3)."""

    kind: ClassVar[str] = "schedule_rebuilt"
    before: Schedule | None
    after: Schedule | None

    def apply(self, state: EpochState) -> None:
        """Install ``after``; ``ValueError`` if the current schedule is not ``before``."""
        if state.schedule != self.before:
            raise ValueError("the current schedule is not the one this record replaces")
        state.schedule = self.after

    def invert(self) -> ScheduleRebuilt:
        """Return the record that puts the old schedule back."""
        return ScheduleRebuilt(self.after, self.before)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say which policy rebuilt the schedule and its normalised overhead."""
        if self.after is None:
            return "The schedule is cleared."
        s = self.after
        epochs = f" in {len(s.epochs)} epochs" if s.epochs else ""
        return (f"{s.policy} rebuilds the quantum for {len(s.pieces)} jobs{epochs}: "
                f"{s.overhead} node reallocations per quantum "
                f"({float(s.normalized_overhead):.2f} per node).")

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict with both schedules."""
        return {"kind": self.kind,
                "before": None if self.before is None else self.before.to_dict(),
                "after": None if self.after is None else self.after.to_dict()}
