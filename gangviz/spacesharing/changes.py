"""Change records of the space-sharing machine, and the state they change.

The state is what the window draws: the jobs running (with start and predicted end), the queue
in priority order, the reservations held and, under EASY, the extra processors of the head's
reservation (the backfill window). Times in the narration are written as the clock writes them
(:func:`gangviz.timefmt.clock_text`: ``04:21:09`` on a trace, slices on a model), as every
time on the Gantt view is. Every record is invertible (:class:`Inverse` undoes it), so
:meth:`~gangviz.spacesharing.simulation.SpaceSharingSimulation.step_back` restores the picture
exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gangviz.core.record import Change, job_label
from gangviz.timefmt import clock_text

__all__ = ["procs", "SpaceState", "Clock", "JobFinished", "JobArrived", "JobStarted", "ReservationsSet",
           "Inverse"]


def procs(n: int) -> str:
    """Return ``"1 processor"`` / ``"4 processors"``."""
    return f"{n} processor" + ("" if n == 1 else "s")


@dataclass
class SpaceState:
    """The machine at one instant.

    ``running`` maps job -> ``(start, predicted end)``; ``waiting`` is the queue in priority
    order; ``reservations`` maps job -> reserved start; ``extra`` is the number of processors
    the EASY head will not need at its reservation (``None`` without one).
    """

    processors: int
    time: float = 0.0
    free: int = 0
    running: dict[int, tuple[float, float]] = field(default_factory=dict)
    sizes: dict[int, int] = field(default_factory=dict)
    waiting: list[int] = field(default_factory=list)
    reservations: dict[int, float] = field(default_factory=dict)
    extra: int | None = None

    def __post_init__(self) -> None:
        if not self.free:
            self.free = self.processors


class _Undoable(Change):
    def undo(self, state: SpaceState) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def invert(self) -> Change:
        """Return the record that undoes this one."""
        return Inverse(self)


@dataclass(frozen=True, slots=True)
class Inverse(Change):
    """Undoes ``change`` (its ``invert()`` gives the change back)."""

    change: _Undoable
    kind = "undo"

    def apply(self, state: SpaceState) -> None:
        """Undo the wrapped change on ``state``."""
        self.change.undo(state)

    def invert(self) -> Change:
        """Return the wrapped change."""
        return self.change

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say which change is undone."""
        return "Undo: " + self.change.describe(names)


@dataclass(frozen=True, slots=True)
class Clock(_Undoable):
    """Time moves from ``before`` to ``after``."""

    before: float
    after: float
    kind = "clock"

    def apply(self, state: SpaceState) -> None:
        """Set the clock to ``after``."""
        state.time = self.after

    def undo(self, state: SpaceState) -> None:
        """Set the clock back to ``before``."""
        state.time = self.before

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say how far the clock moved."""
        return f"The clock moves to {self.after:g}."


@dataclass(frozen=True, slots=True)
class _JobRecord(_Undoable):
    """The fields a job's arrival and finish share: the job and its processors."""

    job: int
    size: int


@dataclass(frozen=True, slots=True)
class JobFinished(_JobRecord):
    """``job`` (``size`` processors, started at ``start``, predicted to end at ``predicted``)
    finishes and frees its processors."""

    start: float
    predicted: float
    slice_seconds: float | None = None
    kind = "job_finished"

    def apply(self, state: SpaceState) -> None:
        """Remove the job from the running set; raise ``ValueError`` if it is not running."""
        if self.job not in state.running:
            raise ValueError(f"job {self.job} is not running")
        del state.running[self.job]
        state.free += self.size

    def undo(self, state: SpaceState) -> None:
        """Put the job back on its processors."""
        state.running[self.job] = (self.start, self.predicted)
        state.sizes[self.job] = self.size
        state.free -= self.size

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say that the job finished and what it freed."""
        return f"{job_label(self.job, names)} finishes and frees {procs(self.size)}."


@dataclass(frozen=True, slots=True)
class JobArrived(_JobRecord):
    """``job`` (``size`` processors, estimated run ``estimate``) joins the end of the queue."""

    estimate: float
    slice_seconds: float | None = None
    kind = "job_arrived"

    def apply(self, state: SpaceState) -> None:
        """Append the job to the queue."""
        state.waiting.append(self.job)
        state.sizes[self.job] = self.size

    def undo(self, state: SpaceState) -> None:
        """Take the job off the end of the queue."""
        state.waiting.remove(self.job)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say what the job asks for."""
        return (f"{job_label(self.job, names)} arrives: {procs(self.size)} for up to "
                f"{clock_text(self.estimate, self.slice_seconds)}.")


