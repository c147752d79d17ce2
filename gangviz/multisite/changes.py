"""Change records of the multi-site model.

Source: Papazachos09 §3 (grid and local dispatch, AFCFS, local and grid
migration with target reservation and aging). Every move of the model is one frozen record on
the :class:`gangviz.core.record.Change` protocol: ``apply(state)`` mutates a
:class:`~gangviz.multisite.state.MultiSiteState` (raising ``ValueError`` and leaving it unchanged
when the record does not fit), ``invert()`` returns the record that undoes it, ``describe()``
narrates it. Each record carries ``undo``: the inverse of a record is the same record with
``undo`` flipped, so the set of kinds stays small and closed.

Sites, processors and tasks are stored 0-based and narrated 1-based, a task named as the
window's lanes and queues draw it ("G12.3 migrates to site 2, P7 (overhead 0.1 slices)": task 3 of
gang G12).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from gangviz.core.record import Change
from gangviz.multisite.state import GangInfo, MultiSiteState


def gang_label(gang: int, names: Mapping[int, str] | None = None) -> str:
    """Return the display name of ``gang`` (``"G<id>"`` unless ``names`` has one)."""
    if names is not None and gang in names:
        return names[gang]
    return f"G{gang}"


def task_label(gang: int, task: int, names: Mapping[int, str] | None = None) -> str:
    """Return the name of task ``task`` (0-based) of ``gang`` as the board draws it:
    ``"G12.3"`` for the third task of G12."""
    return f"{gang_label(gang, names)}.{task + 1}"


def _count(n: float, word: str, spec: str = "") -> str:
    """Return ``n`` written by format ``spec`` and ``word``, plural unless ``n`` is 1
    (``"3 tasks"``, ``"0.1 slices"``)."""
    return f"{n:{spec}} {word}{'' if n == 1 else 's'}"


def where(site: int, proc: int) -> str:
    """Return ``"site S, PN"`` with 1-based numbers."""
    return f"site {site + 1}, P{proc + 1}"


class _Invertible(Change):
    undo: bool

    def invert(self) -> Change:
        """Return this record with ``undo`` flipped: the record that reverses it."""
        return dataclasses.replace(self, undo=not self.undo)  # type: ignore[type-var]

    def apply(self, state: MultiSiteState) -> None:
        """Mutate ``state``; raise ValueError (state unchanged) if the record does not fit."""
        if self.undo:
            self._backward(state)
        else:
            self._forward(state)

    def _forward(self, state: MultiSiteState) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _backward(self, state: MultiSiteState) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        """Narrate the record (``names``: display names of gangs), its undoing with the prefix
        ``"Undo: "``."""
        return ("Undo: " if self.undo else "") + self._narrate(names)

    def _narrate(self, names: Mapping[int, str] | None) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class GangArrived(_Invertible):
    """Gang ``gang`` arrives and the grid dispatcher sends it to ``site`` (§3.1, uniform)."""

    kind: ClassVar[str] = "gang_arrived"
    gang: int
    site: int
    size: int
    arrival: float
    service: float
    undo: bool = False

    def _forward(self, state: MultiSiteState) -> None:
        if self.gang in state.gangs:
            raise ValueError(f"gang {gang_label(self.gang)} has already arrived")
        if not 0 <= self.site < state.cfg.sites:
            raise ValueError(f"site {self.site} out of range 0..{state.cfg.sites - 1}")
        state.gangs[self.gang] = GangInfo(self.gang, self.size, self.site, self.arrival, self.service)

    def _backward(self, state: MultiSiteState) -> None:
        if self.gang not in state.gangs:
            raise ValueError(f"gang {gang_label(self.gang)} has not arrived")
        del state.gangs[self.gang]

    def _narrate(self, names: Mapping[int, str] | None) -> str:
        """Narrate the arrival and the grid dispatcher's choice."""
        return (f"{gang_label(self.gang, names)} arrives with {_count(self.size, 'task')} "
                f"(service {_count(self.service, 'slice', '.3g')}); "
                f"the grid dispatcher sends it to site {self.site + 1}.")


@dataclass(frozen=True, slots=True)
class _TaskAt(_Invertible):
    """The fields of a record about one task at one processor: task ``task`` of ``gang`` at
    ``site``/``proc``."""

    gang: int
    task: int
    site: int
    proc: int

    #: the narration: "<task> <verb> <site, processor><why>."
    verb: ClassVar[str]
    why: ClassVar[str]

    def _proc(self, state: MultiSiteState) -> int:
        """Return the global number of the record's processor."""
        return state.proc(self.site, self.proc)

    def _narrate(self, names: Mapping[int, str] | None) -> str:
        """Narrate what happens to the task at its processor."""
        return (f"{task_label(self.gang, self.task, names)} {self.verb} "
                f"{where(self.site, self.proc)}{self.why}.")


