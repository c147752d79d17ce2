"""What every simulation offers the views, the player and the shared clock.

Like SimPy's small ``Environment`` (``peek``/``step``/``run(until)``), a simulation here is a
clock driven one step at a time, plus a history that can be walked back. The four families
conform: the Ousterhout matrix engine (:class:`gangviz.sim.engine.Simulation`), the multi-site
queues (:class:`gangviz.multisite.simulation.MultiSiteSimulation`), the epoch model
(:class:`gangviz.epoch.sim.EpochSimulation`) and space sharing
(:class:`gangviz.spacesharing.simulation.SpaceSharingSimulation`).

What differs between families is only what there is to draw: :meth:`Simulation.snapshot`
returns the family's own picture (see :data:`SNAPSHOTS`), and a caller that needs more of one
family (the matrix engine's what-if actions, say) picks it by :attr:`Simulation.family`, never
by probing attributes.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from gangviz.core.record import Step, undo

#: the simulation families, in the order menus list them
FAMILIES = ("matrix", "multisite", "epoch", "space-sharing")

#: what :meth:`Simulation.snapshot` returns, per family
SNAPSHOTS = {
    "matrix": "the live OusterhoutMatrix (read it, or copy() it to keep it)",
    "multisite": "a frozen gangviz.multisite.snapshot.QueueSnapshot of every queue",
    "epoch": "(schedule or None, {job id: label}) of the current quantum",
    "space-sharing": "a frozen (time, running, waiting, reservations) tuple",
}


@runtime_checkable
class Simulation(Protocol):
    """A step-able simulation with a history (see the module docstring).

    Steps are numbered from 0; ``position`` steps are applied. Stepping back and ``go_to`` a
    smaller index never lose what is needed to come forward again: the runs are deterministic,
    so the same steps come back.
    """

    @property
    def family(self) -> str:
        """Return ``"matrix"``, ``"multisite"``, ``"epoch"`` or ``"space-sharing"``
        (:data:`FAMILIES`); a class attribute of each simulation class."""
        ...

    @property
    def time(self) -> float:
        """Return the simulated time of the state shown (the last applied step's)."""
        ...

    @property
    def position(self) -> int:
        """Return the number of steps applied (0: the starting picture)."""
        ...

    @property
    def known(self) -> int:
        """Return the number of steps computed and kept (``>= position``)."""
        ...

    @property
    def done(self) -> bool:
        """Return True when no step is left after the current one."""
        ...

    @property
    def policy_name(self) -> str:
        """Return the name of the policy, as a caption or a legend shows it."""
        ...

    def peek(self) -> float:
        """Return the time of the next step (``inf`` when done)."""
        ...

    def step(self) -> Step | None:
        """Apply the next step and return it (``None`` when done)."""
        ...

    def step_back(self) -> Step | None:
        """Undo the last applied step and return it (``None`` at the start)."""
        ...

    def go_to(self, index: int) -> None:
        """Put the simulation in its state after ``index`` steps (back or forward; forward
        stops at the end)."""
        ...

    def run(self, until: float | None = None) -> object:
        """Apply every step whose time is ``<= until`` (all of them when ``None``)."""
        ...

    def step_at(self, index: int) -> Step:
        """Return known step ``index`` (0-based, ``< known``): its time, cause, change
        records and narration. Raises ``IndexError`` beyond the known steps."""
        ...

    def snapshot(self) -> object:
        """Return what the family's views draw of the current state (:data:`SNAPSHOTS`)."""
        ...


class KeptHistory:
    """The history members of :class:`Simulation` for a simulation that keeps every step it has
    computed in ``steps`` and has applied the first ``cursor`` of them to ``state``: stepping
    back undoes a step's records and keeps the step, which stepping forward applies again (the
    multi-site and space-sharing simulations)."""

    steps: list[Step]
    cursor: int
    state: Any

    def step_back(self) -> Step | None:
        """Undo the last applied step and return it; ``None`` at the start."""
        if self.cursor == 0:
            return None
        st = self.steps[self.cursor - 1]
        undo(st, self.state)
        self.cursor -= 1
        return st

    @property
    def position(self) -> int:
        """Return the number of steps applied (:attr:`cursor`)."""
        return self.cursor

    @property
    def known(self) -> int:
        """Return the number of steps computed so far (applied or undone)."""
        return len(self.steps)

    def step_at(self, index: int) -> Step:
        """Return computed step ``index``; raise ``IndexError`` beyond them."""
        return self.steps[index]


class AppliedHistory:
    """The history members of :class:`Simulation` for a simulation that keeps only the steps
    it has applied: stepping back drops the later ones, and the deterministic run computes them
    again going forward (the matrix engine and the epoch model)."""

    steps: list[Step]

    @property
    def position(self) -> int:
        """Return the number of steps applied."""
        return len(self.steps)

    @property
    def known(self) -> int:
        """Return the number of steps kept (equal to :attr:`position`)."""
        return len(self.steps)

    def step_at(self, index: int) -> Step:
        """Return applied step ``index``; raise ``IndexError`` beyond them."""
        return self.steps[index]
