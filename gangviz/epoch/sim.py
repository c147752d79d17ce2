"""The closed system of §5.2 as a step-by-step simulation (McCann94).

J jobs are always present. The policy's schedule of one quantum (length T) repeats; while its
piece runs, job j progresses at S(A_j) units of work per unit time (S_dynamic, or S_static for
jobs that cannot repartition, :mod:`gangviz.epoch.speedup`). When a job completes it departs, the
next job of the workload arrives at the same instant, and the policy rebuilds the schedule (§2.3:
allocations change only at arrivals and departures).

Choice where the paper is silent: the quantum clock never resets. Quanta are [qT, (q+1)T) for
q = 0, 1, ..., and a schedule rebuilt at time t applies from t on, to the rest of the current
quantum as well; so a job whose new piece lies before the current phase waits for the next
quantum. Simultaneous completions are separate steps at the same time, smaller job id first.

Each event is one :class:`~gangviz.core.record.Step` of change records
(:mod:`gangviz.epoch.records`): ``Served`` (clock and work), ``JobDeparted``, ``JobArrived``,
``ScheduleRebuilt``. :meth:`EpochSimulation.step_back` applies their inverses.
"""

from __future__ import annotations

import math
from typing import Any

from gangviz.core.record import Change, Step, ToldStep, undo
from gangviz.epoch.model import Schedule
from gangviz.epoch.policies import Policy, make_policy
from gangviz.epoch.records import EpochState, JobArrived, JobDeparted, ScheduleRebuilt, Served
from gangviz.epoch.speedup import s_dynamic, s_static
from gangviz.epoch.workload import ClosedWorkload, JobSequence
from gangviz.metrics.completions import Completion
from gangviz.sim.protocol import AppliedHistory, FamilyNeutral, OwnPolicy, WithoutMatrix


def _ran(q: int, r: float, a: float, b: float) -> float:
    """Return the running time of a piece [a, b) (in quanta) over quantum time [0, q + r]:
    ``q`` whole quanta and ``r`` (in [0, 1)) into the next, the floor taken by the caller, who
    often needs it for several pieces. ``min``/``max`` are written as comparisons: the same
    values (a signed zero or NaN included), without the builtins' calls."""
    span = b - a
    x = r - a
    x = 0.0 if x < 0.0 else x  # max(x, 0.0)
    return q * span + (span if span < x else x)  # min(x, span)


def _reach(target: float, a: float, b: float) -> float:
    """Return the first quantum time u whose :func:`_ran` is ``target`` (> 0)."""
    span = b - a
    q = math.floor(target / span)
    rest = target - q * span
    if rest <= 0.0:
        return (q - 1) + b
    return q + a + rest


