"""GS, BGS, MGS and MBGS and the event-driven engine as one compiled loop (numba), for headless runs.

All the compiled code of :mod:`gangviz.fast.gang` lives in this one module but for the shared
placement-log encoder (:mod:`gangviz.fast.placement_log`) and the profile's earliest fit
(:mod:`gangviz.spacesharing.profile_kernel`), by whose sources every function here is cached
too, for the reason :mod:`gangviz.fast.buddy_kernel` gives (numba's on-disk cache is keyed by
source file).

**In and out.** A run takes named groups: :class:`Jobs` (the workload) and :class:`Config` (the
run's settings), and returns a :class:`Result` whose running totals are a :class:`Totals`, also
what a run continues from. Inside, the phases take the arrays they work on one by one: the
inner loops index plain arrays, and grouping them (named tuples of arrays, a structref of the
counters) made the loop 30-60% slower (CPU time of GS and MGS on SDSC-SP2). The scalars the
phases change live in two small arrays, ``ist`` and ``fst``, at the named slots below.

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

from gangviz import sort_kernel
from gangviz.fast import placement_log
from gangviz.fast.placement_log import LOG_START, SPAN, log_changes
from gangviz.jitcache import cached_with
from gangviz.sort_kernel import insertion_sort
from gangviz.spacesharing import profile_kernel
from gangviz.spacesharing.profile_kernel import earliest_fit

#: compiled with the shared encoder, earliest fit and the short sort, so cached by their sources too
jit = cached_with(placement_log, profile_kernel, sort_kernel)
jit_nogil = cached_with(placement_log, profile_kernel, sort_kernel, nogil=True)

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


# integer state (ist) slots
N_ROWS, NEXT_ROW, N_RUN, STAMP, MIGRATION_STAMP, USED, CLOCK = 0, 1, 2, 3, 4, 5, 6
# float state (fst) slots
PLAN_NOW, BUDGET_OVERHEAD = 0, 1


# ----------------------------------------------------------------------- the matrix's moves


@jit
def _run_add(j, run, runpos, ist):
    k = ist[N_RUN]
    run[k] = j
    runpos[j] = k
    ist[N_RUN] = k + 1


@jit
def _run_remove(j, run, runpos, ist):
    k = runpos[j]
    last = ist[N_RUN] - 1
    other = run[last]
    run[k] = other
    runpos[other] = k
    ist[N_RUN] = last


@jit
def _touch(rbusy, r, first, end):
    """Note that processors ``first .. end - 1`` of row ``r`` changed: ``rbusy[m + r]`` (``m``
    rows) is :data:`SPAN` minus the first changed processor, ``rbusy[2 m + r]`` the end of the
    changed ones (0: none): the marks of :mod:`gangviz.fast.placement_log`."""
    m = rbusy.shape[0] // 3
    if SPAN - first > rbusy[m + r]:
        rbusy[m + r] = SPAN - first
    if end > rbusy[2 * m + r]:
        rbusy[2 * m + r] = end


@jit
def _holds(cells, lo, j, r):
    return cells[r, lo[j]] == j


@jit
def _mark_cols(cells, lo, hi, j, r, out, value):
    """Write ``value`` to ``out[c]`` for each processor ``c`` that ``j`` holds in row ``r``;
    ``out`` is a row of ``cells`` or a per-processor array."""
    for c in range(lo[j], hi[j]):
        if cells[r, c] == j:
            out[c] = value


@jit
def _cols_idle(cells, home, lo, hi, j, r):
    """Whether every processor of ``j`` is idle in row ``r`` (``OusterhoutMatrix.is_idle``)."""
    h = home[j]
    for c in range(lo[j], hi[j]):
        if cells[h, c] == j and cells[r, c] != IDLE:
            return False
    return True


@jit
def _place(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, j, row):
    """JobPlaced on the leftmost idle processors of ``row`` (``IBMGang._place``)."""
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
    lo[j] = first
    hi[j] = last + 1
    home[j] = row
    nrows[j] = 1
    rbusy[row] += need
    _touch(rbusy, row, first, last + 1)
    _run_add(j, run, runpos, ist)


@jit
def _replicate(cells, rbusy, home, lo, hi, nrows, size, j, r):
    """JobReplicated into row ``r`` on the job's own processors."""
    _mark_cols(cells, lo, hi, j, home[j], cells[r], j)
    rbusy[r] += size[j]
    _touch(rbusy, r, lo[j], hi[j])
    nrows[j] += 1


@jit
def _unreplicate(cells, rbusy, home, lo, hi, nrows, size, n, j):
    """JobUnreplicated: ``j`` gives up every row but its home row."""
    if nrows[j] <= 1:
        return
    h = home[j]
    for r in range(n):
        if r != h and cells[r, lo[j]] == j:
            _mark_cols(cells, lo, hi, j, r, cells[r], IDLE)
            rbusy[r] -= size[j]
            _touch(rbusy, r, lo[j], hi[j])
    nrows[j] = 1


@jit
def _move(cells, rbusy, home, lo, hi, size, j, src, dst):
    """JobShifted: ``j`` (home ``src``, one row) moves to ``dst`` on its own processors."""
    for c in range(lo[j], hi[j]):
        if cells[src, c] == j:
            cells[src, c] = IDLE
            cells[dst, c] = j
    rbusy[src] -= size[j]
    rbusy[dst] += size[j]
    _touch(rbusy, src, lo[j], hi[j])
    _touch(rbusy, dst, lo[j], hi[j])
    home[j] = dst


