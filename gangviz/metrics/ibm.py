"""The performance metrics of the IBM study (Zhang01 §2.3).

Per job i (arrival t_a, start t_s, finish t_f, dedicated execution time t_e, n nodes):

* wait ``t_s - t_a``, with t_s the moment the job leaves the queue: a space-sharing job starts,
  a time-slot job is placed in a slot of the matrix, even if its row's first turn comes later
  (the paper counts a job as waiting while it is "in the queue", eqs. 2-3; the per-job table
  means the same); response ``t_f - t_a``;
* bounded slowdown ``max(t_r, Gamma) / max(t_e, Gamma)`` with Gamma = 10 s. The paper prints
  ``max(t_i^s, Gamma)`` in the denominator; the text ("minimum execution time of Gamma seconds")
  makes clear that t_e is meant, and that is what is used here. t_e is the time the job
  actually executed: its work, or less when it was stopped at its estimate (space sharing's
  ``kill_at_estimate``, §2.1), which is ``min(work, t_f - t_s)`` under either family (a
  time-shared job occupies the machine at least as long as its work). A trace job that ran
  past its requested time is stopped there, so dividing by its logged run time would give a
  slowdown below 1; with the executed time every job's slowdown is at least 1, exactly even
  in floating point (``t_f - t_a >= t_f - t_s >= t_e`` as rounding is monotone).

For the machine (N nodes, the first job arriving at 0, t_f of the last job to finish):

* makespan ``t_f_last - t_a_first``; throughput: jobs finished per unit of time over the
  makespan (per hour on a trace, per slice on a scenario: ``throughput_per``);

* utilisation rho, eq. 1: ``sum(n_i t_e_i) / (t_f_last N)``, with t_e the time each job
  executed: the work delivered. A job stopped at its estimate counts the part it ran, not the
  work it asked for; ``utilization_requested`` counts the whole work of every job
  (``sum(n_i work_i) / (t_f_last N)``), the same figure when no job was stopped;
* served work: ``jobs_completed`` (ran to the end of their work), ``jobs_killed`` (stopped at
  their estimate, space sharing's ``kill_at_estimate``) and ``work_unserved``, the node-time
  asked for and never run, ``sum(n_i (work_i - t_e_i))`` (processor-seconds on a trace);
* loss of capacity kappa, eqs. 2 and 3: node-time left empty while jobs wait, divided by
  ``t_f_last N``. In a gang-scheduled machine (eq. 3) the empty node-time is counted slice by
  slice, plus the unused end of the slice in which a job finishes (w_k) and the context-switch
  overhead (T C per node of a job switched in). Eq. 3 as printed drops eq. 2's factor delta_i
  (1 when jobs wait); the definition in the text ("when it has jobs waiting in the queue") keeps
  it, and so does this module.

Each figure also exists for small jobs (<= 32 nodes, :data:`SMALL_NODES_MAX`, Zhang01 §2.2:
"large jobs are those that use more than 32 nodes") and large jobs, with the suffixes
``_small`` and ``_large``. For utilisation these are the shares of rho contributed by each class
(they add up to rho); for loss of capacity they count the capacity lost while a job of that
class waits. Per-job figures also have standard deviations (under ``"std"``).

Dictionary keys (JSON): ``wait``, ``response``, ``bounded_slowdown``, ``utilization``,
``loss_of_capacity``, ``makespan``, ``throughput``, each with ``_small`` and ``_large`` variants
(the makespan of a class ends at its last finish; its throughput is its jobs over the whole
makespan, so the classes' throughputs add up to the total); ``std`` holds the standard
deviations of the per-job figures under the same keys; ``jobs``, ``jobs_small``, ``jobs_large``
count the jobs (finished, whether completed or killed), ``jobs_completed``, ``jobs_killed``,
``work_unserved`` and ``utilization_requested`` the served work (for all jobs only). Times are
in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from gangviz.metrics.reduce import GAMMA, Column, bounded_slowdowns, core_figures, running_figures
from gangviz.metrics.table import SMALL_NODES_MAX, SPACE_SHARING, TABLE, split_keys

if TYPE_CHECKING:  # pragma: no cover  (annotations only: the figures read records, not models)
    from gangviz.core.jobs import JobSpec
    from gangviz.sim.engine import Simulation

__all__ = ["GAMMA", "SMALL_NODES_MAX", "SERVED_KEYS", "executed_by_id", "CapacityLog", "ibm_metrics", "ibm_metrics_of_columns", "bounded_slowdowns", "run_with_capacity", "engine_ibm_metrics",
           "space_sharing_figures", "space_sharing_series", "core_series", "KEYS"]

#: the reduced figures split by size (:data:`gangviz.metrics.table.TABLE`), with their classes
KEYS = tuple(k for f in TABLE if f.split and f.reduce.how not in ("own", "count") for k in split_keys(f))
#: what each run served, for all jobs only (module docstring)
SERVED_KEYS = tuple(f.key for f in TABLE if SPACE_SHARING in f.families and not f.split)


class FinishedJob(Protocol):
    """A job's record as :func:`ibm_metrics` reads it: the engine's ``JobRecord``, the backfill
    simulator's ``BackfillRecord`` (``start``/``finish`` ``None`` until it starts/finishes)."""

    @property
    def spec(self) -> JobSpec: ...
    @property
    def start(self) -> float | None: ...
    @property
    def finish(self) -> float | None: ...


