"""Which views draw which simulation family: each family's entry in the registry names its
:class:`FamilyView` here (:attr:`gangviz.core.registry.Family.views`).

Every simulation follows :class:`gangviz.sim.protocol.Simulation`; what differs is the picture.
The matrix family is drawn by the board's own Ousterhout views (:mod:`gangviz.gui.matrix.view`,
:mod:`gangviz.gui.matrix.vector`), fed by the player, and names none; every other family names
one of :data:`QUEUES`, :data:`EPOCHS`, :data:`GANTT`: a view built for it, fed a step at a time
through ``show_step(step)`` and, after any jump, through ``set_state(*state(sim))``
(:class:`FamilyViewAdapter`). Adding a family means adding one of these and naming it in the
family's entry, never probing the simulation object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from gangviz.core import registry
from gangviz.sim.protocol import Simulation

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gangviz.core.matrix import OusterhoutMatrix
    from gangviz.core.record import Step
    from gangviz.gui.families.epoch import EpochView
    from gangviz.gui.families.gantt import GanttView
    from gangviz.gui.families.sites import QueueView
    from gangviz.gui.playback.player import Player
    from gangviz.sim.engine import Simulation as Engine
    from gangviz.sim.state import Sample
    from gangviz.workloads.source import Source

#: a family's view: a QWidget with ``set_state(*state)`` and ``show_step(step)`` (and
#: ``set_scale(factor)`` when :attr:`FamilyView.scales`); one class per family, so typed loosely
FamilyWidget: TypeAlias = Any



def engine_of(sim: Simulation) -> Engine:
    """Return a matrix-family ``sim`` as what it is, the matrix engine
    (:class:`gangviz.sim.engine.Simulation`: the family's one simulation class), for the views
    of the matrix family, which read its matrix, steps and policy; checks nothing."""
    return cast("Engine", sim)


def matrix_of(sim: Simulation | None) -> OusterhoutMatrix | None:
    """Return the Ousterhout matrix of a matrix-family ``sim`` (live), else ``None``."""
    return engine_of(sim).snapshot() if sim is not None and registry.family(sim.family).matrix else None


def samples_of(sim: Simulation | None) -> Sequence[Sample]:
    """Return ``sim``'s per-step samples (empty for a family that keeps none)."""
    return sim.samples if sim is not None else ()


def waiting_of(sim: Simulation | None) -> list[int] | None:
    """Return the ids waiting in ``sim``'s queue, or ``None`` for a family without one queue."""
    return sim.waiting if sim is not None else None


def watch_of(sim: Simulation) -> bool | None:
    """Return whether a matrix simulation steps slice by slice (``None`` for other families)."""
    return bool(sim.watch) if registry.family(sim.family).matrix else None


def paper_of(sim: Simulation) -> str:
    """Return the paper section ``sim``'s policy follows ("" when its family names none)."""
    return sim.paper


def applied_steps(sim: Simulation) -> list[Step]:
    """Return the steps ``sim`` has applied, first to last."""
    return [sim.step_at(i) for i in range(sim.position)]


def _queue_view(parent: QWidget, player: Player) -> QueueView:
    from gangviz.gui.families.site_arrivals import ArrivalsStrip
    from gangviz.gui.families.sites import QueueView

    view = QueueView(parent)
    view.arrivals = arrivals = ArrivalsStrip(view)  # the scripted gangs still to come, under the sites
    arrivals.set_player(player)
    return view


def _epoch_view(parent: QWidget, player: Player) -> EpochView:
    from gangviz.gui.families.epoch import EpochView
    from gangviz.gui.families.epoch_construction import BuddyConstruction

    view = EpochView(parent)
    view.construction = construction = BuddyConstruction(view)  # BUDDY built piece by piece; the waiting jobs
    construction.set_player(player)  # before the adapter connects
    view.nodes_hint = player.sim.real_processors
    return view


def _gantt_view(parent: QWidget, player: Player) -> GanttView:
    from gangviz.gui.families.gantt import GanttView

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
        machine: ``machine(source)`` returns the words the window's subtitle names the machine
            and the jobs with (``None``: the board's own, processors and jobs).
    """

    make: Callable[[QWidget, Player], FamilyWidget]
    state: Callable[[Simulation], tuple[Any, ...]]
    scales: bool = False
    animation: Callable[[FamilyWidget], Any] = lambda view: None
    construction: Callable[[FamilyWidget], Any] = lambda view: None
    machine: Callable[[Source], str] | None = None


def _sites(source: Source) -> str:
    """The multi-site machine and its gangs (a model's source carries its scenario)."""
    sc = source.scenario
    assert sc is not None
    return f"{sc.sites} sites of {source.processors} processors  ·  {len(sc.gangs)} gangs"


def _nodes(source: Source) -> str:
    """The epoch model's nodes and its closed system of jobs."""
    sc = source.scenario
    assert sc is not None
    return f"{source.processors} nodes  ·  {len(sc.workload)} jobs, {sc.in_system} in the system"


def _epoch_state(sim: Simulation) -> tuple[Any, ...]:
    """An epoch simulation's snapshot is already ``set_state``'s arguments: ``(schedule, labels)``."""
    return cast("tuple[Any, ...]", sim.snapshot())


#: how the multi-site family is drawn: the sites' queues
QUEUES = FamilyView(_queue_view, lambda sim: (sim.snapshot(), applied_steps(sim)), scales=True,
                    animation=lambda view: view.animation, machine=_sites)
#: how the epoch family is drawn: the epochs' partitions
EPOCHS = FamilyView(_epoch_view, _epoch_state, scales=True,
                    animation=lambda view: view._anim, construction=lambda view: view.construction,
                    machine=_nodes)
#: how the space-sharing family is drawn: a Gantt chart
GANTT = FamilyView(_gantt_view, lambda sim: (sim,), scales=True)


def family_view(sim: Simulation) -> FamilyView | None:
    """Return how ``sim``'s family is drawn (its registry entry's
    :attr:`~gangviz.core.registry.Family.views`), or ``None`` for a family that names none: the
    matrix family, drawn by the board's own views.

    Raises ``ValueError`` for a family the registry does not know.
    """
    family = registry.family(sim.family)
    drawn: FamilyView | None = family.load("views") if family.views else None
    return drawn


class FamilyViewAdapter:
    """Feeds a family view (``set_state``/``show_step``) from a player: each step taken
    forward is shown with ``show_step`` (the view animates it itself); any other move
    (back, jump, batch) resets the view with ``set_state(*state(sim))``."""

    def __init__(self, view: FamilyWidget, player: Player,
                 state: Callable[[Simulation], tuple[Any, ...]]) -> None:
        self.view, self.player, self.state = view, player, state
        player.stepped.connect(self._step)
        player.moved.connect(self._moved)
        self._moved()

    def _step(self, step: Step) -> None:
        self.view.show_step(step)

    def _moved(self) -> None:
        # a model without a matrix is never animated by the player, so ``moved`` always means
        # a jump the view cannot follow change by change
        self.view.set_state(*self.state(self.player.sim))
