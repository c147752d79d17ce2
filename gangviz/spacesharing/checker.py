"""Check a space-sharing schedule against the rule of its policy, independently of the simulator.

Given the jobs, the start time of each and the machine, :func:`check_schedule` replays the
schedule event by event (every arrival, start and completion) and lists every
:class:`Violation`:

* ``"before arrival"``: a job starts before it arrives; ``"overcommit"``: more processors in use
  than the machine has;
* ``"could start"``: a waiting job could have started at that instant under the rule. FCFS: the
  head of the queue fits. EASY (Zhang01 §1, §3; Lifka's rule): the head fits,
  or a later job fits in the free processors and either ends (by its estimate) by the head's
  shadow time or needs no more than the extra processors. Conservative: the job fits now in the
  profile of the running jobs and every other job's reservation;
* ``"delays reservation"``: a job started out of order where the rule forbids it. FCFS: any job
  that starts while an earlier one waits. EASY: a backfilled job that ends after the shadow time
  while the extra processors do not cover it. Conservative: a job started at an instant at
  which it does not fit beside the running jobs and the other reservations.

For conservative the checker keeps its own reservations (each waiting job re-placed at the
earliest fit at every event, in priority order, never later than it was: the compression rule)
with a brute-force profile, sharing no code with the simulator. Priority order is arrival, then
id; a job reported ``"could start"`` is reported once, at the first instant. Predicted ends use
the estimates the policy uses (``estimates="requested"``: the job's estimate, else its run time;
``"exact"``: its run time); a job runs for ``min(work, estimate)`` when ``kill`` is on.

Nothing here imports Qt or the simulator.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gangviz.core.jobs import JobSpec

__all__ = ["Violation", "check_schedule"]

_EPS = 1e-9
#: a booking of processors: ``(from, until, processors)``
_Booking = tuple[float, float, int]


@dataclass(frozen=True)
class Violation:
    """One breach of the rule: ``job`` (its id), the instant, the rule broken and a sentence."""

    job: int
    time: float
    rule: str
    detail: str


def _estimate(spec: JobSpec, estimates: str) -> float:
    if estimates == "exact" or spec.estimate is None or not spec.estimate > 0:
        return spec.work
    return spec.estimate


def check_schedule(jobs: Sequence[JobSpec], starts: Mapping[int, float], processors: int, mode: str, *,
                   estimates: str = "requested", kill: bool = True) -> list[Violation]:
    """Return every violation of ``mode``'s rule (``"fcfs"``, ``"easy"``, ``"conservative"``) in
    the schedule that starts job ``j`` (a :class:`~gangviz.core.jobs.JobSpec`) at ``starts[j.id]``.

    An empty list means the schedule follows the rule. Raises ``ValueError`` for an unknown mode
    or a job without a start time.
    """
    if mode not in ("fcfs", "easy", "conservative"):
        raise ValueError(f"mode must be fcfs, easy or conservative, got {mode!r}")
    specs = sorted(jobs, key=lambda j: (j.arrival, j.id))
    missing = [j.name for j in specs if j.id not in starts]
    if missing:
        raise ValueError(f"no start time for {', '.join(missing[:5])}")
    replay = _Replay(specs, starts, processors, estimates, kill)
    out = replay.early_starts()
    res: dict[int, float] = {}  # conservative: the checker's own reservations
    for t in replay.times():
        started = replay.advance(t)
        if replay.used > processors:
            out.append(Violation(max(replay.running, key=lambda i: replay.rank[i]), t, "overcommit",
                                 f"{replay.used} processors in use at {t:g}; the machine has {processors}"))
        if mode == "conservative":
            _conservative(t, specs, replay.start, replay.end, replay.est, replay.size, processors,
                          res, replay.reported, out)
        elif mode == "fcfs":
            out += replay.fcfs_violations(t, started)
        else:
            out += replay.easy_violations(t, started)
    return out


class _Replay:
    """The schedule replayed instant by instant: the jobs running and waiting at each event.

    Each job's end is its start plus its run time (cut at its estimate when ``kill``); the
    waiting jobs are kept as ranks in priority (arrival) order.
    """

    def __init__(self, specs: list[JobSpec], starts: Mapping[int, float], processors: int,
                 estimates: str, kill: bool) -> None:
        self.specs, self.processors = specs, processors
        self.est = {j.id: _estimate(j, estimates) for j in specs}
        self.size = {j.id: j.size for j in specs}
        self.start = {j.id: float(starts[j.id]) for j in specs}
        self.end = {j.id: self.start[j.id] + (min(j.work, self.est[j.id]) if kill else j.work)
                    for j in specs}
        self.rank = {j.id: k for k, j in enumerate(specs)}
        self.ids = [j.id for j in specs]
        self.by_start = sorted(self.ids, key=lambda i: self.start[i])
        self.by_end = sorted(self.ids, key=lambda i: self.end[i])
        self.running: set[int] = set()
        self.started_ever: set[int] = set()
        self.waiting: list[int] = []
        self.reported: set[int] = set()
        self.used = self._arrived = self._started = self._ended = 0

    def early_starts(self) -> list[Violation]:
        """Return a violation for every job that starts before it arrives."""
        return [Violation(j.id, self.start[j.id], "before arrival",
                          f"{j.name} starts at {self.start[j.id]:g} but arrives at {j.arrival:g}")
                for j in self.specs if self.start[j.id] < j.arrival - _EPS]

    def times(self) -> list[float]:
        """Return every instant at which something happens, in order."""
        return sorted({j.arrival for j in self.specs} | set(self.start.values())
                      | set(self.end.values()))

    def advance(self, t: float) -> list[int]:
        """Apply the ends, arrivals and starts up to ``t``; return the jobs starting at ``t``."""
        n = len(self.ids)
        while self._ended < n and self.end[self.by_end[self._ended]] <= t:
            j = self.by_end[self._ended]
            if j in self.running:
                self.running.discard(j)
                self.used -= self.size[j]
            self._ended += 1
        while self._arrived < n and self.specs[self._arrived].arrival <= t:
            if self.ids[self._arrived] not in self.started_ever:
                self.waiting.append(self._arrived)  # arrivals come in priority order
            self._arrived += 1
        started = []
        while self._started < n and self.start[self.by_start[self._started]] <= t:
            j = self.by_start[self._started]
            self._start(j, t)
            if self.start[j] == t:
                started.append(j)
            self._started += 1
        return started

    def _start(self, j: int, t: float) -> None:
        self.started_ever.add(j)
        k = bisect_left(self.waiting, self.rank[j])
        if k < len(self.waiting) and self.waiting[k] == self.rank[j]:
            del self.waiting[k]
        if self.end[j] > t:
            self.running.add(j)
            self.used += self.size[j]

    def _out_of_order(self, started: list[int]) -> list[int]:
        first_wait = self.waiting[0] if self.waiting else math.inf
        return [j for j in started if self.rank[j] > first_wait]

    def _head(self) -> int | None:
        return self.ids[self.waiting[0]] if self.waiting else None

    def fcfs_violations(self, t: float, started: list[int]) -> list[Violation]:
        """FCFS: nothing starts ahead of a waiting job, and the head starts once it fits."""
        head, free = self._head(), self.processors - self.used
        out = [Violation(j, t, "delays reservation",
                         f"job {j} starts at {t:g} while earlier job {head} waits")
               for j in self._out_of_order(started)]
        if head is not None and self.size[head] <= free and head not in self.reported:
            self.reported.add(head)
            out.append(Violation(head, t, "could start",
                                 f"head {head} fits ({self.size[head]} <= {free} free) at {t:g}"))
        return out

    def easy_violations(self, t: float, started: list[int]) -> list[Violation]:
        """EASY: a job that jumps the queue must not delay the head's reservation (its shadow
        time and extra processors), and no job that could start so waits."""
        head = self._head()
        if head is None:
            return []
        size, est, free = self.size, self.est, self.processors - self.used
        out_of_order = self._out_of_order(started)
        late = set(out_of_order)
        base = [j for j in self.running if j not in late]
        shadow, extra = _shadow(base, head, self.processors, self.start, est, size)
        over = [j for j in out_of_order if t + est[j] > shadow + _EPS]
        out: list[Violation] = []
        if sum(size[j] for j in over) > extra:
            out += [Violation(j, t, "delays reservation",
                              f"job {j} backfills to {t + est[j]:g}, past head {head}'s shadow "
                              f"{shadow:g}, beyond the {extra} extra processors") for j in over]
        extra_left = extra - sum(size[j] for j in over)
        if size[head] <= free and head not in self.reported:
            self.reported.add(head)
            out.append(Violation(head, t, "could start", f"head {head} fits at {t:g} and waits"))
        if free > 0:
            out += self._could_backfill(t, head, free, shadow, extra_left)
        return out

    def _could_backfill(self, t: float, head: int, free: int, shadow: float,
                        extra_left: int) -> list[Violation]:
        out = []
        for r in self.waiting[1:]:
            j = self.ids[r]
            if j in self.reported or self.size[j] > free:
                continue
            if t + self.est[j] <= shadow + _EPS or self.size[j] <= extra_left:
                self.reported.add(j)
                out.append(Violation(j, t, "could start",
                                     f"job {j} fits at {t:g} ({self.size[j]} <= {free} free) and "
                                     f"ends by {t + self.est[j]:g} (head {head}'s shadow {shadow:g}, "
                                     f"{extra_left} extra processors)"))
        return out


def _shadow(running: list[int], head: int, processors: int, start: dict[int, float],
            est: dict[int, float], size: dict[int, int]) -> tuple[float, int]:
    """Return the head's shadow time and extra processors given ``running`` (predicted ends)."""
    need = size[head]
    avail = processors - sum(size[j] for j in running)
    if avail >= need:
        return -math.inf, avail - need
    for pe in sorted({start[j] + est[j] for j in running}):
        # processors free once every job predicted to end by pe has ended
        free_then = processors - sum(size[j] for j in running if start[j] + est[j] > pe)
        if free_then >= need:
            return pe, free_then - need
    return math.inf, 0


