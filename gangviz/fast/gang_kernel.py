"""GS, BGS, MGS and MBGS and the event-driven engine as one compiled loop (numba), for headless runs.

All the compiled code of :mod:`gangviz.fast.gang` lives in this one module but for the shared
placement-log encoder (:mod:`gangviz.fast.placement_log`) and the profile's earliest fit
(:mod:`gangviz.spacesharing.profile_kernel`), by whose sources every function here is cached
too, for the reason :mod:`gangviz.fast.buddy_kernel` gives (numba's on-disk cache is keyed by
source file).

**The state** goes from function to function in named groups (named tuples of arrays, which
numba passes as it passes the arrays): :class:`Jobs` (the workload), :class:`Config` (the
run's settings), :class:`Matrix` (the matrix and the jobs in it), :class:`Service` (what each
job has had and when it started and ends), :class:`Planner` (BGS's bookings),
:class:`Reservations` and :class:`Scratch` (work arrays). The scalars they change are the fields
of one :class:`Counters` (a numba structref, mutable in place), held by the matrix. A run
returns a :class:`Result` whose running totals are a :class:`Totals`, also what a run continues
from.

**The matrix** is :class:`gangviz.core.matrix.OusterhoutMatrix` without change records:
``cells[r, c]`` is the job in row ``r`` (at most MPL rows), processor ``c`` (``IDLE`` = -1).
Jobs are numbered by ascending id. A job's processors are the cells of its home row that hold it
(``home[j]``), all within ``lo[j] .. hi[j] - 1``; they need not be contiguous after a migration.
A job holds row ``r`` exactly when ``cells[r, lo[j]] == j``.

**The phases** are those of :mod:`gangviz.policies.ibm.phases`, :mod:`~gangviz.policies.ibm.bgs`,
:mod:`~gangviz.policies.ibm.migration` and :class:`gangviz.policies.ibm.gs.IBMGang`, in the same
order and with the same tie-breaks (each function below names the one it mirrors). The BGS
planner keeps the same per-row breakpoint lists as :class:`gangviz.policies.ibm.bgs.Planner`, so
its answers are the same floats.

**The engine** is :class:`gangviz.sim.engine.Simulation` with ``decides_at == "event"``
(``_next_gap``, ``_run_for``, ``_finish_offsets``, ``_decide``, ``_activate``), with the same
floating-point operations in the same order, so times agree to the last bit; the lost capacity
of eq. 3 is summed as :func:`gangviz.metrics.ibm.run_with_capacity` sums it.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba.core import types
from numba.experimental import structref

from gangviz.fast import placement_log
from gangviz.fast.placement_log import LOG_START, log_changes, touch
from gangviz.jitcache import cached_with
from gangviz.spacesharing import profile_kernel
from gangviz.spacesharing.profile_kernel import earliest_fit

#: compiled with the shared encoder and earliest fit, so cached by their sources too
jit = cached_with(placement_log, profile_kernel)
jit_nogil = cached_with(placement_log, profile_kernel, nogil=True)

IDLE = -1
#: The engine's tolerance (gangviz.sim.engine._EPS) and run_with_capacity's.
EPS = 1e-9


# ----------------------------------------------------------------------- the named groups


class Jobs(NamedTuple):
    """The workload, jobs ``0 .. N-1`` by ascending id: arrival, size, work, the estimate the
    policy uses (the work where the user gave none) and ``aorder``, the jobs in order of
    arrival (then id)."""

    arrival: Any
    size: Any
    work: Any
    est: Any
    aorder: Any


class Config(NamedTuple):
    """A run's settings: the machine and the policy's (``q`` < 0: no limit; the migration cost
    C in slices; whether a migration is charged as service lost), the switch overhead, the
    largest small job of the lost-capacity split, the arrivals after which the run may stop
    (:func:`simulate_gang`), and the engine's cut rules (``Simulation``'s ``cut_at_departure``
    and ``after_cut == "same"``)."""

    processors: int
    mpl: int
    backfill: bool
    migrate: bool
    q: int
    migration_cost: float
    charge: bool
    overhead: float
    small_max: int
    stop_at: int
    cut_at_departure: bool
    resume_cut: bool


class Totals(NamedTuple):
    """A run's running totals: the end time, the most rows at once, the policy's
    ``migration_overhead`` (processor-slices) and ``migrated_tasks``, the node-time lost while
    jobs waited (eq. 3 with delta, node-slices: all, small jobs waiting, large jobs waiting) and
    rows x time (``Simulation.slot_time``)."""

    time: float
    max_rows: int
    migration_overhead: float
    migrated_tasks: int
    lost: float
    lost_small: float
    lost_large: float
    slot_time: float


#: the totals of a run not yet started
NO_TOTALS = Totals(0.0, 0, 0.0, 0, 0.0, 0.0, 0.0, 0.0)


class Result(NamedTuple):
    """What a run returns, per job (numbered as the loop numbers them): its start (the decision
    that placed it), its first slice and its finish; the :class:`Totals`; how many jobs it took
    (all finished); the placement log (``log_t``, ``log_e``: empty unless asked for) and per
    job the most rows it held in a slice it ran and the slices it ran in rows other than its
    home row (``Simulation.run_stats``; empty unless asked for)."""

    start: Any
    first_run: Any
    finish: Any
    totals: Totals
    jobs_taken: int
    log_t: Any
    log_e: Any
    rows_held: Any
    extra_slices: Any


@structref.register
class CountersType(types.StructRef):
    """numba's type of :class:`Counters`."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)  # type: ignore[no-untyped-call]


class Counters(structref.StructRefProxy):
    """The loop's scalars that its functions change: the rows, the next row to run and the
    jobs in the matrix; the stamps that mark what one pass has seen (``stamp``) and what one
    decision has migrated (``migration_stamp``); the migration budget's tasks and overhead
    spent in this decision; the time the BGS planner plans from."""


structref.define_proxy(Counters, CountersType, ["n_rows", "next_row", "n_run", "stamp", "migration_stamp",
                                                "used", "budget_overhead", "plan_now"])  # type: ignore[no-untyped-call]