class LoggedDecision(Protocol):
    """What the figures read of one logged decision of a space-sharing run (the backfill
    simulator's ``Decision``): its time and the capacity lost up to it, ``(all, small, large)``."""

    @property
    def time(self) -> float: ...
    @property
    def lost(self) -> tuple[float, float, float]: ...


class SpaceSharingResult(Protocol):
    """What the figures read of a logged space-sharing run (the backfill simulator's
    ``BackfillResult``): its records by job id and its decisions in order."""

    @property
    def records(self) -> Sequence[FinishedJob]: ...
    @property
    def decisions(self) -> Sequence[LoggedDecision]: ...


class SpaceSharingRun(Protocol):
    """What the figures read of a step-by-step space-sharing simulation
    (``gangviz.spacesharing.simulation.SpaceSharingSimulation``): its logged run, how many of
    its decisions are applied (``cursor``), the current time, N and seconds per time unit."""

    @property
    def result(self) -> SpaceSharingResult: ...
    @property
    def cursor(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def processors(self) -> int: ...
    @property
    def time_unit(self) -> float: ...


@dataclass
class CapacityLog:
    """Node-time lost while jobs waited (the numerator of eqs. 2 and 3), in the jobs' time unit.

    ``lost`` counts intervals in which any job waits; ``lost_small``/``lost_large`` those in
    which a small/large job waits.
    """

    lost: float = 0.0
    lost_small: float = 0.0
    lost_large: float = 0.0

    def as_tuple(self) -> tuple[float, float, float]:
        """Return ``(lost, lost_small, lost_large)``."""
        return self.lost, self.lost_small, self.lost_large

    def add(self, amount: float, small_waiting: bool, large_waiting: bool) -> None:
        """Count ``amount`` of lost node-time under the classes that were waiting."""
        if small_waiting or large_waiting:
            self.lost += amount
        if small_waiting:
            self.lost_small += amount
        if large_waiting:
            self.lost_large += amount


def ibm_metrics(records: Iterable[FinishedJob], processors: int, *, time_unit: float = 1.0,
                capacity: CapacityLog | None = None, gamma: float = GAMMA,
                small_max: int = SMALL_NODES_MAX, throughput_per: float = 1.0,
                executed: Column | None = None) -> dict[str, Any]:
    """Return the §2.3 metrics of finished jobs as a dict (see the module docstring for keys).

    ``records`` are objects with ``spec`` (arrival, size, work), ``start`` and ``finish`` (the
    engine's ``JobRecord`` or the backfill simulator's); jobs that did not finish or were
    terminated are left out. ``executed`` is the time each record's job ran (one per record,
    default its work), less than the work for a job stopped at its estimate. ``time_unit`` is seconds per time unit of the records (the slice
    length for engine runs). ``capacity`` gives kappa (NaN without it). Raises ``ValueError``
    when no job finished or ``processors`` < 1.
    """
    if processors < 1:
        raise ValueError(f"processors must be >= 1, got {processors}")
    records = list(records)
    kept = [r.finish is not None and r.start is not None and not getattr(r, "terminated", False)
            for r in records]
    done = [r for r, k in zip(records, kept) if k]
    if executed is not None and not all(kept):
        executed = np.asarray(executed, dtype=np.float64)[np.asarray(kept, dtype=bool)]
    if not done:
        raise ValueError("no job finished; the metrics need at least one")
    # one column at a time, each gathered in C (attrgetter, fromiter): far cheaper than a
    # Python tuple per job on a trace of tens of thousands of jobs
    count = len(done)
    specs = list(map(attrgetter("spec"), done))
    s, f = (np.fromiter(map(attrgetter(k), done), np.float64, count) for k in ("start", "finish"))
    a, e, n = (np.fromiter(map(attrgetter(k), specs), np.float64, count)
               for k in ("arrival", "work", "size"))
    return ibm_metrics_of_columns(a, s, f, e, n, processors, time_unit=time_unit, capacity=capacity,
                                  gamma=gamma, small_max=small_max, throughput_per=throughput_per,
                                  executed=executed)


def ibm_metrics_of_columns(arrival: Column, start: Column, finish: Column, work: Column,
                           size: Column, processors: int, *,
                           time_unit: float = 1.0, capacity: CapacityLog | None = None,
                           gamma: float = GAMMA, small_max: int = SMALL_NODES_MAX,
                           throughput_per: float = 1.0, executed: Column | None = None,
                           block: int | None = None) -> dict[str, Any]:
    """Return :func:`ibm_metrics` of finished jobs given as columns (1-d float arrays or lists,
    one entry per job, in the order :func:`ibm_metrics` would take the records: means and
    deviations are summed in that order). ``work`` is the job's work; the executed time of the
    slowdown is ``min(work, finish - start)`` (see the module docstring). ``throughput_per`` is
    the output's time units per throughput unit (3600 for jobs per hour from seconds).
    ``executed`` is the time each job ran (default: its work); a job that ran less than its
    work was stopped at its estimate, and the utilisation counts what it ran. With ``block``
    the jobs are measured ``block`` at a time, with no longer temporary array and the same
    numbers to the bit (:func:`gangviz.metrics.reduce.core_figures`, which computes every
    figure of the table of figures that reduces per-job values). Raises ``ValueError`` when
    there is no job, ``processors`` < 1 or ``block`` < 1."""
    return core_figures(arrival, start, finish, work, size, processors, time_unit=time_unit,
                        lost=None if capacity is None else capacity.as_tuple(), gamma=gamma,
                        small_max=small_max, throughput_per=throughput_per, executed=executed,
                        block=block)


def executed_by_id(result: Any) -> npt.NDArray[np.float64] | None:
    """Return the time each job of a space-sharing ``result`` (a
    :class:`~gangviz.spacesharing.backfill.BackfillResult`) ran, in the order of its
    ``records`` (job id), or ``None`` when the result does not say (every job ran its work)."""
    runs = getattr(result, "runs", None)
    if not runs:
        return None
    ids = np.fromiter((j.id for j in result.order), np.int64, len(result.order))
    out: npt.NDArray[np.float64] = np.asarray(runs, dtype=np.float64)[np.argsort(ids, kind="stable")]
    return out


def run_with_capacity(sim: Simulation, small_max: int = SMALL_NODES_MAX, *,
                      tick: Callable[[Simulation], None] | None = None) -> CapacityLog:
    """Run an engine :class:`~gangviz.sim.engine.Simulation` to the end; return its lost capacity
    (eq. 3, with delta) in node-slices.

    Between two decision points the matrix is fixed: the rows run round robin from the active
    row, so the empty cells of every slice, the context-switch share ``overhead`` of every busy
    cell, and the unused end of the slice in which jobs finish are summed exactly; in an
    event-driven run the last slice of a gap may be cut short by the event (and no job leaves an
    unused end, as the event is its finish). A gap with no row at all (an empty machine) loses
    all N nodes if a job waits. ``tick(sim)`` is called every thousand steps (a progress bar).
    """
    m = sim.matrix
    c = sim.overhead
    log = CapacityLog()
    steps = 0
    while True:
        steps += 1
        if tick is not None and steps % 1000 == 0:
            tick(sim)
        t0 = sim.time
        waiting = sim.waiting
        sizes = [sim.jobs[j].spec.size for j in waiting]
        small_w = any(sz <= small_max for sz in sizes)
        large_w = any(sz > small_max for sz in sizes)
        m = sim.matrix
        n = m.n_rows
        if n and (small_w or large_w):  # capacity is lost only while a job waits
            running = m.jobs()
            busy = np.count_nonzero(m.cells != -1, axis=1)
            active = m.active_row if m.active_row is not None else 0
        step = sim.step()
        if step is None:
            break
        if not (small_w or large_w):
            continue
        if n == 0:
            log.add(sim.processors * (sim.time - t0), small_w, large_w)
            continue
        gap = sim.time - t0
        whole = int(math.floor(gap + 1e-9))
        frac = gap - whole  # event-driven runs: the last slice may be cut short (as in the engine)
        if frac < 1e-9:
            frac = 0.0
        if not getattr(sim, "event_driven", False):
            whole, frac = int(round(gap)), 0.0
        full, part = divmod(whole, n)
        order = [(active + k) % n for k in range(part)]
        busy_total = full * int(busy.sum()) + (int(busy[order].sum()) if order else 0)
        cut = float(busy[(active + whole) % n]) if frac > 0 else 0.0
        empty_total = gap * sim.processors - busy_total - frac * cut
        switching = c * busy_total + min(c, frac) * cut  # a cut slice still paid its switch
        unused = 0.0
        for j in running:
            rec = sim.jobs[j]
            if rec.finish is not None and t0 < rec.finish <= sim.time and not rec.terminated:
                unused += rec.spec.size * (sim.time - rec.finish)
        log.add(empty_total + switching + unused, small_w, large_w)
    return log


def engine_ibm_metrics(sim: Simulation, time_unit: float = 1.0) -> dict[str, Any]:
    """Run an engine simulation to the end and return its IBM metrics (lost capacity by eq. 3).

    Raises ``ValueError`` when no job finished.
    """
    cap = run_with_capacity(sim)
    return ibm_metrics(sim.records(), getattr(sim, "real_processors", sim.processors),
                       time_unit=time_unit, capacity=cap)


def space_sharing_figures(sim: SpaceSharingRun) -> dict[str, Any]:
    """Return :func:`ibm_metrics` of a step-by-step space-sharing run (the simulation of
    :mod:`gangviz.spacesharing.simulation`) at its current step: the jobs finished by now, with
    the capacity lost up to now (eq. 2). Raises ``ValueError`` when none finished."""
    t = sim.time
    records = sim.result.records
    kept = [r.finish is not None and r.finish <= t and sim.cursor > 0 for r in records]
    done = [r for r, k in zip(records, kept) if k]
    ran = executed_by_id(sim.result)
    lost = sim.result.decisions[sim.cursor - 1].lost if sim.cursor else (0.0, 0.0, 0.0)
    return ibm_metrics(done, sim.processors, time_unit=sim.time_unit, capacity=CapacityLog(*lost),
                       executed=None if ran is None else ran[np.asarray(kept, dtype=bool)])


def space_sharing_series(sim: SpaceSharingRun) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:

    """Return the running IBM figures of a step-by-step space-sharing run (the simulation of
    :mod:`gangviz.spacesharing.simulation`) up to its current step, as ``key -> (times, values)``
    (times in the run's unit, waits in seconds): the mean wait of the jobs started so far (at each start), the mean bounded
    slowdown of the jobs finished so far (at each finish), and the loss of capacity so far at
    each decision (node-time lost while jobs waited over N x the time since the first arrival).
    """
    u, t_now = sim.time_unit, sim.time
    recs = [r for r in sim.result.records if sim.cursor > 0]
    out = core_series(recs, t_now, u)
    decisions = sim.result.decisions[:sim.cursor]
    origin = min((r.spec.arrival for r in recs), default=0.0)
    dt = np.array([d.time for d in decisions], dtype=float)
    lost = np.array([d.lost[0] for d in decisions], dtype=float)
    span = (dt - origin) * sim.processors
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(span > 0, lost / span, np.nan)
    return {**out, "loss_of_capacity": (dt, kappa)}


def core_series(records: Sequence[FinishedJob], t_now: float,
                u: float = 1.0) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Return the running core figures of jobs' ``records`` at time ``t_now`` (times in the
    records' unit, ``u`` seconds each) as ``key -> (times, values)``: the mean wait of the jobs
    started so far, at each start (in seconds), and the mean bounded slowdown of the jobs
    finished so far, at each finish (Γ = 10 s), each reduced as the table of figures reduces it
    (:func:`gangviz.metrics.reduce.running_figures`)."""
    started = sorted((r.start, r.start - r.spec.arrival) for r in records
                     if r.start is not None and r.start <= t_now)
    done = [r for r in records if r.finish is not None and r.start is not None and r.finish <= t_now]
    ends = np.array([r.finish for r in done], dtype=float)
    slows = bounded_slowdowns([r.spec.arrival for r in done], np.array([r.start for r in done], dtype=float), ends,
                              [r.spec.work for r in done], GAMMA / u)
    by_finish = np.lexsort((slows, ends))
    st = np.array([s for s, _ in started], dtype=float)
    wait = running_figures(("wait",), {"wait": np.array([w for _, w in started], dtype=float) * u})
    slowdown = running_figures(("bounded_slowdown",), {"bounded_slowdown": slows[by_finish]})
    return {"wait": (st, wait["wait"]), "bounded_slowdown": (ends[by_finish], slowdown["bounded_slowdown"])}