def _fits(bookings: list[_Booking], t0: float, dur: float, need: int, processors: int) -> bool:
    """Whether ``need`` processors are free over ``[t0, t0 + dur)`` beside ``bookings``."""
    t1 = t0 + dur
    points = [t0] + [a for a, b, _ in bookings if t0 < a < t1]
    for p in points:
        used = sum(s for a, b, s in bookings if a <= p < b)
        if used + need > processors:
            return False
    return True


def _earliest(bookings: list[_Booking], t: float, dur: float, need: int, processors: int) -> float:
    for c in sorted({t} | {b for _, b, _ in bookings if b > t}):
        if _fits(bookings, c, dur, need, processors):
            return c
    return math.inf  # pragma: no cover - a job no larger than the machine always fits at the end


def _conservative(t: float, specs: list[JobSpec], start: dict[int, float], end: dict[int, float],
                  est: dict[int, float], size: dict[int, int], processors: int,
                  res: dict[int, float], reported: set[int], out: list[Violation]) -> None:
    bookings: dict[int, _Booking] = {}
    for j in specs:
        i = j.id
        if start[i] < t < end[i]:
            bookings[i] = (t, max(start[i] + est[i], t), size[i])
    for i, r in res.items():
        if start[i] >= t:  # jobs starting now still hold their reservation until their turn
            bookings[i] = (r, r + est[i], size[i])
    for j in specs:  # priority order
        i = j.id
        if not j.arrival <= t <= start[i]:
            continue
        old = res.pop(i, None)
        bookings.pop(i, None)
        others = list(bookings.values())
        when = _earliest(others, t, est[i], size[i], processors)
        if start[i] == t:
            if when > t + _EPS:
                out.append(Violation(i, t, "delays reservation",
                                     f"job {i} starts at {t:g} but fits beside the other "
                                     f"reservations only at {when:g}"))
            bookings[i] = (t, t + est[i], size[i])
            continue
        if when <= t + _EPS and i not in reported:
            reported.add(i)
            out.append(Violation(i, t, "could start",
                                 f"job {i} fits at {t:g} beside every reservation and waits"))
        when = min(when, old) if old is not None else when
        res[i] = when
        bookings[i] = (when, when + est[i], size[i])