class Matrix(NamedTuple):
    """The matrix (module docstring): ``cells``, the busy processors per row (``busy``) and
    the marks of :mod:`gangviz.fast.placement_log` (``mark_first``, ``mark_end``); per job its
    home row (-1: not in the matrix), processors ``lo .. hi - 1`` and rows held (``nrows``);
    the jobs in the matrix (``run``, ``count.n_run`` of them; ``runpos[j]``: where); the
    :class:`Counters`."""

    cells: Any
    busy: Any
    mark_first: Any
    mark_end: Any
    home: Any
    lo: Any
    hi: Any
    nrows: Any
    run: Any
    runpos: Any
    count: Any


class Service(NamedTuple):
    """Per job: the service it has had (``served``, slices of ``quantum``), the service it
    needs (its work, plus what migrations cost it when charged: ``lost``), the finish noted
    in a step (``pending``) and its start, first slice and finish; ``unstarted`` says it has
    not run yet. ``work`` and ``quantum`` (the useful part of a slice) are the workload's."""

    served: Any
    need: Any
    lost: Any
    pending: Any
    start: Any
    first_run: Any
    finish: Any
    unstarted: Any
    work: Any
    quantum: float


class Planner(NamedTuple):
    """The BGS planner: per row the breakpoints' ``times`` and processors ``used``, ``length``
    of them (the time it plans from is ``Counters.plan_now``)."""

    times: Any
    used: Any
    length: Any


class Reservations(NamedTuple):
    """BGS's reservations of jobs still waiting: job, row, start, end, size."""

    job: Any
    row: Any
    start: Any
    end: Any
    size: Any


class Scratch(NamedTuple):
    """Work arrays: per job the stamps of ``seen``, ``blk`` and ``moved``; per processor
    ``lst``, ``others``, ``occ``, ``ban`` and ``plan``; ``offs`` (per row), ``ends`` and
    ``done_jobs`` (per job in the matrix), ``busy0`` (per row)."""

    seen: Any
    blk: Any
    moved: Any
    lst: Any
    others: Any
    occ: Any
    ban: Any
    plan: Any
    offs: Any
    ends: Any
    done_jobs: Any
    busy0: Any


# ----------------------------------------------------------------------- the matrix's moves


@jit
def _run_add(m, j):
    k = m.count.n_run
    m.run[k] = j
    m.runpos[j] = k
    m.count.n_run = k + 1


@jit
def _run_remove(m, j):
    k = m.runpos[j]
    last = m.count.n_run - 1
    other = m.run[last]
    m.run[k] = other
    m.runpos[other] = k
    m.count.n_run = last


@jit
def _touch(m, r, first, end):
    """Note that processors ``first .. end - 1`` of row ``r`` changed (the marks of
    :mod:`gangviz.fast.placement_log`)."""
    touch(m.mark_first, m.mark_end, r, first, end)


@jit
def _holds(m, j, r):
    return m.cells[r, m.lo[j]] == j


@jit
def _mark_cols(m, j, r, out, value):
    """Write ``value`` to ``out[c]`` for each processor ``c`` that ``j`` holds in row ``r``;
    ``out`` is a row of ``cells`` or a per-processor array."""
    cells = m.cells
    for c in range(m.lo[j], m.hi[j]):
        if cells[r, c] == j:
            out[c] = value


@jit
def _cols_idle(m, j, r):
    """Whether every processor of ``j`` is idle in row ``r`` (``OusterhoutMatrix.is_idle``)."""
    cells = m.cells
    h = m.home[j]
    for c in range(m.lo[j], m.hi[j]):
        if cells[h, c] == j and cells[r, c] != IDLE:
            return False
    return True


@jit
def _place(m, size, j, row):
    """JobPlaced on the leftmost idle processors of ``row`` (``IBMGang._place``)."""
    cells = m.cells
    need = size[j]
    k = 0
    first = -1
    last = -1
    c = 0
    while k < need:
        if cells[row, c] == IDLE:
            cells[row, c] = j
            if first < 0:
                first = c
            last = c
            k += 1
        c += 1
    m.lo[j] = first
    m.hi[j] = last + 1
    m.home[j] = row
    m.nrows[j] = 1
    m.busy[row] += need
    _touch(m, row, first, last + 1)
    _run_add(m, j)


@jit
def _replicate(m, size, j, r):
    """JobReplicated into row ``r`` on the job's own processors."""
    _mark_cols(m, j, m.home[j], m.cells[r], j)
    m.busy[r] += size[j]
    _touch(m, r, m.lo[j], m.hi[j])
    m.nrows[j] += 1


@jit
def _unreplicate(m, size, j):
    """JobUnreplicated: ``j`` gives up every row but its home row."""
    if m.nrows[j] <= 1:
        return
    h = m.home[j]
    for r in range(m.count.n_rows):
        if r != h and m.cells[r, m.lo[j]] == j:
            _mark_cols(m, j, r, m.cells[r], IDLE)
            m.busy[r] -= size[j]
            _touch(m, r, m.lo[j], m.hi[j])
    m.nrows[j] = 1


@jit
def _move(m, size, j, src, dst):
    """JobShifted: ``j`` (home ``src``, one row) moves to ``dst`` on its own processors."""
    cells = m.cells
    for c in range(m.lo[j], m.hi[j]):
        if cells[src, c] == j:
            cells[src, c] = IDLE
            cells[dst, c] = j
    m.busy[src] -= size[j]
    m.busy[dst] += size[j]
    _touch(m, src, m.lo[j], m.hi[j])
    _touch(m, dst, m.lo[j], m.hi[j])
    m.home[j] = dst


@jit
def _relocate(m, size, j, dst, new, k0, k1):
    """JobMigrated: ``j`` (one row) moves to processors ``new[k0:k1]`` (ascending) of ``dst``."""
    h = m.home[j]
    _mark_cols(m, j, h, m.cells[h], IDLE)
    m.busy[h] -= size[j]
    _touch(m, h, m.lo[j], m.hi[j])
    for k in range(k0, k1):
        m.cells[dst, new[k]] = j
    m.busy[dst] += size[j]
    _touch(m, dst, new[k0], new[k1 - 1] + 1)
    m.lo[j] = new[k0]
    m.hi[j] = new[k1 - 1] + 1
    m.home[j] = dst


@jit
def _remove_job(m, size, j):
    """JobUnreplicated + JobRemoved of a finished job."""
    _unreplicate(m, size, j)
    h = m.home[j]
    _mark_cols(m, j, h, m.cells[h], IDLE)
    m.busy[h] -= size[j]
    _touch(m, h, m.lo[j], m.hi[j])
    m.home[j] = -1
    m.nrows[j] = 0
    _run_remove(m, j)