@jit
def _relocate(cells, rbusy, home, lo, hi, size, j, dst, new, k0, k1):
    """JobMigrated: ``j`` (one row) moves to processors ``new[k0:k1]`` (ascending) of ``dst``."""
    h = home[j]
    _mark_cols(cells, lo, hi, j, h, cells[h], IDLE)
    rbusy[h] -= size[j]
    _touch(rbusy, h, lo[j], hi[j])
    for k in range(k0, k1):
        cells[dst, new[k]] = j
    rbusy[dst] += size[j]
    _touch(rbusy, dst, new[k0], new[k1 - 1] + 1)
    lo[j] = new[k0]
    hi[j] = new[k1 - 1] + 1
    home[j] = dst


@jit
def _remove_job(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, j):
    """JobUnreplicated + JobRemoved of a finished job."""
    _unreplicate(cells, rbusy, home, lo, hi, nrows, size, ist[N_ROWS], j)
    h = home[j]
    _mark_cols(cells, lo, hi, j, h, cells[h], IDLE)
    rbusy[h] -= size[j]
    _touch(rbusy, h, lo[j], hi[j])
    home[j] = -1
    nrows[j] = 0
    _run_remove(j, run, runpos, ist)


@jit
def _add_row(cells, rbusy, ist):
    """SlotAdded on top; the engine's ``_activate`` moves the next row up if it is at or above."""
    r = ist[N_ROWS]
    cells[r, :] = IDLE
    rbusy[r] = 0
    _touch(rbusy, r, 0, cells.shape[1])
    ist[N_ROWS] = r + 1
    if r <= ist[NEXT_ROW]:
        ist[NEXT_ROW] += 1
    return r


@jit
def _remove_empty_rows(cells, rbusy, home, run, ist):
    """``remove_empty_rows``: every empty row goes, top first (SlotRemoved)."""
    r = ist[N_ROWS] - 1
    while r >= 0:
        if rbusy[r] == 0:
            n = ist[N_ROWS]
            for rr in range(r, n - 1):
                cells[rr, :] = cells[rr + 1, :]
                rbusy[rr] = rbusy[rr + 1]
                _touch(rbusy, rr, 0, cells.shape[1])
            ist[N_ROWS] = n - 1
            for k in range(ist[N_RUN]):
                j = run[k]
                if home[j] > r:
                    home[j] -= 1
            if r < ist[NEXT_ROW]:
                ist[NEXT_ROW] -= 1
        r -= 1


@jit
def _row_jobs(cells, row, seen, ist, out):
    """``OusterhoutMatrix.row_jobs``: distinct jobs of ``row`` by their leftmost processor."""
    ist[STAMP] += 1
    stamp = ist[STAMP]
    k = 0
    for c in range(cells.shape[1]):
        x = cells[row, c]
        if x != IDLE and seen[x] != stamp:
            seen[x] = stamp
            out[k] = x
            k += 1
    return k


@jit
def _sort_small(a, k):
    """Sort ``a[:k]`` in place: by insertion (nothing allocated) while ``k`` is small, as it
    mostly is (the rows a job holds, the jobs on its processors), else by ``np.sort``."""
    if k > 16:
        a[:k] = np.sort(a[:k])
    else:
        insertion_sort(a, k)


@jit
def _population_order(rbusy, n):
    """``population_order``: rows by busy processors, ties to the lower row."""
    return np.argsort(rbusy[:n], kind="mergesort")


@jit
def _start_order(run, ist, start, now):
    """``start_order``: the jobs in the matrix by (start time, now if placed now; id)."""
    m = ist[N_RUN]
    jobs = np.sort(run[:m].copy())
    key = np.empty(m)
    for k in range(m):
        s = start[jobs[k]]
        key[k] = now if math.isnan(s) else s
    return jobs[np.argsort(key, kind="mergesort")]


# ----------------------------------------------------------------------- BGS planner


@jit
def _plan_init(pt, pu, pl, fst, n, now):
    fst[PLAN_NOW] = now
    for r in range(n):
        pt[r, 0] = now
        pu[r, 0] = 0
        pl[r] = 1


@jit
def _plan_add_row(pt, pu, pl, fst, r):
    pt[r, 0] = fst[PLAN_NOW]
    pu[r, 0] = 0
    pl[r] = 1


@jit
def _plan_from_bookings(pt, pu, pl, fst, n, now, run, ist, home, size, start, est, mpl):
    """``Planner.from_bookings`` of the jobs in the matrix (home rows, predicted ends)."""
    _plan_init(pt, pu, pl, fst, n, now)
    m = ist[N_RUN]
    rows = np.empty(m, np.int64)
    ends = np.empty(m)
    sizes = np.empty(m, np.int64)
    k = 0
    for i in range(m):
        j = run[i]
        s = start[j]
        e = _predicted_end(now if math.isnan(s) else s, est[j], mpl, now)
        if e > now:
            rows[k] = home[j]
            ends[k] = e
            sizes[k] = size[j]
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
def _plan_breakpoint(pt, pu, pl, r, t):
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
def _plan_book(pt, pu, pl, fst, r, s, e, size):
    """``Planner._book``: ``size`` processors of row ``r`` over ``[max(s, now), e)``."""
    a = max(s, fst[PLAN_NOW])
    if not e > a:
        return
    ia = _plan_breakpoint(pt, pu, pl, r, a)
    ib = _plan_breakpoint(pt, pu, pl, r, e)
    for k in range(ia, ib):
        pu[r, k] += size


