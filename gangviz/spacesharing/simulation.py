"""A space-sharing run as a step-by-step simulation, for the window and the compare window.

:class:`SpaceSharingSimulation` runs :func:`~gangviz.spacesharing.backfill.simulate_backfill`
once with its decision log, then replays it: one :class:`~gangviz.core.record.Step` per
scheduling event (an instant at which jobs finish, arrive or start), made of the invertible
records of :mod:`gangviz.spacesharing.changes`, so stepping back and jumping work as for the
other simulations (the player's interface: ``step``, ``step_back``, ``go_to``, ``steps``,
``cursor``, ``done``). Steps are built the first time they are reached and kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gangviz.core.jobs import JobSpec
from gangviz.core.record import Change, Step, job_label
from gangviz.metrics.ibm import space_sharing_figures
from gangviz.sim.engine import Sample
from gangviz.sim.protocol import (
    FamilyNeutral,
    GanttJob,
    GanttSnapshot,
    KeptHistory,
    OwnPolicy,
    WithoutMatrix,
)
from gangviz.spacesharing.backfill import BackfillResult, Decision, simulate_backfill
from gangviz.spacesharing.changes import (
    Clock,
    JobArrived,
    JobFinished,
    JobStarted,
    ReservationsSet,
    SpaceState,
)
from gangviz.spacesharing.policy import SpaceSharingPolicy
from gangviz.timefmt import format_time

__all__ = ["SpaceSharingSimulation"]


class SpaceSharingSimulation(WithoutMatrix, FamilyNeutral, OwnPolicy, KeptHistory):
    """``jobs`` on ``processors`` processors under a space-sharing ``policy``.

    ``time_unit`` is seconds per time unit of the jobs (1 for SWF traces read at the default
    slice of 1 s); it only affects the metrics. ``slice_seconds`` is the clock the narration and
    the views write times in: the seconds of one slice for a trace, ``None`` (the default) for
    models and scenarios, whose times are in slices (:mod:`gangviz.timefmt`). Raises ``ValueError`` as
    :func:`simulate_backfill` does (a job larger than the machine, ...).
    """

    family = "space-sharing"
    state: SpaceState
    policy: SpaceSharingPolicy

    def __init__(self, jobs: list[JobSpec], processors: int, policy: SpaceSharingPolicy, *,
                 time_unit: float = 1.0, slice_seconds: float | None = None, order: Callable[[JobSpec], Any] | None = None,
                 result: BackfillResult | None = None) -> None:
        self.policy = policy
        self.processors = processors
        self.time_unit = time_unit
        self.slice_seconds = slice_seconds
        # a user's policy brings its own logged run (gangviz.userpolicy.space)
        self.result = result if result is not None else simulate_backfill(
            jobs, processors, mode=policy.mode, estimates=policy.estimates,
            kill_at_estimate=policy.kill, log=True, order=order)
        self.order = self.result.order
        self.specs = {s.id: s for s in self.order}
        self.names = {s.id: s.name for s in self.order}
        self.records = {r.spec.id: r for r in self.result.records}
        self.state = SpaceState(processors)
        self.steps: list[Step] = []
        self.cursor = 0
        #: one :class:`~gangviz.sim.engine.Sample` per step built (the window's metric panels)
        self.samples: list[Sample] = []
        self._done = 0
        self._turnaround = 0.0

    # --- the player's interface -----------------------------------------------------------
    @property
    def time(self) -> float:
        """Return the simulated time (the last applied step's)."""
        return self.state.time

    @property
    def done(self) -> bool:
        """Return True when every decision has been applied."""
        return self.cursor >= len(self.result.decisions)

    def peek(self) -> float:
        """Return the time of the next step, or ``inf`` at the end."""
        d = self.result.decisions
        return d[self.cursor].time if self.cursor < len(d) else math.inf

    def step(self) -> Step | None:
        """Apply the next decision; return its step, or None at the end."""
        if self.cursor < len(self.steps):
            st = self.steps[self.cursor]
            for c in st.changes:
                c.apply(self.state)
        elif self.cursor < len(self.result.decisions):
            st = self._build(self.result.decisions[self.cursor])
            self.steps.append(st)
        else:
            return None
        self.cursor += 1
        return st


    def steps_known(self) -> int:
        """Return the number of steps of the whole run: one per decision, all made up front."""
        return len(self.result.decisions)

    def go_to(self, index: int) -> None:
        """Step forward or back until ``index`` steps are applied (clamped to the run)."""
        index = max(0, min(index, len(self.result.decisions)))
        while self.cursor > index:
            self.step_back()
        while self.cursor < index:
            self.step()

    def run(self, until: float | None = None) -> None:
        """Apply steps while the next one's time is <= ``until`` (all when None)."""
        limit = math.inf if until is None else until
        while self.peek() <= limit and self.step() is not None:
            pass

    # --- the rest of the Simulation protocol (gangviz.sim.protocol) ----------------------


    @property
    def paper(self) -> str:  # type: ignore[override]  # a class attribute of the mixin
        """Return the paper section the policy follows (its ``paper``)."""
        return self.policy.paper

    @property
    def real_processors(self) -> int:
        """Return the processors of the machine (all exist)."""
        return self.processors

    def snapshot(self) -> GanttSnapshot:
        """Return the machine now as a :class:`~gangviz.sim.protocol.GanttSnapshot`."""
        st = self.state
        shown = GanttSnapshot.queue_shown
        described = [*st.running, *st.reservations, *st.waiting[:shown]]
        return GanttSnapshot(
            st.time, self.processors, st.free, self.policy_name, self.policy.mode, self.time_unit,
            self.slice_seconds, tuple(sorted((j, s, e) for j, (s, e) in st.running.items())),
            tuple(st.waiting), tuple(st.reservations.items()), st.extra,
            {j: GanttJob(job_label(j, self.names), st.sizes[j], self.estimate(j), self.job_text(j))
             for j in described})

    # --- what views and metrics read ------------------------------------------------------
    @property
    def waiting(self) -> list[int]:
        """Return the queue (job ids in priority order)."""
        return list(self.state.waiting)

    def job_text(self, job: int) -> str:
        """Return one line describing ``job``'s fate (for hover and the job panel), its times
        in the run's clock (:attr:`slice_seconds`: a trace's units, else slices)."""
        r = self.records[job]
        s = r.spec

        def t(x: float) -> str:
            return format_time(x, self.slice_seconds)

        parts = [f"{s.name}: {s.size} processors, arrives {t(s.arrival)}, runs {t(s.work)} "
                 f"(estimate {t(self.estimate(job))})"]
        if r.start is not None:
            parts.append(f"starts {t(r.start)} (waits {t(r.start - s.arrival)})")
        if r.reservation is not None and math.isfinite(r.reservation):
            parts.append(f"first reservation {t(r.reservation)}")
        return "; ".join(parts)

    def estimate(self, job: int) -> float:
        """Return the estimate the scheduler used for ``job``."""
        return self._est[job]

    @property
    def _est(self) -> dict[int, float]:
        cache = getattr(self, "_est_cache", None)
        if cache is None:
            cache = {s.id: e for s, e in zip(self.order, self.result.estimates)}
            self._est_cache = cache
        return cache

    def ibm_metrics(self) -> dict[str, Any]:

        """Return the IBM metrics of the jobs finished by now, with the capacity lost up to now
        (:func:`gangviz.metrics.ibm.space_sharing_figures`). Raises ``ValueError`` when none
        finished."""
        return space_sharing_figures(self)

    # --- building steps -------------------------------------------------------------------
    def _build(self, d: Decision) -> Step:
        order, clock, st = self.order, self.slice_seconds, self.state
        changes: list[Change] = [Clock(st.time, d.time)]
        for p in d.finished:
            j = order[p].id
            start, pred = st.running[j]
            changes.append(JobFinished(j, order[p].size, start, pred, clock))
        for p in d.arrived:
            changes.append(JobArrived(order[p].id, order[p].size, self.result.estimates[p], clock))
        for c in changes:
            c.apply(st)
        easy_head = None
        shadow = None
        if self.policy.mode == "easy" and d.reservations:
            easy_head, shadow = order[d.reservations[0][0]].id, d.reservations[0][1]
        started = []
        for p, how in d.started:
            j = order[p].id
            c = JobStarted(j, st.waiting.index(j), order[p].size, d.time,
                           d.time + self.result.estimates[p], how,
                           easy_head if how in ("shadow", "extra") else None,
                           shadow if how in ("shadow", "extra") else None, clock)
            c.apply(st)
            started.append(c)
        res = ReservationsSet(tuple(st.reservations.items()),
                              tuple((order[p].id, w) for p, w in d.reservations),
                              st.extra, d.extra, self.policy.mode, clock)
        res.apply(st)
        changes += [*started, res]
        narration = [c.describe(self.names) for c in changes[1:]]
        if res.before == res.after and res.extra_before == res.extra_after:
            narration.pop()
        cause = "completion" if d.finished else "arrival" if d.arrived else "start"
        for p in d.finished:
            self._done += 1
            finish = self.records[order[p].id].finish
            assert finish is not None  # the decision lists it among the finished
            self._turnaround += finish - order[p].arrival
        self.samples.append(Sample(d.time, 1 if st.running else 0, len(st.waiting), len(st.running),
                                   (self.processors - st.free) / self.processors, self._done,
                                   self._turnaround / self._done if self._done else 0.0))
        return Step(len(self.steps), d.time, cause, changes, narration)