@jit
def _add_row(m):
    """SlotAdded on top; the engine's ``_activate`` moves the next row up if it is at or above."""
    count = m.count
    r = count.n_rows
    m.cells[r, :] = IDLE
    m.busy[r] = 0
    _touch(m, r, 0, m.cells.shape[1])
    count.n_rows = r + 1
    if r <= count.next_row:
        count.next_row += 1
    return r


@jit
def _remove_empty_rows(m):
    """``remove_empty_rows``: every empty row goes, top first (SlotRemoved)."""
    count = m.count
    cells = m.cells
    r = count.n_rows - 1
    while r >= 0:
        if m.busy[r] == 0:
            n = count.n_rows
            for rr in range(r, n - 1):
                cells[rr, :] = cells[rr + 1, :]
                m.busy[rr] = m.busy[rr + 1]
                _touch(m, rr, 0, cells.shape[1])
            count.n_rows = n - 1
            for k in range(count.n_run):
                j = m.run[k]
                if m.home[j] > r:
                    m.home[j] -= 1
            if r < count.next_row:
                count.next_row -= 1
        r -= 1


@jit
def _row_jobs(m, row, seen, out):
    """``OusterhoutMatrix.row_jobs``: distinct jobs of ``row`` by their leftmost processor."""
    m.count.stamp += 1
    stamp = m.count.stamp
    cells = m.cells
    k = 0
    for c in range(cells.shape[1]):
        x = cells[row, c]
        if x != IDLE and seen[x] != stamp:
            seen[x] = stamp
            out[k] = x
            k += 1
    return k


@jit
def _population_order(m):
    """``population_order``: rows by busy processors, ties to the lower row."""
    return np.argsort(m.busy[:m.count.n_rows], kind="mergesort")


@jit
def _start_order(m, start, now):
    """``start_order``: the jobs in the matrix by (start time, now if placed now; id)."""
    n_run = m.count.n_run
    jobs = np.sort(m.run[:n_run].copy())
    key = np.empty(n_run)
    for k in range(n_run):
        s = start[jobs[k]]
        key[k] = now if math.isnan(s) else s
    return jobs[np.argsort(key, kind="mergesort")]


# ----------------------------------------------------------------------- BGS planner


@jit
def _plan_init(p, count, n, now):
    count.plan_now = now
    for r in range(n):
        p.times[r, 0] = now
        p.used[r, 0] = 0
        p.length[r] = 1


@jit
def _plan_add_row(p, count, r):
    p.times[r, 0] = count.plan_now
    p.used[r, 0] = 0
    p.length[r] = 1


@jit
def _booking_end(j, jobs, sv, mpl, now):
    """The end a job in the matrix is booked to (its start, or now if placed now, plus
    ``_predicted_end``)."""
    s = sv.start[j]
    return _predicted_end(now if math.isnan(s) else s, jobs.est[j], mpl, now)


@jit
def _plan_from_bookings(p, m, jobs, sv, mpl, now):
    """``Planner.from_bookings`` of the jobs in the matrix (home rows, predicted ends)."""
    _plan_init(p, m.count, m.count.n_rows, now)
    pt, pu, pl = p.times, p.used, p.length
    n_run = m.count.n_run
    rows = np.empty(n_run, np.int64)
    ends = np.empty(n_run)
    sizes = np.empty(n_run, np.int64)
    k = 0
    for i in range(n_run):
        j = m.run[i]
        e = _booking_end(j, jobs, sv, mpl, now)
        if e > now:
            rows[k] = m.home[j]
            ends[k] = e
            sizes[k] = jobs.size[j]
            k += 1
    if k == 0:
        return
    order = np.argsort(ends[:k], kind="mergesort")
    for i in range(k):
        pu[rows[i], 0] += sizes[i]
    for i in range(k):
        b = order[i]
        r = rows[b]
        L = pl[r]
        if ends[b] != pt[r, L - 1]:
            pt[r, L] = ends[b]
            pu[r, L] = pu[r, L - 1]
            pl[r] = L + 1
            L += 1
        pu[r, L - 1] -= sizes[b]


@jit
def _plan_breakpoint(p, r, t):
    pt, pu, pl = p.times, p.used, p.length
    L = pl[r]
    # bisect_left
    a, b = 0, L
    while a < b:
        mid = (a + b) // 2
        if pt[r, mid] < t:
            a = mid + 1
        else:
            b = mid
    k = a
    if k < L and pt[r, k] == t:
        return k
    for i in range(L, k, -1):
        pt[r, i] = pt[r, i - 1]
        pu[r, i] = pu[r, i - 1]
    pt[r, k] = t
    pu[r, k] = pu[r, k - 1] if k else 0
    pl[r] = L + 1
    return k


@jit
def _plan_book(p, count, r, s, e, size):
    """``Planner._book``: ``size`` processors of row ``r`` over ``[max(s, now), e)``."""
    a = max(s, count.plan_now)
    if not e > a:
        return
    ia = _plan_breakpoint(p, r, a)
    ib = _plan_breakpoint(p, r, e)
    for k in range(ia, ib):
        p.used[r, k] += size


@jit
def _plan_earliest(p, r, duration, size, before, processors):
    """``Planner.earliest``, the starts before ``before`` only (``inf`` if none)."""
    return earliest_fit(p.times[r], p.used[r], p.length[r], processors - size, duration, before, 0, 0, 0)


@jit
def _plan_fits_now(p, count, r, duration, size, processors):
    now = count.plan_now
    return _plan_earliest(p, r, duration, size, np.nextafter(now, math.inf), processors) == now


@jit
def _predicted_end(s, estimate, mpl, now):
    """``predicted_end``: ``s + mpl * estimate``, or ``now + 1`` when that is not after now."""
    end = s + mpl * estimate
    return end if end > now else now + 1.0


@jit
def _guard_plan(p, m, jobs, sv, mpl, now, res, n_res):
    """``IBMGang.planner(sim)``: running jobs plus the reservations of jobs still waiting."""
    _plan_from_bookings(p, m, jobs, sv, mpl, now)
    n = m.count.n_rows
    for k in range(n_res):
        if res.row[k] < n and m.home[res.job[k]] < 0:  # res.job in sim.waiting
            _plan_book(p, m.count, res.row[k], res.start[k], res.end[k], res.size[k])