@jit
def _plan_earliest(pt, pu, pl, r, duration, size, before, processors):
    """``Planner.earliest``, the starts before ``before`` only (``inf`` if none)."""
    return earliest_fit(pt[r], pu[r], pl[r], processors - size, duration, before, 0, 0, 0)


@jit
def _plan_fits_now(pt, pu, pl, fst, r, duration, size, processors):
    now = fst[PLAN_NOW]
    return _plan_earliest(pt, pu, pl, r, duration, size, np.nextafter(now, math.inf), processors) == now


@jit
def _predicted_end(s, estimate, mpl, now):
    """``predicted_end``: ``s + mpl * estimate``, or ``now + 1`` when that is not after now."""
    end = s + mpl * estimate
    return end if end > now else now + 1.0


@jit
def _guard_plan(pt, pu, pl, fst, n, now, run, ist, home, size, start, est, mpl, waiting, n_wait,
                res_job, res_row, res_s, res_e, res_size, n_res):
    """``IBMGang.planner(sim)``: running jobs plus the reservations of jobs still waiting."""
    _plan_from_bookings(pt, pu, pl, fst, n, now, run, ist, home, size, start, est, mpl)
    for k in range(n_res):
        if res_row[k] < n and home[res_job[k]] < 0:  # res.job in sim.waiting
            _plan_book(pt, pu, pl, fst, res_row[k], res_s[k], res_e[k], res_size[k])


@jit
def _guard_booking_end(j, start, est, mpl, now):
    s = start[j]
    return _predicted_end(now if math.isnan(s) else s, est[j], mpl, now)


@jit
def _guard_allows(pt, pu, pl, fst, j, dst, start, est, mpl, now, size, processors):
    end = _guard_booking_end(j, start, est, mpl, now)
    return _plan_fits_now(pt, pu, pl, fst, dst, end - now, size[j], processors)


@jit
def _guard_moved(pt, pu, pl, fst, j, src, dst, start, est, mpl, now, size):
    end = _guard_booking_end(j, start, est, mpl, now)
    _plan_book(pt, pu, pl, fst, src, now, end, -size[j])
    _plan_book(pt, pu, pl, fst, dst, now, end, size[j])


# ----------------------------------------------------------------------- the phases


@jit
def _new_attempts(ist):
    """Start a phase whose refused attempts :func:`_refused` remembers; return its first clock."""
    ist[CLOCK] += 1
    return ist[CLOCK]


@jit
def _refused(fails, rchg, jchg, since, x, job, r):
    """Whether giving ``job`` (``x``-th of the phase's order) a replica in row ``r`` was refused
    in this phase (clock ``since`` on) and neither that row nor the job's processors changed
    after (see :func:`_fill_migrating`)."""
    t = fails[x, r]
    return t >= since and t >= rchg[r] and t >= jchg[job]


@jit
def _changed(ist, rchg, r):
    """Note that row ``r`` changed (its cells): the refusals of it seen so far are stale."""
    ist[CLOCK] += 1
    rchg[r] = ist[CLOCK]


@jit
def _fill(cells, rbusy, home, lo, hi, nrows, size, run, ist, start, now):
    """``fill_matrix`` (FillMatrix, FillMatrix-1): one replica per job per pass, lowest row
    whose cells on the job's processors are idle, until nothing changes."""
    n = ist[N_ROWS]
    if n < 2:
        return
    order = _start_order(run, ist, start, now)
    changed = True
    while changed:
        changed = False
        for job in order:
            for r in range(n):
                if _holds(cells, lo, job, r):
                    continue
                if _cols_idle(cells, home, lo, hi, job, r):
                    _replicate(cells, rbusy, home, lo, hi, nrows, size, job, r)
                    changed = True
                    break


@jit
def _overlap(cells, home, lo, hi, a, row, seen, ist, out):
    """S(A): the jobs of ``row`` on any processor of ``a``, by id (``migration._overlap``)."""
    ist[STAMP] += 1
    stamp = ist[STAMP]
    h = home[a]
    k = 0
    for c in range(lo[a], hi[a]):
        if cells[h, c] == a:
            x = cells[row, c]
            if x != IDLE and seen[x] != stamp:
                seen[x] = stamp
                out[k] = x
                k += 1
    _sort_small(out, k)
    return k


@jit
def _movable_tasks(others, k, a, moved, mst, nrows, size):
    """The tasks of S(A) if ``a`` is not among them and every one may migrate (not migrated in
    this decision, one row: ``_movable``), else -1."""
    tasks = 0
    for t in range(k):
        o = others[t]
        if o == a or moved[o] == mst or nrows[o] != 1:
            return -1
        tasks += size[o]
    return tasks


