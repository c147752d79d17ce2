"""A step-able simulation of the multi-site model, for the GUI player and the tests.

Source: Papazachos09 §2-§4. Every event (an arrival, a completion, the end of a
migration) is one :class:`gangviz.core.record.Step` of change records
(:mod:`gangviz.multisite.changes`). The history is kept, so :meth:`MultiSiteSimulation.step_back`
undoes a step and a later :meth:`~MultiSiteSimulation.step` redoes it from the history.

Event order at equal times: completions, then ends of migrations, then arrivals; among equal
kinds, lower gang id first. :func:`gangviz.multisite.fast.run_fast` follows the same rules
without records and gives identical metrics for the same seed.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np

from gangviz.core.record import Change, Step
from gangviz.metrics.completions import Completion
from gangviz.metrics.multisite import Metrics, metrics_of
from gangviz.multisite import policy
from gangviz.multisite.changes import GangArrived, GangFinished, GangStarted, TaskQueued
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.dispatch import jsq
from gangviz.multisite.snapshot import QueueSnapshot
from gangviz.multisite.state import MultiSiteState
from gangviz.multisite.workload import GangStream
from gangviz.sim.protocol import Arrival, FamilyNeutral, KeptHistory, WithoutMatrix

FINISH, START, ARRIVAL = 0, 1, 2


class MultiSiteSimulation(WithoutMatrix, FamilyNeutral, KeptHistory):
    """Step-able simulation of AFCFS or AFCFSwM (``cfg.migrate``) on a multi-site system.

    Args:
        cfg: the model parameters.
        seed: seed of the workload stream (int or numpy SeedSequence); same seed, same run.
        max_gangs: stop generating arrivals after this many gangs (``None``: unbounded).
        stop_after: the run ends when this many gangs have completed (``None``: never; with
            ``max_gangs`` it ends when every gang has finished).
        stream: the gangs to use instead of drawing them from ``seed``: any object with the
            :class:`~gangviz.multisite.workload.GangStream` interface (lists ``arrival``,
            ``size``, ``service``, ``site`` and ``ensure(i)``), e.g. a scenario's scripted gangs
            (:class:`gangviz.factory.scripted.ScriptedGangStream`). Give ``max_gangs`` no
            larger than the stream's length.

    Attributes:
        state: the current :class:`~gangviz.multisite.state.MultiSiteState`.
        steps: every step computed so far (the history); the first :attr:`cursor` are applied.
        cursor: number of steps applied to :attr:`state`.
    """

    family = "multisite"

    def __init__(self, cfg: MultiSiteConfig, seed: int | np.random.SeedSequence = 0, max_gangs: int | None = None,
                 stop_after: int | None = None, *, stream: Any = None) -> None:
        for name, v in (("max_gangs", max_gangs), ("stop_after", stop_after)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {v!r}")
        if max_gangs is None and stop_after is None:
            raise ValueError("give max_gangs or stop_after, or the run never ends")
        self.cfg = cfg
        self.state = MultiSiteState(cfg)
        self.stream = GangStream(cfg, seed) if stream is None else stream
        self.max_gangs = max_gangs
        self.stop_after = stop_after
        self.steps: list[Step] = []
        self.cursor = 0
        self._heap: list[tuple[float, int, int]] = []
        self._next_gang = 0

    # --- clock --------------------------------------------------------------------------------
    @property
    def time(self) -> float:
        """Return the time of the last applied step (0 before the first)."""
        return self.steps[self.cursor - 1].time if self.cursor else 0.0

    def _next_event(self) -> tuple[float, int, int] | None:
        if self.stop_after is not None and len(self.state.completed) >= self.stop_after:
            return None
        cands = []
        if self._heap:
            cands.append(self._heap[0])
        if self.max_gangs is None or self._next_gang < self.max_gangs:
            self.stream.ensure(self._next_gang)
            cands.append((self.stream.arrival[self._next_gang], ARRIVAL, self._next_gang))
        return min(cands) if cands else None

    def peek(self) -> float:
        """Return the time of the next step, or ``math.inf`` when the run has ended."""
        if self.cursor < len(self.steps):
            return self.steps[self.cursor].time
        ev = self._next_event()
        return math.inf if ev is None else ev[0]

    @property
    def done(self) -> bool:
        """Return True when no step is left."""
        return self.peek() == math.inf

    # --- stepping -----------------------------------------------------------------------------
    def step(self) -> Step | None:
        """Apply the next step (redo from history after :meth:`step_back`); return it, or None at the end."""
        if self.cursor < len(self.steps):
            st = self.steps[self.cursor]
            for c in st.changes:
                c.apply(self.state)
            self.cursor += 1
            return st
        ev = self._next_event()
        if ev is None:
            return None
        time, kind, gang = ev
        changes: list[Change] = []

        def emit(c: Change) -> None:
            c.apply(self.state)
            changes.append(c)

        if kind == ARRIVAL:
            self._next_gang += 1
            self._arrive(gang, emit)
            cause = "arrival"
        else:
            heapq.heappop(self._heap)
            if kind == FINISH:
                self._finish(gang, time, emit)
                cause = "completion"
            else:
                self._start_migrated(gang, time, emit)
                cause = "migration end"
        if kind != START:
            self._schedule(time, emit)
        st = Step(len(self.steps), time, cause, changes, [c.describe() for c in changes])
        self.steps.append(st)
        self.cursor += 1
        return st


    def run(self, until: float | None = None) -> int:
        """Step while the next step's time is <= ``until`` (all steps when None); return the count."""
        n = 0
        limit = math.inf if until is None else until
        while self.peek() <= limit:
            if self.step() is None:
                break
            n += 1
        return n

    # --- the rest of the Simulation protocol (gangviz.sim.protocol) --------------------------
    def go_to(self, index: int) -> None:
        """Step back or forward until ``index`` steps are applied (forward stops at the end)."""
        while self.cursor > max(index, 0):
            self.step_back()
        while self.cursor < index and self.step() is not None:
            pass



    #: the metric panels plot the queue figures, not per-step samples; no one FCFS queue
    samples: tuple[object, ...] = ()
    waiting = None

    @property
    def real_processors(self) -> int:
        """Return every site's processors together."""
        return self.cfg.sites * self.cfg.procs

    @property
    def policy_name(self) -> str:
        """Return ``"AFCFSwM"`` with migration, else ``"AFCFS"``."""
        return "AFCFSwM" if self.cfg.migrate else "AFCFS"


    def snapshot(self) -> QueueSnapshot:
        """Return the queues now (:meth:`queue_state`)."""
        return self.queue_state()

    def upcoming(self) -> tuple[Arrival, ...]:
        """Return the gangs of a given stream (a scenario's script) not arrived yet by the
        current position; ``()`` for the random stream, which knows no future."""
        s = self.stream
        if isinstance(s, GangStream):
            return ()
        return tuple(Arrival(g, int(s.size[g]), float(s.arrival[g]), int(s.site[g]))
                     for g in range(len(self.state.gangs), len(s.arrival)))

    # --- model --------------------------------------------------------------------------------
    def _arrive(self, gang: int, emit: policy.Emit) -> None:
        s = self.stream
        site, size = s.site[gang], s.size[gang]
        emit(GangArrived(gang, site, size, s.arrival[gang], s.service[gang]))
        st = self.state
        lengths = [st.queue_length(g) for g in st.site_procs(site)]
        for task, local in enumerate(jsq(lengths, size)):
            g = st.proc(site, local)
            emit(TaskQueued(gang, task, site, local, len(st.queues[g])))

    def _finish(self, gang: int, time: float, emit: policy.Emit) -> None:
        st = self.state
        P = self.cfg.procs
        placements = tuple(sorted((t[1], g // P, g % P) for g, t in enumerate(st.running)
                                  if t is not None and t[0] == gang))
        emit(GangFinished(gang, time, placements))

    def _start_migrated(self, gang: int, time: float, emit: policy.Emit) -> None:
        st = self.state
        P = self.cfg.procs
        placements = tuple(sorted((t[1], g // P, g % P) for g, t in enumerate(st.reserved)
                                  if t is not None and t[0] == gang))
        emit(GangStarted(gang, time, placements, migrated=True))
        heapq.heappush(self._heap, (time + st.gangs[gang].service, FINISH, gang))

    def _schedule(self, time: float, emit: policy.Emit) -> None:
        st = self.state
        for gang in policy.afcfs(st, time, emit):
            heapq.heappush(self._heap, (time + st.gangs[gang].service, FINISH, gang))
        if not self.cfg.migrate:
            return
        moved = []
        for site in range(self.cfg.sites):
            moved += policy.local_migration(st, site, emit)
        for site in range(self.cfg.sites):
            moved += policy.grid_migration(st, site, emit)
        for gang, ov in moved:
            heapq.heappush(self._heap, (time + ov, START, gang))

    # --- results ------------------------------------------------------------------------------
    def metrics(self) -> Metrics:
        """Return RT, WRT, SLD, WSLD over the gangs completed at the frontier of the run.

        Computed from the applied steps (so it follows :meth:`step_back`), in completion order.
        Raises ValueError before the first completion.
        """
        return metrics_of(self.completions())

    def completions(self) -> list[Completion]:
        """Return the gangs completed at the current step, in completion order: arrival at the
        grid dispatcher, finish, execution time (the service demand) and size."""
        st = self.state
        gangs, finish = st.gangs, st.finish
        return [(gangs[g].arrival, finish[g], gangs[g].service, gangs[g].size) for g in st.completed]

    def queue_state(self) -> QueueSnapshot:
        """Return the current queues and processors as plain data (for views)."""
        return QueueSnapshot.from_state(self.state, self.time)