@jit
def _guard_allows(p, m, jobs, sv, mpl, j, dst, now):
    end = _booking_end(j, jobs, sv, mpl, now)
    return _plan_fits_now(p, m.count, dst, end - now, jobs.size[j], m.cells.shape[1])


@jit
def _guard_moved(p, m, jobs, sv, mpl, j, src, dst, now):
    end = _booking_end(j, jobs, sv, mpl, now)
    _plan_book(p, m.count, src, now, end, -jobs.size[j])
    _plan_book(p, m.count, dst, now, end, jobs.size[j])


# ----------------------------------------------------------------------- the phases


@jit
def _compact(m, jobs, sv, sc, p, cfg, now):
    """``compact_matrix`` (CompactMatrix, CollapseMatrix-1), with BGS's reservation guard."""
    cells, home, nrows, blk = m.cells, m.home, m.nrows, sc.blk
    guard = cfg.backfill
    n = m.count.n_rows
    processors = cells.shape[1]
    order = _population_order(m)
    for pos in range(n):
        i = order[pos]
        for jj in range(n - 1, pos, -1):
            j = order[jj]
            m.count.stamp += 1
            stamp = m.count.stamp
            for c in range(processors):
                if cells[j, c] != IDLE and cells[i, c] != IDLE:
                    blk[cells[i, c]] = stamp
            k = _row_jobs(m, i, sc.seen, sc.lst)
            for t in range(k):
                job = sc.lst[t]
                if blk[job] == stamp:
                    continue
                if home[job] != i or nrows[job] != 1:
                    continue
                if guard and not _guard_allows(p, m, jobs, sv, cfg.mpl, job, j, now):
                    continue
                _move(m, jobs.size, job, i, j)
                if guard:
                    _guard_moved(p, m, jobs, sv, cfg.mpl, job, i, j, now)


@jit
def _fill(m, size, start, now):
    """``fill_matrix`` (FillMatrix, FillMatrix-1): one replica per job per pass, lowest row
    whose cells on the job's processors are idle, until nothing changes."""
    n = m.count.n_rows
    if n < 2:
        return
    order = _start_order(m, start, now)
    changed = True
    while changed:
        changed = False
        for job in order:
            for r in range(n):
                if _holds(m, job, r):
                    continue
                if _cols_idle(m, job, r):
                    _replicate(m, size, job, r)
                    changed = True
                    break


@jit
def _overlap(m, a, row, seen, out):
    """S(A): the jobs of ``row`` on any processor of ``a``, by id (``migration._overlap``)."""
    cells = m.cells
    m.count.stamp += 1
    stamp = m.count.stamp
    h = m.home[a]
    k = 0
    for c in range(m.lo[a], m.hi[a]):
        if cells[h, c] == a:
            x = cells[row, c]
            if x != IDLE and seen[x] != stamp:
                seen[x] = stamp
                out[k] = x
                k += 1
    out[:k] = np.sort(out[:k])
    return k


@jit
def _movable_tasks(m, size, others, k, a, moved, mst):
    """The tasks of S(A) if ``a`` is not among them and every one may migrate (not migrated in
    this decision, one row: ``_movable``), else -1."""
    tasks = 0
    for t in range(k):
        o = others[t]
        if o == a or moved[o] == mst or m.nrows[o] != 1:
            return -1
        tasks += size[o]
    return tasks


@jit
def _option1_plan(m, size, sc, k, a, row):
    """``_plan_option1``: the dry run of option 1. Each job of S(A) (``others[:k]``, by id)
    takes the leftmost processors of ``row`` idle then outside ``a``'s, written one job after
    another into ``plan``; returns whether every one found room."""
    cells, others, occ, ban, plan = m.cells, sc.others, sc.occ, sc.ban, sc.plan
    processors = cells.shape[1]
    for c in range(processors):
        occ[c] = cells[row, c]
    m.count.stamp += 1
    stamp = m.count.stamp
    _mark_cols(m, a, m.home[a], ban, stamp)
    p = 0
    for t in range(k):
        o = others[t]
        _mark_cols(m, o, row, occ, IDLE)
        got = 0
        for c in range(processors):
            if got == size[o]:
                break
            if occ[c] == IDLE and ban[c] != stamp:
                plan[p + got] = c
                got += 1
        if got < size[o]:
            return False
        for g in range(got):
            occ[plan[p + g]] = o
        p += got
    return True


@jit
def _option1(m, size, sc, cfg, a, row, dry):
    """``try_option1`` without the records: returns ``(ok, cost, tasks, number of S(A))``; unless ``dry`` the
    jobs on ``a``'s processors in ``row`` migrate there (the caller then moves or replicates
    ``a`` and charges the delays). ``plan`` receives the new processors, ``others`` S(A)."""
    processors = m.cells.shape[1]
    q, cost_c = cfg.q, cfg.migration_cost
    mst = m.count.migration_stamp
    sa = size[a]
    if processors - m.busy[row] < sa:
        return False, 0.0, 0, 0
    k = _overlap(m, a, row, sc.seen, sc.others)
    if k == 0:
        return False, 0.0, 0, 0
    tasks = _movable_tasks(m, size, sc.others, k, a, sc.moved, mst)
    if tasks < 0:
        return False, 0.0, 0, 0
    if q >= 0 and m.count.used + tasks > q:
        return False, 0.0, 0, 0
    if not _option1_plan(m, size, sc, k, a, row):
        return False, 0.0, 0, 0
    total = 0
    for t in range(k):
        total += size[sc.others[t]]
    cost = cost_c / 2 * sa + cost_c * total
    if dry:
        return True, cost, tasks, k
    p = 0
    for t in range(k):
        o = sc.others[t]
        _relocate(m, size, o, row, sc.plan, p, p + size[o])
        p += size[o]
        sc.moved[o] = mst
    return True, cost, tasks, k


@jit
def _option2_dry(m, size, sc, cfg, a, row):
    """``try_option2(dry=True)``: returns ``(ok, cost, tasks, number of S(A))``."""
    processors = m.cells.shape[1]
    q, cost_c = cfg.q, cfg.migration_cost
    others = sc.others
    sa = size[a]
    if (sc.moved[a] == m.count.migration_stamp or m.nrows[a] != 1 or processors - m.busy[row] < sa
            or (q >= 0 and m.count.used + sa > q)):
        return False, 0.0, 0, 0
    k = _overlap(m, a, row, sc.seen, others)
    total = 0
    n_other = 0
    for t in range(k):
        if others[t] != a:
            total += size[others[t]]
            others[n_other] = others[t]
            n_other += 1
    return True, cost_c * sa + cost_c / 2 * total, sa, n_other


