"""What each processor of a multi-site system did over time, as bars for a Gantt-like view.

Source: [Papazachos09 §2] (one FIFO queue per processor, sites of P processors) and §3.3
(a migrating task holds its target processor, reserved, for the migration overhead; its gang
starts on every processor at once when the overhead has passed). A :class:`LaneLog` watches the
running and reserved task of every processor after each step and turns each stretch of time a
processor spent on one task into a :class:`Bar`: ``"run"`` while the task runs, ``"hold"`` while
the processor is reserved for it (a migration in transit, or a sibling holding its idle
processor while the others migrate). A hold bar of a migrated task carries the migration's
overhead as its ``cost``.

Tie-break: a stretch that begins and ends at the same time (a processor reserved and started in
one step) leaves no bar.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gangviz.multisite.state import MultiSiteState, Task

if TYPE_CHECKING:
    from gangviz.core.record import Change, Step

RUN, HOLD = "run", "hold"


@dataclass(frozen=True, slots=True)
class Bar:
    """One processor busy with one task from ``start`` to ``end`` (``None``: still busy).

    Attributes:
        site, proc: where (0-based; ``proc`` is the processor's number within its site).
        gang, task: the task (0-based task index).
        kind: :data:`RUN` or :data:`HOLD` (reserved, see the module docstring).
        cost: the overhead of the migration that brought the task here (0 when none).
    """

    site: int
    proc: int
    gang: int
    task: int
    start: float
    end: float | None
    kind: str
    cost: float = 0.0


class LaneLog:
    """The bars of every processor up to :attr:`now` (see the module docstring).

    Args:
        sites, procs: the shape of the system (``procs`` per site).
        time: when watching starts.
    """

    def __init__(self, sites: int, procs: int, time: float = 0.0) -> None:
        self.sites, self.procs = sites, procs
        self.now = time
        self._done: list[Bar] = []
        self._open: dict[int, Bar] = {}

    def observe(self, time: float, running: Sequence[Task | None], reserved: Sequence[Task | None],
                migrated: dict[Task, float] | None = None) -> None:
        """Record the processors' tasks as they are at ``time`` (after a step).

        ``migrated`` maps each task that migrated in this step to its overhead. Raises
        ValueError when ``time`` is earlier than the last observation.
        """
        if time < self.now:
            raise ValueError(f"lane time runs backwards: {time} after {self.now}")
        self.now = time
        migrated = migrated or {}
        for g in range(self.sites * self.procs):
            run, res = running[g], reserved[g]
            want = (RUN, run) if run is not None else (HOLD, res) if res is not None else None
            bar = self._open.get(g)
            if bar is not None and want == (bar.kind, (bar.gang, bar.task)):
                continue
            if bar is not None:
                del self._open[g]
                if time > bar.start:
                    self._done.append(replace(bar, end=time))
            if want is not None:
                kind, (gang, task) = want
                cost = migrated.get((gang, task), 0.0) if kind == HOLD else 0.0
                self._open[g] = Bar(g // self.procs, g % self.procs, gang, task, time, None, kind, cost)

    def bars(self) -> list[Bar]:
        """Return every bar, finished ones first in the order they ended, then those still on
        (``end`` None) by processor."""
        return self._done + [self._open[g] for g in sorted(self._open)]


def migrations(changes: Iterable[Change]) -> dict[Task, float]:
    """Return ``{(gang, task): overhead}`` for the forward migrations among ``changes``."""
    from gangviz.multisite.changes import TaskMigrated

    return {(c.gang, c.task): c.overhead for c in changes
            if isinstance(c, TaskMigrated) and not c.undo}


def lanes_from_steps(state: MultiSiteState, steps: Sequence[Step]) -> LaneLog:
    """Return the lanes of the steps ``steps`` (a simulation's history from its start), replayed
    on an empty copy of ``state``'s system; ``state`` itself is left as it is.

    Raises ValueError when a step's records do not apply from the start.
    """
    work = MultiSiteState(state.cfg)
    log = LaneLog(state.cfg.sites, state.cfg.procs)
    for step in steps:
        for c in step.changes:
            c.apply(work)
        log.observe(step.time, work.running, work.reserved, migrations(step.changes))
    return log
