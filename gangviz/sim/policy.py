"""What a scheduling policy is to the engine.

A policy reacts at each decision point (a slice boundary where something happened, or, for a
policy whose ``decides_at`` is ``"event"``, the arrival or completion itself). The engine
has already removed the jobs that completed or were terminated; the policy re-packs, places
waiting jobs, replicates or releases extra slots, all through change records emitted with
``sim.emit``. A job the policy placed has started; a job it left out stays waiting (FCFS order).

A policy keeps no reference to the simulation, so one policy object serves one simulation and
its state can be saved and restored for stepping back. What a policy may use of the simulation
is the :class:`Host` protocol (the engine's ``Simulation`` conforms), so this module needs
nothing of the engine.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Protocol

from gangviz.core import registry
from gangviz.core.changes import MatrixChange
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.sim.state import JobRecord


class Host(Protocol):
    """What a policy sees of the simulation it serves at a decision point."""

    @property
    def matrix(self) -> OusterhoutMatrix:
        """The matrix the policy changes through :meth:`emit`."""

    @property
    def jobs(self) -> Mapping[int, JobRecord]:
        """Every job's record, by id."""

    @property
    def time(self) -> float:
        """The time of the decision point."""

    @property
    def waiting(self) -> list[int]:
        """The ids of the jobs waiting to be placed, FCFS order."""

    @property
    def current_changes(self) -> list[MatrixChange]:
        """The records of the step so far (the ``out`` of the core re-packing functions)."""

    def emit(self, change: MatrixChange) -> None:
        """Apply ``change`` to the matrix and add it to the step."""

    def charge(self, job: int, slices: float) -> None:
        """Make the running ``job`` lose ``slices`` of service."""


class Policy:
    """Base class of the time-slot policies.

    Subclasses override :meth:`schedule`; :meth:`check_machine` rejects machines the policy
    cannot run on. A built-in's ``name`` (the entry's title), ``paper`` (the section it
    implements) and ``decides_at`` come from the registry entry whose constructor it is
    (:func:`gangviz.core.registry.entry_for_target`), unless the class sets its own.
    """

    name: str = "policy"
    paper: str = ""
    #: When the engine asks the policy: ``"boundary"`` (at the slice boundary at or after each
    #: arrival and completion) or ``"event"`` (at the arrival or completion itself; see
    #: :mod:`gangviz.sim.engine`).
    decides_at: str = "boundary"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        entry = registry.entry_for_target(f"{cls.__module__}:{cls.__qualname__}")
        if entry is not None:
            for attr, value in (("name", entry.title), ("paper", entry.paper),
                                ("decides_at", entry.decides)):
                if attr not in vars(cls):
                    setattr(cls, attr, value)

    def check_machine(self, processors: int, ring: bool) -> None:
        """Raise ``ValueError`` (saying what is allowed) if the machine does not suit the policy."""

    def check_initial(self, matrix: OusterhoutMatrix) -> None:
        """Raise ``ValueError`` (naming the job) if a starting matrix is one the policy could
        never have produced and cannot work from (default: any matrix is fine)."""

    def check_job(self, size: int, processors: int) -> None:
        """Raise ``ValueError`` if a job of ``size`` processors can never run here."""
        if not 1 <= size <= processors:
            raise ValueError(f"job size must be in 1..{processors} processors, got {size}")

    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        """React to a decision point; emit changes through ``sim.emit``."""
        raise NotImplementedError

    def get_state(self) -> Any:
        """Return a copy of the policy's mutable state (default: a deep copy of its attributes)."""
        return copy.deepcopy(vars(self))

    def set_state(self, state: Any) -> None:
        """Restore a state returned by :meth:`get_state`."""
        vars(self).clear()
        vars(self).update(copy.deepcopy(state))
