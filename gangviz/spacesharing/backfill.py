"""Space sharing: FCFS, EASY and conservative backfilling (Zhang01 §3).

A single-row machine without time slicing, simulated event by event in continuous time: jobs
start exactly at arrivals and completions, not at slice boundaries, so this is its own small
simulator rather than an engine policy. Jobs are in FCFS priority order (arrival, then id).

* **Conservative** backfilling (the paper's BF, §1, §3): every waiting job holds a reservation,
  and a job may start out of order only if it delays no reservation. At every event the queue
  is *compressed* in FCFS order: each job's reservation is taken out and put back at the
  earliest time it fits, which is never later than before, so no reservation is ever delayed.
* **FCFS** (no backfilling, the paper's baseline of §1): jobs start strictly in priority order;
  the head of the queue blocks every later job until it fits.
* **EASY** backfilling (Lifka, the paper's reference [13]; what most sites run): only the job at
  the head of the queue holds a reservation (its *shadow time*); a later job may start if it
  fits now and either ends by the shadow time or uses only the processors the head will not
  need then (the *extra* processors).

Estimates (``estimates=``): ``"requested"`` (the default, the paper's model) takes
``JobSpec.estimate`` (the SWF requested time, or the Phi model of §2.1), or the run time itself
when a job has none (a perfect estimate); ``"exact"`` takes every job's run time. A running job is predicted to end at
``start + estimate``; with ``kill_at_estimate`` (the default, §2.1: "jobs are terminated after
reaching this limit") a job runs for ``min(work, estimate)``, so predictions are upper bounds
and reservations hold. Ties at one instant: completions are processed before arrivals, and both
before scheduling.

The result's records carry ``spec``, ``start``, ``finish`` and ``reservation`` (the first
reservation the job was given: its conservative reservation, or its EASY shadow time when it
first headed the queue; ``None`` when it started at once, and always under FCFS), compatible
with :func:`gangviz.metrics.ibm.ibm_metrics`. Lost capacity (eq. 2) is accumulated on the way.

Tie-breaks (the rule checker of :mod:`gangviz.spacesharing.checker` and the peer benchmark rely on
them): jobs arriving at the same instant queue by id; EASY scans the queue once per event in
priority order and starts every job that passes the test at that moment (a job that fails is
not retried at the same instant, which is exact because free and extra processors only shrink
during the scan); a running job whose predicted end equals the shadow time counts as ended by it,
so a job ending exactly at the shadow time backfills; the extra processors are all those free at
the shadow time once every job predicted to end then has ended.

``log=True`` keeps, per event (a loop turn: one instant at which jobs finish, arrive or start),
what the scheduler decided, for the step-by-step :class:`~gangviz.spacesharing.simulation.SpaceSharingSimulation`;
see :class:`Decision`. Without it the loops do no extra work.
"""

from __future__ import annotations

import heapq
import math
import os
from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter, le, lt
from typing import TYPE_CHECKING, Any

from gangviz.core.jobs import JobSpec
from gangviz.gcpause import collector_resting
from gangviz.metrics.ibm import SMALL_NODES_MAX, CapacityLog
from gangviz.spacesharing.policy import ESTIMATES, MODES
from gangviz.spacesharing.profile import Profile

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    import numpy as np

    #: A column of :func:`simulate_backfill_columns`: a list or a 1-d array.
    _Column = Sequence[float] | np.ndarray

__all__ = ["BackfillRecord", "BackfillResult", "ColumnsResult", "Decision", "simulate_backfill",
           "simulate_backfill_columns", "MODES", "ESTIMATES"]

#: What a loop returns: ``(end, lost capacity, start, finish, first reservation)``, the lists in
#: priority order (a reservation ``None``: the job never held one).
_LoopResult = tuple[float, CapacityLog, list[float], list[float], list[float | None]]



@dataclass(slots=True)
class BackfillRecord:
    """What happened to one job under backfilling."""

    spec: JobSpec
    start: float | None = None
    finish: float | None = None
    reservation: float | None = None
    terminated: bool = False


