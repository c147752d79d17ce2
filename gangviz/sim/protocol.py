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

The protocol declares every member the window, its views, the player and the export read; a
family without a use for one answers it plainly (:class:`WithoutMatrix`: no what-ifs, no watch
mode, no job details; :class:`FamilyNeutral`: no epoch partitions, no gangs to come).
``tests/gui/test_protocol_only.py`` runs the window against simulations wrapped to offer the
members :func:`protocol_members` lists and nothing else.

The figures come from the metrics layer, which sits above this one: :attr:`Simulation.measures`
holds the functions that give them (:class:`Measures`), which :mod:`gangviz.factory` binds to
each simulation it builds, so a view asks the simulation for its figures and the figure code
reads the simulation's own records, never through a view's narrower interface.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    NamedTuple,
    Protocol,
    TypeAlias,
    TypeVar,
    runtime_checkable,
)

from gangviz.core.jobs import JobSpec
from gangviz.core.record import Step, undo

if TYPE_CHECKING:  # pragma: no cover  (annotations only: numpy is not loaded for them)
    import numpy as np
    import numpy.typing as npt

#: the simulation families, in the order menus list them
FAMILIES = ("matrix", "multisite", "epoch", "space-sharing")

#: what :meth:`Simulation.snapshot` returns, per family
SNAPSHOTS = {
    "matrix": "the live OusterhoutMatrix (read it, or copy() it to keep it)",
    "multisite": "a frozen gangviz.multisite.snapshot.QueueSnapshot of every queue",
    "epoch": "(schedule or None, {job id: label}) of the current quantum",
    "space-sharing": "a frozen GanttSnapshot of the machine, its queue and reservations",
}

#: running figures, ``key -> (times, values)`` (:meth:`Measures.series`)
Curves: TypeAlias = "dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]"


@dataclass(frozen=True)
class JobStatus:
    """Where one job stands at the current step (:meth:`Simulation.job_status`): its ``spec``,
    ``start`` and ``finish`` times (``None``: not yet), whether it was ``terminated`` before its
    work was done, and the work it still needs (``remaining``, lost service included; 0 once
    finished), in the simulation's time units."""

    spec: JobSpec
    start: float | None
    finish: float | None
    terminated: bool
    remaining: float


@dataclass(frozen=True)
class GanttJob:
    """One job a space-sharing view shows (running, reserved or near the head of the queue): its
    ``name``, ``size`` in processors, the ``estimate`` the scheduler used and one line on its
    fate (``text``, times in the run's clock), for hover."""

    name: str
    size: int
    estimate: float
    text: str


@dataclass(frozen=True)
class GanttSnapshot:
    """A space-sharing machine at one instant (:meth:`Simulation.snapshot` of that family).

    ``running`` holds ``(job, start, predicted end)`` by job, and ``reservations`` ``(job,
    reserved start)`` in the scheduler's order (``inf``: none yet); ``waiting`` is the queue in priority
    order; ``extra`` the processors the EASY head will not need at its reservation (``None``
    without one); ``free`` the processors free now of ``processors``. ``policy`` is the policy's
    name and ``mode`` its scheduler (``"fcfs"``, ``"easy"``, ``"conservative"``); ``time_unit`` the
    seconds of one time unit of the jobs, ``slice_seconds`` the clock times are written in
    (``None``: slices). ``jobs`` describes every job running, reserved or among the first
    :attr:`queue_shown` waiting.
    """

    time: float
    processors: int
    free: int
    policy: str
    mode: str
    time_unit: float
    slice_seconds: float | None
    running: tuple[tuple[int, float, float], ...]
    waiting: tuple[int, ...]
    reservations: tuple[tuple[int, float], ...]
    extra: int | None
    jobs: Mapping[int, GanttJob]
    #: how many waiting jobs from the head :attr:`jobs` describes
    queue_shown: int = 8


class Arrival(NamedTuple):
    """A scripted multi-site gang still to come (:meth:`Simulation.upcoming`): its number, its
    ``size`` in tasks, its arrival time ``at`` and the ``site`` it is sent to (0-based)."""

    gang: int
    size: int
    at: float
    site: int


#: what :meth:`Measures.finish` returns: the factory's finished run, a type of a higher layer
FinishedT = TypeVar("FinishedT", covariant=True)


