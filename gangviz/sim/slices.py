"""Slice arithmetic of the matrix engine: how far every job gets over a stretch of slices.

Pure functions over numpy arrays (the time model is in :mod:`gangviz.sim.engine`'s docstring):
the :class:`Table` of the jobs in the matrix, the gap to the next completion, and the progress,
finish times and per-job statistics of ``m`` whole slices (:func:`run_slices`) or of a stretch
that may end in a slice cut short (:func:`run_for`, event-driven). Nothing here steps a job
slice by slice: every gap is worked out at once, with the same integers either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from gangviz.core.matrix import OusterhoutMatrix
from gangviz.sim.state import RunState

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Tolerance of the event-driven arithmetic, in slices: a job this close to its end is done.
EPS = 1e-9

# The ufuncs' reductions, called directly: ndarray.min, .sum and .any add a Python-level call
# each, and these run several times at every decision point.
_min, _sum, _any = np.minimum.reduce, np.add.reduce, np.logical_or.reduce

#: An empty id array, shared: the table of a matrix where no job holds an extra slot.
_NO_IDS: IntArray = np.zeros(0, dtype=np.int64)
_NO_IDS.flags.writeable = False


class Table(NamedTuple):
    """The jobs in the matrix, by ascending id, and their progress.

    ``ids``, ``first`` (home row), ``count`` (rows held), ``served`` and ``need`` (slices of
    service) are per job; ``multi`` holds the positions of the jobs in several rows, ``flat``
    all their rows one job after the other and ``owner`` the position of the job owning each.
    """

    ids: IntArray
    first: IntArray
    held: IntArray
    served: FloatArray
    need: FloatArray
    multi: IntArray
    flat: IntArray
    owner: IntArray


class Offsets(NamedTuple):
    """For the jobs in several rows: each one's row offsets after the starting row in turn
    order (ascending within a job, jobs in table order), and where each job's offsets begin."""

    offsets: IntArray
    begins: IntArray


class Rates(NamedTuple):
    """The service a slice gives: ``overhead`` lost at its start, ``quantum`` = 1 - overhead."""

    overhead: float
    quantum: float


def build_table(matrix: OusterhoutMatrix, served: FloatArray, need: FloatArray) -> Table:
    """Return the :class:`Table` of ``matrix`` with progress ``served`` and ``need`` (by id)."""
    ids, first, count = matrix.placements()
    if _any(matrix.extra_per_processor()):
        multi = np.flatnonzero(count > 1)
        flat = matrix.rows_flat(ids[multi].tolist(), int(count[multi].sum()))
        owner = np.repeat(multi, count[multi])
    else:  # no job holds an extra slot (always so under BC and BR)
        multi = flat = owner = _NO_IDS
    return Table(ids, first, count, served[ids], need[ids], multi, flat, owner)


def multi_offsets(table: Table, n: int, start: int) -> Offsets:
    """Return the :class:`Offsets` of the table's jobs in several rows, the rows taking turns
    from row ``start`` of ``n``."""
    count, multi, flat, owner = table.held, table.multi, table.flat, table.owner
    key = owner * n + (flat - start) % n
    # Each job's rows are a few ascending runs (home row, then its extra rows in order),
    # which a merge sort finds: several times faster than quicksort here.
    offsets = np.sort(key, kind="stable") - owner * n
    begins = np.concatenate(([0], np.cumsum(count[multi])[:-1])).astype(np.int64)
    return Offsets(offsets, begins)


def boundary_gap(table: Table, n: int, start: int) -> float:
    """Return the whole slices until the first job of ``table`` finishes (``inf`` if none
    ever does), the rows taking turns from row ``start`` of ``n``."""
    first, count, multi = table.first, table.held, table.multi
    left = table.need - table.served
    if not len(multi):
        return float(_min((left - 1) * n + (first - start) % n + 1))
    single = count == 1
    best = math.inf
    if single.any():
        d = (first[single] - start) % n
        best = float(((left[single] - 1) * n + d + 1).min())
    offsets, begins = multi_offsets(table, n, start)
    left_m = left[multi]
    finite = np.isfinite(left_m)
    if finite.any():
        k = count[multi][finite]
        cycles, idx = np.divmod(left_m[finite].astype(np.int64) - 1, k)
        best = min(best, float((cycles * n + offsets[begins[finite] + idx] + 1).min()))
    return best