@jit
def _delay(sv, cfg, j, slices):
    """``MigrationBudget.delay`` + ``Simulation.charge``: ``j`` needs ``slices`` more service."""
    if cfg.charge and slices != 0.0:
        sv.lost[j] = sv.lost[j] + slices
        sv.need[j] = (sv.work[j] + sv.lost[j]) / sv.quantum


@jit
def _book_migration(m, sv, cfg, job, job_delay, others, k, others_delay, tasks, cost):
    """Charge a migration: ``job`` needs ``job_delay`` more service, each of ``others[:k]``
    ``others_delay`` (eq. 4 and 5); its ``tasks`` and ``cost`` go to the budget."""
    for x in range(k):
        _delay(sv, cfg, others[x], others_delay)
    _delay(sv, cfg, job, job_delay)
    m.count.used += tasks
    m.count.budget_overhead += cost


@jit
def _option2(m, size, sv, sc, cfg, a, row):
    """``try_option2``: ``a`` migrates to the leftmost idle processors of ``row``; it loses C,
    each job on its old processors there C/2 (eq. 5)."""
    cost_c = cfg.migration_cost
    ok, cost, tasks, n_other = _option2_dry(m, size, sc, cfg, a, row)
    got = 0
    for c in range(m.cells.shape[1]):
        if got == size[a]:
            break
        if m.cells[row, c] == IDLE:
            sc.plan[got] = c
            got += 1
    _relocate(m, size, a, row, sc.plan, 0, got)
    sc.moved[a] = m.count.migration_stamp
    _book_migration(m, sv, cfg, a, cost_c, sc.others, n_other, cost_c / 2, tasks, cost)


@jit
def _collapse_migrating(m, jobs, sv, sc, p, cfg, now):
    """``collapse_with_migration`` (CollapseMatrix-2): CompactMatrix where a move may migrate,
    by the cheaper option (ties: fewer tasks, then option 2)."""
    size, home, nrows = jobs.size, m.home, m.nrows
    guard = cfg.backfill
    cost_c = cfg.migration_cost
    n = m.count.n_rows
    order = _population_order(m)
    for pos in range(n):
        i = order[pos]
        for jj in range(n - 1, pos, -1):
            j = order[jj]
            k = _row_jobs(m, i, sc.blk, sc.lst)
            for t in range(k):
                job = sc.lst[t]
                if home[job] != i or nrows[job] != 1:
                    continue
                if guard and not _guard_allows(p, m, jobs, sv, cfg.mpl, job, j, now):
                    continue
                if _cols_idle(m, job, j):
                    _move(m, size, job, i, j)
                    if guard:
                        _guard_moved(p, m, jobs, sv, cfg.mpl, job, i, j, now)
                    continue
                ok2, c2, t2, _m = _option2_dry(m, size, sc, cfg, job, j)
                ok1, c1, t1, _k = _option1(m, size, sc, cfg, job, j, True)
                if ok1 and (not ok2 or c1 < c2 or (c1 == c2 and t1 < t2)):
                    ok, cost, tasks, kk = _option1(m, size, sc, cfg, job, j, False)
                    # the jobs of S(A) lose C each, A loses C/2 (eq. 4)
                    _book_migration(m, sv, cfg, job, cost_c / 2, sc.others, kk, cost_c, tasks, cost)
                    _move(m, size, job, i, j)
                elif ok2:
                    _option2(m, size, sv, sc, cfg, job, j)
                else:
                    continue
                if guard:
                    _guard_moved(p, m, jobs, sv, cfg.mpl, job, i, j, now)


@jit
def _fill_migrating(m, size, sv, sc, cfg, now):
    """``fill_with_migration`` (FillMatrix-2): a replica may first migrate, by option 1, the
    jobs on the job's processors in the target row."""
    cost_c = cfg.migration_cost
    n = m.count.n_rows
    changed = True
    while changed:
        changed = False
        order = _start_order(m, sv.start, now)
        for job in order:
            for r in range(n):
                if _holds(m, job, r):
                    continue
                ok, cost, tasks, kk = _option1(m, size, sc, cfg, job, r, False)
                if ok:
                    _book_migration(m, sv, cfg, job, cost_c / 2, sc.others, kk, cost_c, tasks, cost)
                    _replicate(m, size, job, r)
                    changed = True
                    break


@jit
def _schedule_fcfs(m, size, cfg, waiting, n_wait):
    """GS Schedule (``IBMGang._schedule_fcfs``): FCFS, best fit, stop at the first job that does
    not fit and cannot have a new row."""
    processors = m.cells.shape[1]
    for w in range(n_wait):
        job = waiting[w]
        if m.home[job] >= 0:
            continue
        s = size[job]
        n = m.count.n_rows
        best = -1
        best_free = 0
        for r in range(n):
            f = processors - m.busy[r]
            if f >= s and (best < 0 or f < best_free):
                best = r
                best_free = f
        if best < 0:
            if n >= cfg.mpl:
                break
            best = _add_row(m)
        _place(m, size, job, best)


@jit
def _schedule_backfill(m, jobs, sv, p, res, cfg, waiting, n_wait, now):
    """BGS Schedule (``IBMGang._schedule_backfill``): start what violates no reservation (best
    fit by free processors now, ties to the lower row), reserve the rest where it can start
    earliest. Returns the number of reservations."""
    size = jobs.size
    mpl = cfg.mpl
    processors = m.cells.shape[1]
    _plan_from_bookings(p, m, jobs, sv, mpl, now)
    n_res = 0
    for w in range(n_wait):
        job = waiting[w]
        if m.home[job] >= 0:
            continue
        s = size[job]
        dur = _predicted_end(now, jobs.est[job], mpl, now) - now
        n = m.count.n_rows
        best = -1
        best_free = 0
        for r in range(n):
            if _plan_fits_now(p, m.count, r, dur, s, processors):
                f = processors - p.used[r, 0]
                if best < 0 or f < best_free:
                    best = r
                    best_free = f
        if best >= 0:
            _place(m, size, job, best)
            _plan_book(p, m.count, best, now, now + dur, s)
            continue
        if n < mpl:
            r = _add_row(m)
            _plan_add_row(p, m.count, r)
            _place(m, size, job, r)
            _plan_book(p, m.count, r, now, now + dur, s)
            continue
        best_t = math.inf
        best_r = -1
        for r in range(n):
            t = _plan_earliest(p, r, dur, s, best_t, processors)
            if t < best_t:
                best_t = t
                best_r = r
        res.job[n_res] = job
        res.row[n_res] = best_r
        res.start[n_res] = best_t
        res.end[n_res] = best_t + dur
        res.size[n_res] = s
        n_res += 1
        _plan_book(p, m.count, best_r, best_t, best_t + dur, s)
    return n_res