@jit
def _option1_plan(cells, home, lo, hi, size, ist, others, k, occ, ban, plan, a, row):
    """``_plan_option1``: the dry run of option 1. Each job of S(A) (``others[:k]``, by id)
    takes the leftmost processors of ``row`` idle then outside ``a``'s, written one job after
    another into ``plan``; returns whether every one found room."""
    processors = cells.shape[1]
    for c in range(processors):
        occ[c] = cells[row, c]
    ist[STAMP] += 1
    stamp = ist[STAMP]
    _mark_cols(cells, lo, hi, a, home[a], ban, stamp)
    p = 0
    for t in range(k):
        o = others[t]
        _mark_cols(cells, lo, hi, o, row, occ, IDLE)
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
def _option1(cells, rbusy, home, lo, hi, nrows, size, ist, seen, others, occ, ban, plan, a, row,
             moved, mst, q, cost_c, dry):
    """``try_option1`` without the records: returns ``(ok, cost, tasks, number of S(A))``; unless ``dry`` the
    jobs on ``a``'s processors in ``row`` migrate there (the caller then moves or replicates
    ``a`` and charges the delays). ``plan`` receives the new processors, ``others`` S(A)."""
    processors = cells.shape[1]
    sa = size[a]
    if processors - rbusy[row] < sa:
        return False, 0.0, 0, 0
    k = _overlap(cells, home, lo, hi, a, row, seen, ist, others)
    if k == 0:
        return False, 0.0, 0, 0
    tasks = _movable_tasks(others, k, a, moved, mst, nrows, size)
    if tasks < 0:
        return False, 0.0, 0, 0
    if q >= 0 and ist[USED] + tasks > q:
        return False, 0.0, 0, 0
    total = 0
    for t in range(k):
        total += size[others[t]]
    cost = cost_c / 2 * sa + cost_c * total
    if dry:
        # The plan always finds room here, so the dry run need not draw it: each job of S(A)
        # (one row, ``row``) frees its own cells, and the idle cells outside a's processors
        # then run short only if row has fewer than size[a] idle cells, refused above.
        return True, cost, tasks, k
    _option1_plan(cells, home, lo, hi, size, ist, others, k, occ, ban, plan, a, row)
    p = 0
    for t in range(k):
        o = others[t]
        _relocate(cells, rbusy, home, lo, hi, size, o, row, plan, p, p + size[o])
        p += size[o]
        moved[o] = mst
    return True, cost, tasks, k


@jit
def _option2_dry(cells, rbusy, home, lo, hi, nrows, size, ist, seen, others, a, row, moved, mst, q, cost_c):
    """``try_option2(dry=True)``: returns ``(ok, cost, tasks, number of S(A))``."""
    processors = cells.shape[1]
    sa = size[a]
    if moved[a] == mst or nrows[a] != 1 or processors - rbusy[row] < sa or (q >= 0 and ist[USED] + sa > q):
        return False, 0.0, 0, 0
    k = _overlap(cells, home, lo, hi, a, row, seen, ist, others)
    total = 0
    m = 0
    for t in range(k):
        if others[t] != a:
            total += size[others[t]]
            others[m] = others[t]
            m += 1
    return True, cost_c * sa + cost_c / 2 * total, sa, m


@jit
def _delay(j, slices, charge, lost, need, work, quantum):
    """``MigrationBudget.delay`` + ``Simulation.charge``: ``j`` needs ``slices`` more service."""
    if charge and slices != 0.0:
        lost[j] = lost[j] + slices
        need[j] = (work[j] + lost[j]) / quantum


@jit
def _book_migration(ist, fst, job, job_delay, others, k, others_delay, tasks, cost, charge, lost, need, work,
                    quantum):
    """Charge a migration: ``job`` needs ``job_delay`` more service, each of ``others[:k]``
    ``others_delay`` (eq. 4 and 5); its ``tasks`` and ``cost`` go to the budget."""
    for x in range(k):
        _delay(others[x], others_delay, charge, lost, need, work, quantum)
    _delay(job, job_delay, charge, lost, need, work, quantum)
    ist[USED] += tasks
    fst[BUDGET_OVERHEAD] += cost


@jit
def _option2(cells, rbusy, home, lo, hi, nrows, size, ist, fst, seen, others, plan, a, row, moved, mst, q, cost_c,
             charge, lost, need, work, quantum):
    """``try_option2``: ``a`` migrates to the leftmost idle processors of ``row``; it loses C,
    each job on its old processors there C/2 (eq. 5)."""
    ok, cost, tasks, m = _option2_dry(cells, rbusy, home, lo, hi, nrows, size, ist, seen, others, a, row, moved,
                                      mst, q, cost_c)
    got = 0
    for c in range(cells.shape[1]):
        if got == size[a]:
            break
        if cells[row, c] == IDLE:
            plan[got] = c
            got += 1
    _relocate(cells, rbusy, home, lo, hi, size, a, row, plan, 0, got)
    moved[a] = mst
    _book_migration(ist, fst, a, cost_c, others, m, cost_c / 2, tasks, cost, charge, lost, need, work, quantum)


