"""Which views draw which simulation family: one table keyed by ``sim.family``.

Every simulation follows :class:`gangviz.sim.protocol.Simulation`; what differs is the picture.
The matrix family is drawn by the board's own Ousterhout views (:mod:`gangviz.gui.matrix_view`,
:mod:`gangviz.gui.vector_view`), fed by the player; every other family has one entry in
:data:`FAMILY_VIEWS`: a view built for it, fed a step at a time through ``show_step(step)`` and,
after any jump, through ``set_state(*state(sim))`` (:class:`FamilyViewAdapter`). Adding a family
means adding a row here, never probing the simulation object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gangviz.sim.protocol import Simulation


def matrix_of(sim: Simulation | None) -> Any:
    """Return the Ousterhout matrix of a matrix-family ``sim`` (live), else ``None``."""
    return sim.snapshot() if sim is not None and sim.family == "matrix" else None


def samples_of(sim: Simulation | None) -> Sequence:
    """Return ``sim``'s per-step samples (empty for a family that keeps none)."""
    return sim.samples if sim is not None else ()


def waiting_of(sim: Simulation | None) -> list[int] | None:
    """Return the ids waiting in ``sim``'s queue, or ``None`` for a family without one queue."""
    return sim.waiting if sim is not None else None


def watch_of(sim: Simulation) -> bool | None:
    """Return whether a matrix simulation steps slice by slice (``None`` for other families)."""
    return bool(sim.watch) if sim.family == "matrix" else None


def paper_of(sim: Simulation) -> str:
    """Return the paper section ``sim``'s policy follows ("" when its family names none)."""
    return sim.paper


def applied_steps(sim: Simulation) -> list:
    """Return the steps ``sim`` has applied, first to last."""
    return [sim.step_at(i) for i in range(sim.position)]


def _queue_view(parent, player):
    from gangviz.gui.queue_view import QueueView
    from gangviz.gui.site_arrivals import ArrivalsStrip

    view = QueueView(parent)
    view.arrivals = ArrivalsStrip(view)  # the scripted gangs still to come, under the sites
    view.arrivals.set_player(player)
    return view


def _epoch_view(parent, player):
    from gangviz.gui.epoch_construction import BuddyConstruction
    from gangviz.gui.epoch_view import EpochView

    view = EpochView(parent)
    view.construction = BuddyConstruction(view)  # BUDDY built piece by piece; the waiting jobs
    view.construction.set_player(player)  # before the adapter connects
    view.nodes_hint = player.sim.real_processors
    return view


def _gantt_view(parent, player):
    from gangviz.gui.gantt_view import GanttView

    return GanttView(parent)


@dataclass(frozen=True)
class FamilyView:
    """How one family is drawn.

    Attributes:
        make: ``make(parent, player)`` returns the view, its helper layers attached to ``player``.
        state: ``state(sim)`` returns the arguments of the view's ``set_state`` for ``sim`` now.
        scales: the view has ``set_scale(factor)`` (larger while presenting).
        animation: ``animation(view)`` returns the view's running step animation (a
            ``QVariantAnimation``) or ``None``; the export drives it frame by frame.
        construction: ``construction(view)`` returns a layer that builds a step's picture piece by
            piece after its animation (``start``, ``advance``, ``building``, ``timer``), or ``None``.
    """

    make: Callable[[Any, Any], Any]
    state: Callable[[Simulation], tuple]
    scales: bool = False
    animation: Callable[[Any], Any] = lambda view: None
    construction: Callable[[Any], Any] = lambda view: None


#: family -> how it is drawn; the matrix family has the board's own views instead
FAMILY_VIEWS: dict[str, FamilyView] = {
    "multisite": FamilyView(_queue_view, lambda sim: (sim.snapshot(), applied_steps(sim)), scales=True,
                            animation=lambda view: view.animation),
    "epoch": FamilyView(_epoch_view, lambda sim: sim.snapshot(), scales=True,  # type: ignore[arg-type]
                        animation=lambda view: view._anim, construction=lambda view: view.construction),
    "space-sharing": FamilyView(_gantt_view, lambda sim: (sim,), scales=True),
}


def family_view(sim: Simulation) -> FamilyView | None:
    """Return how ``sim``'s family is drawn, or ``None`` for the matrix family (the board's views).

    Raises ``KeyError`` for a family no view is registered for.
    """
    return None if sim.family == "matrix" else FAMILY_VIEWS[sim.family]


class FamilyViewAdapter:
    """Feeds a family view (``set_state``/``show_step``) from a player: each step taken
    forward is shown with ``show_step`` (the view animates it itself); any other move
    (back, jump, batch) resets the view with ``set_state(*state(sim))``."""

    def __init__(self, view, player, state):
        self.view, self.player, self.state = view, player, state
        player.stepped.connect(self._step)
        player.moved.connect(self._moved)
        self._moved()

    def _step(self, step) -> None:
        self.view.show_step(step)

    def _moved(self) -> None:
        # a model without a matrix is never animated by the player, so ``moved`` always means
        # a jump the view cannot follow change by change
        self.view.set_state(*self.state(self.player.sim))