@dataclass(slots=True)
class Decision:
    """What the scheduler did at one event (kept with ``log=True``).

    Job numbers are positions in :attr:`BackfillResult.order` (priority order).

    Attributes:
        time: the instant.
        finished, arrived: jobs that finished / arrived then (in that order of processing).
        started: ``(job, how)`` of the jobs started then, in the order they started; ``how`` is
            ``"order"`` (no earlier job waits after it), ``"shadow"`` (EASY backfill that ends by
            the shadow time), ``"extra"`` (EASY backfill on the extra processors) or
            ``"backfill"`` (conservative: it starts while an earlier job waits).
        waiting: the queue after the decision, in priority order.
        reservations: ``(job, time)`` of the reservations held after the decision: the head's
            shadow time under EASY (and under FCFS its predicted start, which is not a
            reservation), every waiting job's under conservative.
        extra: EASY/FCFS: processors the head will not need at its shadow time (``None`` when no
            job waits).
        lost: the lost capacity (eq. 2) accumulated up to ``time``: ``(all, small, large)``.
    """

    time: float
    finished: list[int]
    arrived: list[int]
    started: list[tuple[int, str]]
    waiting: list[int]
    reservations: list[tuple[int, float]]
    extra: int | None = None
    lost: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass
class BackfillResult:
    """Records by job id (submit order), the lost capacity (eq. 2) and the final time.

    ``order`` lists the job specs in priority order (arrival, then id); ``decisions`` holds one
    :class:`Decision` per event when the run was logged, else it is empty. ``estimates`` are the
    estimates used and ``runs`` the time each job ran (its work, or its estimate when it was
    stopped there), both in priority order.
    """

    records: list[BackfillRecord]
    capacity: CapacityLog = field(default_factory=CapacityLog)
    end: float = 0.0
    mode: str = "easy"
    order: list[JobSpec] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    estimates: list[float] = field(default_factory=list)
    runs: list[float] = field(default_factory=list)


def simulate_backfill(jobs: list[JobSpec], processors: int, *, mode: str = "easy",
                      kill_at_estimate: bool = True, small_max: int = SMALL_NODES_MAX,
                      estimates: str = "requested", log: bool = False,
                      compiled: bool = True, order: Callable[[JobSpec], Any] | None = None) -> BackfillResult:
    """Simulate ``mode`` (``"fcfs"``, ``"easy"`` or ``"conservative"``) to the end.

    ``estimates`` is ``"requested"`` or ``"exact"`` (module docstring); ``log`` keeps one
    :class:`Decision` per event. Conservative runs without a log go through a compiled loop (the
    optional C loop, else the numba loop of :mod:`gangviz.spacesharing.compiled`; the same
    schedule) unless ``compiled`` is False. ``order`` sorts the queue by a key of each job's spec
    instead of arrival (ties keep arrival order), e.g. shortest estimate first; the head of that
    order holds EASY's reservation, and conservative compresses its reservations in that order
    (a job is still booked on arrival around the reservations already made, so none is
    delayed). It runs the Python loop.
    Returns a :class:`BackfillResult`. Raises ``ValueError`` for an unknown mode or estimates,
    fewer than one processor, a job larger than the machine (naming the job), a job that runs
    forever, or, for conservative without ``kill_at_estimate``, a job that runs past its estimate.
    """
    _check_options(mode, estimates, processors)
    ids = list(map(attrgetter("id"), jobs))
    if all(map(lt, ids, islice(ids, 1, None))):
        # already in id order (a trace): a stable sort on arrival alone keeps ids ascending
        # among jobs that arrive together, without building a key tuple per job
        specs = sorted(jobs, key=attrgetter("arrival"))
    else:
        specs = sorted(jobs, key=attrgetter("arrival", "id"))
    n = len(specs)
    arrival = [j.arrival for j in specs]
    size = [j.size for j in specs]
    work = [j.work for j in specs]
    requested = None if estimates == "exact" else [j.estimate for j in specs]
    est, run = _estimates_and_runs(size, work, requested, processors, mode, kill_at_estimate,
                                   lambda k: specs[k].name)
    decisions: list[Decision] | None = [] if log else None
    prio = None
    if order is not None:
        prio = [order(j) for j in specs]
    if mode == "conservative" and decisions is None and compiled and n and prio is None:
        end, cap, start, finish, resv = _conservative_loop(arrival, size, est, run, processors,
                                                           small_max)
        records = list(map(BackfillRecord, specs, start, finish, resv))
    elif mode == "conservative":
        records = [BackfillRecord(j) for j in specs]
        end, cap = _conservative(arrival, size, est, run, records, processors, small_max, decisions,
                                 prio)
    else:
        # The loop allocates a tuple or two per event and keeps every record alive; none can
        # form a reference cycle, so the cyclic collector rests meanwhile (as the SWF reader's).
        with collector_resting():
            end, cap, start, finish, resv = _easy_loop(arrival, size, est, run, processors,
                                                       small_max, mode == "easy", decisions, prio)
            records = list(map(BackfillRecord, specs, start, finish, resv))
    by_id = sorted(records, key=attrgetter("spec.id"))
    return BackfillResult(by_id, cap, end, mode, specs, decisions or [], est, run)