@jit
def _compact(cells, rbusy, home, lo, hi, nrows, size, ist, fst, seen, blk, lst, others, occ, ban,
             plan, moved, q, cost_c, charge, lost, need, work, quantum,
             guard, pt, pu, pl, start, est, mpl, now, migrate):
    """``compact_matrix`` (CompactMatrix, CollapseMatrix-1) or, with ``migrate``,
    ``collapse_with_migration`` (CollapseMatrix-2): CompactMatrix where a move that finds its
    processors busy in the target row may migrate, by the cheaper option (ties: fewer tasks,
    then option 2); with BGS's reservation guard when ``guard``."""
    n = ist[N_ROWS]
    processors = cells.shape[1]
    mst = ist[MIGRATION_STAMP]
    order = _population_order(rbusy, n)
    for pos in range(n):
        i = order[pos]
        # Row i's jobs once: moves only take jobs out of row i, and a job gone (home no longer
        # i) is skipped below, so the list read again before each target row would be this one.
        k = _row_jobs(cells, i, blk, ist, lst)
        for jj in range(n - 1, pos, -1):
            j = order[jj]
            for t in range(k):
                job = lst[t]
                if home[job] != i or nrows[job] != 1:
                    continue
                if processors - rbusy[j] < size[job]:
                    continue  # no room: not idle on its processors, and both options refuse
                if guard and not _guard_allows(pt, pu, pl, fst, job, j, start, est, mpl, now, size, processors):
                    continue
                # Idle on its processors in row j: a plain move. A move into row j only fills
                # the mover's processors, which no other job of row i has, so this asks what
                # marking row j's blockers once before the moves answered.
                if _cols_idle(cells, home, lo, hi, job, j):
                    _move(cells, rbusy, home, lo, hi, size, job, i, j)
                    if guard:
                        _guard_moved(pt, pu, pl, fst, job, i, j, start, est, mpl, now, size)
                    continue
                if not migrate:
                    continue
                ok2, c2, t2, _m = _option2_dry(cells, rbusy, home, lo, hi, nrows, size, ist, seen, others, job, j,
                                               moved, mst, q, cost_c)
                ok1, c1, t1, _k = _option1(cells, rbusy, home, lo, hi, nrows, size, ist, seen, others, occ, ban,
                                           plan, job, j, moved, mst, q, cost_c, True)
                if ok1 and (not ok2 or c1 < c2 or (c1 == c2 and t1 < t2)):
                    ok, cost, tasks, kk = _option1(cells, rbusy, home, lo, hi, nrows, size, ist, seen, others, occ,
                                                   ban, plan, job, j, moved, mst, q, cost_c, False)
                    # the jobs of S(A) lose C each, A loses C/2 (eq. 4)
                    _book_migration(ist, fst, job, cost_c / 2, others, kk, cost_c, tasks, cost, charge, lost, need,
                                    work, quantum)
                    _move(cells, rbusy, home, lo, hi, size, job, i, j)
                elif ok2:
                    _option2(cells, rbusy, home, lo, hi, nrows, size, ist, fst, seen, others, plan, job, j, moved,
                             mst, q, cost_c, charge, lost, need, work, quantum)
                else:
                    continue
                if guard:
                    _guard_moved(pt, pu, pl, fst, job, i, j, start, est, mpl, now, size)


@jit
def _fill_migrating(cells, rbusy, home, lo, hi, nrows, size, run, ist, fst, seen, others, occ, ban, plan, moved,
                    q, cost_c, charge, lost, need, work, quantum, start, now, fails, rchg, jchg):
    """``fill_with_migration`` (FillMatrix-2): a replica may first migrate, by option 1, the
    jobs on the job's processors in the target row.

    Each pass tries again only what changed since it was refused, with the decisions of trying
    every row every pass: option 1 for ``job`` in row ``r`` reads only row ``r``, the job's
    processors and what only ever refuses more within the phase (the jobs migrated, the jobs
    with several rows, the tasks used), and a success changes only row ``r`` and the
    processors of the jobs it migrates; so a refusal holds until one of those two changes.
    ``fails[x, r]`` is the clock (``ist[CLOCK]``) of the last refusal of the ``x``-th job of
    the order in row ``r`` (by place, a small table that stays in cache), ``rchg[r]``
    (``jchg[job]``) that of the last change of the row (of the job's processors). The jobs in
    the matrix and their start times stay, so the order does too."""
    n = ist[N_ROWS]
    mst = ist[MIGRATION_STAMP]
    since = _new_attempts(ist)
    order = _start_order(run, ist, start, now)
    changed = True
    while changed:
        changed = False
        for x in range(order.shape[0]):
            job = order[x]
            for r in range(n):
                if _holds(cells, lo, job, r) or _refused(fails, rchg, jchg, since, x, job, r):
                    continue
                ok, cost, tasks, kk = _option1(cells, rbusy, home, lo, hi, nrows, size, ist, seen, others, occ, ban,
                                               plan, job, r, moved, mst, q, cost_c, False)
                if ok:
                    _book_migration(ist, fst, job, cost_c / 2, others, kk, cost_c, tasks, cost, charge, lost, need,
                                    work, quantum)
                    _replicate(cells, rbusy, home, lo, hi, nrows, size, job, r)
                    _changed(ist, rchg, r)
                    for x in range(kk):
                        jchg[others[x]] = ist[CLOCK]
                    changed = True
                    break
                fails[x, r] = ist[CLOCK]


@jit
def _schedule_fcfs(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, waiting, n_wait, mpl):
    """GS Schedule (``IBMGang._schedule_fcfs``): FCFS, best fit, stop at the first job that does
    not fit and cannot have a new row."""
    processors = cells.shape[1]
    for w in range(n_wait):
        job = waiting[w]
        if home[job] >= 0:
            continue
        s = size[job]
        n = ist[N_ROWS]
        best = -1
        best_free = 0
        for r in range(n):
            f = processors - rbusy[r]
            if f >= s and (best < 0 or f < best_free):
                best = r
                best_free = f
        if best < 0:
            if n >= mpl:
                break
            best = _add_row(cells, rbusy, ist)
        _place(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, job, best)


