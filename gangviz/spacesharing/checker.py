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

__all__ = ["Violation", "check_schedule"]

_EPS = 1e-9


@dataclass(frozen=True)
class Violation:
    """One breach of the rule: ``job`` (its id), the instant, the rule broken and a sentence."""

    job: int
    time: float
    rule: str
    detail: str


def _estimate(spec, estimates: str) -> float:
    if estimates == "exact" or spec.estimate is None or not spec.estimate > 0:
        return spec.work
    return spec.estimate


def check_schedule(jobs: Sequence, starts: Mapping[int, float], processors: int, mode: str, *,
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
    est = {j.id: _estimate(j, estimates) for j in specs}
    size = {j.id: j.size for j in specs}
    start = {j.id: float(starts[j.id]) for j in specs}
    end = {j.id: start[j.id] + (min(j.work, est[j.id]) if kill else j.work) for j in specs}
    rank = {j.id: k for k, j in enumerate(specs)}
    out: list[Violation] = []
    for j in specs:
        if start[j.id] < j.arrival - _EPS:
            out.append(Violation(j.id, start[j.id], "before arrival",
                                 f"{j.name} starts at {start[j.id]:g} but arrives at {j.arrival:g}"))
    times = sorted({j.arrival for j in specs} | set(start.values()) | set(end.values()))
    reported: set[int] = set()
    res: dict[int, float] = {}  # conservative: the checker's own reservations
    ids = [j.id for j in specs]
    by_start = sorted(ids, key=lambda i: start[i])
    by_end = sorted(ids, key=lambda i: end[i])
    running: set[int] = set()
    started_ever: set[int] = set()
    waiting: list[int] = []  # ranks of the waiting jobs, in priority order
    used = ia = i_s = i_e = 0
    n = len(ids)
    for t in times:
        while i_e < n and end[by_end[i_e]] <= t:
            if by_end[i_e] in running:
                running.discard(by_end[i_e])
                used -= size[by_end[i_e]]
            i_e += 1
        while ia < n and specs[ia].arrival <= t:
            if ids[ia] not in started_ever:
                waiting.append(ia)  # arrivals come in priority order
            ia += 1
        started = []
        while i_s < n and start[by_start[i_s]] <= t:
            j = by_start[i_s]
            started_ever.add(j)
            k = bisect_left(waiting, rank[j])
            if k < len(waiting) and waiting[k] == rank[j]:
                del waiting[k]
            if end[j] > t:
                running.add(j)
                used += size[j]
            if start[j] == t:
                started.append(j)
            i_s += 1
        if used > processors:
            out.append(Violation(max(running, key=lambda i: rank[i]), t, "overcommit",
                                 f"{used} processors in use at {t:g}; the machine has {processors}"))
        free = processors - used
        if mode == "conservative":
            _conservative(t, specs, start, end, est, size, processors, res, reported, out)
            continue
        first_wait = waiting[0] if waiting else math.inf
        out_of_order = [j for j in started if rank[j] > first_wait]
        head = ids[waiting[0]] if waiting else None
        if mode == "fcfs":
            for j in out_of_order:
                out.append(Violation(j, t, "delays reservation",
                                     f"job {j} starts at {t:g} while earlier job {head} waits"))
            if head is not None and size[head] <= free and head not in reported:
                reported.add(head)
                out.append(Violation(head, t, "could start",
                                     f"head {head} fits ({size[head]} <= {free} free) at {t:g}"))
            continue
        if head is None:
            continue
        late = set(out_of_order)
        base = [j for j in running if j not in late]
        shadow, extra = _shadow(base, head, processors, start, est, size)
        over = [j for j in out_of_order if t + est[j] > shadow + _EPS]
        if sum(size[j] for j in over) > extra:
            for j in over:
                out.append(Violation(j, t, "delays reservation",
                                     f"job {j} backfills to {t + est[j]:g}, past head {head}'s shadow "
                                     f"{shadow:g}, beyond the {extra} extra processors"))
        extra_left = extra - sum(size[j] for j in over)
        if size[head] <= free and head not in reported:
            reported.add(head)
            out.append(Violation(head, t, "could start", f"head {head} fits at {t:g} and waits"))
        if free <= 0:
            continue
        for r in waiting[1:]:
            j = ids[r]
            if j in reported or size[j] > free:
                continue
            if t + est[j] <= shadow + _EPS or size[j] <= extra_left:
                reported.add(j)
                out.append(Violation(j, t, "could start",
                                     f"job {j} fits at {t:g} ({size[j]} <= {free} free) and ends by "
                                     f"{t + est[j]:g} (head {head}'s shadow {shadow:g}, "
                                     f"{extra_left} extra processors)"))
    return out


def _shadow(running, head, processors, start, est, size) -> tuple[float, int]:
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


def _fits(bookings, t0: float, dur: float, need: int, processors: int) -> bool:
    """Whether ``need`` processors are free over ``[t0, t0 + dur)`` beside ``bookings``."""
    t1 = t0 + dur
    points = [t0] + [a for a, b, _ in bookings if t0 < a < t1]
    for p in points:
        used = sum(s for a, b, s in bookings if a <= p < b)
        if used + need > processors:
            return False
    return True


def _earliest(bookings, t: float, dur: float, need: int, processors: int) -> float:
    for c in sorted({t} | {b for _, b, _ in bookings if b > t}):
        if _fits(bookings, c, dur, need, processors):
            return c
    return math.inf  # pragma: no cover - a job no larger than the machine always fits at the end


def _conservative(t, specs, start, end, est, size, processors, res, reported, out) -> None:
    bookings: dict[int, tuple[float, float, int]] = {}
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
