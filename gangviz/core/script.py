"""A scenario's scripted events: the jobs a time-slot run terminates or submits at given times.

Kept in ``core`` so a scenario file can be read (``gangviz.workloads``) without the engine that
plays its script (``gangviz.sim.engine``).
"""

from __future__ import annotations

from dataclasses import dataclass


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
