"""Job descriptions shared by every layer: the jobs of a workload and the scripted events of a
scenario (jobs terminated or submitted at a time), which the engine replays.

A :class:`JobSpec` is what a workload says about a job before it runs: when it arrives, how many
processors it needs and how much work it carries. It is immutable; a simulation keeps the
run-time state (work done, rows held) elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class JobSpec:
    """One job of a workload.

    Attributes:
        id: a unique, non-negative integer key (the index of the job in its workload).
        name: the label drawn on the job's cells (free token, e.g. ``"J5"``).
        arrival: submit time, in time slices (one slice = one scheduling slot).
        size: processors requested, >= 1.
        work: service demand in slices; the job finishes after ``work`` slices of service.
        estimate: the user's run-time estimate in slices (backfilling), or ``None``.
        min_nodes: minimum node requirement (memory-constrained models), or ``None``.
        extra: further trace fields (user, group, queue, ...), never interpreted by the core.
    """

    id: int
    name: str
    arrival: float
    size: int
    work: float
    estimate: float | None = None
    min_nodes: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"job {self.name}: size must be >= 1, got {self.size}")
        if not self.work > 0:
            raise ValueError(f"job {self.name}: work must be > 0 slices, got {self.work}")
        if self.arrival < 0:
            raise ValueError(f"job {self.name}: arrival must be >= 0, got {self.arrival}")


@dataclass(frozen=True, slots=True)
class ScriptEvent:
    """A scripted action at time ``at``: terminate named jobs and/or submit new ones.

    ``submit`` holds ``(name, size, work)`` triples. ``origin`` is ``"script"`` for scenario
    files and ``"user"`` for what-if actions taken in the window.
    """

    at: float
    terminate: tuple[str, ...] = ()
    submit: tuple[tuple[str, int, float], ...] = ()
    origin: str = "script"