@jit
def _schedule_backfill(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, fst, waiting, n_wait, mpl,
                       pt, pu, pl, start, est, now, res_job, res_row, res_s, res_e, res_size):
    """BGS Schedule (``IBMGang._schedule_backfill``): start what violates no reservation (best
    fit by free processors now, ties to the lower row), reserve the rest where it can start
    earliest. Returns the number of reservations."""
    processors = cells.shape[1]
    _plan_from_bookings(pt, pu, pl, fst, ist[N_ROWS], now, run, ist, home, size, start, est, mpl)
    n_res = 0
    for w in range(n_wait):
        job = waiting[w]
        if home[job] >= 0:
            continue
        s = size[job]
        dur = _predicted_end(now, est[job], mpl, now) - now
        n = ist[N_ROWS]
        best = -1
        best_free = 0
        for r in range(n):
            if _plan_fits_now(pt, pu, pl, fst, r, dur, s, processors):
                f = processors - pu[r, 0]
                if best < 0 or f < best_free:
                    best = r
                    best_free = f
        if best >= 0:
            _place(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, job, best)
            _plan_book(pt, pu, pl, fst, best, now, now + dur, s)
            continue
        if n < mpl:
            r = _add_row(cells, rbusy, ist)
            _plan_add_row(pt, pu, pl, fst, r)
            _place(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, job, r)
            _plan_book(pt, pu, pl, fst, r, now, now + dur, s)
            continue
        best_t = math.inf
        best_r = -1
        for r in range(n):
            t = _plan_earliest(pt, pu, pl, r, dur, s, best_t, processors)
            if t < best_t:
                best_t = t
                best_r = r
        res_job[n_res] = job
        res_row[n_res] = best_r
        res_s[n_res] = best_t
        res_e[n_res] = best_t + dur
        res_size[n_res] = s
        n_res += 1
        _plan_book(pt, pu, pl, fst, best_r, best_t, best_t + dur, s)
    return n_res


@jit
def _empty_rows_then_schedule(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, fst, waiting, n_wait, mpl,
                              backfill, pt, pu, pl, start, est, now, res_job, res_row, res_s, res_e, res_size,
                              n_res):
    """Remove the empty rows, then the Schedule phase: BGS's (returns its number of
    reservations) with ``backfill``, else GS's FCFS (returns ``n_res`` unchanged)."""
    _remove_empty_rows(cells, rbusy, home, run, ist)
    if backfill:
        return _schedule_backfill(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, fst, waiting, n_wait,
                                  mpl, pt, pu, pl, start, est, now, res_job, res_row, res_s, res_e, res_size)
    _schedule_fcfs(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, waiting, n_wait, mpl)
    return n_res


@jit
def _policy(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, fst, waiting, n_wait, mpl, backfill,
            migrate, q, cost_c, charge, lost, need, work, quantum, start, est, now, seen, blk, lst, others, occ,
            ban, plan, moved, pt, pu, pl, res_job, res_row, res_s, res_e, res_size, n_res, out, fails, rchg, jchg):
    """``IBMGang.schedule``: the phases of §4.2 (GS, BGS) or §5.4 (MGS, MBGS) at one event.
    Returns the number of reservations; adds the tasks migrated and the overhead to ``out``."""
    if backfill:
        _guard_plan(pt, pu, pl, fst, ist[N_ROWS], now, run, ist, home, size, start, est, mpl, waiting, n_wait,
                    res_job, res_row, res_s, res_e, res_size, n_res)
    for k in range(ist[N_RUN]):
        _unreplicate(cells, rbusy, home, lo, hi, nrows, size, ist[N_ROWS], run[k])
    # CompactMatrix and the schedule; with migration, CollapseMatrix-2 and the schedule again
    for migrating in range(2 if migrate else 1):
        if migrating:
            ist[MIGRATION_STAMP] += 1  # a new budget: nothing migrated yet in this decision
            ist[USED] = 0
            fst[BUDGET_OVERHEAD] = 0.0
            if backfill:
                _guard_plan(pt, pu, pl, fst, ist[N_ROWS], now, run, ist, home, size, start, est, mpl, waiting,
                            n_wait, res_job, res_row, res_s, res_e, res_size, n_res)
        _compact(cells, rbusy, home, lo, hi, nrows, size, ist, fst, seen, blk, lst, others, occ, ban,
                 plan, moved, q, cost_c, charge, lost, need, work, quantum,
                 backfill, pt, pu, pl, start, est, mpl, now, migrating == 1)
        n_res = _empty_rows_then_schedule(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, fst, waiting,
                                          n_wait, mpl, backfill, pt, pu, pl, start, est, now, res_job, res_row, res_s,
                                          res_e, res_size, n_res)
    _fill(cells, rbusy, home, lo, hi, nrows, size, run, ist, start, now)
    if not migrate:
        return n_res
    _fill_migrating(cells, rbusy, home, lo, hi, nrows, size, run, ist, fst, seen, others, occ, ban, plan, moved,
                    q, cost_c, charge, lost, need, work, quantum, start, now, fails, rchg, jchg)
    out[0] += fst[BUDGET_OVERHEAD]
    out[1] += ist[USED]
    return n_res


# ----------------------------------------------------------------------- the engine


@jit
def _job_offsets(cells, lo, j, n, start_row, offs):
    """The turn offsets after ``start_row`` of every row ``j`` holds, ascending; returns how many."""
    k = 0
    for r in range(n):
        if cells[r, lo[j]] == j:
            offs[k] = (r - start_row) % n
            k += 1
    _sort_small(offs, k)
    return k


@jit
def _finish_offsets(cells, home, lo, nrows, run, ist, served, need, overhead, quantum, start_row, ends, offs):
    """``Simulation._finish_offsets``: time from now until each running job finishes, the
    matrix staying as it is; returns the smallest."""
    n = ist[N_ROWS]
    best = math.inf
    for k in range(ist[N_RUN]):
        j = run[k]
        left = need[j] - served[j]
        c = int(max(np.ceil(left - EPS), 1.0))
        if nrows[j] == 1:
            last = (c - 1) * n + (home[j] - start_row) % n
        else:
            cnt = _job_offsets(cells, lo, j, n, start_row, offs)
            cycles = (c - 1) // cnt
            idx = (c - 1) % cnt
            last = cycles * n + offs[idx]
        e = float(last) + overhead + (left - float(c - 1)) * quantum
        ends[k] = e
        if e < best:
            best = e
    return best


