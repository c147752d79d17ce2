"""Space sharing with backfilling: BF (conservative) and EASY (003_1fd1fd192052cc5d.txt §3).

A single-row machine without time slicing, simulated event by event in continuous time: jobs
start exactly at arrivals and completions, not at slice boundaries, so this is its own small
simulator rather than an engine policy. Jobs are in FCFS priority order (arrival, then id).

* **Conservative** backfilling (the paper's BF, §1, §3): every waiting job holds a reservation,
  and a job may start out of order only if it delays no reservation. At every event the queue
  is *compressed* in FCFS order: each job's reservation is taken out and put back at the
  earliest time it fits, which is never later than before, so no reservation is ever delayed.
* **EASY** backfilling (Lifka, the paper's reference [13]; what most sites run): only the job at
  the head of the queue holds a reservation (its *shadow time*); a later job may start if it
  fits now and either ends by the shadow time or uses only the processors the head will not
  need then (the *extra* processors).

Estimates: ``JobSpec.estimate`` (the SWF requested time, or the Phi model of §2.1), or the run
time itself when a job has none (a perfect estimate). A running job is predicted to end at
``start + estimate``; with ``kill_at_estimate`` (the default, §2.1: "jobs are terminated after
reaching this limit") a job runs for ``min(work, estimate)``, so predictions are upper bounds
and reservations hold. Ties at one instant: completions are processed before arrivals, and both
before scheduling.

The result's records carry ``spec``, ``start``, ``finish`` and ``reservation`` (the first
reservation the job was given: its conservative reservation, or its EASY shadow time when it
first headed the queue; ``None`` when it started at once), compatible with
:func:`gangviz.metrics_ibm.ibm_metrics`. Lost capacity (eq. 2) is accumulated on the way.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, insort
from dataclasses import dataclass, field

import numpy as np

from gangviz.core.jobs import JobSpec
from gangviz.metrics_ibm import SMALL_MAX, CapacityLog
from gangviz.policies.ibm.bgs import Planner

__all__ = ["BackfillRecord", "BackfillResult", "simulate_backfill", "MODES"]

MODES = ("easy", "conservative")


@dataclass(slots=True)
class BackfillRecord:
    """What happened to one job under backfilling."""

    spec: JobSpec
    start: float | None = None
    finish: float | None = None
    reservation: float | None = None
    terminated: bool = False


@dataclass
class BackfillResult:
    """Records by job id (submit order), the lost capacity (eq. 2) and the final time."""

    records: list[BackfillRecord]
    capacity: CapacityLog = field(default_factory=CapacityLog)
    end: float = 0.0
    mode: str = "easy"


def simulate_backfill(jobs: list[JobSpec], processors: int, *, mode: str = "easy",
                      kill_at_estimate: bool = True, small_max: int = SMALL_MAX) -> BackfillResult:
    """Simulate FCFS with ``mode`` backfilling (``"easy"`` or ``"conservative"``) to the end.

    Returns a :class:`BackfillResult`. Raises ``ValueError`` for an unknown mode, fewer than one
    processor, or a job larger than the machine (naming the job).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if processors < 1:
        raise ValueError(f"processors must be >= 1, got {processors}")
    specs = sorted(jobs, key=lambda j: (j.arrival, j.id))
    n = len(specs)
    for j in specs:
        if j.size > processors:
            raise ValueError(f"job {j.name} needs {j.size} processors; the machine has {processors}")
    arrival = [j.arrival for j in specs]
    size = [j.size for j in specs]
    est = [j.work if j.estimate is None or not j.estimate > 0 else j.estimate for j in specs]
    run = [min(j.work, e) if kill_at_estimate else j.work for j, e in zip(specs, est)]
    records = [BackfillRecord(j) for j in specs]
    if mode == "easy":
        end, cap = _easy(arrival, size, est, run, records, processors, small_max)
    else:
        end, cap = _conservative(arrival, size, est, run, records, processors, small_max)
    records.sort(key=lambda r: r.spec.id)
    return BackfillResult(records, cap, end, mode)


