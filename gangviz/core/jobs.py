"""Job descriptions shared by every layer: the jobs of a workload and the scripted events of a
scenario (jobs terminated or submitted at a time), which the engine replays.

A :class:`JobSpec` is what a workload says about a job before it runs: when it arrives, how many
processors it needs and how much work it carries. It is immutable; a simulation keeps the
run-time state (work done, rows held) elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable
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


def checked_specs(ids: Iterable[int], names: Iterable[str], arrival: Iterable[float], size: Iterable[int],
                  work: Iterable[float], estimate: Iterable[float | None], min_nodes: Iterable[int | None],
                  extra: Iterable[Any]) -> list[JobSpec]:
    """Return a :class:`JobSpec` per position of the columns, for a reader that has checked
    every value in bulk already (size >= 1, work > 0, arrival >= 0): the specs equal those
    ``JobSpec(...)`` makes, at about half the cost (no per-job check, no frozen ``__setattr__``).
    """
    new = object.__new__
    set_id, set_name, set_arrival, set_size, set_work, set_estimate, set_min_nodes, set_extra = (
        getattr(JobSpec, f).__set__
        for f in ("id", "name", "arrival", "size", "work", "estimate", "min_nodes", "extra"))

    def make(i: int, n: str, a: float, p: int, w: float, e: float | None, m: int | None, x: Any) -> JobSpec:
        spec = new(JobSpec)
        set_id(spec, i)
        set_name(spec, n)
        set_arrival(spec, a)
        set_size(spec, p)
        set_work(spec, w)
        set_estimate(spec, e)
        set_min_nodes(spec, m)
        set_extra(spec, x)
        return spec

    return list(map(make, ids, names, arrival, size, work, estimate, min_nodes, extra))


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