def finish_offsets(table: Table, n: int, start: int, rates: Rates) -> FloatArray:
    """Event-driven: the time from now until each job of the table finishes, the matrix
    staying as it is and fresh slices starting now with row ``start``.

    A job still needing ``left`` slices of service (a fraction counts) is served in
    ``c = ceil(left)`` more slices; it finishes in the last of them, ``overhead`` plus the
    rest of its work after that slice begins.
    """
    first, count, multi = table.first, table.held, table.multi
    left = table.need - table.served
    finite = np.isfinite(left)
    c = np.ones(len(left), dtype=np.int64)
    c[finite] = np.maximum(np.ceil(left[finite] - EPS), 1).astype(np.int64)
    last = (c - 1) * n + (first - start) % n
    if len(multi):
        offsets, begins = multi_offsets(table, n, start)
        cycles, idx = np.divmod(c[multi] - 1, count[multi])
        last[multi] = cycles * n + offsets[begins + idx]
    out: FloatArray = last + rates.overhead + (left - (c - 1)) * rates.quantum
    out[~finite] = math.inf
    return out


def count_busy(s: RunState, busy_rows: IntArray, n: int, start: int, whole: int, frac: float,
               span: float) -> None:
    """Add to ``s`` the processor-slices allocated in ``whole`` slices from row ``start`` of
    ``n`` rows (plus ``frac`` of the next one, cut short) and the slot-slices of ``span``."""
    full, part = divmod(whole, n)
    order = (np.arange(part) + start) % n
    busy = full * _sum(busy_rows) + _sum(busy_rows[order])
    if frac:
        busy = busy + frac * busy_rows[(start + whole) % n]
    s.busy_time += float(busy)
    s.row_time += n * span


def whole_hits(table: Table, n: int, start: int, d: IntArray, full: int, part: int) -> tuple[IntArray, Offsets | None]:
    """Return the slices each job of the table runs in ``full`` turns of the ``n`` rows and
    ``part`` more from row ``start`` (its home row coming ``d`` slices after ``start``), and the
    :class:`Offsets` of its multi-row jobs (if any)."""
    hits = full * table.held + (d < part)
    if not len(table.multi):
        return hits, None
    mo = multi_offsets(table, n, start)
    early = np.add.reduceat((mo.offsets < part).astype(np.int64), mo.begins)
    hits[table.multi] = full * table.held[table.multi] + early
    return hits, mo


def run_slices(s: RunState, table: Table, n: int, m: int, work: FloatArray, rates: Rates,
               first_cols: Callable[[int], Sequence[int]], first_seen: dict[int, Sequence[int]]) -> None:
    """Advance the progress in ``s`` over ``m`` whole slices of the matrix of ``table`` (``n``
    rows, starting at ``s.next_row``), and note the finish time of every job whose work runs out
    (``work``: service each job needs, by id). Leaves the clock and the turn to the caller."""
    start = s.next_row % n
    full, part = divmod(m, n)
    ids, count, served, need, multi = table.ids, table.held, table.served, table.need, table.multi
    d = (table.first - start) % n
    hits, mo = whole_hits(table, n, start, d, full, part)
    after = served + hits
    done = np.flatnonzero(after >= need).tolist()
    s.served[ids] = np.minimum(after, need)
    if mo is not None or s.unstarted:  # else no statistic can change
        note_runs(s, table, full, part, d, hits, after, mo, first_cols, first_seen)
    where = {int(i): b for i, b in zip(multi.tolist(), mo.begins.tolist())} if mo is not None and done else {}
    for i in done:
        job = int(ids[i])
        left = int(need[i] - served[i])
        k = int(count[i])
        if k == 1:
            last = (left - 1) * n + int(d[i])
        else:
            assert mo is not None
            cycles, idx = divmod(left - 1, k)
            last = cycles * n + int(mo.offsets[where[i] + idx])
        rest = float(work[job]) - (float(need[i]) - 1) * rates.quantum
        s.finish[job] = float(s.time + last + rates.overhead + rest)


def run_for(s: RunState, table: Table, n: int, gap: float, whole: int, frac: float, rates: Rates,
            ends: FloatArray, first_cols: Callable[[int], Sequence[int]],
            first_seen: dict[int, Sequence[int]]) -> None:
    """Event-driven: advance the progress in ``s`` over ``gap`` slices, split by the caller into
    ``whole`` slices and, if ``frac`` > 0, one more cut short after ``frac`` of a slice; ``ends``
    are :func:`finish_offsets` from now. A job whose end falls within ``gap`` gets its exact
    finish time."""
    start = s.next_row % n
    full, part = divmod(whole, n)
    cut = (start + whole) % n  # the row of the slice cut short (if frac > 0)
    ids, first, served, need, multi = table.ids, table.first, table.served, table.need, table.multi
    d = (first - start) % n
    int_hits, mo = whole_hits(table, n, start, d, full, part)
    hits = int_hits.astype(np.float64)
    in_cut = first == cut
    if mo is not None:
        in_cut[np.unique(table.owner[table.flat == cut])] = True
    share = max(frac - rates.overhead, 0.0) / rates.quantum if frac > 0 else 0.0
    if frac > 0:
        hits[in_cut] += share
    done = ends <= gap + EPS
    s.served[ids] = np.where(done, need, np.minimum(served + hits, need))
    if len(multi) or s.unstarted:  # else no statistic can change
        note_runs(s, table, full, part, d, hits, served + hits, mo, first_cols, first_seen, share)
    for i in np.flatnonzero(done).tolist():
        s.finish[int(ids[i])] = float(s.time + min(float(ends[i]), gap))


