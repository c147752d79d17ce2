"""The buddy schemes and the engine as compiled loops (numba), for headless runs.

All the compiled code of :mod:`gangviz.fast.buddy` lives in this one module, but for the
placement log's encoder (:mod:`gangviz.fast.placement_log`), shared with the gang loop: numba
caches each compiled function on disk, keyed by the source file it comes from, and a function
cached with another module's functions compiled into it would not be recompiled when only that
other module changes. So every function here is cached by the encoder's source too
(:func:`gangviz.jitcache.cached_with`); an edit of either file recompiles everything.

**The matrix.** The same state and moves as :class:`gangviz.core.matrix.OusterhoutMatrix` and
:mod:`gangviz.core.repack` (Zhou99 §3-§4: legal cuts, Property 1 and 2) on a
linear array, without change records:

* ``grid[c, r]`` is the job in processor ``c``, slot ``r`` (``IDLE`` = -1). The array is
  stored processor-major, so the slots of one processor are contiguous: a job's rows are
  found by scanning the column of its first processor (only its home row is kept, in
  ``home``).
* ``wlv``, ``extra`` and ``row_busy[0]`` are the workload vector, the replica cells per
  processor and the busy cells per slot, as the matrix keeps them. ``row_busy[1 + w, r]``
  has a bit set for each busy processor ``32 w .. 32 w + 31`` of slot ``r``: whether a block
  is free in a slot, or how far an idle run reaches, takes a word or two, not a cell per
  processor (the grid's slots are strided, a cache line per cell). The last two rows say
  which processors of slot ``r`` changed since the placement log last looked
  (:func:`_touch`: every change of the grid marks the bits, or adds or removes a slot), so
  the log scans those cells only, not the whole matrix after every decision.
* A job's columns are ``job_lo[j] .. job_hi[j] - 1`` (buddy placements are contiguous).
* ``present`` lists the jobs in the matrix by id (row 0) with the WLT node of their buddy block
  (row 1, heap numbering), so handing out extra slots reads one table per job.

**In and out.** A run takes named groups, :class:`Jobs` and :class:`Config`, and returns a
:class:`Result`. Inside, the functions take the arrays they work on one by one: the inner
loops index plain arrays, and grouping them (named tuples of arrays) made BRMMS 10-20% slower
(CPU time on SDSC-SP2).

**Service, without a pass over the jobs present.** The engine's served counters are kept so
that a decision costs no pass over every job present:

* ``rs[RUNS, r]`` counts the slices slot ``r`` has run. A job in one slot (most jobs) is
  not counted slice by slice: ``tgt[j]`` is the count its slot reaches in the slice where
  its work runs out, so its service is ``need - (tgt - rs[RUNS, home])``; it follows the job
  when a re-pack moves it to another slot.
* ``rs[FIRST, r]`` is the smallest ``tgt`` of the one-slot jobs of slot ``r``; ``rs[DIRTY, r]``
  says it must be worked out again from the slot's cells (a job left it). The next completion
  is then a pass over the slots, not the jobs; the jobs that finish in a gap of ``m`` slices
  finish in its last slice, so they are all in the slot that ran last.
* A job in more than one slot (``count`` > 1; a few at a time) is counted slice by slice as
  before, from ``mrows``: its slots in ascending order, at its place ``mpos[j]`` in the list
  ``multi`` (``meta[0]`` long), so its turn offsets come by binary search.

The matrix itself still changes cell by cell: the extra slots BRMS and BRMMS hand out and give
back are real changes, and their number per decision grows with the number of slots (BRMMS at
rho 0.9 on 128 processors: about 20, 65 and 138 per decision at 10,000, 40,000 and 160,000
jobs, mostly a job holding dozens of a block's slots finishing and the next job of that block
taking them all). What is per slot is kept small: a job takes all the slots free on its block
in one pass, the per-processor counts changing once; whether a block is free in a slot is a
word of ``row_busy``'s bits; a job's block is checked against the WLT nodes, closed as the pass
fills processors. What still grows with the backlog, per decision: the passes over the slots
(the next completion, the run counts, the slots free on a block, the rows of a re-pack) and
over the jobs present (the jobs whose node is open), and removing a slot (the rows above it
move down).

Why the cost per job follows the load: the backlog grows through a run only where the scheme
cannot keep up. BRMMS on 128 processors at rho 0.8 reaches a utilisation of 0.79-0.81, the
backlog stays put (at most 37-67 slots) and so do the matrix's changes (15 runs of processors,
about 200 cells, per job) and the loop's cost per job, from 10,000 to 160,000 jobs. At rho 0.9
its utilisation stays at 0.86-0.89, below the offered load: the backlog and the mean response
(430 to 3,183 slices) grow with the run, and the matrix's own changes per job grow 6x (34 to
212 runs, 436 to 2,583 cells), and a loop that keeps the matrix does at least those. An index of
the idle slots per processor (so that a block's hand-out and a re-pack visit only the slots
idle on its first processor) was tried and made the loop 15-27% slower: the scans it saves are
contiguous reads of one processor's slots, cheaper than keeping the index on every move.
(``benchmarks/bench_scale.py buddy [--load RHO] --changes`` prints these figures.)

:func:`gather` takes every decision :func:`gangviz.core.repack.gather` takes (the row with the
longest idle run, ties to the highest; the partner with the furthest reach, ties to the lowest;
the cheaper of the two merge plans of ``plans_on_a_line``, ties to moving).

**The schemes and the engine** follow :mod:`gangviz.policies.buddy`, :mod:`gangviz.policies.slots`
and :meth:`gangviz.sim.engine.Simulation.run` step for step; the functions below name the
reference function each one mirrors.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from gangviz.fast import placement_log
from gangviz.fast.placement_log import LOG_START, SPAN, log_changes
from gangviz.jitcache import cached_with

#: compiled with the shared placement-log encoder, so cached by its source too
jit = cached_with(placement_log)
jit_nogil = cached_with(placement_log, nogil=True)

IDLE = -1


class Jobs(NamedTuple):
    """The workload, jobs ``0 .. n-1`` in id order: arrival, size, work, ``need`` (the work in
    whole slices, rounded up) and ``aorder``, the jobs by (arrival, id)."""

    arrival: Any
    size: Any
    work: Any
    need: Any
    aorder: Any


class Config(NamedTuple):
    """A run's settings: processors, the scheme (0 BC, 1 BR, 2 BRMS, 3 BRMMS), whether a job
    holds its whole buddy block, whether extra slots are handed out at every decision (else at
    arrivals), and ``usable`` > 0, the machine's real size when the processors from it on are
    padding (never allocated)."""

    procs: int
    scheme: int
    occupy_block: bool
    extra_on_decision: bool
    usable: int


class Result(NamedTuple):
    """What a run returns: per job its start and finish; the end time, the largest slot count,
    slots x time and busy processors x time; the placement log (``log_t``, ``log_e``, empty
    unless asked for); per job the statistics of ``Simulation.run_stats`` (empty unless asked
    for: :func:`simulate_placed`)."""

    start: Any
    finish: Any
    time: float
    max_slots: int
    slot_time: float
    busy_time: float
    log_t: Any
    log_e: Any
    first_run: Any
    rows_held: Any
    extra_slices: Any
    first_lo: Any
    first_hi: Any

# The per-slot rows of ``rs`` (the module docstring, "Service").
RUNS = 0
FIRST = 1
DIRTY = 2
#: ``rs[FIRST, r]`` of a slot holding no job in one slot only.
NO_TARGET = 1 << 62
#: processors per word of ``row_busy``'s bits (module docstring, "The matrix")
BITS_LOG = 5
BITS = 1 << BITS_LOG


@jit
def level_best(wlv: np.ndarray, block: int, width: int = 0, usable: int = 0) -> tuple[int, int]:
    """Return ``(value, index)`` of the least-loaded non-zero WLT node covering ``block``
    processors (largest value, ties to the leftmost); ``(0, -1)`` when every node is zero.
    A node's value is the sum of its leaves when none of them is zero (Zhou00 §3). With
    ``usable`` > 0 only nodes whose first ``width`` processors lie below ``usable`` count (the
    rest of the machine is padding, allocation.best_block)."""
    best_v, best_i = 0, -1
    for b in range(wlv.shape[0] // block):
        if usable > 0 and b * block + width > usable:
            break
        total = 0
        for c in range(b * block, (b + 1) * block):
            if wlv[c] == 0:
                total = 0
                break
            total += wlv[c]
        if total > best_v:
            best_v, best_i = total, b
    return best_v, best_i


@jit
def _word_mask(c: int, hi: int) -> tuple[int, int, int]:
    """The word of ``row_busy``'s bits holding column ``c``, and the mask of its columns
    ``c .. hi - 1``: ``(word, mask, first column of the next word)``."""
    w = c >> BITS_LOG
    a = c & (BITS - 1)
    e = min(hi - (w << BITS_LOG), BITS)
    return w, ((1 << (e - a)) - 1) << a, (w + 1) << BITS_LOG


@jit
def _mark(row_busy, row, lo, hi, busy):
    """Set (``busy``) or clear the bits of columns ``lo .. hi - 1`` of ``row`` (and note the
    slot changed)."""
    _touch(row_busy, row, lo, hi)
    c = lo
    while c < hi:
        w, m, c = _word_mask(c, hi)
        if busy:
            row_busy[1 + w, row] |= m
        else:
            row_busy[1 + w, row] &= ~m


@jit
def _touch(row_busy, row, lo, hi):
    """Note that columns ``lo .. hi - 1`` of ``row`` changed: ``row_busy[-1, row]`` is the end
    of the changed columns (0: none), ``row_busy[-2, row]`` :data:`SPAN` minus their start: the marks
    of :mod:`gangviz.fast.placement_log`."""
    last = row_busy.shape[0] - 1
    if SPAN - lo > row_busy[last - 1, row]:
        row_busy[last - 1, row] = SPAN - lo
    if hi > row_busy[last, row]:
        row_busy[last, row] = hi


@jit
def _free_on(row_busy, row, lo, hi) -> bool:
    """Whether the columns ``lo .. hi - 1`` of ``row`` are all idle."""
    c = lo
    while c < hi:
        w, m, c = _word_mask(c, hi)
        if row_busy[1 + w, row] & m:
            return False
    return True


@jit
def _swap_marks(row_busy, row_a, row_b, lo, hi):
    """Exchange the bits of columns ``lo .. hi - 1`` between rows ``row_a`` and ``row_b`` (and
    note both slots changed)."""
    _touch(row_busy, row_a, lo, hi)
    _touch(row_busy, row_b, lo, hi)
    c = lo
    while c < hi:
        w, m, c = _word_mask(c, hi)
        va = row_busy[1 + w, row_a]
        vb = row_busy[1 + w, row_b]
        row_busy[1 + w, row_a] = (va & ~m) | (vb & m)
        row_busy[1 + w, row_b] = (vb & ~m) | (va & m)


@jit
def _lowest_bit(x: int) -> int:
    """The index of the lowest set bit of ``x`` (> 0, below ``2 ** BITS``)."""
    i = 0
    step = BITS >> 1
    while step:
        if not x & ((1 << step) - 1):
            x >>= step
            i += step
        step >>= 1
    return i


@jit
def _idle_run(row_busy: np.ndarray, row: int, lo: int, hi: int) -> int:
    """How many of the columns ``lo .. hi - 1`` are idle in ``row`` before its first busy cell."""
    c = lo
    while c < hi:
        w, m, nxt = _word_mask(c, hi)
        x = row_busy[1 + w, row] & m
        if x:
            return (w << BITS_LOG) + _lowest_bit(x) - lo
        c = nxt
    return hi - lo


@jit
def _open_run(grid: np.ndarray, row_busy: np.ndarray, n: int, at: int, hi: int,
              ties_high: bool) -> tuple[int, int]:
    """Among the rows idle on column ``at``, the one whose idle run from ``at`` (within
    ``hi``) is longest, ties to the highest row or the lowest; returns ``(row, run)``."""
    best_r, best_run = -1, -1
    for r in range(n):
        if grid[at, r] != IDLE:
            continue
        run = _idle_run(row_busy, r, at, hi)
        if run > best_run or (ties_high and run == best_run):
            best_r, best_run = r, run
    return best_r, best_run


@jit
def _plan(grid, row_a, row_b, first, last, busy_row, region_of, bounds, busy_a, busy_b, out):
    """One merge plan: the regions (between common legal cuts) holding a busy cell of
    ``busy_row`` among columns ``first .. last - 1``, consecutive regions joined. Writes
    ``(lo, hi)`` pairs to ``out``; returns ``(count, cells moved, two-sided regions)``."""
    count = 0
    last_region = -2
    for x in range(first, last):
        if grid[x, busy_row] == IDLE:
            continue
        i = region_of[x]
        if i == last_region:
            continue
        if i == last_region + 1:
            out[count - 1, 1] = bounds[i + 1]
        else:
            out[count, 0] = bounds[i]
            out[count, 1] = bounds[i + 1]
            count += 1
        last_region = i
    moved = 0
    two_sided = 0
    for k in range(count):
        in_a = busy_a[out[k, 1]] - busy_a[out[k, 0]]
        in_b = busy_b[out[k, 1]] - busy_b[out[k, 0]]
        moved += in_a + in_b
        if in_a > 0 and in_b > 0:
            two_sided += 1
    return count, moved, two_sided


@jit
def _swap(grid, row_a, row_b, lo, hi, home, row_busy, job_lo, count, tgt, rs, mrows, mpos):
    """Exchange rows ``row_a`` and ``row_b`` on columns ``lo .. hi - 1`` (both ends legal cuts
    in both rows). A job moved whose home row is one of the two gets the other as home."""
    moved_a = 0
    moved_b = 0
    for c in range(lo, hi):
        ja = grid[c, row_a]
        jb = grid[c, row_b]
        if ja != IDLE:
            moved_a += 1
            if job_lo[ja] == c:
                _flip_home(home, ja, row_a, row_b, count, tgt, rs)
                if count[ja] > 1 and ja != jb:
                    _multi_moved(mrows, mpos[ja], count[ja], row_a, row_b)
        if jb != IDLE:
            moved_b += 1
            if job_lo[jb] == c and jb != ja:
                _flip_home(home, jb, row_a, row_b, count, tgt, rs)
                if count[jb] > 1:
                    _multi_moved(mrows, mpos[jb], count[jb], row_b, row_a)
        grid[c, row_a] = jb
        grid[c, row_b] = ja
    row_busy[0, row_a] += moved_b - moved_a
    row_busy[0, row_b] += moved_a - moved_b
    _swap_marks(row_busy, row_a, row_b, lo, hi)


@jit
def _flip_home(home, job, row_a, row_b, count, tgt, rs):
    old = home[job]
    if old == row_a:
        new = row_b
    elif old == row_b:
        new = row_a
    else:
        return
    home[job] = new
    if count[job] == 1:
        _moved(job, old, new, tgt, rs)


@jit
def _multi_moved(mrows, i, k, old, new):
    """The job at ``i`` of the list of jobs in more than one slot moved from slot ``old`` to
    ``new``; its slots stay in ascending order."""
    q = 0
    while mrows[i, q] != old:
        q += 1
    while q > 0 and mrows[i, q - 1] > new:
        mrows[i, q] = mrows[i, q - 1]
        q -= 1
    while q < k - 1 and mrows[i, q + 1] < new:
        mrows[i, q] = mrows[i, q + 1]
        q += 1
    mrows[i, q] = new


@jit
def _moved(job, old, new, tgt, rs):
    """A job in one slot moved from slot ``old`` to ``new``: its target follows the new slot's
    run count (the service it has had stays), ``new``'s first target may drop and ``old``'s
    is looked at again."""
    tgt[job] += rs[RUNS, new] - rs[RUNS, old]
    if tgt[job] < rs[FIRST, new]:
        rs[FIRST, new] = tgt[job]
    rs[DIRTY, old] = 1


@jit
def gather(grid, n, lo, hi, home, row_busy, job_lo, count, tgt, rs, mrows, mpos) -> int:
    """Re-pack so that one row is idle on columns ``lo .. hi - 1``; return that row.

    Premise (unchecked): every column of the range has an idle slot. The steps are those of
    :func:`gangviz.core.repack.gather` on a linear array.
    """
    procs = grid.shape[0]
    width = hi - lo
    row, k = _open_run(grid, row_busy, n, lo, hi, True)
    if k >= width:
        return row
    bounds = np.empty(procs + 1, np.int64)
    region_of = np.empty(procs, np.int64)
    busy_a = np.empty(procs + 1, np.int64)
    busy_b = np.empty(procs + 1, np.int64)
    keep = np.empty((procs, 2), np.int64)
    move = np.empty((procs, 2), np.int64)
    while k < width:
        partner, run = _open_run(grid, row_busy, n, lo + k, hi, False)
        reach = k + run
        # Common legal cuts of the two rows: cut x (left of column x) is crossed when a job
        # of either row holds both x - 1 and x.
        nb = 0
        bounds[nb] = 0
        nb += 1
        busy_a[0] = 0
        busy_b[0] = 0
        for x in range(procs):
            a = grid[x, row]
            b = grid[x, partner]
            if x > 0:
                crossed = (a != IDLE and a == grid[x - 1, row]) or (b != IDLE and b == grid[x - 1, partner])
                if not crossed:
                    bounds[nb] = x
                    nb += 1
            region_of[x] = nb - 1
            busy_a[x + 1] = busy_a[x] + (a != IDLE)
            busy_b[x + 1] = busy_b[x] + (b != IDLE)
        bounds[nb] = procs
        mid = lo + k
        end = lo + reach
        n_keep, keep_moved, keep_two = _plan(grid, row, partner, mid, end, row, region_of, bounds, busy_a, busy_b, keep)
        n_move, move_moved, move_two = _plan(grid, row, partner, lo, mid, partner, region_of, bounds, busy_a, busy_b, move)
        if move_moved < keep_moved or (move_moved == keep_moved and move_two <= keep_two):
            row, partner = partner, row
            for i in range(n_move):
                _swap(grid, row, partner, move[i, 0], move[i, 1], home, row_busy, job_lo, count, tgt, rs, mrows, mpos)
        else:
            for i in range(n_keep):
                _swap(grid, row, partner, keep[i, 0], keep[i, 1], home, row_busy, job_lo, count, tgt, rs, mrows, mpos)
        k = _idle_run(row_busy, row, lo, hi)
    return row


# ----------------------------------------------------------------------- the matrix's moves


@jit
def _insert_present(present, n_present, job, node):
    """Add ``job``, whose buddy block is WLT node ``node``, to the jobs present (by id)."""
    i = n_present
    while i > 0 and present[0, i - 1] > job:
        present[0, i] = present[0, i - 1]
        present[1, i] = present[1, i - 1]
        i -= 1
    present[0, i] = job
    present[1, i] = node
    return n_present + 1


@jit
def _remove_present(present, n_present, job):
    lo, hi = 0, n_present - 1  # the jobs are in id order: binary search
    while lo < hi:
        mid = (lo + hi) >> 1
        if present[0, mid] < job:
            lo = mid + 1
        else:
            hi = mid
    i = lo
    while i < n_present - 1:
        present[0, i] = present[0, i + 1]
        present[1, i] = present[1, i + 1]
        i += 1
    return n_present - 1


@jit
def _put(grid, row, job, lo, hi, wlv, row_busy):
    for c in range(lo, hi):
        grid[c, row] = job
        wlv[c] -= 1
    row_busy[0, row] += hi - lo
    _mark(row_busy, row, lo, hi, True)


@jit
def _clear(grid, row, lo, hi, wlv, row_busy):
    for c in range(lo, hi):
        grid[c, row] = IDLE
        wlv[c] += 1
    row_busy[0, row] -= hi - lo
    _mark(row_busy, row, lo, hi, False)


@jit
def _release_extras(grid, n, job, home, count, job_lo, job_hi, wlv, extra, row_busy, rs, served, need, tgt,
                    multi, meta, mrows, mpos):
    """Give up every extra slot of ``job`` (JobUnreplicated): it is in one slot again."""
    lo, hi = job_lo[job], job_hi[job]
    i = mpos[job]
    for q in range(count[job]):
        r = mrows[i, q]
        if r != home[job]:
            for c in range(lo, hi):
                grid[c, r] = IDLE
            row_busy[0, r] -= hi - lo
            _mark(row_busy, r, lo, hi, False)
    k = count[job] - 1  # the columns' counts change once for all the slots given up
    for c in range(lo, hi):
        wlv[c] += k
        extra[c] -= k
    count[job] = 1
    _multi_remove(multi, meta, mrows, mpos, count, job)
    h = home[job]
    tgt[job] = rs[RUNS, h] + int(need[job] - served[job])
    if tgt[job] < rs[FIRST, h]:
        rs[FIRST, h] = tgt[job]


@jit
def _multi_remove(multi, meta, mrows, mpos, count, job):
    """Take ``job`` off the list of jobs in more than one slot: the last one takes its place."""
    i = mpos[job]
    meta[0] -= 1
    last = multi[meta[0]]
    if last != job:
        multi[i] = last
        mpos[last] = i
        for q in range(count[last]):
            mrows[i, q] = mrows[meta[0], q]


@jit
def _new_row_state(cap):
    rs = np.zeros((3, cap), np.int64)
    rs[FIRST, :] = NO_TARGET
    return rs


@jit
def _row_first(grid, r, count, tgt, job_hi):
    """The smallest target of the jobs in slot ``r`` that are in no other slot (``NO_TARGET``
    when there is none)."""
    best = NO_TARGET
    c = 0
    procs = grid.shape[0]
    while c < procs:
        j = grid[c, r]
        if j == IDLE:
            c += 1
            continue
        if count[j] == 1 and tgt[j] < best:
            best = tgt[j]
        c = job_hi[j]
    return best


@jit
def _node(procs, lo, hi):
    """The WLT node (heap numbering: the root is 1, node v's children 2v and 2v + 1) of the
    smallest aligned block covering columns ``lo .. hi - 1``."""
    b_lo, b_size = _buddy_block(lo, hi)
    return procs // b_size + b_lo // b_size


@jit
def _buddy_block(lo, hi):
    """The smallest aligned block covering columns ``lo .. hi - 1``: ``(start, size)``."""
    x = lo ^ (hi - 1)
    depth = 0
    while x:
        depth += 1
        x >>= 1
    return (lo >> depth) << depth, 1 << depth


# ---------------------------------------------------------------------------- the loop


@jit_nogil
def simulate(jobs, cfg, progress):
    """Run a workload to the end (Simulation.run with record=False); return a :class:`Result`
    without the placement log and the per-job statistics (empty); see :func:`_buddy_loop`."""
    return _buddy_loop(jobs, cfg, False, False, progress)


@jit_nogil
def simulate_placed(jobs, cfg, progress):
    """Run a workload as :func:`simulate` does (the same results, bit for bit) and also return
    where the jobs ran: the :class:`Result`'s placement log ``log_t``, ``log_e`` of
    :func:`~gangviz.fast.placement_log.log_changes`, written after every decision, jobs
    numbered as the loop numbers them, and per job the statistics of ``Simulation.run_stats``:
    the time of its first slice, the most slots it held in a slice it ran, the slices it ran in
    slots other than its home slot, and the processors it held in its first slice
    (``first_lo .. first_hi - 1``: a buddy placement is contiguous)."""
    return _buddy_loop(jobs, cfg, True, True, progress)


@jit_nogil
def simulate_stats(jobs, cfg, progress):
    """Run a workload as :func:`simulate_placed` does, without the placement log (empty): the
    per-job statistics are all a per-job table needs, and the log costs a pass over the
    matrix at every decision."""
    return _buddy_loop(jobs, cfg, False, True, progress)


# One compiled loop on purpose (hence the noqa: C901): it is the whole run time and keeps its
# state in local arrays, which every helper split out of it would have to take a dozen of.
@jit_nogil  # no GIL held: a sweep run in the window's worker thread leaves the GUI free
def _buddy_loop(jobs, cfg, placed, stats, progress):  # noqa: C901
    """Run a workload of :class:`Jobs` with the :class:`Config` to the end (Simulation.run with
    record=False); return a :class:`Result`: the placement log, empty unless ``placed``, and
    the per-job statistics of ``Simulation.run_stats`` (``slices.note_runs``; the processors of
    the first slice), empty unless ``stats``. After every decision the time goes to
    ``progress[0]`` (a one-element array another thread may read while the loop runs: the loop
    holds no GIL). Inputs are not checked: :func:`gangviz.fast.buddy.run_buddy` does that.
    """
    arrival, size, work, need, arrival_order = jobs.arrival, jobs.size, jobs.work, jobs.need, jobs.aorder
    procs, scheme, occupy_block = cfg.procs, cfg.scheme, cfg.occupy_block
    extra_on_decision, usable = cfg.extra_on_decision, cfg.usable
    n_jobs = arrival.shape[0]
    cap = 64
    grid = np.full((procs, cap), IDLE, np.int32)
    row_busy = np.zeros((3 + (procs + BITS - 1) // BITS, cap), np.int64)  # count, bits, changed columns
    rs = _new_row_state(cap)
    wlv = np.zeros(procs, np.int64)
    extra = np.zeros(procs, np.int64)
    home = np.full(n_jobs, -1, np.int64)
    count = np.zeros(n_jobs, np.int64)
    job_lo = np.zeros(n_jobs, np.int64)
    job_hi = np.zeros(n_jobs, np.int64)
    served = np.zeros(n_jobs)
    tgt = np.zeros(n_jobs, np.int64)
    multi = np.zeros(n_jobs + 1, np.int64)
    meta = np.zeros(1, np.int64)  # [0]: how many jobs ``multi`` lists
    mpos = np.zeros(n_jobs, np.int64)  # a listed job's place in ``multi``
    mrows = np.zeros((64, cap), np.int64)  # the slots of the job at each place of ``multi``
    start = np.full(n_jobs, np.nan)
    finish = np.full(n_jobs, np.nan)
    present = np.zeros((2, n_jobs + 1), np.int64)  # the jobs present by id; the WLT node of their block
    n_present = 0
    done = np.zeros(n_jobs, np.int64)  # jobs whose work ran out, not yet taken away
    n_done = 0
    arrived = np.zeros(n_jobs, np.int64)
    n = 0
    next_row = 0
    next_arrival = 0
    t = 0.0
    decided = False
    row_time = 0.0
    busy_time = 0.0
    max_rows = 0
    shadow = np.full((procs if placed else 0, cap), IDLE, np.int32)
    n_shadow = 0
    log_t = np.empty(LOG_START if placed else 0)
    log_e = np.empty((LOG_START if placed else 0, 4), np.int32)
    n_log = 0
    first_run = np.full(n_jobs if stats else 0, np.nan)
    rows_held = np.zeros(n_jobs if stats else 0, np.int64)
    extra_slices = np.zeros(n_jobs if stats else 0)
    first_lo = np.zeros(n_jobs if stats else 0, np.int64)
    first_hi = np.zeros(n_jobs if stats else 0, np.int64)
    unstarted = np.zeros(n_jobs if stats else 0, np.int64)  # jobs placed that have not run yet
    n_unstarted = 0
    while True:
        # ---- the gap to the next decision point (Simulation._next_gap)
        if decided:
            gap = math.inf
            if next_arrival < n_jobs:
                gap = float(math.ceil(arrival[arrival_order[next_arrival]])) - t
            if n > 0 and n_present > 0:
                begin = next_row % n
                # Jobs in one row: the first of each row to finish, in the row's turn.
                for r in range(n):
                    if rs[DIRTY, r]:
                        rs[FIRST, r] = _row_first(grid, r, count, tgt, job_hi)
                        rs[DIRTY, r] = 0
                    x = rs[FIRST, r]
                    if x != NO_TARGET:
                        off = r - begin
                        if off < 0:
                            off += n
                        g = float((x - rs[RUNS, r] - 1) * n + off + 1)
                        if g < gap:
                            gap = g
                for i in range(meta[0]):
                    j = multi[i]
                    left = need[j] - served[j]
                    k = count[j]
                    cycles = int(left - 1) // k
                    g = float(cycles * n + _turn_offset(mrows, i, k, n, begin, int(left - 1) - cycles * k) + 1)
                    if g < gap:
                        gap = g
            if math.isinf(gap):
                break
            # ---- run the slices (Simulation._run_slices)
            m = int(gap)
            if n == 0:
                t += m
            else:
                begin = next_row % n
                full = m // n
                part = m - full * n
                total = 0
                for r in range(n):
                    total += row_busy[0, r]
                busy = full * total
                for r in range(begin, min(begin + part, n)):
                    busy += row_busy[0, r]
                for r in range(begin + part - n):
                    busy += row_busy[0, r]
                busy_time += busy
                row_time += n * m
                # every row runs ``full`` times, the ``part`` rows from ``begin`` once more
                for r in range(n):
                    off = r - begin
                    if off < 0:
                        off += n
                    rs[RUNS, r] += full + (1 if off < part else 0)
                if stats:  # note_runs: the first slice of each job that runs now for the first time
                    n_unstarted = _note_first_runs(unstarted, n_unstarted, home, count, mpos, mrows, n, begin,
                                                   full, part, t, first_run, rows_held, job_lo, job_hi, first_lo,
                                                   first_hi)
                for i in range(meta[0]):
                    j = multi[i]
                    before = served[j]
                    k = count[j]
                    after = before + full * k + _turns_within(mrows, i, k, n, begin, part)
                    if stats and after > before:  # note_runs: rows held, service in extra slots
                        if k > rows_held[j]:
                            rows_held[j] = k
                        off = home[j] - begin
                        if off < 0:
                            off += n
                        beyond = min(after, need[j]) - before - (full + (1 if off < part else 0))
                        if beyond > 0:
                            extra_slices[j] += beyond
                    if after >= need[j]:
                        served[j] = need[j]
                        left = int(need[j] - before)
                        cycles = (left - 1) // k
                        last = cycles * n + _turn_offset(mrows, i, k, n, begin, left - 1 - cycles * k)
                        finish[j] = t + last + (work[j] - (need[j] - 1.0))
                        done[n_done] = j
                        n_done += 1
                    else:
                        served[j] = after
                # A job in one row that finishes in these slices finishes in the last one (m
                # is the smallest gap), so it is in the row that ran last.
                r = (begin + m - 1) % n
                if rs[FIRST, r] <= rs[RUNS, r]:
                    c = 0
                    while c < procs:
                        j = grid[c, r]
                        if j == IDLE:
                            c += 1
                            continue
                        if count[j] == 1 and tgt[j] <= rs[RUNS, r]:
                            served[j] = need[j]
                            finish[j] = t + (m - 1) + (work[j] - (need[j] - 1.0))
                            done[n_done] = j
                            n_done += 1
                        c = job_hi[j]
                next_row = (begin + m) % n
                t += m
        # ---- the decision point (Simulation._decide)
        decided = True
        _sort_done(done, n_done, finish)
        n_completed = n_done
        for i in range(n_done):
            j = done[i]
            if count[j] > 1:
                _release_extras(grid, n, j, home, count, job_lo, job_hi, wlv, extra, row_busy, rs, served,
                                need, tgt, multi, meta, mrows, mpos)
            _clear(grid, home[j], job_lo[j], job_hi[j], wlv, row_busy)
            rs[DIRTY, home[j]] = 1
            home[j] = -1
            count[j] = 0
            n_present = _remove_present(present, n_present, j)
        n_done = 0
        n_arrived = 0
        while next_arrival < n_jobs and arrival[arrival_order[next_arrival]] <= t:
            arrived[n_arrived] = arrival_order[next_arrival]
            n_arrived += 1
            next_arrival += 1
        if n_completed or n_arrived:
            if n + n_arrived + 1 > cap:  # each placement adds at most one slot
                new_cap = max(2 * cap, n + n_arrived + 1)
                grown = np.full((procs, new_cap), IDLE, np.int32)
                grown[:, :cap] = grid
                grid = grown
                busy_grown = np.zeros((row_busy.shape[0], new_cap), np.int64)
                busy_grown[:, :cap] = row_busy
                row_busy = busy_grown
                rs_grown = _new_row_state(new_cap)
                rs_grown[:, :cap] = rs
                rs = rs_grown
                mrows_grown = np.zeros((mrows.shape[0], new_cap), np.int64)
                mrows_grown[:, :cap] = mrows
                mrows = mrows_grown
                if placed:
                    shadow_grown = np.full((procs, new_cap), IDLE, np.int32)
                    shadow_grown[:, :cap] = shadow
                    shadow = shadow_grown
                cap = new_cap
            if n_present + n_arrived > mrows.shape[0]:  # every job present may take extra slots
                mrows_grown = np.zeros((2 * (n_present + n_arrived), cap), np.int64)
                mrows_grown[:mrows.shape[0]] = mrows
                mrows = mrows_grown
            n, next_row, n_present = _schedule(
                scheme, grid, n, next_row, arrived, n_arrived, n_completed, size, occupy_block,
                extra_on_decision, home, count, job_lo, job_hi, wlv, extra, row_busy, present, n_present,
                usable, rs, served, need, tgt, multi, meta, mrows, mpos)
            for i in range(n_arrived):
                start[arrived[i]] = t
                if stats:
                    unstarted[n_unstarted] = arrived[i]
                    n_unstarted += 1
        # Simulation._activate: the next row to run
        next_row = next_row % n if n else 0
        if n > max_rows:
            max_rows = n
        progress[0] = t
        if placed and (n_completed or n_arrived or n != n_shadow):
            log_t, log_e, n_log = log_changes(grid.T, n, shadow.T, n_shadow, t, log_t, log_e, n_log,
                                                   row_busy[-2], row_busy[-1])
            n_shadow = n
    return Result(start, finish, t, max_rows, row_time, busy_time, log_t[:n_log].copy(), log_e[:n_log].copy(),
                  first_run, rows_held, extra_slices, first_lo, first_hi)


@jit
def _note_first_runs(unstarted, n_unstarted, home, count, mpos, mrows, n, begin, full, part, t, first_run,
                     rows_held, job_lo, job_hi, first_lo, first_hi):
    """``slices.note_runs`` for the jobs not yet run (``unstarted[:n_unstarted]``), the slots
    taking ``full`` turns and ``part`` more from ``begin``: a job whose slot (the earliest of its
    slots, in turn order) comes now gets its first slice's time and processors and holds a
    slot. Returns how many are still to run, kept at the front of ``unstarted``."""
    w = 0
    for u in range(n_unstarted):
        j = unstarted[u]
        k = count[j]
        if k == 1:
            first = home[j] - begin
            if first < 0:
                first += n
            ran = full > 0 or first < part
        else:
            i = mpos[j]
            first = _turn_offset(mrows, i, k, n, begin, 0)
            ran = full > 0 or _turns_within(mrows, i, k, n, begin, part) > 0
        if ran:
            first_run[j] = t + float(first)
            first_lo[j] = job_lo[j]
            first_hi[j] = job_hi[j]
            if rows_held[j] < 1:
                rows_held[j] = 1
        else:
            unstarted[w] = j
            w += 1
    return w


@jit
def _below(mrows, i, k, row):
    """How many of the ``k`` slots listed (ascending) at ``mrows[i]`` lie below ``row``."""
    lo, hi = 0, k
    while lo < hi:
        mid = (lo + hi) >> 1
        if mrows[i, mid] < row:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def _turn_offset(mrows, i, k, n, begin, x):
    """The offset after ``begin`` of the ``x``-th (from 0) of the ``k`` slots listed at
    ``mrows[i]``, in turn order: the slots from ``begin`` up come first, then those below."""
    s = _below(mrows, i, k, begin)
    q = s + x
    if q >= k:
        return mrows[i, q - k] - begin + n
    return mrows[i, q] - begin


@jit
def _turns_within(mrows, i, k, n, begin, part):
    """How many of the ``k`` slots listed at ``mrows[i]`` run in the ``part`` (< n) slices
    from ``begin``."""
    end = begin + part
    if end <= n:
        return _below(mrows, i, k, end) - _below(mrows, i, k, begin)
    return k - _below(mrows, i, k, begin) + _below(mrows, i, k, end - n)


@jit
def _sort_done(done, n_done, finish):
    """Sort the first ``n_done`` jobs by (finish, id), as the reference takes them away."""
    for i in range(1, n_done):
        j = done[i]
        p = i
        while p > 0 and (finish[done[p - 1]] > finish[j] or (finish[done[p - 1]] == finish[j] and done[p - 1] > j)):
            done[p] = done[p - 1]
            p -= 1
        done[p] = j


# ------------------------------------------------------------------------- the policies


@jit
def _add_slot(grid, n, next_row, wlv, row_busy, rs):
    """SlotAdded on top; returns ``(n, next_row)`` as Simulation._activate moves the turn."""
    for c in range(grid.shape[0]):
        grid[c, n] = IDLE
        wlv[c] += 1
    row_busy[:, n] = 0
    _touch(row_busy, n, 0, grid.shape[0])  # a new slot
    rs[RUNS, n] = 0
    rs[FIRST, n] = NO_TARGET
    rs[DIRTY, n] = 0
    if n <= next_row:
        next_row += 1
    return n + 1, next_row


@jit
def _remove_slot(grid, n, row, next_row, wlv, row_busy, home, present, n_present, rs, count, multi, meta, mrows):
    """SlotRemoved: the empty ``row`` goes, rows above move down; returns ``(n, next_row)``."""
    for c in range(grid.shape[0]):
        for r in range(row, n - 1):
            grid[c, r] = grid[c, r + 1]
        wlv[c] -= 1
    for r in range(row, n - 1):
        for w in range(row_busy.shape[0]):
            row_busy[w, r] = row_busy[w, r + 1]
        _touch(row_busy, r, 0, grid.shape[0])  # the slot above moved here
        rs[RUNS, r] = rs[RUNS, r + 1]
        rs[FIRST, r] = rs[FIRST, r + 1]
        rs[DIRTY, r] = rs[DIRTY, r + 1]
    for i in range(n_present):
        j = present[0, i]
        if home[j] > row:
            home[j] -= 1
    for i in range(meta[0]):
        for q in range(count[multi[i]]):
            if mrows[i, q] > row:
                mrows[i, q] -= 1
    if row < next_row:
        next_row -= 1
    return n - 1, next_row


@jit
def _eliminate_slots(grid, n, next_row, wlv, row_busy, home, job_lo, present, n_present, count, tgt, rs, multi,
                     meta, mrows, mpos):
    """Property 2 while it holds (repack.eliminate_slots)."""
    procs = grid.shape[0]
    while n > 0 and wlv.min() >= 1:
        row = gather(grid, n, 0, procs, home, row_busy, job_lo, count, tgt, rs, mrows, mpos)
        n, next_row = _remove_slot(grid, n, row, next_row, wlv, row_busy, home, present, n_present, rs, count,
                                   multi, meta, mrows)
    return n, next_row


@jit
def _next_power_of_two(size):
    block = 1
    while block < size:
        block <<= 1
    return block


@jit
def _place_buddy(grid, n, next_row, job, size, occupy_block, home, count, job_lo, job_hi, wlv,
                 row_busy, present, n_present, usable, rs, need, tgt, mrows, mpos):
    """allocation.place_buddy; returns ``(n, next_row, n_present)``."""
    block = _next_power_of_two(size)
    width = block if occupy_block else size
    node = -1
    if n:
        node = level_best(wlv, block, width, usable)[1]
    if node < 0:
        n, next_row = _add_slot(grid, n, next_row, wlv, row_busy, rs)
        node = level_best(wlv, block, width, usable)[1]
    lo = node * block
    row = gather(grid, n, lo, lo + block, home, row_busy, job_lo, count, tgt, rs, mrows, mpos)
    n_present = _place_home(grid, row, job, lo, lo + width, home, count, job_lo, job_hi, wlv, row_busy,
                            present, n_present, rs, need, tgt)
    return n, next_row, n_present


@jit
def _place_home(grid, row, job, lo, hi, home, count, job_lo, job_hi, wlv, row_busy, present, n_present, rs,
                need, tgt):
    """JobPlaced: ``job`` runs on columns ``lo .. hi - 1`` of ``row``, its home row; returns the
    new number of jobs present."""
    _put(grid, row, job, lo, hi, wlv, row_busy)
    home[job] = row
    count[job] = 1
    job_lo[job] = lo
    job_hi[job] = hi
    tgt[job] = rs[RUNS, row] + int(need[job])
    if tgt[job] < rs[FIRST, row]:
        rs[FIRST, row] = tgt[job]
    return _insert_present(present, n_present, job, _node(grid.shape[0], lo, hi))


@jit
def _place_bc(grid, n, next_row, job, size, occupy_block, home, count, job_lo, job_hi, wlv,
              row_busy, present, n_present, usable, rs, need, tgt):
    """BC: the lowest slot with a free block, its leftmost block; else a new slot on top."""
    procs = grid.shape[0]
    block = _next_power_of_two(size)
    width = block if occupy_block else size
    row, lo = -1, 0
    for r in range(n):
        if row_busy[0, r] > procs - block:
            continue
        for b in range(procs // block):
            if usable > 0 and b * block + width > usable:
                break
            if _free_on(row_busy, r, b * block, (b + 1) * block):
                row, lo = r, b * block
                break
        if row >= 0:
            break
    if row < 0:
        n, next_row = _add_slot(grid, n, next_row, wlv, row_busy, rs)
        row, lo = n - 1, 0
    n_present = _place_home(grid, row, job, lo, lo + width, home, count, job_lo, job_hi, wlv, row_busy,
                            present, n_present, rs, need, tgt)
    return n, next_row, n_present


@jit
def _replicate_where_free(grid, n, home, count, job_lo, job_hi, wlv, extra, row_busy, present, n_present, rs,
                          served, need, tgt, multi, meta, mrows, mpos):
    """slots.replicate_where_free: jobs, by id, take every extra slot their block offers."""
    if n == 0 or wlv.max() == 0:
        return
    procs = grid.shape[0]
    # open[v]: WLT node v covers no processor without an idle cell (leaves first, then up)
    open_ = np.zeros(2 * procs, np.bool_)
    for c in range(procs):
        open_[procs + c] = wlv[c] > 0
    for v in range(procs - 1, 0, -1):
        open_[v] = open_[2 * v] and open_[2 * v + 1]
    visit = np.empty((2, n_present), np.int64)
    taken = np.empty(n, np.int64)
    n_visit = 0
    for i in range(n_present):
        if open_[present[1, i]]:
            visit[0, n_visit] = present[0, i]
            visit[1, n_visit] = present[1, i]
            n_visit += 1
    # Taking extra slots closes nodes as it goes (a processor's last idle cell taken closes
    # every node above it), so whether a job's block still has an idle cell on every processor
    # is one look at its node, not a pass over the block.
    for i in range(n_visit):
        j = visit[0, i]
        node = visit[1, i]
        if not open_[node]:
            continue
        lo, hi = job_lo[j], job_hi[j]
        b_lo, b_size = _buddy_block(lo, hi)
        b_hi = b_lo + b_size
        k = 0
        for r in range(n):
            if grid[b_lo, r] != IDLE:
                continue
            if _free_on(row_busy, r, b_lo + 1, b_hi):
                for c in range(lo, hi):
                    grid[c, r] = j
                row_busy[0, r] += hi - lo
                _mark(row_busy, r, lo, hi, True)
                taken[k] = r
                k += 1
        if k:
            _took_extras(j, taken, k, lo, hi, wlv, extra, home, count, rs, served, need, tgt, multi, meta, mrows,
                         mpos)
            _close_full(open_, wlv, lo, hi)
        while open_[node]:
            r = gather(grid, n, b_lo, b_hi, home, row_busy, job_lo, count, tgt, rs, mrows, mpos)
            _take_extra(grid, r, j, lo, hi, wlv, extra, row_busy, home, count, rs, served, need, tgt, multi, meta, mrows, mpos)
            _close_full(open_, wlv, lo, hi)


@jit
def _close_full(open_, wlv, lo, hi):
    """Close the WLT nodes (``open_``, heap numbering) above each of the columns ``lo .. hi - 1``
    left without an idle cell."""
    procs = wlv.shape[0]
    for c in range(lo, hi):
        if wlv[c] == 0:
            v = procs + c
            while v >= 1 and open_[v]:
                open_[v] = False
                v >>= 1


@jit
def _count_by_slice(job, home, rs, served, need, tgt, multi, meta, mrows, mpos):
    """A job in one slot until now is about to take more: its service so far is worked out from
    its slot's run count, and it joins the list of jobs counted slice by slice, its home slot
    first (the module docstring, "Service")."""
    h = home[job]
    served[job] = need[job] - (tgt[job] - rs[RUNS, h])
    rs[DIRTY, h] = 1
    multi[meta[0]] = job
    mpos[job] = meta[0]
    mrows[meta[0], 0] = h
    meta[0] += 1


@jit
def _took_extras(job, taken, k, lo, hi, wlv, extra, home, count, rs, served, need, tgt, multi, meta, mrows, mpos):
    """JobReplicated for the ``k`` slots ``taken[:k]`` (ascending) whose cells ``job`` already
    holds: the columns' counts change once for all of them, and the job's slot list takes them
    in one merge (a job in one slot until now is counted slice by slice from here on, as in
    :func:`_take_extra`)."""
    for c in range(lo, hi):
        wlv[c] -= k
        extra[c] += k
    if count[job] == 1:
        _count_by_slice(job, home, rs, served, need, tgt, multi, meta, mrows, mpos)
    i = mpos[job]
    a = count[job] - 1  # merge from the top: the listed slots and the new ones, both ascending
    b = k - 1
    for q in range(count[job] + k - 1, -1, -1):
        if b < 0 or (a >= 0 and mrows[i, a] > taken[b]):
            mrows[i, q] = mrows[i, a]
            a -= 1
        else:
            mrows[i, q] = taken[b]
            b -= 1
        if b < 0:
            break  # the rest of the listed slots are in place already
    count[job] += k


@jit
def _take_extra(grid, row, job, lo, hi, wlv, extra, row_busy, home, count, rs, served, need, tgt, multi, meta, mrows, mpos):
    """JobReplicated: ``job`` also runs in ``row``; a job in one slot until now has its service
    worked out and is counted slice by slice from here on."""
    _put(grid, row, job, lo, hi, wlv, row_busy)
    for c in range(lo, hi):
        extra[c] += 1
    if count[job] == 1:
        _count_by_slice(job, home, rs, served, need, tgt, multi, meta, mrows, mpos)
    i = mpos[job]
    q = count[job]
    while q > 0 and mrows[i, q - 1] > row:  # the slots stay in ascending order
        mrows[i, q] = mrows[i, q - 1]
        q -= 1
    mrows[i, q] = row
    count[job] += 1


@jit
def _release_replicas(grid, n, lo, hi, home, count, job_lo, job_hi, wlv, extra, row_busy, rs, served, need, tgt,
                      multi, meta, mrows, mpos):
    """slots.release_replicas: jobs whose buddy block overlaps ``lo .. hi - 1`` give up all
    their extra slots. The reference takes them by id; a job's release touches only its own
    cells, so any order gives the same matrix, and the jobs in more than one slot are taken
    from their own list."""
    i = 0
    while i < meta[0]:
        j = multi[i]
        b_lo, b_size = _buddy_block(job_lo[j], job_hi[j])
        if b_lo < hi and b_lo + b_size > lo:
            # takes ``j`` off the list, the last job of the list comes to ``i``
            _release_extras(grid, n, j, home, count, job_lo, job_hi, wlv, extra, row_busy, rs, served, need, tgt,
                            multi, meta, mrows, mpos)
        else:
            i += 1


@jit
def _relaxed_best(wlv, extra, block, width, usable):
    """slots.relaxed_level's largest node (first of the largest): ``(value, index)``; with
    ``usable`` > 0 only nodes whose first ``width`` processors are real."""
    best_v, best_i = 0, 0
    for b in range(wlv.shape[0] // block):
        if usable > 0 and b * block + width > usable:
            break
        total = 0
        for c in range(b * block, (b + 1) * block):
            v = wlv[c] + extra[c]
            if v == 0:
                total = 0
                break
            total += v
        if total > best_v:
            best_v, best_i = total, b
    return best_v, best_i


@jit
def _schedule(scheme, grid, n, next_row, arrived, n_arrived, n_completed, size, occupy_block,
              extra_on_decision, home, count, job_lo, job_hi, wlv, extra, row_busy, present, n_present,
              usable, rs, served, need, tgt, multi, meta, mrows, mpos):
    """One decision point of the scheme (buddy.BC/BR/BRMS/BRMMS.schedule, in their order)."""
    procs = grid.shape[0]
    if scheme == 0:  # BC
        if n_completed:
            for row in range(n - 1, -1, -1):  # empty slots, top first
                if row_busy[0, row] == 0:
                    n, next_row = _remove_slot(grid, n, row, next_row, wlv, row_busy, home, present, n_present, rs,
                                               count, multi, meta, mrows)
        for i in range(n_arrived):
            j = arrived[i]
            n, next_row, n_present = _place_bc(grid, n, next_row, j, size[j], occupy_block, home, count,
                                               job_lo, job_hi, wlv, row_busy, present, n_present, usable, rs,
                                               need, tgt)
        return n, next_row, n_present
    for i in range(n_arrived):
        j = arrived[i]
        if scheme == 3 and n:
            block = _next_power_of_two(size[j])
            width = block if occupy_block else size[j]
            if level_best(wlv, block, width, usable)[1] < 0:
                value, index = _relaxed_best(wlv, extra, block, width, usable)
                if value > 0:
                    _release_replicas(grid, n, index * block, (index + 1) * block, home, count, job_lo,
                                      job_hi, wlv, extra, row_busy, rs, served, need, tgt, multi, meta, mrows, mpos)
        n, next_row, n_present = _place_buddy(grid, n, next_row, j, size[j], occupy_block, home, count,
                                              job_lo, job_hi, wlv, row_busy, present, n_present, usable, rs,
                                              need, tgt, mrows, mpos)
    if scheme == 3 and n and wlv.min() == 0 and (wlv + extra).min() >= 1:
        _release_replicas(grid, n, 0, procs, home, count, job_lo, job_hi, wlv, extra, row_busy, rs, served, need,
                          tgt, multi, meta, mrows, mpos)
    n, next_row = _eliminate_slots(grid, n, next_row, wlv, row_busy, home, job_lo, present, n_present, count, tgt,
                                   rs, multi, meta, mrows, mpos)
    if scheme >= 2 and (n_arrived > 0 or extra_on_decision):
        _replicate_where_free(grid, n, home, count, job_lo, job_hi, wlv, extra, row_busy, present, n_present, rs,
                              served, need, tgt, multi, meta, mrows, mpos)
    return n, next_row, n_present
