"""A user's space-sharing policy (:class:`SpacePolicy`) and the event-driven simulator that runs it.

The user subclasses :class:`SpacePolicy` and writes ``decide(view, act)``, called at every event
(arrivals and completions, Zhang01 §2.1's model: a job gets its processors to itself from its
start to its end, killed at its estimate unless ``kill=false``). ``view`` shows the queue (arrival
order), the running jobs and the free processors; ``act.start(job)`` starts a waiting job now,
``act.reserve(job, time)`` records a reservation (shown in the window and checked to lie ahead),
and a job left alone keeps waiting. The run is logged in the backfilling simulator's own records
(:class:`~gangviz.spacesharing.backfill.Decision`), so the window's Gantt strip, narration and
stepping back show a user policy as they show EASY. Rules checked: no more processors in use
than the machine has, no start before arrival, no job waits while the machine is idle; a policy
that declares ``follows = "easy"`` (or ``"fcfs"``, ``"conservative"``) is also held to that rule
by :func:`gangviz.spacesharing.checker.check_schedule` at the end of the run.
"""

from __future__ import annotations

import heapq
import math
import operator
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import numpy as np

from gangviz.core.jobs import JobSpec
from gangviz.core.params import Param, quote
from gangviz.metrics.ibm import SMALL_NODES_MAX, CapacityLog
from gangviz.userpolicy.errors import RULES, RuleViolation, UserPolicyError, caller_line, def_line
from gangviz.userpolicy.policy import _call, _UserPolicy
from gangviz.userpolicy.view import JobView

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.spacesharing.backfill import BackfillRecord

__all__ = ["SpacePolicy", "SpaceView", "SpaceActions", "SpaceEngine", "SPACE_PARAMS"]

_ONE_PROCESS, _GANG, _REPACK, _BUDDY, ARRIVAL, WORK, DEADLOCK, ARGUMENT, CAPACITY, _LOGGED = RULES
RESERVATION_RULE = "the reservation rule it declares"

#: Parameters every user space-sharing policy takes besides its own.
SPACE_PARAMS = (
    Param("estimates", "choice", "requested", "run-time estimates: the trace's requested time "
          "or each job's exact run time", choices=("requested", "exact")),
    Param("kill", "bool", True, "terminate a job when it reaches its estimate (Zhang01 §2.1)"),
)


class SpacePolicy(_UserPolicy):
    """Base class of a user's space-sharing policy.

    Class attributes: ``name``, ``paper``, ``params`` (as :class:`~gangviz.userpolicy.MatrixPolicy`)
    and ``follows`` (``""``, or ``"fcfs"``, ``"easy"``, ``"conservative"``: the reservation rule
    the checker holds the schedule to). ``self.rng`` is the seeded random generator.
    """

    family: ClassVar[str] = "space-sharing"
    follows: ClassVar[str] = ""
    decides_at: ClassVar[str] = "event"

    def setup(self, processors: int) -> None:
        """Called once before the run; raise ``ValueError`` for a machine the policy refuses."""

    def decide(self, view: SpaceView, act: SpaceActions) -> None:
        """React to an event: start waiting jobs (``act.start``), reserve (``act.reserve``) or
        leave them waiting. Return ``None``."""
        raise NotImplementedError("a SpacePolicy must define decide(self, view, act)")


class SpaceView:
    """The machine at one event (read-only): ``time``, ``processors``, ``free`` processors,
    ``waiting`` (arrival order), ``running`` (each with ``estimate`` and ``arrival``; its
    predicted end is ``end(job)``), ``arrived``, ``finished``, ``rng``."""

    def __init__(self, sim: _Run, arrived: list[int], finished: list[int]) -> None:
        self._sim = sim
        self.time = sim.time
        self.processors = sim.processors
        self.rng = sim.rng
        self._arrived, self._finished = arrived, finished

    @property
    def free(self) -> int:
        """Processors idle now."""
        return self._sim.free

    @property
    def waiting(self) -> list[JobView]:
        """The waiting jobs, in arrival order (a started one drops out at once)."""
        return [self._sim.view(k) for k in self._sim.queue]

    @property
    def running(self) -> list[JobView]:
        """The running jobs."""
        return [self._sim.view(k) for k in self._sim.running]

    @property
    def arrived(self) -> list[JobView]:
        """The jobs that arrived at this event."""
        return [self._sim.view(k) for k in self._arrived]

    @property
    def finished(self) -> list[int]:
        """The ids of the jobs that finished at this event."""
        return [self._sim.specs[k].id for k in self._finished]

    def end(self, job: int) -> float:
        """Return when running ``job`` ends by its estimate (start + estimate)."""
        k = self._sim.pos[job]
        return self._sim.start[k] + self._sim.est[k]