@jit
def _snapped(t, arrival, aorder, na, n_jobs):
    """``Simulation._snapped``: the next arrival instead of ``t`` when ``t`` is a hair before it."""
    due = arrival[aorder[na]] if na < n_jobs else math.inf
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
def _run_for(cells, home, lo, nrows, run, ist, served, need, ends, offs, unstarted, first_run, pending, done_jobs,
             overhead, quantum, gap, time, start_row, resume_cut, track, rows_held, extra):
    """``Simulation._run_for`` on a matrix with rows: ``floor(gap)`` whole slices and, if
    ``gap`` is not whole, one slice cut short; ``ends`` are the jobs' finish offsets. Notes the
    finished jobs' times in ``pending`` and lists them in ``done_jobs``; returns how many.
    With ``track``, also the statistics of ``Simulation.run_stats`` (``slices.note_runs``):
    the most rows each job held in a slice it ran (``rows_held``) and the service it had in
    rows other than its home row (``extra``)."""
    n = ist[N_ROWS]
    n_done = 0
    whole, frac = _slices_of(gap)
    full = whole // n
    part = whole % n
    cut = (start_row + whole) % n
    share = max(frac - overhead, 0.0) / quantum
    for k in range(ist[N_RUN]):
        j = run[k]
        if nrows[j] == 1:
            d = (home[j] - start_row) % n
            hits = float(full + (1 if d < part else 0))
            in_cut = home[j] == cut
            first = d
        else:
            cnt = _job_offsets(cells, lo, j, n, start_row, offs)
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
        e = ends[k]
        done = e <= gap + EPS
        if done:
            served[j] = need[j]
        else:
            served[j] = min(served[j] + hits, need[j])
        if unstarted[j] and hits > 0:
            first_run[j] = time + float(first)
            unstarted[j] = False
        if done:
            pending[j] = time + min(e, gap)
            done_jobs[n_done] = j
            n_done += 1
    ist[NEXT_ROW] = (start_row + whole + (1 if frac > 0 and not resume_cut else 0)) % n
    return n_done


@jit
def _complete(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, pending, finish, done_jobs, n_done):
    """``Simulation._decide``'s completions: the finished jobs leave, by (finish, id)."""
    if n_done == 0:
        return
    ids = np.sort(done_jobs[:n_done].copy())
    fins = np.empty(n_done)
    for x in range(n_done):
        fins[x] = pending[ids[x]]
    order = np.argsort(fins, kind="mergesort")
    for x in range(n_done):
        j = ids[order[x]]
        _remove_job(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, j)
        finish[j] = pending[j]


@jit
def _start_placed(waiting, n_wait, home, start, unstarted, served, now):
    """The jobs the policy placed start now; the others keep waiting, FCFS. Returns how many wait."""
    keep = 0
    for w in range(n_wait):
        j = waiting[w]
        if home[j] < 0:  # still waiting
            waiting[keep] = j
            keep += 1
            continue
        start[j] = now
        unstarted[j] = True
        served[j] = 0.0
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