@jit
def _empty_rows_then_schedule(m, jobs, sv, p, res, n_res, cfg, waiting, n_wait, now):
    """Remove the empty rows, then the Schedule phase: BGS's (returns its number of
    reservations) with ``backfill``, else GS's FCFS (returns ``n_res`` unchanged)."""
    _remove_empty_rows(m)
    if cfg.backfill:
        return _schedule_backfill(m, jobs, sv, p, res, cfg, waiting, n_wait, now)
    _schedule_fcfs(m, jobs.size, cfg, waiting, n_wait)
    return n_res


@jit
def _policy(m, jobs, sv, sc, p, res, n_res, cfg, waiting, n_wait, now):
    """``IBMGang.schedule``: the phases of §4.2 (GS, BGS) or §5.4 (MGS, MBGS) at one event.
    Returns the number of reservations; the tasks migrated and the overhead are the budget's
    (``Counters.used``, ``Counters.budget_overhead``, zero without migration)."""
    size = jobs.size
    if cfg.backfill:
        _guard_plan(p, m, jobs, sv, cfg.mpl, now, res, n_res)
    for k in range(m.count.n_run):
        _unreplicate(m, size, m.run[k])
    _compact(m, jobs, sv, sc, p, cfg, now)
    n_res = _empty_rows_then_schedule(m, jobs, sv, p, res, n_res, cfg, waiting, n_wait, now)
    if not cfg.migrate:
        _fill(m, size, sv.start, now)
        return n_res
    m.count.migration_stamp += 1  # a new budget: nothing migrated yet in this decision
    m.count.used = 0
    m.count.budget_overhead = 0.0
    if cfg.backfill:
        _guard_plan(p, m, jobs, sv, cfg.mpl, now, res, n_res)
    _collapse_migrating(m, jobs, sv, sc, p, cfg, now)
    n_res = _empty_rows_then_schedule(m, jobs, sv, p, res, n_res, cfg, waiting, n_wait, now)
    _fill(m, size, sv.start, now)
    _fill_migrating(m, size, sv, sc, cfg, now)
    return n_res


# ----------------------------------------------------------------------- the engine


@jit
def _job_offsets(m, j, n, start_row, offs):
    """The turn offsets after ``start_row`` of every row ``j`` holds, ascending; returns how many."""
    cells = m.cells
    c = m.lo[j]
    k = 0
    for r in range(n):
        if cells[r, c] == j:
            offs[k] = (r - start_row) % n
            k += 1
    offs[:k] = np.sort(offs[:k])
    return k


@jit
def _finish_offsets(m, sv, sc, overhead, start_row):
    """``Simulation._finish_offsets``: time from now until each running job finishes, the
    matrix staying as it is (``sc.ends``, in the order of ``m.run``); returns the smallest."""
    quantum = sv.quantum
    n = m.count.n_rows
    best = math.inf
    for k in range(m.count.n_run):
        j = m.run[k]
        left = sv.need[j] - sv.served[j]
        c = int(max(np.ceil(left - EPS), 1.0))
        if m.nrows[j] == 1:
            last = (c - 1) * n + (m.home[j] - start_row) % n
        else:
            cnt = _job_offsets(m, j, n, start_row, sc.offs)
            cycles = (c - 1) // cnt
            idx = (c - 1) % cnt
            last = cycles * n + sc.offs[idx]
        e = float(last) + overhead + (left - float(c - 1)) * quantum
        sc.ends[k] = e
        if e < best:
            best = e
    return best


@jit
def _snapped(t, jobs, na):
    """``Simulation._snapped``: the next arrival instead of ``t`` when ``t`` is a hair before it."""
    due = jobs.arrival[jobs.aorder[na]] if na < jobs.arrival.shape[0] else math.inf
    if t < due and due <= t + EPS * max(1.0, abs(t)):
        return due
    return t


@jit
def _slices_of(gap):
    """Return ``gap`` as whole slices (up to EPS short of one counts) and the fraction of one
    more slice (0.0 below EPS)."""
    whole = int(math.floor(gap + EPS))
    frac = gap - whole
    if frac < EPS:
        frac = 0.0
    return whole, frac


@jit
def _slice_end(gap):
    """``slices.slice_end``: the end of the slice in which ``gap`` falls (whole slices, >= 1)."""
    if math.isinf(gap):
        return gap
    return float(max(1, math.ceil(gap - EPS)))