class SpaceActions:
    """What a space-sharing policy may do at an event."""

    def __init__(self, sim: _Run, started: list[tuple[int, str]],
                 reservations: dict[int, float]) -> None:
        self._sim, self._started, self._res = sim, started, reservations

    def start(self, job: int) -> None:
        """Start waiting ``job`` now on ``size`` of the free processors."""
        sim = self._sim
        k = sim.pos.get(_job_id(sim, job))
        if k is None or k not in sim.queue:
            sim.fail(job, ARRIVAL, "it is not waiting (it has not arrived, or it already runs)")
        if sim.specs[k].size > sim.free:
            sim.fail(job, CAPACITY, f"it needs {sim.specs[k].size} processors and {sim.free} are free")
        sim.begin(k)
        how = "order" if sim.queue and sim.queue[0] > k or not sim.queue else "backfill"
        self._started.append((k, how))
        self._res.pop(k, None)

    def reserve(self, job: int, time: float) -> None:
        """Record that waiting ``job`` is promised to start by ``time`` (at or after now)."""
        sim = self._sim
        k = sim.pos.get(_job_id(sim, job))
        if k is None or k not in sim.queue:
            sim.fail(job, ARRIVAL, "only a waiting job can hold a reservation")
        if isinstance(time, (bool, np.bool_)) or not (isinstance(time, (int, float, np.integer, np.floating))
                                                     and math.isfinite(time) and time >= sim.time):
            sim.fail(job, ARGUMENT, f"a reservation must be a finite time >= now ({sim.time:g}), "
                     f"got {quote(time)}")
        self._res[k] = float(time)


def _job_id(sim: _Run, job: Any) -> int:
    """The id ``job`` names (an int or a numpy integer); a bool, a float or anything else is a
    bad argument."""
    if type(job) is int:
        return job
    if not isinstance(job, (bool, np.bool_)):
        try:
            return operator.index(job)
        except Exception:
            pass
    sim.fail(quote(job), ARGUMENT, f"the job must be a job id (an int or a numpy integer), got {quote(job)}")


class _Run:
    """The state of one run (positions k are priority order: arrival, then id)."""

    def __init__(self, engine: SpaceEngine, jobs: Sequence[JobSpec], processors: int) -> None:
        from gangviz.spacesharing.backfill import _estimates_and_runs

        self.engine = engine
        self.specs = sorted(jobs, key=lambda j: (j.arrival, j.id))
        self.pos = {s.id: k for k, s in enumerate(self.specs)}
        self.processors = processors
        self.free = processors
        size = [s.size for s in self.specs]
        work = [s.work for s in self.specs]
        requested = None if engine.estimates == "exact" else [s.estimate for s in self.specs]
        self.est, self.run = _estimates_and_runs(size, work, requested, processors, "easy",
                                                 engine.kill, lambda k: self.specs[k].name)
        self.start: list[float] = [math.nan] * len(self.specs)
        self.queue: list[int] = []
        self.running: list[int] = []
        self.done: list[tuple[float, int]] = []
        self.time = 0.0
        self.rng = engine.rng

    def view(self, k: int) -> JobView:
        s = self.specs[k]
        return JobView(s.id, s.name, s.size, s.work, s.work, s.arrival, self.est[k])

    def begin(self, k: int) -> None:
        self.queue.remove(k)
        self.running.append(k)
        self.free -= self.specs[k].size
        self.start[k] = self.time
        heapq.heappush(self.done, (self.time + self.run[k], k))

    def fail(self, job: Any, rule: str, detail: str) -> NoReturn:
        k = self.pos.get(job) if type(job) is int else None
        name = self.specs[k].name if k is not None else str(job)
        raise RuleViolation(self.time, name, rule, detail, caller_line(self.engine.origin))