def _easy(arrival, size, est, run, records, P, small_max):
    n = len(arrival)
    cap = CapacityLog()
    done_heap: list[tuple[float, int]] = []
    running: list[tuple[float, int]] = []  # (predicted end, id), sorted
    queue: list[int] = []
    free = P
    nxt = 0
    t_prev = 0.0
    n_small = n_large = 0
    finished = 0
    start_of = [0.0] * n
    while finished < n:
        t_arr = arrival[nxt] if nxt < n else math.inf
        t_done = done_heap[0][0] if done_heap else math.inf
        t = t_arr if t_arr < t_done else t_done
        if queue and t > t_prev:
            cap.add(free * (t - t_prev), n_small > 0, n_large > 0)
        t_prev = t
        while done_heap and done_heap[0][0] <= t:
            fin, j = heapq.heappop(done_heap)
            records[j].finish = fin
            free += size[j]
            finished += 1
            pe = start_of[j] + est[j]
            del running[bisect_left(running, (pe, j))]
        while nxt < n and arrival[nxt] <= t:
            queue.append(nxt)
            if size[nxt] <= small_max:
                n_small += 1
            else:
                n_large += 1
            nxt += 1
        if not queue:
            continue
        # start jobs from the head while they fit
        k = 0
        while k < len(queue) and size[queue[k]] <= free:
            j = queue[k]
            free -= size[j]
            start_of[j] = t
            records[j].start = t
            heapq.heappush(done_heap, (t + run[j], j))
            insort(running, (t + est[j], j))
            k += 1
        started = k
        if k < len(queue) and free > 0:
            head = queue[k]
            need = size[head]
            avail = free
            shadow = math.inf
            extra = 0
            for pe, j in running:
                avail += size[j]
                if avail >= need:
                    shadow, extra = pe, avail - need
                    break
            if records[head].reservation is None:
                records[head].reservation = shadow
            keep = queue[: k + 1]
            for idx in range(k + 1, len(queue)):
                j = queue[idx]
                sz = size[j]
                if sz <= free and (t + est[j] <= shadow or sz <= extra):
                    free -= sz
                    if t + est[j] > shadow:
                        extra -= sz
                    start_of[j] = t
                    records[j].start = t
                    heapq.heappush(done_heap, (t + run[j], j))
                    insort(running, (t + est[j], j))
                    started += 1
                    if sz <= small_max:
                        n_small -= 1
                    else:
                        n_large -= 1
                    if free == 0:
                        keep.extend(queue[idx + 1:])
                        break
                else:
                    keep.append(j)
            for j in queue[:k]:
                if size[j] <= small_max:
                    n_small -= 1
                else:
                    n_large -= 1
            queue = keep[k:]
        else:
            if k < len(queue) and records[queue[k]].reservation is None and free == 0:
                head = queue[k]
                avail, need = free, size[head]
                for pe, j in running:
                    avail += size[j]
                    if avail >= need:
                        records[head].reservation = pe
                        break
            for j in queue[:k]:
                if size[j] <= small_max:
                    n_small -= 1
                else:
                    n_large -= 1
            queue = queue[k:]
    return t_prev, cap


def _conservative(arrival, size, est, run, records, P, small_max):
    n = len(arrival)
    cap = CapacityLog()
    done_heap: list[tuple[float, int]] = []
    plan = Planner(P, 1, arrival[0] if n else 0.0)
    res: dict[int, float] = {}  # current reservation of each waiting job
    queue: list[int] = []
    free = P
    nxt = 0
    t_prev = 0.0
    finished = 0
    start_of = [0.0] * n
    while finished < n:
        t_arr = arrival[nxt] if nxt < n else math.inf
        t_done = done_heap[0][0] if done_heap else math.inf
        t = min(t_arr, t_done)
        if queue and t > t_prev:
            cap.add(free * (t - t_prev), any(size[j] <= small_max for j in queue),
                    any(size[j] > small_max for j in queue))
        t_prev = t
        plan.advance(t)
        while done_heap and done_heap[0][0] <= t:
            fin, j = heapq.heappop(done_heap)
            records[j].finish = fin
            free += size[j]
            finished += 1
            plan.remove(0, t, start_of[j] + est[j], size[j])  # the unused rest of its booking
        while nxt < n and arrival[nxt] <= t:
            queue.append(nxt)
            nxt += 1
        keep = []
        for j in queue:
            old = res.get(j)
            if old is not None:
                plan.remove(0, old, old + est[j], size[j])
            when = plan.earliest(0, est[j], size[j])
            if old is not None:
                when = min(when, old)  # compression never delays a job
            plan.add(0, when, when + est[j], size[j])
            if when <= t:
                free -= size[j]
                start_of[j] = t
                records[j].start = t
                heapq.heappush(done_heap, (t + run[j], j))
                res.pop(j, None)
            else:
                res[j] = when
                if records[j].reservation is None:
                    records[j].reservation = when
                keep.append(j)
        queue = keep
        assert free >= 0
    return t_prev, cap