@dataclass(frozen=True, slots=True)
class JobStarted(_Undoable):
    """``job`` leaves the queue (at ``position``) and starts on ``size`` processors.

    ``how``: ``"order"`` (nothing earlier waits), ``"shadow"`` / ``"extra"`` (EASY backfill
    ending by the head's reservation / on the extra processors), ``"backfill"`` (conservative).
    ``head`` and ``shadow`` name the reservation the backfill respects (``None`` otherwise).
    """

    job: int
    position: int
    size: int
    start: float
    predicted: float
    how: str = "order"
    head: int | None = None
    shadow: float | None = None
    slice_seconds: float | None = None
    kind = "job_started"

    def apply(self, state: SpaceState) -> None:
        """Move the job from the queue to the processors; raise ``ValueError`` if it does not fit."""
        if state.free < self.size:
            raise ValueError(f"job {self.job} needs {self.size} processors; {state.free} are free")
        state.waiting.pop(self.position)
        state.running[self.job] = (self.start, self.predicted)
        state.free -= self.size

    def undo(self, state: SpaceState) -> None:
        """Put the job back in the queue at its position."""
        del state.running[self.job]
        state.waiting.insert(self.position, self.job)
        state.free += self.size

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say why the job may start now (which rule allowed it)."""
        me = job_label(self.job, names)
        end = clock_text(self.predicted, self.slice_seconds)
        if self.how == "order":
            return f"{me} starts in queue order on {procs(self.size)} (ends by {end})."
        head = job_label(self.head, names) if self.head is not None else "the head"
        res = clock_text(self.shadow, self.slice_seconds) if self.shadow is not None else "?"
        if self.how == "shadow":
            return f"{me} backfills: it ends at {end} before {head}'s reservation at {res}."
        if self.how == "extra":
            return (f"{me} backfills on extra processors: {head} will not need these {procs(self.size)} "
                    f"at {res} (it runs to {end}).")
        return (f"{me} backfills: it fits now and ends by {end} without delaying any earlier "
                f"reservation.")


@dataclass(frozen=True, slots=True)
class ReservationsSet(_Undoable):
    """The reservations held change from ``before`` to ``after`` (tuples of ``(job, time)``);
    ``extra`` is the EASY backfill window's width (processors)."""

    before: tuple[tuple[int, float], ...]
    after: tuple[tuple[int, float], ...]
    extra_before: int | None = None
    extra_after: int | None = None
    mode: str = "easy"
    slice_seconds: float | None = None
    kind = "reservations"

    def apply(self, state: SpaceState) -> None:
        """Replace the reservations."""
        state.reservations = dict(self.after)
        state.extra = self.extra_after

    def undo(self, state: SpaceState) -> None:
        """Restore the reservations held before."""
        state.reservations = dict(self.before)
        state.extra = self.extra_before

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Say who holds a reservation now, and which moved."""
        if not self.after:
            return "No job waits: no reservation."
        old = dict(self.before)
        if self.mode in ("easy", "fcfs"):
            (head, when), = self.after
            what = "reservation" if self.mode == "easy" else "predicted start (FCFS reserves nothing)"
            when_s = "never (it cannot fit)" if when == float("inf") else clock_text(when, self.slice_seconds)
            moved = ""
            if head in old and old[head] != when:
                moved = f", moved from {clock_text(old[head], self.slice_seconds)}"
            extra = f"; {self.extra_after} extra processors" if self.mode == "easy" else ""
            return f"{job_label(head, names)} heads the queue: {what} at {when_s}{moved}{extra}."
        parts = [f"{job_label(j, names)} at {clock_text(w, self.slice_seconds)}" for j, w in self.after[:4]]
        more = f" and {len(self.after) - 4} more" if len(self.after) > 4 else ""
        compressed = [f"{job_label(j, names)} from {clock_text(old[j], self.slice_seconds)} to "
                      f"{clock_text(w, self.slice_seconds)}" for j, w in self.after if j in old and old[j] != w]
        text = "Reservations: " + ", ".join(parts) + more + "."
        if compressed:
            text += (" Compressed: " + ", ".join(compressed[:3])
                     + ("…" if len(compressed) > 3 else "") + ".")

        return text