@dataclass(frozen=True, slots=True)
class TaskQueued(_TaskAt):
    """Task ``task`` of ``gang`` joins the queue of ``site``/``proc`` at ``index`` (local JSQ dispatch)."""

    kind: ClassVar[str] = "task_queued"
    verb: ClassVar[str] = "joins the queue of"
    why: ClassVar[str] = " (Join-the-Shortest-Queue)"
    index: int
    undo: bool = False

    def _forward(self, state: MultiSiteState) -> None:
        q = state.queues[self._proc(state)]
        if not 0 <= self.index <= len(q):
            raise ValueError(f"queue position {self.index} out of range 0..{len(q)}")
        if any(t[0] == self.gang for t in q):
            raise ValueError(f"{where(self.site, self.proc)} already holds a task of {gang_label(self.gang)}")
        q.insert(self.index, (self.gang, self.task))

    def _backward(self, state: MultiSiteState) -> None:
        q = state.queues[self._proc(state)]
        if not (0 <= self.index < len(q) and q[self.index] == (self.gang, self.task)):
            raise ValueError(f"T{self.task + 1} of {gang_label(self.gang)} is not at position {self.index}")
        del q[self.index]


@dataclass(frozen=True, slots=True)
class TaskMigrated(_Invertible):
    """A waiting task moves to a reserved, idle processor, ahead of the tasks queued there (§3.3).

    ``src_index`` is the task's position in its source queue; ``bypassed`` lists the tasks
    waiting at the target, each of which grants priority once more (aging).
    """

    kind: ClassVar[str] = "task_migrated"
    gang: int
    task: int
    src_site: int
    src_proc: int
    src_index: int
    dst_site: int
    dst_proc: int
    overhead: float
    bypassed: tuple[Any, ...] = ()
    undo: bool = False

    @property
    def is_grid(self) -> bool:
        """Return True for a migration between sites."""
        return self.src_site != self.dst_site

    def _forward(self, state: MultiSiteState) -> None:
        src = state.proc(self.src_site, self.src_proc)
        dst = state.proc(self.dst_site, self.dst_proc)
        q = state.queues[src]
        me = (self.gang, self.task)
        if not (0 <= self.src_index < len(q) and q[self.src_index] == me):
            raise ValueError(f"T{self.task + 1} of {gang_label(self.gang)} is not waiting at "
                             f"{where(self.src_site, self.src_proc)}, position {self.src_index}")
        if not state.is_idle(dst):
            raise ValueError(f"{where(self.dst_site, self.dst_proc)} is not idle")
        if tuple(state.queues[dst]) != tuple(self.bypassed):
            raise ValueError(f"the queue of {where(self.dst_site, self.dst_proc)} has changed")
        del q[self.src_index]
        state.reserved[dst] = me
        for t in self.bypassed:
            state.bypass[t] = state.bypass.get(t, 0) + 1

    def _backward(self, state: MultiSiteState) -> None:
        src = state.proc(self.src_site, self.src_proc)
        dst = state.proc(self.dst_site, self.dst_proc)
        me = (self.gang, self.task)
        if state.reserved[dst] != me:
            raise ValueError(f"{where(self.dst_site, self.dst_proc)} is not reserved for this task")
        q = state.queues[src]
        if not 0 <= self.src_index <= len(q):
            raise ValueError(f"queue position {self.src_index} out of range 0..{len(q)}")
        state.reserved[dst] = None
        q.insert(self.src_index, me)
        for t in self.bypassed:
            left = state.bypass.get(t, 0) - 1
            if left > 0:
                state.bypass[t] = left
            else:
                state.bypass.pop(t, None)

    def _narrate(self, names: Mapping[int, str] | None) -> str:
        """Narrate the migration: target, overhead, kind, source and the tasks it overtakes."""
        kind = "grid" if self.is_grid else "local"
        ahead = f", ahead of {_count(len(self.bypassed), 'waiting task')}" if self.bypassed else ""
        return (f"{task_label(self.gang, self.task, names)} migrates to "
                f"{where(self.dst_site, self.dst_proc)} (overhead {_count(self.overhead, 'slice', 'g')}): "
                f"{kind} migration from {where(self.src_site, self.src_proc)}{ahead}; "
                f"the target is reserved.")


@dataclass(frozen=True, slots=True)
class TaskReserved(_TaskAt):
    """A migrating gang's task waiting at an available processor keeps that processor (§3.3).

    ``index`` is the task's position in the queue (0 under strict FIFO; further back when
    AFCFS lets a gang overtake, see :class:`~gangviz.multisite.config.MultiSiteConfig`).
    """

    kind: ClassVar[str] = "task_reserved"
    verb: ClassVar[str] = "holds idle"
    why: ClassVar[str] = " while its siblings migrate"
    index: int = 0
    undo: bool = False

    def _forward(self, state: MultiSiteState) -> None:
        g = self._proc(state)
        q = state.queues[g]
        me = (self.gang, self.task)
        if not (0 <= self.index < len(q) and q[self.index] == me and state.is_idle(g)):
            raise ValueError(f"T{self.task + 1} of {gang_label(self.gang)} is not waiting at "
                             f"idle {where(self.site, self.proc)}, position {self.index}")
        del q[self.index]
        state.reserved[g] = me

    def _backward(self, state: MultiSiteState) -> None:
        g = self._proc(state)
        me = (self.gang, self.task)
        if state.reserved[g] != me or not 0 <= self.index <= len(state.queues[g]):
            raise ValueError(f"{where(self.site, self.proc)} is not reserved for this task")
        state.reserved[g] = None
        state.queues[g].insert(self.index, me)