# One loop on purpose (hence the noqa: C901): its state lives in local arrays, which every
# helper split out of it would have to take a dozen of.
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
    arrival, size, work, est, aorder = jobs.arrival, jobs.size, jobs.work, jobs.est, jobs.aorder
    processors, mpl, backfill, migrate = cfg.processors, cfg.mpl, cfg.backfill, cfg.migrate
    q, cost_c, charge, overhead = cfg.q, cfg.migration_cost, cfg.charge, cfg.overhead
    small_max, stop_at, cut_at_departure, resume_cut = cfg.small_max, cfg.stop_at, cfg.cut_at_departure, cfg.resume_cut
    n_jobs = arrival.shape[0]
    quantum = 1.0 - overhead
    cells = np.full((mpl, processors), IDLE, np.int64)
    rbusy = np.zeros(3 * mpl, np.int64)  # busy cells per row, then the rows' changes (_touch)
    home = np.full(n_jobs, -1, np.int64)
    lo = np.zeros(n_jobs, np.int64)
    hi = np.zeros(n_jobs, np.int64)
    nrows = np.zeros(n_jobs, np.int64)
    cap = mpl * processors + 1
    run = np.zeros(cap, np.int64)
    runpos = np.zeros(n_jobs, np.int64)
    ist = np.zeros(8, np.int64)
    fst = np.zeros(2)
    served = np.zeros(n_jobs)
    need = work / quantum
    lost = np.zeros(n_jobs)
    pending = np.full(n_jobs, math.nan)
    start = np.full(n_jobs, math.nan)
    first_run = np.full(n_jobs, math.nan)
    finish = np.full(n_jobs, math.nan)
    unstarted = np.zeros(n_jobs, np.bool_)
    rows_held = np.zeros(n_jobs if placed else 0, np.int64)
    extra = np.zeros(n_jobs if placed else 0)
    waiting = np.zeros(n_jobs, np.int64)
    n_wait = 0
    seen = np.zeros(n_jobs, np.int64)
    blk = np.zeros(n_jobs, np.int64)
    moved = np.zeros(n_jobs, np.int64)
    fails = np.full((cap, mpl), -1, np.int64)  # FillMatrix-2's refusals (_fill_migrating)
    rchg = np.zeros(mpl, np.int64)
    jchg = np.zeros(n_jobs, np.int64)
    lst = np.zeros(processors + 1, np.int64)
    others = np.zeros(processors + 1, np.int64)
    occ = np.zeros(processors, np.int64)
    ban = np.zeros(processors, np.int64)
    plan = np.zeros(processors + 1, np.int64)
    offs = np.zeros(mpl, np.int64)
    ends = np.zeros(cap)
    done_jobs = np.zeros(cap, np.int64)
    busy0 = np.zeros(mpl, np.int64)
    # BGS planner: rows x breakpoints (each booking adds at most two)
    kcap = 2 * (n_jobs + (mpl + 2) * mpl * processors) + 8 if backfill else 1
    pt = np.zeros((mpl, kcap))
    pu = np.zeros((mpl, kcap), np.int64)
    pl = np.zeros(mpl, np.int64)
    rcap = n_jobs if backfill else 1
    res_job = np.zeros(rcap, np.int64)
    res_row = np.zeros(rcap, np.int64)
    res_s = np.zeros(rcap)
    res_e = np.zeros(rcap)
    res_size = np.zeros(rcap, np.int64)
    n_res = 0
    mig = np.zeros(2)  # one decision's migration overhead and tasks migrated
    mig_overhead = init.migration_overhead
    mig_tasks = init.migrated_tasks
    time = init.time
    na = 0
    decided = False
    max_rows = init.max_rows
    row_time = init.slot_time
    lost_all = init.lost
    lost_small = init.lost_small
    lost_large = init.lost_large
    shadow = np.full((mpl if placed else 0, processors), IDLE, np.int64)
    n_shadow = 0
    log_t = np.empty(LOG_START if placed else 0)
    log_e = np.empty((LOG_START if placed else 0, 4), np.int32)
    n_log = 0
    while True:
        # ---- Simulation._next_gap (event-driven, not watching)
        n = ist[N_ROWS]
        if decided and stop_at <= na < n_jobs and _may_stop(n, n_wait, n_res, arrival[aorder[na]], time):
            break
        start_row = ist[NEXT_ROW] % n if n else 0
        gap = 0.0
        best_end = math.inf
        if decided:
            gap = arrival[aorder[na]] - time if na < n_jobs else math.inf
            if n and ist[N_RUN]:
                best_end = _finish_offsets(cells, home, lo, nrows, run, ist, served, need, overhead, quantum,
                                           start_row, ends, offs)
                if not cut_at_departure:
                    best_end = _slice_end(best_end)
            if best_end < gap:
                gap = best_end
            if math.isinf(gap):
                break
        # ---- what run_with_capacity notes before the step
        small_w, large_w = _waiting_classes(waiting, n_wait, size, small_max)
        for r in range(n):
            busy0[r] = rbusy[r]
        n_before = n
        t0 = time
        n_done = 0
        # ---- Simulation._run_for
        if gap != 0.0:
            if n == 0:
                time = _snapped(time + gap, arrival, aorder, na, n_jobs)
            else:
                n_done = _run_for(cells, home, lo, nrows, run, ist, served, need, ends, offs, unstarted, first_run,
                                  pending, done_jobs, overhead, quantum, gap, time, start_row, resume_cut, placed,
                                  rows_held, extra)
                row_time += n * gap
                time = _snapped(time + gap, arrival, aorder, na, n_jobs)
        # ---- Simulation._decide
        decided = True
        now = time
        _complete(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, pending, finish, done_jobs, n_done)
        arrived = 0
        while na < n_jobs and arrival[aorder[na]] <= now:
            waiting[n_wait] = aorder[na]
            n_wait += 1
            na += 1
            arrived += 1
        if n_done or arrived:
            mig[0] = 0.0
            mig[1] = 0.0
            n_res = _policy(cells, rbusy, home, lo, hi, nrows, size, run, runpos, ist, fst, waiting, n_wait, mpl,
                            backfill, migrate, q, cost_c, charge, lost, need, work, quantum, start, est, now, seen,
                            blk, lst, others, occ, ban, plan, moved, pt, pu, pl, res_job, res_row, res_s, res_e,
                            res_size, n_res, mig, fails, rchg, jchg)
            mig_overhead += mig[0]
            mig_tasks += int(mig[1])
        n_wait = _start_placed(waiting, n_wait, home, start, unstarted, served, now)
        n = ist[N_ROWS]
        ist[NEXT_ROW] = ist[NEXT_ROW] % n if n else 0
        if n > max_rows:
            max_rows = n
        progress[0] = now
        if placed and (n_done or arrived or n != n_shadow):
            log_t, log_e, n_log = log_changes(cells, n, shadow, n_shadow, now, log_t, log_e, n_log,
                                                   rbusy[mpl:2 * mpl], rbusy[2 * mpl:])
            n_shadow = n
        # ---- run_with_capacity: the node-time lost in this step while jobs waited
        if not (small_w or large_w):
            continue
        amount = _lost_in_step(busy0, n_before, start_row, t0, time, processors, overhead, done_jobs, n_done,
                               finish, size)
        lost_all += amount
        if small_w:
            lost_small += amount
        if large_w:
            lost_large += amount
    totals = Totals(time, max_rows, mig_overhead, mig_tasks, lost_all, lost_small, lost_large, row_time)
    return Result(start, first_run, finish, totals, na, log_t[:n_log].copy(), log_e[:n_log].copy(), rows_held, extra)