@dataclass
class ColumnsResult:
    """The schedule of :func:`simulate_backfill_columns`, in the order of the columns given.

    ``start``, ``finish`` and ``reservation`` (the first reservation, ``None`` for none) are
    lists with one entry per job, as :class:`BackfillRecord` holds them; ``capacity``, ``end``
    and ``runs`` (the time each job ran) are those of :class:`BackfillResult`.
    """

    start: list[float]
    finish: list[float]
    reservation: list[float | None]
    capacity: CapacityLog
    end: float
    mode: str
    runs: list[float] = field(default_factory=list)


def simulate_backfill_columns(arrival: _Column, size: _Column, work: _Column, estimate: _Column,
                              processors: int, *, mode: str = "easy",
                              kill_at_estimate: bool = True, small_max: int = SMALL_NODES_MAX,
                              estimates: str = "requested") -> ColumnsResult:
    """Simulate as :func:`simulate_backfill` does (the same schedule, number for number) on jobs
    given as columns instead of job objects: a trace read by
    :func:`gangviz.workloads.swf.read_swf_columns` needs none.

    ``arrival``, ``size``, ``work`` and ``estimate`` are sequences (lists or 1-d arrays) with
    one entry per job, in priority order: arrivals never decrease, and jobs that arrive together
    are in id order (a trace's submit order is). ``estimate`` is NaN or <= 0 where a job has
    none. Returns a :class:`ColumnsResult`. Raises ``ValueError`` as :func:`simulate_backfill`
    does (naming a job by its 0-based position), and for arrivals out of order.
    """
    _check_options(mode, estimates, processors)
    arrivals: list[float] = _as_list(arrival)
    sizes: list[int] = _as_list(size)
    works: list[float] = _as_list(work)
    if not all(map(le, arrivals, islice(arrivals, 1, None))):
        raise ValueError("the columns must be in priority order: arrivals never decrease")
    requested = None
    if estimates != "exact":
        requested = _as_list(estimate)
    est, run = _estimates_and_runs(sizes, works, requested, processors, mode, kill_at_estimate,
                                   lambda k: f"at position {k}")
    if not arrivals:
        return ColumnsResult([], [], [], CapacityLog(), 0.0, mode, [])
    if mode == "conservative":
        end, cap, start, finish, resv = _conservative_loop(arrivals, sizes, est, run, processors,
                                                           small_max)
        return ColumnsResult(start, finish, resv, cap, end, mode, run)
    with collector_resting():
        end, cap, start, finish, resv = _easy_loop(arrivals, sizes, est, run, processors,
                                                   small_max, mode == "easy", None)
    return ColumnsResult(start, finish, resv, cap, end, mode, run)