@dataclass(frozen=True, slots=True)
class _GangRun(_Invertible):
    """The fields of a gang's start and finish: ``gang``, the ``time`` and its ``placements``
    ((task, site, proc), ...)."""

    gang: int
    time: float
    placements: tuple[Any, ...]

    def _procs(self, state: MultiSiteState) -> list[tuple[int, int]]:
        """Return ``(task, global processor)`` of each placement, in order."""
        return [(task, state.proc(s, p)) for task, s, p in self.placements]


@dataclass(frozen=True, slots=True)
class GangStarted(_GangRun):
    """All tasks of ``gang`` start together at ``time`` on ``placements`` ((task, site, proc), ...).

    ``migrated`` is False for an AFCFS start (every task waiting at an idle processor; its
    queue positions in ``indices``, same order as ``placements``) and True when the processors
    were reserved by a migration that has now ended.
    """

    kind: ClassVar[str] = "gang_started"
    migrated: bool = False
    indices: tuple[Any, ...] = ()
    undo: bool = False

    def _forward(self, state: MultiSiteState) -> None:
        if self.gang in state.start:
            raise ValueError(f"gang {gang_label(self.gang)} has already started")
        procs = self._procs(state)
        idx = self.indices if not self.migrated else (0,) * len(procs)
        if len(idx) != len(procs):
            raise ValueError("an AFCFS start needs one queue position per task")
        for (task, g), i in zip(procs, idx):
            me = (self.gang, task)
            if self.migrated:
                ok = state.reserved[g] == me and state.running[g] is None
            else:
                q = state.queues[g]
                ok = state.is_idle(g) and 0 <= i < len(q) and q[i] == me
            if not ok:
                raise ValueError(f"T{task + 1} of {gang_label(self.gang)} cannot start on processor {g}")
        for (task, g), i in zip(procs, idx):
            if self.migrated:
                state.reserved[g] = None
            else:
                del state.queues[g][i]
            state.running[g] = (self.gang, task)
        state.start[self.gang] = self.time

    def _backward(self, state: MultiSiteState) -> None:
        procs = self._procs(state)
        if any(state.running[g] != (self.gang, task) for task, g in procs):
            raise ValueError(f"gang {gang_label(self.gang)} is not running")
        idx = self.indices if not self.migrated else (0,) * len(procs)
        for (task, g), i in zip(procs, idx):
            state.running[g] = None
            if self.migrated:
                state.reserved[g] = (self.gang, task)
            else:
                state.queues[g].insert(i, (self.gang, task))
        del state.start[self.gang]

    def _narrate(self, names: Mapping[int, str] | None) -> str:
        """Narrate the start and the rule that allowed it."""
        n = len(self.placements)
        why = ("its migration has ended and every task sits on a reserved processor"
               if self.migrated else "every task waits at an idle processor (AFCFS)")
        sites = sorted({s + 1 for _, s, _ in self.placements})
        at = f"site {sites[0]}" if len(sites) == 1 else "sites " + " and ".join(map(str, sites))
        return f"{gang_label(self.gang, names)} starts on {_count(n, 'processor')} of {at}: {why}."


@dataclass(frozen=True, slots=True)
class GangFinished(_GangRun):
    """All tasks of ``gang`` finish together at ``time``, freeing ``placements``."""

    kind: ClassVar[str] = "gang_finished"
    undo: bool = False

    def _forward(self, state: MultiSiteState) -> None:
        procs = self._procs(state)
        if self.gang in state.finish or any(state.running[g] != (self.gang, t) for t, g in procs):
            raise ValueError(f"gang {gang_label(self.gang)} is not running")
        for _, g in procs:
            state.running[g] = None
        state.finish[self.gang] = self.time
        state.completed.append(self.gang)

    def _backward(self, state: MultiSiteState) -> None:
        procs = self._procs(state)
        if not state.completed or state.completed[-1] != self.gang:
            raise ValueError(f"gang {gang_label(self.gang)} is not the last one to finish")
        if any(state.running[g] is not None for _, g in procs):
            raise ValueError("a processor of the gang is busy again")
        for task, g in procs:
            state.running[g] = (self.gang, task)
        del state.finish[self.gang]
        state.completed.pop()

    def _narrate(self, names: Mapping[int, str] | None) -> str:
        """Narrate the completion."""
        n = len(self.placements)
        return f"{gang_label(self.gang, names)} finishes and frees {_count(n, 'processor')}."