class EpochSimulation(WithoutMatrix, FamilyNeutral, OwnPolicy, AppliedHistory):
    """A closed system of ``jobs`` jobs on ``nodes`` nodes under one epoch-model policy.

    Args:
        nodes, jobs: N and J.
        policy: a :class:`Policy` or its name (``"OPT-EPOCH(1)"``, ...).
        static: True for static jobs (S_static), False for dynamic ones (S_dynamic).
        quantum: T (the paper uses 10).
        workload: the job sequence; by default ``ClosedWorkload(nodes, jobs, load, seed)``.
        departures: stop after this many departures (None: never stop by itself).

    Raises ``ValueError`` when the policy does not apply to (N, J) or a parameter is out of
    range.
    """

    family = "epoch"
    policy: Policy

    def __init__(self, nodes: int, jobs: int, policy: Policy | str, *, static: bool = False,
                 quantum: float = 10.0, load: float = 1.0, seed: int = 0,
                 workload: JobSequence | None = None, departures: int | None = None) -> None:
        self.policy = make_policy(policy) if isinstance(policy, str) else policy
        if not self.policy.applies(nodes, jobs):
            raise ValueError(f"{self.policy.name} does not apply to N = {nodes}, J = {jobs} "
                             f"(Table 2 restrictions)")
        if not quantum > 0:
            raise ValueError(f"quantum T must be > 0, got {quantum}")
        self.nodes, self.jobs, self.static, self.quantum = nodes, jobs, static, quantum
        self.workload = workload or ClosedWorkload(nodes, jobs, load, seed)
        self.departures = departures
        self.state = EpochState(nodes)
        self.steps: list[Step] = []
        self._rate_cache: tuple[Schedule | None, dict[Any, Any]] = (None, {})
        #: (job, width) -> work per quantum at that width, for the current schedule's pieces
        self._speeds: dict[tuple[int, int], float] = {}
        #: the label of every job that has entered, shared by the steps' told narration
        self._labels: dict[int, str] = {}
        # the next completion depends only on the state, which the last step identifies
        self._next_cache: tuple[Step | None, tuple[float, int] | None] = (None, None)

    # --- public API -------------------------------------------------------------------------

    @property
    def time(self) -> float:
        """Return the simulated time."""
        return self.state.time

    @property
    def schedule(self) -> Schedule | None:
        """Return the current quantum's schedule (None before the first step)."""
        return self.state.schedule

    @property
    def names(self) -> dict[int, str]:
        """Return job id -> label for the jobs in the system."""
        return {j: f"J{j}" for j in self.state.jobs}

    @property
    def done(self) -> bool:
        """Return True when no step is left (the departures limit is reached)."""
        return self.peek() == math.inf

    def peek(self) -> float:
        """Return the time of the next step, or ``inf`` when the run is over."""
        if not self.steps:
            return 0.0
        if self.departures is not None and len(self.state.finished) >= self.departures:
            return math.inf
        nxt = self._next_completion()
        return math.inf if nxt is None else nxt[0]

    def _next_completion(self) -> tuple[float, int] | None:
        key = self.steps[-1] if self.steps else None
        if self._next_cache[0] is not key or key is None:
            self._next_cache = (key, self._compute_next_completion())
        return self._next_cache[1]

    def step(self) -> Step | None:
        """Run the next event (the start, or a departure with its replacement); return its
        :class:`Step`, or None when the run is over."""
        if not self.steps:
            return self._record("start", [
                *(self._arrival(i) for i in range(self.jobs)),
            ], rebuild=True)
        if self.peek() == math.inf:
            return None
        completion = self._next_completion()
        assert completion is not None  # peek() found one
        t, job = completion
        changes: list[Change] = [self._served_until(t, job)]
        j = self.state.jobs[job]
        changes.append(JobDeparted(job, j.min_nodes, j.work, j.beta, j.arrival, t))
        changes.append(self._arrival(self.state.arrived, pending=changes))
        return self._record("completion", changes, rebuild=True)

    def run(self, until: float | None = None) -> None:
        """Step while the next step's time is <= ``until`` (all steps when None).

        Raises ``ValueError`` when ``until`` is None and the run has no end (no ``departures``).
        """
        if until is None and self.departures is None:
            raise ValueError("run(until=None) needs a departures limit; give until=time")
        while self.peek() <= (math.inf if until is None else until):
            if self.step() is None:
                break

    def step_back(self) -> Step | None:
        """Undo the last step; return it, or None at the beginning."""
        if not self.steps:
            return None
        step = self.steps.pop()
        undo(step, self.state)
        return step

    def response_times(self) -> list[float]:
        """Return the response times of the departed jobs, in departure order."""
        return [f.response for f in self.state.finished]

    # --- the rest of the Simulation protocol (gangviz.sim.protocol); the history keeps no
    # future here: a step back forgets the step, the deterministic run recomputes it
    def go_to(self, index: int) -> None:
        """Step back or forward until ``index`` steps are applied (forward stops at the end)."""
        while len(self.steps) > max(index, 0):
            self.step_back()
        while len(self.steps) < index and self.step() is not None:
            pass



    #: the metric panels plot the epoch figures, not per-step samples; no one FCFS queue
    samples: tuple[object, ...] = ()
    waiting = None

    def completions(self) -> list[Completion]:
        """Return the departed jobs in departure order: arrival, departure, no execution time of
        their own (``nan``: a job runs on a varying number of nodes) and minimum nodes."""
        return [(f.arrival, f.departure, math.nan, f.min_nodes) for f in self.state.finished]

    @property
    def real_processors(self) -> int:
        """Return the nodes."""
        return self.nodes

    def min_nodes(self) -> dict[int, int]:
        """Return job id -> minimum nodes of the jobs in the system, or, before the first step,
        of the :attr:`jobs` that enter at the start (the waiting jobs a view draws)."""
        if not self.steps:
            first = (self.workload.job(i) for i in range(self.jobs))
            return {j.id: j.min_nodes for j in first}
        return {j.id: j.min_nodes for j in self.state.jobs.values()}

    def snapshot(self) -> tuple[Schedule | None, dict[int, str]]:
        """Return the current quantum's schedule and the labels of the jobs in the system."""
        return self.schedule, self.names

    # --- internals ----------------------------------------------------------------------------

    def _record(self, cause: str, changes: list[Change], rebuild: bool) -> Step:
        applied: list[Change] = []
        for c in changes:
            c.apply(self.state)
            applied.append(c)
        if rebuild:
            mins = {j.id: j.min_nodes for j in self.state.jobs.values()}
            c = ScheduleRebuilt(self.state.schedule, self.policy(self.nodes, mins))
            c.apply(self.state)
            applied.append(c)
        for c in changes:
            if isinstance(c, JobArrived):
                self._labels[c.job] = f"J{c.job}"
        # the sentences are told from the records when asked (most runs never ask); the only
        # growing label table names departed jobs too, as the jobs in the system and the one
        # departing did
        step = ToldStep(len(self.steps), self.state.time, cause, applied, self._labels)
        self.steps.append(step)
        return step

    def _arrival(self, index: int, pending: list[Change] | None = None) -> JobArrived:
        spec = self.workload.job(index)
        t = self.state.time
        if pending:
            t = pending[0].end  # type: ignore[attr-defined]
        return JobArrived(spec.id, spec.min_nodes, spec.work, spec.beta, t)

    def _rates(self) -> dict[int, tuple[float, float, float]]:
        sched = self.state.schedule
        if self._rate_cache[0] is not sched:
            rates = {}
            jobs, nodes, quantum, static = self.state.jobs, self.nodes, self.quantum, self.static
            # a job keeps its speed while it keeps its width: look it up in the last schedule's
            old, speeds = self._speeds, {}
            for p in sched.pieces if sched else ():
                key = (p.job, p.width)
                speed = old.get(key)
                if speed is None:
                    beta = jobs[p.job].beta
                    s = s_static(p.width, beta, nodes) if static else s_dynamic(p.width, beta)
                    speed = s * quantum
                speeds[key] = speed
                start, end = p.start, p.end
                # int / int is correctly rounded, as float(Fraction) is, without its calls
                rates[p.job] = (start.numerator / start.denominator,
                                end.numerator / end.denominator, speed)
            self._rate_cache = (sched, rates)
            self._speeds = speeds
        return self._rate_cache[1]

    def _compute_next_completion(self) -> tuple[float, int] | None:
        quantum = self.quantum
        u0 = self.state.time / quantum
        q0 = math.floor(u0)
        r0 = u0 - q0
        jobs = self.state.jobs
        best: tuple[float, int] | None = None
        for job, (a, b, rate) in self._rates().items():
            need = jobs[job].remaining / rate
            u = _reach(_ran(q0, r0, a, b) + need, a, b) if need > 0 else u0
            cand = ((u0 if u0 > u else u) * quantum, job)  # max(u, u0)
            if best is None or cand < best:
                best = cand
        return best

    def _served_until(self, t: float, done: int) -> Served:
        u0, u1 = self.state.time / self.quantum, t / self.quantum
        q0, q1 = math.floor(u0), math.floor(u1)  # once for every piece
        r0, r1 = u0 - q0, u1 - q1
        jobs = self.state.jobs
        before, after = [], []
        for job, (a, b, rate) in sorted(self._rates().items()):
            rem = jobs[job].remaining
            if job == done:
                new = 0.0
            else:
                left = rem - rate * (_ran(q1, r1, a, b) - _ran(q0, r0, a, b))
                new = left if left > 0.0 else 0.0  # max(0.0, left), the same value
            before.append((job, rem))
            after.append((job, new))
        return Served(self.state.time, t, tuple(before), tuple(after))