def _as_list(column: _Column) -> list[Any]:
    """Return ``column`` as a list of Python numbers (an array's ``tolist``)."""
    return column.tolist() if hasattr(column, "tolist") else list(column)


def _check_options(mode: str, estimates: str, processors: int) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if estimates not in ESTIMATES:
        raise ValueError(f"estimates must be one of {', '.join(ESTIMATES)}, got {estimates!r}")
    if processors < 1:
        raise ValueError(f"processors must be >= 1, got {processors}")


def _estimates_and_runs(size: Sequence[int], work: list[float],
                        requested: Sequence[float | None] | None, processors: int, mode: str,
                        kill: bool, name: Callable[[int], str]) -> tuple[list[float], list[float]]:
    """Return (estimate, run time) lists; ``requested`` is each job's estimate (``None``, NaN or
    <= 0 for none; ``None`` for the whole list: exact estimates). ``name(k)`` names job k in
    messages. Raises ``ValueError`` for a job that runs forever or is larger than the machine,
    and for conservative without killing, a job that runs past its estimate."""
    if not all(map(math.isfinite, work)) or (size and max(size) > processors):
        for k, (sz, w) in enumerate(zip(size, work)):
            if not math.isfinite(w):
                raise ValueError(f"job {name(k)} runs forever; space sharing needs finite run times")
            if sz > processors:
                raise ValueError(f"job {name(k)} needs {sz} processors; the machine has {processors}")
    if requested is None:
        est = work
    else:
        est = [w if e is None or not e > 0 else e for w, e in zip(work, requested)]
    run = list(map(min, work, est)) if kill else work
    if mode == "conservative" and not kill:
        # a job running past its estimate would hold processors its booking has given back
        for k, (w, e) in enumerate(zip(work, est)):
            if w > e:
                raise ValueError(f"conservative backfilling without killing needs estimates that bound "
                                 f"the run time; job {name(k)} runs {w:g} with an estimate of {e:g}")
    return est, run



def _conservative_loop(arrival: list[float], size: list[int], est: list[float],
                       run: list[float], P: int, small_max: int) -> _LoopResult:
    """Run conservative backfilling without a decision log; return ``(end, lost capacity,
    start, finish, first reservation)``, the lists in priority order (``None``: no reservation).

    The optional C loop of :mod:`gangviz.spacesharing._easyloop` runs when it is built and the
    columns are plain floats (sizes ints), else the numba loop of
    :mod:`gangviz.spacesharing.compiled`; both give what :func:`_conservative` gives, bit for
    bit. The numba module is imported only when the C loop cannot run (its import alone takes
    longer than the C run). ``GANGVIZ_PURE_PYTHON=1`` skips the C loop."""
    if not os.environ.get("GANGVIZ_PURE_PYTHON"):
        try:
            from gangviz.spacesharing import _easyloop
        except ImportError:
            pass
        else:
            out = _easyloop.conservative(list(arrival), list(size), list(est), list(run), P,
                                         small_max)
            if out is not None:
                end, lost, start, finish, resv = out
                return end, CapacityLog(*lost), start, finish, resv
    from gangviz.spacesharing.compiled import conservative_compiled

    start_a, finish_a, first, lost, end = conservative_compiled(arrival, size, est, run, P,
                                                                small_max)
    resv = [None if f != f else f for f in first.tolist()]
    return end, CapacityLog(*lost), start_a.tolist(), finish_a.tolist(), resv