@dataclass(frozen=True)
class Measures(Generic[FinishedT]):
    """The functions giving a simulation's figures at its current step, bound to the simulation
    (:attr:`Simulation.measures`; :func:`gangviz.factory.measures_of`).

    ``figures()`` returns its paper's figures (the numbers ``gangviz run --json`` prints under
    ``metrics``; raises ``ValueError`` for a space-sharing run in which no job has finished);
    ``series()`` the same figures as running curves (empty for the matrix family, whose panels
    draw the engine's own samples); ``finish()`` runs the simulation to its end, counting the
    capacity lost on the way, and returns the finished run whose figures ``gangviz compare``
    prints (raises ``ValueError`` for the multi-site and epoch families, which have their own
    figures, and for a simulation not built from a source).
    """

    figures: Callable[[], dict[str, Any]]
    series: Callable[[], Curves]
    finish: Callable[[], FinishedT]


@runtime_checkable
class Simulation(Protocol):
    """A step-able simulation with a history (see the module docstring).

    Steps are numbered from 0; ``position`` steps are applied. Stepping back and ``go_to`` a
    smaller index never lose what is needed to come forward again: the runs are deterministic,
    so the same steps come back.
    """

    # --- the clock: one step at a time

    @property
    def time(self) -> float:
        """Return the simulated time of the state shown (the last applied step's)."""
        ...

    def peek(self) -> float:
        """Return the time of the next step (``inf`` when done)."""
        ...

    @property
    def done(self) -> bool:
        """Return True when no step is left after the current one."""
        ...

    def step(self) -> Step | None:
        """Apply the next step and return it (``None`` when done)."""
        ...

    def run(self, until: float | None = None) -> object:
        """Apply every step whose time is ``<= until`` (all of them when ``None``)."""
        ...

    # --- the history, walked back and forth

    @property
    def position(self) -> int:
        """Return the number of steps applied (0: the starting picture)."""
        ...

    @property
    def known(self) -> int:
        """Return the number of steps computed and kept (``>= position``)."""
        ...

    def step_at(self, index: int) -> Step:
        """Return known step ``index`` (0-based, ``< known``): its time, cause, change
        records and narration. Raises ``IndexError`` beyond the known steps."""
        ...

    def step_back(self) -> Step | None:
        """Undo the last applied step and return it (``None`` at the start)."""
        ...

    def go_to(self, index: int) -> None:
        """Put the simulation in its state after ``index`` steps (back or forward; forward
        stops at the end)."""
        ...

    # --- what the views draw and label

    @property
    def family(self) -> str:
        """Return ``"matrix"``, ``"multisite"``, ``"epoch"`` or ``"space-sharing"``
        (:data:`FAMILIES`); a class attribute of each simulation class."""
        ...

    def snapshot(self) -> object:
        """Return what the family's views draw of the current state (:data:`SNAPSHOTS`)."""
        ...

    @property
    def real_processors(self) -> int:
        """Return the processors that exist: a matrix's columns less the padding of a trace run
        on a larger machine, the space-sharing machine, the epoch nodes, every site's
        processors together."""
        ...

    @property
    def samples(self) -> Sequence[Any]:
        """Return the per-step samples the metric panels plot, one per applied step (empty for
        a family that keeps none: multi-site, epoch)."""
        ...

    @property
    def waiting(self) -> list[int] | None:
        """Return the ids in the one FCFS queue, first to be served first, or ``None`` for a
        family without one queue (multi-site: a queue per processor; epoch)."""
        ...

    @property
    def policy_name(self) -> str:
        """Return the name of the policy, as a caption or a legend shows it."""
        ...

    @property
    def paper(self) -> str:
        """Return the paper section the policy follows, as a tooltip shows it (``""`` when the
        family's policies name none: multi-site, epoch)."""
        ...

    # --- the matrix engine's own (the other families answer plainly: WithoutMatrix)

    @property
    def record(self) -> bool:
        """Return whether the simulation keeps what stepping back needs (the matrix engine
        may be built without, for a run only read at its end; every other family keeps it)."""
        ...

    @property
    def watch(self) -> bool:
        """Return whether a step is one slice (the matrix engine's watch mode); ``False`` for
        the families whose steps are events."""
        ...

    def job_status(self, job: int) -> JobStatus | None:
        """Return where ``job`` stands now (its spec, start, finish, work left), or ``None`` for
        a job the simulation does not know and for a family that reports no job details (every
        one but the matrix engine's)."""
        ...

    def terminate_now(self, job: int) -> Step:
        """End running ``job`` now (a what-if) and return the step that did. Raises
        ``ValueError`` for a job that is not running, and for a family without what-if actions
        (every one but the matrix engine's)."""
        ...

    def submit_now(self, size: int, work: float, name: str | None = None) -> Step:
        """Submit a job of ``size`` processors and ``work`` now (a what-if) and return the step
        that did. Raises ``ValueError`` for a size or work out of range, and for a family
        without what-if actions."""
        ...

    # --- one other family's own (the rest answer plainly: FamilyNeutral), and the figures

    def min_nodes(self) -> dict[int, int]:
        """Return job id -> minimum nodes of the epoch jobs the current quantum is built for
        (those in the system; before the first step, those that enter at the start), in order
        of arrival; empty for the other families."""
        ...

    def upcoming(self) -> tuple[Arrival, ...]:
        """Return the scripted multi-site gangs not arrived yet, in order of arrival; empty for
        a random stream (nothing is known ahead) and for the other families."""
        ...

    @property
    def measures(self) -> Measures[object] | None:
        """Return the functions giving the simulation's figures, bound to it (:class:`Measures`):
        every simulation :mod:`gangviz.factory` builds has them; ``None`` for one built
        otherwise (:func:`gangviz.factory.measures_of` binds them then)."""
        ...

    def steps_known(self) -> int | None:
        """Return the number of steps of the whole run when it is known without running it (a
        run whose decisions are all made up front), else ``None`` (a timeline then grows as
        the run goes)."""
        ...