def note_runs(s: RunState, table: Table, full: int, part: int, d: IntArray, hits: npt.NDArray[np.number],
              after: FloatArray, mo: Offsets | None, first_cols: Callable[[int], Sequence[int]],
              first_seen: dict[int, Sequence[int]], cut_share: float = 0.0) -> None:
    """Update the per-job statistics of ``Simulation.run_stats`` for the slices just run:
    ``full`` whole turns of the rows and ``part`` more, home rows ``d`` slices after the first;
    in an event-driven run, then a slice cut short (row offset ``part``) that gave ``cut_share``
    of a slice's service. A job running for the first time has its columns (``first_cols``)
    kept in ``first_seen``."""
    ids, count, served, need, multi = table.ids, table.held, table.served, table.need, table.multi
    new: IntArray | tuple[()] = ()
    if s.unstarted:
        want = np.array(s.unstarted, dtype=np.int64)
        pos = np.minimum(np.searchsorted(ids, want), len(ids) - 1)
        present = ids[pos] == want  # a job terminated before its turn has left the matrix
        ran = present & (hits[pos] > 0)
        new = pos[ran]
        s.unstarted = want[present & ~ran].tolist()
    if len(new):
        first = d.astype(np.float64)
        if mo is not None:
            first[multi] = mo.offsets[mo.begins]  # the earliest of the job's rows in turn order
        s.first_run[ids[new]] = s.time + first[new]
        for job in ids[new].tolist():
            first_seen[job] = first_cols(job)
        s.rows_held[ids[new]] = np.maximum(s.rows_held[ids[new]], 1)
    if mo is not None:  # only jobs in several rows can hold more than one
        mids = ids[multi]
        held = s.rows_held[mids]
        s.rows_held[mids] = np.where(hits[multi] > 0, np.maximum(held, count[multi]), held)
        home_hits = full + (d[multi] < part) + cut_share * (d[multi] == part)
        useful = np.minimum(after[multi], need[multi]) - served[multi]
        s.extra_slices[ids[multi]] += np.maximum(useful - home_hits, 0)


def slice_end(gap: float) -> float:
    """Return the end of the slice in which an offset ``gap`` from the start of a fresh slice
    falls (whole slices, at least 1; ``inf`` stays ``inf``): when a departure does not cut the
    slice, it is decided there."""
    if math.isinf(gap):
        return gap
    return float(max(1, math.ceil(gap - EPS)))


def needed(work: float, quantum: float, event_driven: bool) -> float:
    """Slices of service a job of ``work`` (lost service included) needs in all; inf for
    endless work. Boundary-decided: whole slices; event-driven: fractions count."""
    if math.isinf(work):
        return math.inf
    if event_driven:  # fractions of a slice count (see the engine's docstring)
        return work / quantum
    # Arithmetic, not a search: the quotient is off by at most one slice from rounding,
    # so one correction each way suffices (work is below MAX_SLICES, so need is exact).
    need = math.ceil(work / quantum)
    if need > 1 and (need - 1) * quantum >= work:
        need -= 1
    elif need * quantum < work:
        need += 1
    return need


def needed_all(work: FloatArray, quantum: float, event_driven: bool) -> FloatArray:
    """Return :func:`needed` for every entry of ``work``, with the same float operations, so
    the values are identical."""
    if event_driven:  # fractions of a slice count, as in needed
        with np.errstate(all="ignore"):
            need = work / quantum
        need[np.isinf(work)] = math.inf
        return need
    with np.errstate(all="ignore"):
        need = np.ceil(work / quantum)
        down = (need > 1) & ((need - 1) * quantum >= work)
        up = ~down & (need * quantum < work)
        need = need - down + up
    need[np.isinf(work)] = math.inf
    return need


def grown(values: FloatArray, size: int, fill: float = 0.0) -> FloatArray:
    """Return a copy of ``values`` padded with ``fill`` to at least ``size`` entries."""
    out = np.full(max(size, len(values)), fill)
    out[: len(values)] = values
    return out