def _easy_loop(arrival: list[float], size: list[int], est: list[float], run: list[float], P: int,
               small_max: int, backfill: bool, log: list[Decision] | None,
               prio: Sequence[Any] | None = None) -> _LoopResult:
    """Run :func:`_easy`, through the optional C loop of :mod:`gangviz.spacesharing._easyloop`
    when it is built, no decision log is asked for and the columns are plain floats (sizes
    ints); it gives the same results bit for bit. Anything else runs the Python loop, which
    stays the reference. ``GANGVIZ_PURE_PYTHON=1`` in the environment forces the Python loop
    (to time one against the other)."""
    if log is None and prio is None and not os.environ.get("GANGVIZ_PURE_PYTHON"):
        try:
            from gangviz.spacesharing import _easyloop
        except ImportError:
            pass
        else:
            out = _easyloop.easy(list(arrival), list(size), list(est), list(run), P, small_max, backfill)
            if out is not None:
                end, lost, start, finish, resv = out
                return end, CapacityLog(*lost), start, finish, resv
    return _easy(arrival, size, est, run, P, small_max, backfill, log, prio)


def _arrive(queue: list[int], arrival: Sequence[float], size: Sequence[int], small_max: int,
            nxt: int, t: float, small: int, large: int,
            arrived: list[int] | None) -> tuple[int, int, int]:
    """Append to ``queue`` every job from ``nxt`` on that has arrived by ``t`` (and to
    ``arrived`` too, unless it is ``None``); return the next job not yet arrived and the counts
    of small and large waiting jobs (size at most ``small_max``, or more), ``small`` and
    ``large`` plus those that joined."""
    n = len(arrival)
    while nxt < n and arrival[nxt] <= t:
        queue.append(nxt)
        if size[nxt] <= small_max:
            small += 1
        else:
            large += 1
        if arrived is not None:
            arrived.append(nxt)
        nxt += 1
    return nxt, small, large


def _backfill(queue: list[int], first: int, t: float, shadow: float, free: int, extra: int,
              size: Sequence[int], est: Sequence[float], run: Sequence[float], small_max: int,
              start_of: list[float], done_heap: list[tuple[float, int]],
              running: list[tuple[float, int]], started: list[tuple[int, str]] | None,
              stop_when_full: bool) -> tuple[list[int], int, int, int, int]:
    """EASY's backfill pass at time ``t``: start, in queue order from ``queue[first]`` on, every
    job that fits in the ``free`` processors and either ends by the ``shadow`` time (by its
    estimate) or fits in the ``extra`` processors, which it then uses up. A started job is
    booked in ``start_of``, ``done_heap`` (by run time) and ``running`` (by estimate), and
    appended with how it passed (``"shadow"`` or ``"extra"``) to ``started`` unless that is
    ``None``. With ``stop_when_full`` the scan ends once no processor is free (no later job of
    size 1 or more fits). Return the jobs left waiting (``queue[:first]`` first), the free and extra
    processors left, and how many small and large jobs (size at most ``small_max``, or more)
    started."""
    keep = queue[:first]
    small = large = 0
    for idx in range(first, len(queue)):
        j = queue[idx]
        sz = size[j]
        if sz <= free and (t + est[j] <= shadow or sz <= extra):
            free -= sz
            if t + est[j] > shadow:
                extra -= sz
                how = "extra"
            else:
                how = "shadow"
            start_of[j] = t
            heapq.heappush(done_heap, (t + run[j], j))
            insort(running, (t + est[j], j))
            if sz <= small_max:
                small += 1
            else:
                large += 1
            if started is not None:
                started.append((j, how))
            if stop_when_full and free == 0:
                keep.extend(queue[idx + 1:])
                break
        else:
            keep.append(j)
    return keep, free, extra, small, large