def protocol_members(protocol: type = Simulation) -> frozenset[str]:
    """Return the names of the members ``protocol`` declares (its own and its protocol bases'):
    methods, properties and annotated attributes, not ``_private`` nor dunder names. A caller
    that must offer exactly the protocol (a test's wrapper, a proxy) computes its names here
    rather than keeping a list."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (object, Protocol) or not getattr(cls, "_is_protocol", False):
            continue
        names.update(n for n in (*vars(cls), *getattr(cls, "__annotations__", {}))
                     if not n.startswith("_"))
    return frozenset(names)


class WithoutMatrix:
    """The members of :class:`Simulation` a family without the Ousterhout matrix answers the
    same way: no what-if actions, no watch mode, no job details (the multi-site, epoch and
    space-sharing simulations)."""

    family: str
    watch = False
    record = True
    paper = ""

    def job_status(self, job: int) -> JobStatus | None:
        """Return ``None``: this family reports no job details."""
        return None

    def terminate_now(self, job: int) -> Step:
        """Raise ``ValueError``: what-if actions need the matrix engine."""
        raise ValueError(f"what-if actions need a matrix simulation, not a {self.family} one")

    def submit_now(self, size: int, work: float, name: str | None = None) -> Step:
        """Raise ``ValueError``: what-if actions need the matrix engine."""
        raise ValueError(f"what-if actions need a matrix simulation, not a {self.family} one")


class FamilyNeutral:
    """The members of :class:`Simulation` that concern one family, answered plainly by the
    others: no epoch partitions, no gangs to come, and no figures until :mod:`gangviz.factory`
    binds them (every simulation class)."""

    measures: Measures[object] | None = None

    def min_nodes(self) -> dict[int, int]:
        """Return ``{}``: no epoch jobs here."""
        return {}

    def upcoming(self) -> tuple[Arrival, ...]:
        """Return ``()``: no scripted gangs here."""
        return ()

    def steps_known(self) -> int | None:
        """Return ``None``: the run's length is known only once it has run."""
        return None


class OwnPolicy:
    """:attr:`Simulation.policy_name` of a simulation that runs one policy object (its
    ``name``): the engine, the epoch model and space sharing."""

    policy: Any

    @property
    def policy_name(self) -> str:
        """Return the policy's name (``"easy"``, ``"OPT-EPOCH(1)"``, ...)."""
        return str(self.policy.name)


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