class SpaceEngine:
    """The space-sharing policy object the factory builds for a user's :class:`SpacePolicy`:
    what :class:`~gangviz.spacesharing.simulation.SpaceSharingSimulation` and the headless run
    need (``mode``, ``estimates``, ``kill``, ``name``, ``label()``), and :meth:`simulate`."""

    def __init__(self, cls: type[SpacePolicy], origin: str, *, spec: str = "", **params: Any) -> None:
        self.origin, self.spec = origin, spec or origin
        self.check = bool(params.pop("check", True))
        self.limit = float(params.pop("decision_limit", 5.0))
        self.estimates = params.pop("estimates", "requested")
        self.kill = bool(params.pop("kill", True))
        self.rng = np.random.default_rng(int(params.pop("seed", 0)))
        self.name = cls.name or cls.__name__
        self.paper = cls.paper or origin
        from gangviz.spacesharing.policy import MODES

        if cls.follows and cls.follows not in MODES:
            raise UserPolicyError(f"{origin}: {cls.__name__}.follows must be one of {', '.join(MODES)} "
                                  f"or empty, got {cls.follows!r}")
        self.follows = cls.follows
        #: The narration's wording: a declared rule's, else every reservation listed.
        self.mode = self.follows or "conservative"
        self.user = _call(lambda: cls(), origin, f"{self.name}()", self.limit)
        self.user.rng = self.rng
        for key, value in {**{p.name: p.default for p in cls.params}, **params}.items():
            setattr(self.user, key, value)

    def label(self) -> str:
        """The spec that names the policy."""
        return self.spec

    def check_machine(self, processors: int, ring: bool) -> None:
        """Run the user's ``setup``; its ``ValueError`` refuses the machine."""
        from gangviz.userpolicy.policy import setup_or_refuse

        setup_or_refuse(self.user, processors, self.origin, self.name, self.limit)

    def check_source(self, source: Any) -> None:
        """Raise ``ValueError`` for a scenario that starts from a matrix or scripts events."""
        if source.matrix is not None or source.script:
            raise ValueError(f"{self.name} is a space-sharing policy: it runs traces and models, "
                             "not a scenario that starts from a matrix or scripts events")

    def simulate(self, jobs: Sequence[JobSpec], processors: int, *, log: bool = False) -> Any:
        """Run the policy on ``jobs`` to the end; return a
        :class:`~gangviz.spacesharing.backfill.BackfillResult` (with its decisions when ``log``).
        Raises :class:`RuleViolation` or :class:`UserPolicyError` as the module says."""
        from gangviz.spacesharing.backfill import BackfillRecord, BackfillResult, Decision

        self.check_machine(processors, False)
        r = _Run(self, jobs, processors)
        n = len(r.specs)
        first_res: list[float | None] = [None] * n
        finish: list[float | None] = [None] * n
        cap = CapacityLog()
        decisions: list[Decision] = []
        nxt, t_prev, finished = 0, 0.0, 0
        held: dict[int, float] = {}
        while finished < n:
            t_arr = r.specs[nxt].arrival if nxt < n else math.inf
            t_done = r.done[0][0] if r.done else math.inf
            t = min(t_arr, t_done)
            if r.queue and t > t_prev:
                small = any(r.specs[k].size <= SMALL_NODES_MAX for k in r.queue)
                large = any(r.specs[k].size > SMALL_NODES_MAX for k in r.queue)
                cap.add(r.free * (t - t_prev), small, large)
            r.time = t_prev = t
            fin: list[int] = []
            while r.done and r.done[0][0] <= t:
                end, k = heapq.heappop(r.done)
                finish[k] = end
                r.running.remove(k)
                r.free += r.specs[k].size
                fin.append(k)
                finished += 1
            arr: list[int] = []
            while nxt < n and r.specs[nxt].arrival <= t:
                r.queue.append(nxt)
                arr.append(nxt)
                nxt += 1
            started: list[tuple[int, str]] = []
            view = SpaceView(r, arr, fin)
            act = SpaceActions(r, started, held)
            result = _call(partial(self.user.decide, view, act), self.origin, f"{self.name}.decide",
                           self.limit)
            if result is not None:
                raise UserPolicyError(f"policy {self.name} ({def_line(self.user.decide, self.origin)}): "
                                      f"decide returned {result!r:.60}; "
                                      "it must return None and act through act.start, act.reserve")
            for k in [k for k in held if k not in r.queue]:
                del held[k]
            for k, when in held.items():
                if first_res[k] is None:
                    first_res[k] = when
            if self.check and r.queue and not r.running:
                r.fail(r.specs[r.queue[0]].id, DEADLOCK, "the machine is idle after the decision and "
                       "the job was not started")
            if log:
                decisions.append(Decision(t, fin, arr, started, list(r.queue), sorted(held.items()),
                                          None, (cap.lost, cap.lost_small, cap.lost_large)))
        records = [BackfillRecord(s, r.start[k], finish[k], first_res[k]) for k, s in enumerate(r.specs)]
        if self.check and self.follows:
            self._hold_to_rule(r, records)
        by_id = sorted(records, key=lambda rec: rec.spec.id)
        return BackfillResult(by_id, cap, r.time, self.mode, r.specs, decisions, r.est)

    def _hold_to_rule(self, r: _Run, records: list[BackfillRecord]) -> None:
        from gangviz.spacesharing.checker import check_schedule

        starts = {rec.spec.id: rec.start for rec in records if rec.start is not None}  # all did
        bad = check_schedule(r.specs, starts, r.processors, self.follows, estimates=self.estimates,
                             kill=self.kill)
        if bad:
            v = bad[0]
            name = r.specs[r.pos[v.job]].name if v.job in r.pos else str(v.job)
            raise RuleViolation(v.time, name, f"{RESERVATION_RULE} ({self.follows}: {v.rule})", v.detail,
                                f"{self.origin} ({self.name}.decide)")