@jit
def _run_for(m, sv, sc, cfg, gap, time, start_row, track, rows_held, extra):
    """``Simulation._run_for`` on a matrix with rows: ``floor(gap)`` whole slices and, if
    ``gap`` is not whole, one slice cut short; ``sc.ends`` are the jobs' finish offsets. Notes
    the finished jobs' times in ``pending`` and lists them in ``sc.done_jobs``; returns how
    many. With ``track``, also the statistics of ``Simulation.run_stats``
    (``slices.note_runs``): the most rows each job held in a slice it ran (``rows_held``) and
    the service it had in rows other than its home row (``extra``)."""
    home, nrows, served, need, offs = m.home, m.nrows, sv.served, sv.need, sc.offs
    overhead = cfg.overhead
    n = m.count.n_rows
    n_done = 0
    whole, frac = _slices_of(gap)
    full = whole // n
    part = whole % n
    cut = (start_row + whole) % n
    share = max(frac - overhead, 0.0) / sv.quantum
    for k in range(m.count.n_run):
        j = m.run[k]
        if nrows[j] == 1:
            d = (home[j] - start_row) % n
            hits = float(full + (1 if d < part else 0))
            in_cut = home[j] == cut
            first = d
        else:
            cnt = _job_offsets(m, j, n, start_row, offs)
            early = 0
            in_cut = False
            for x in range(cnt):
                if offs[x] < part:
                    early += 1
                if (offs[x] + start_row) % n == cut:
                    in_cut = True
            hits = float(full * cnt + early)
            first = offs[0]
        if frac > 0 and in_cut:
            hits += share
        if track and hits > 0:
            cnt_rows = nrows[j]
            if cnt_rows > rows_held[j]:
                rows_held[j] = cnt_rows
            if cnt_rows > 1:  # note_runs: the service beyond the home row's turns
                dh = (home[j] - start_row) % n
                home_hits = float(full + (1 if dh < part else 0)) + (share if dh == part else 0.0)
                useful = min(served[j] + hits, need[j]) - served[j]
                if useful - home_hits > 0:
                    extra[j] += useful - home_hits
        e = sc.ends[k]
        done = e <= gap + EPS
        if done:
            served[j] = need[j]
        else:
            served[j] = min(served[j] + hits, need[j])
        if sv.unstarted[j] and hits > 0:
            sv.first_run[j] = time + float(first)
            sv.unstarted[j] = False
        if done:
            sv.pending[j] = time + min(e, gap)
            sc.done_jobs[n_done] = j
            n_done += 1
    m.count.next_row = (start_row + whole + (1 if frac > 0 and not cfg.resume_cut else 0)) % n
    return n_done


@jit
def _complete(m, size, sv, done_jobs, n_done):
    """``Simulation._decide``'s completions: the finished jobs leave, by (finish, id)."""
    if n_done == 0:
        return
    ids = np.sort(done_jobs[:n_done].copy())
    fins = np.empty(n_done)
    for x in range(n_done):
        fins[x] = sv.pending[ids[x]]
    order = np.argsort(fins, kind="mergesort")
    for x in range(n_done):
        j = ids[order[x]]
        _remove_job(m, size, j)
        sv.finish[j] = sv.pending[j]


@jit
def _start_placed(m, sv, waiting, n_wait, now):
    """The jobs the policy placed start now; the others keep waiting, FCFS. Returns how many wait."""
    keep = 0
    for w in range(n_wait):
        j = waiting[w]
        if m.home[j] < 0:  # still waiting
            waiting[keep] = j
            keep += 1
            continue
        sv.start[j] = now
        sv.unstarted[j] = True
        sv.served[j] = 0.0
    return keep


@jit
def _waiting_classes(waiting, n_wait, size, small_max):
    """Whether a small job waits, and whether a large one does."""
    small_w = False
    large_w = False
    for w in range(n_wait):
        if size[waiting[w]] <= small_max:
            small_w = True
        else:
            large_w = True
    return small_w, large_w


@jit
def _lost_in_step(busy0, n_before, start_row, t0, time, processors, overhead, done_jobs, n_done, finish, size):
    """``run_with_capacity``'s node-time lost in one step from ``t0`` to ``time`` (eq. 3): the
    idle cells of every slice, the switch overhead of the busy ones, the unused end after a
    finish; ``busy0`` the rows' busy processors at ``t0``."""
    if n_before == 0:
        return processors * (time - t0)
    g = time - t0
    whole, frac = _slices_of(g)
    full = whole // n_before
    part = whole % n_before
    total = 0
    for r in range(n_before):
        total += busy0[r]
    busy_total = full * total
    for x in range(part):
        busy_total += busy0[(start_row + x) % n_before]
    cut = float(busy0[(start_row + whole) % n_before]) if frac > 0 else 0.0
    empty = g * processors - busy_total - frac * cut
    switching = overhead * busy_total + min(overhead, frac) * cut
    unused = 0.0
    for x in range(n_done):
        j = done_jobs[x]
        if t0 < finish[j] <= time:
            unused += size[j] * (time - finish[j])
    return empty + switching + unused


@jit
def _may_stop(n_rows, n_wait, n_res, due, time):
    """Whether a run may stop after a decision at ``time``: no row, no job waiting, nothing
    booked, and the next arrival ``due`` too far ahead for ``_snapped`` to move a time to it."""
    return n_rows == 0 and n_wait == 0 and n_res == 0 and due > time + 2.0 * EPS * max(1.0, abs(time))


# ----------------------------------------------------------------------- the loop


@jit_nogil
def simulate_gang(jobs, cfg, init, progress):
    """Run the whole workload: :func:`simulate_gang_placed` without the placement log (a
    :class:`Result` whose log and per-job statistics are empty)."""
    return _gang_loop(jobs, cfg, init, False, progress)


@jit_nogil
def simulate_gang_placed(jobs, cfg, init, progress):
    """Run the whole workload as :func:`simulate_gang` does (the same results, bit for bit) and
    also return where the jobs ran: the :class:`Result`'s placement log of
    :func:`gangviz.fast.placement_log.log_changes` written after every decision (the matrix
    from one decision to the next), jobs numbered as the loop numbers them, then per job the
    most rows it held in a slice it ran and the slices it ran in rows other than its home row
    (``Simulation.run_stats``)."""
    return _gang_loop(jobs, cfg, init, True, progress)


@jit
def _new_matrix(n_jobs, mpl, processors):
    """An empty :class:`Matrix` of ``mpl`` rows at most."""
    count = Counters(0, 0, 0, 0, 0, 0, 0.0, 0.0)  # type: ignore[no-untyped-call]
    return Matrix(np.full((mpl, processors), IDLE, np.int64), np.zeros(mpl, np.int64), np.zeros(mpl, np.int64),
                  np.zeros(mpl, np.int64), np.full(n_jobs, -1, np.int64), np.zeros(n_jobs, np.int64),
                  np.zeros(n_jobs, np.int64), np.zeros(n_jobs, np.int64), np.zeros(mpl * processors + 1, np.int64),
                  np.zeros(n_jobs, np.int64), count)


@jit
def _new_scratch(n_jobs, mpl, processors):
    cap = mpl * processors + 1
    return Scratch(np.zeros(n_jobs, np.int64), np.zeros(n_jobs, np.int64), np.zeros(n_jobs, np.int64),
                   np.zeros(processors + 1, np.int64), np.zeros(processors + 1, np.int64),
                   np.zeros(processors, np.int64), np.zeros(processors, np.int64),
                   np.zeros(processors + 1, np.int64), np.zeros(mpl, np.int64), np.zeros(cap),
                   np.zeros(cap, np.int64), np.zeros(mpl, np.int64))