def _easy(arrival: list[float], size: list[int], est: list[float], run: list[float], P: int,  # noqa: C901 - the hot loop, kept inline for speed
          small_max: int, backfill: bool, log: list[Decision] | None,
          prio: Sequence[Any] | None = None) -> _LoopResult:
    # Without a log, an event at which no job finishes and the queue was not empty before only
    # needs its new arrivals tested: the head, the free processors and the running jobs are
    # those left by the previous event, so the shadow time and extra processors are too, and
    # every job that waited then still fails the backfill test (free and extra only shrank
    # during that scan, and the clock moved on).
    # Times go into plain lists during the run; the caller builds the records.
    # Returns (end, lost capacity, start, finish and first reservation of each job, in priority order).
    n = len(arrival)
    lost = lost_small = lost_large = 0.0  # eq. 2, as CapacityLog.add counts it
    done_heap: list[tuple[float, int]] = []
    running: list[tuple[float, int]] = []  # (predicted end, id), sorted
    queue: list[int] = []
    free = P
    nxt = 0
    t_prev = 0.0
    n_small = n_large = 0
    finished = 0
    start_of = [0.0] * n
    finish_of = [0.0] * n  # every entry is set by the end, as start_of
    resv: list[float | None] = [None] * n
    shadow, extra = math.inf, 0
    heappush, heappop = heapq.heappush, heapq.heappop
    while finished < n:
        t_arr = arrival[nxt] if nxt < n else math.inf
        t_done = done_heap[0][0] if done_heap else math.inf
        t = t_arr if t_arr < t_done else t_done
        if queue and t > t_prev:
            amount = free * (t - t_prev)
            lost += amount
            if n_small:
                lost_small += amount
            if n_large:
                lost_large += amount
        t_prev = t
        if log is not None:
            fin_now: list[int] = []
            arr_now: list[int] = []
            started_now: list[tuple[int, str]] = []
        if t_done > t and queue and log is None and prio is None:
            # only arrivals, behind a head that still waits (see above)
            waited = len(queue)
            nxt, n_small, n_large = _arrive(queue, arrival, size, small_max, nxt, t, n_small, n_large, None)
            if backfill and free > 0:
                queue, free, extra, small, large = _backfill(
                    queue, waited, t, shadow, free, extra, size, est, run, small_max,
                    start_of, done_heap, running, None, False)
                n_small -= small
                n_large -= large
            continue
        while done_heap and done_heap[0][0] <= t:
            fin, j = heappop(done_heap)
            finish_of[j] = fin
            free += size[j]
            finished += 1
            pe = start_of[j] + est[j]
            del running[bisect_left(running, (pe, j))]
            if log is not None:
                fin_now.append(j)
        nxt, n_small, n_large = _arrive(queue, arrival, size, small_max, nxt, t, n_small, n_large,
                                        arr_now if log is not None else None)
        if prio is not None and len(queue) > 1:
            queue.sort(key=prio.__getitem__)  # stable: equal keys keep arrival order
        if not queue:
            if log is not None:
                log.append(Decision(t, fin_now, arr_now, [], [], [], None,
                                    (lost, lost_small, lost_large)))
            continue
        # start jobs from the head while they fit
        k = 0
        while k < len(queue) and size[queue[k]] <= free:
            j = queue[k]
            free -= size[j]
            start_of[j] = t
            heappush(done_heap, (t + run[j], j))
            insort(running, (t + est[j], j))
            if log is not None:
                started_now.append((j, "order"))
            k += 1
        for j in queue[:k]:
            if size[j] <= small_max:
                n_small -= 1
            else:
                n_large -= 1
        queue = queue[k:]
        shadow = math.inf
        extra = 0
        if queue and (backfill and (free > 0 or resv[queue[0]] is None)
                      or log is not None):
            # the head's shadow time: when enough running jobs will have ended (by estimate)
            head = queue[0]
            need = size[head]
            avail = free
            for idx, (pe, j) in enumerate(running):
                avail += size[j]
                if avail >= need:
                    # every job predicted to end at the shadow time frees its processors then
                    for k2 in range(idx + 1, len(running)):
                        pe2, j2 = running[k2]
                        if pe2 != pe:
                            break
                        avail += size[j2]
                    shadow, extra = pe, avail - need
                    break
            if backfill and resv[head] is None:
                resv[head] = shadow
        if queue and free > 0 and backfill:
            queue, free, extra, small, large = _backfill(
                queue, 1, t, shadow, free, extra, size, est, run, small_max,
                start_of, done_heap, running, started_now if log is not None else None, True)
            n_small -= small
            n_large -= large
        if log is not None:
            res = [(queue[0], shadow)] if queue else []
            log.append(Decision(t, fin_now, arr_now, started_now, list(queue), res,
                                extra if queue else None, (lost, lost_small, lost_large)))
    return t_prev, CapacityLog(lost, lost_small, lost_large), start_of, finish_of, resv