# One loop on purpose (hence the noqa: C901): the engine's step is one piece of the reference.
@jit_nogil  # no GIL held: a sweep run in the window's worker thread leaves the GUI free
def _gang_loop(jobs, cfg, init, placed, progress):  # noqa: C901
    """Run the whole workload of :class:`Jobs` with the :class:`Config`; return a
    :class:`Result`. ``cfg.q`` < 0 is unlimited.

    ``init`` (:class:`Totals`) continues an earlier run that ended with the machine empty at
    time ``init.time``, before every arrival given. Once ``cfg.stop_at`` jobs have arrived, the
    run stops at the first decision that leaves the machine empty (no row, no job waiting)
    while the next job arrives later than any time the run could snap to it (so the rest of
    the workload, given to a run continuing this one, sees the same machine); the result's
    ``jobs_taken`` says how many jobs it took, all finished. ``stop_at`` >= N never stops early.
    With ``placed`` the result has the placement log and the per-job ``rows_held`` and
    ``extra_slices`` of ``Simulation.run_stats`` (empty without). After every decision the
    simulated time goes to ``progress[0]`` (a one-element array another thread may read while
    the loop runs: the loop holds no GIL)."""
    arrival, aorder, size = jobs.arrival, jobs.aorder, jobs.size
    n_jobs = arrival.shape[0]
    processors, mpl, overhead = cfg.processors, cfg.mpl, cfg.overhead
    m = _new_matrix(n_jobs, mpl, processors)
    count = m.count
    quantum = 1.0 - overhead
    sv = Service(np.zeros(n_jobs), jobs.work / quantum, np.zeros(n_jobs), np.full(n_jobs, math.nan),
                 np.full(n_jobs, math.nan), np.full(n_jobs, math.nan), np.full(n_jobs, math.nan),
                 np.zeros(n_jobs, np.bool_), jobs.work, quantum)
    sc = _new_scratch(n_jobs, mpl, processors)
    rows_held = np.zeros(n_jobs if placed else 0, np.int64)
    extra = np.zeros(n_jobs if placed else 0)
    waiting = np.zeros(n_jobs, np.int64)
    n_wait = 0
    # BGS planner: rows x breakpoints (each booking adds at most two)
    kcap = 2 * (n_jobs + (mpl + 2) * mpl * processors) + 8 if cfg.backfill else 1
    p = Planner(np.zeros((mpl, kcap)), np.zeros((mpl, kcap), np.int64), np.zeros(mpl, np.int64))
    rcap = n_jobs if cfg.backfill else 1
    res = Reservations(np.zeros(rcap, np.int64), np.zeros(rcap, np.int64), np.zeros(rcap), np.zeros(rcap),
                       np.zeros(rcap, np.int64))
    n_res = 0
    time = init.time
    na = 0
    decided = False
    max_rows = init.max_rows
    row_time = init.slot_time
    lost_all = init.lost
    lost_small = init.lost_small
    lost_large = init.lost_large
    mig_overhead = init.migration_overhead
    mig_tasks = init.migrated_tasks
    shadow = np.full((mpl if placed else 0, processors), IDLE, np.int64)
    n_shadow = 0
    log_t = np.empty(LOG_START if placed else 0)
    log_e = np.empty((LOG_START if placed else 0, 4), np.int32)
    n_log = 0
    while True:
        # ---- Simulation._next_gap (event-driven, not watching)
        n = count.n_rows
        if decided and cfg.stop_at <= na < n_jobs and _may_stop(n, n_wait, n_res, arrival[aorder[na]], time):
            break
        start_row = count.next_row % n if n else 0
        gap = 0.0
        best_end = math.inf
        if decided:
            gap = arrival[aorder[na]] - time if na < n_jobs else math.inf
            if n and count.n_run:
                best_end = _finish_offsets(m, sv, sc, overhead, start_row)
                if not cfg.cut_at_departure:
                    best_end = _slice_end(best_end)
            if best_end < gap:
                gap = best_end
            if math.isinf(gap):
                break
        # ---- what run_with_capacity notes before the step
        small_w, large_w = _waiting_classes(waiting, n_wait, size, cfg.small_max)
        for r in range(n):
            sc.busy0[r] = m.busy[r]
        n_before = n
        t0 = time
        n_done = 0
        # ---- Simulation._run_for
        if gap != 0.0:
            if n == 0:
                time = _snapped(time + gap, jobs, na)
            else:
                n_done = _run_for(m, sv, sc, cfg, gap, time, start_row, placed, rows_held, extra)
                row_time += n * gap
                time = _snapped(time + gap, jobs, na)
        # ---- Simulation._decide
        decided = True
        now = time
        _complete(m, size, sv, sc.done_jobs, n_done)
        arrived = 0
        while na < n_jobs and arrival[aorder[na]] <= now:
            waiting[n_wait] = aorder[na]
            n_wait += 1
            na += 1
            arrived += 1
        if n_done or arrived:
            n_res = _policy(m, jobs, sv, sc, p, res, n_res, cfg, waiting, n_wait, now)
            if cfg.migrate:
                mig_overhead += count.budget_overhead
                mig_tasks += count.used
        n_wait = _start_placed(m, sv, waiting, n_wait, now)
        n = count.n_rows
        count.next_row = count.next_row % n if n else 0
        if n > max_rows:
            max_rows = n
        progress[0] = now
        if placed and (n_done or arrived or n != n_shadow):
            log_t, log_e, n_log = log_changes(m.cells, n, shadow, n_shadow, now, log_t, log_e, n_log,
                                              m.mark_first, m.mark_end)
            n_shadow = n
        # ---- run_with_capacity: the node-time lost in this step while jobs waited
        if not (small_w or large_w):
            continue
        amount = _lost_in_step(sc.busy0, n_before, start_row, t0, time, processors, overhead, sc.done_jobs, n_done,
                               sv.finish, size)
        lost_all += amount
        if small_w:
            lost_small += amount
        if large_w:
            lost_large += amount
    totals = Totals(time, max_rows, mig_overhead, mig_tasks, lost_all, lost_small, lost_large, row_time)
    return Result(sv.start, sv.first_run, sv.finish, totals, na, log_t[:n_log].copy(), log_e[:n_log].copy(),
                  rows_held, extra)