def _conservative(arrival: list[float], size: list[int], est: list[float], run: list[float],  # noqa: C901 - one event loop, as the compiled twin
                  records: list[BackfillRecord], P: int, small_max: int,
                  log: list[Decision] | None,
                  prio: Sequence[Any] | None = None) -> tuple[float, CapacityLog]:
    """Conservative backfilling; the compression pass re-places each waiting job in priority
    order at its earliest fit, never later than its reservation. A job that cannot start before
    its reservation (no segment before it has room for it) is skipped without touching the
    profile, which gives the same schedule as re-placing it.

    ``prio`` (a sort key per job, or ``None`` for arrival order) orders the queue, and so the
    compression pass; a newly arrived job is still booked at its earliest fit around the
    reservations already made, so no order delays a job past its reservation [Zhang01 §3]."""
    n = len(arrival)
    cap = CapacityLog()
    done_heap: list[tuple[float, int]] = []
    plan = Profile(P, arrival[0] if n else 0.0)
    res: dict[int, float] = {}  # current reservation of each waiting job
    queue: list[int] = []
    free = P
    nxt = 0
    t_prev = 0.0
    finished = 0
    n_small = n_large = 0
    start_of = [0.0] * n
    while finished < n:
        t_arr = arrival[nxt] if nxt < n else math.inf
        t_done = done_heap[0][0] if done_heap else math.inf
        t = t_arr if t_arr < t_done else t_done
        if queue and t > t_prev:
            cap.add(free * (t - t_prev), n_small > 0, n_large > 0)
        t_prev = t
        plan.advance(t)
        if log is not None:
            fin_now: list[int] = []
            arr_now: list[int] = []
            started_now: list[tuple[int, str]] = []
        while done_heap and done_heap[0][0] <= t:
            fin, j = heapq.heappop(done_heap)
            records[j].finish = fin
            free += size[j]
            finished += 1
            plan.book(t, start_of[j] + est[j], -size[j])  # the unused rest of its booking
            if log is not None:
                fin_now.append(j)
        nxt, n_small, n_large = _arrive(queue, arrival, size, small_max, nxt, t, n_small, n_large,
                                        arr_now if log is not None else None)
        if prio is not None and len(queue) > 1:
            queue.sort(key=lambda k: (prio[k], k))  # near sorted already: linear in practice
        keep: list[int] = []
        for j in queue:
            old = res.get(j)
            e, sz = est[j], size[j]
            if old is None:
                when = plan.earliest(e, sz)
                plan.book(when, when + e, sz)
            elif old <= t or not plan.could_start_before(sz, old):
                when = old
            else:
                when = plan.earliest(e, sz, limit=old, own=(old, old + e, sz))
                if when < old:  # compression: it moves forward, never back
                    plan.book(old, old + e, -sz)
                    plan.book(when, when + e, sz)
                else:
                    when = old
            if when <= t:
                free -= sz
                start_of[j] = t
                records[j].start = t
                heapq.heappush(done_heap, (t + run[j], j))
                res.pop(j, None)
                if sz <= small_max:
                    n_small -= 1
                else:
                    n_large -= 1
                if log is not None:
                    started_now.append((j, "backfill" if keep else "order"))
            else:
                res[j] = when
                if records[j].reservation is None:
                    records[j].reservation = when
                keep.append(j)
        queue = keep
        assert free >= 0
        if log is not None:
            log.append(Decision(t, fin_now, arr_now, started_now, list(queue),
                                [(j, res[j]) for j in queue], None,
                                (cap.lost, cap.lost_small, cap.lost_large)))
    return t_prev, cap
