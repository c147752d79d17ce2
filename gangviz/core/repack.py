"""Job re-packing on a one-dimensional linear array (or ring).

Zhou99 §3. Re-packing rearranges the order in which jobs run on their
*own* processors: a process never changes column, only row.

* A *legal cut* between two slots is a vertical line that splits no job in either slot; the
  jobs between two legal cuts may exchange rows with their counterparts (proof of Property 1).
* :func:`merge_rows` is the efficient form of Fig. 4: it finds every legal cut common to the two
  rows at once and swaps each region that needs it exactly once (regions that need a swap are
  never adjacent after merging neighbours, so they alternate with regions left in place).
* :func:`gather` is the constructive proof of Properties 1 and 2: it grows an idle fragment from
  the left end of a column range, merging in, one row at a time, the row that holds the idle
  fragment adjacent to it. Its result is a row idle on the whole range.
* :func:`eliminate_slots` applies Property 2: while every processor has an idle slot, gather the
  idle fragments into one slot and remove it.
* On a ring (end of §3) there is no natural boundary, so two rows are first broken at a legal
  cut common to both; the linear argument then applies. Properties 1 and 2 are proved for a
  linear array only: when two rows of a ring share no legal cut outside the run being freed,
  their fragments cannot be combined by legal shifts. :func:`ring_gather` then leaves the matrix
  as it was and says so; a placement opens a new slot instead (as when no window has an idle
  slot) and :func:`eliminate_slots` stops removing slots.

Tie-breaks (documented choices where the paper is silent):

* The growing fragment starts in the row with the longest idle run from the left end of the
  range; ties go to the highest row (so, as in Fig. 2, upper slots are the ones that empty).
* At each gap the row merged in is the one whose idle run from the gap reaches furthest right;
  ties go to the lowest row (Fig. 5: J4 shifts to S3, not S4). The fragment grown so far may
  then either stay in its row (the jobs right of the gap move) or move into the partner row (the
  jobs left of it move); the cheaper way wins: fewer processes moved, then fewer two-sided
  swaps, then moving. This is how the papers play their examples: in Fig. 2 J1 and J2 move up,
  J5 and J6 come down, then J7 comes down; in Fig. 6 J6 shifts down to S1 so that a 4-processor
  job fits on P5..P8 in S3.
* A region whose jobs move into an idle region of the other row is recorded as
  :class:`~gangviz.core.changes.JobShifted` records (one legal shift per job, as the paper
  narrates Fig. 2); a region with jobs on both sides is one
  :class:`~gangviz.core.changes.RegionSwapped`.

Every function applies its changes to the matrix and appends them to ``out``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gangviz.core.changes import (
    JobShifted,
    MatrixChange,
    RegionSwapped,
    SlotRemoved,
    cols_label,
)
from gangviz.core.matrix import (
    IDLE,
    OusterhoutMatrix,
    col_index,
    processor_label,
    slot_label,
)

#: A merge plan (the regions to swap) with its cost (processes moved, two-sided swaps).
CostedPlan = tuple[list[tuple[int, int]], tuple[int, int]]


class RepackError(ValueError):
    """The premise of a re-packing property does not hold (a column has no idle slot)."""


class NoRingCut(RepackError):
    """On a ring, two rows share no legal cut to break the ring at, so their fragments cannot be
    combined by legal shifts (end of [Zhou99 §3])."""


def emit(m: OusterhoutMatrix, out: list[MatrixChange], change: MatrixChange) -> None:
    """Apply ``change`` to ``m`` and append it to ``out``."""
    change.apply(m)
    out.append(change)


def crossings(m: OusterhoutMatrix, row: int) -> np.ndarray:
    """Return a boolean array: ``result[x]`` is true when a job of ``row`` crosses cut ``x``.

    Cut ``x`` lies just left of column ``x`` (between ``P_x`` and ``P_{x+1}`` in the paper's
    1-based names). On a linear array cut 0 (the left end) is never crossed; on a ring cut 0 lies
    between the last and the first processor.
    """
    cells = m.cells[row]
    cross = np.empty(len(cells), dtype=bool)
    np.logical_and(cells[1:] == cells[:-1], cells[1:] != IDLE, out=cross[1:])
    cross[0] = bool(m.ring and cells[0] == cells[-1] and cells[0] != IDLE)
    return cross


def common_legal_cuts(m: OusterhoutMatrix, row_a: int, row_b: int) -> list[int]:
    """Return the cuts legal in both rows, ascending (a linear array also has cut N)."""
    ok = ~(crossings(m, row_a) | crossings(m, row_b))
    cuts = np.flatnonzero(ok).tolist()
    if not m.ring:
        cuts.append(m.processors)
    return cuts


def _cut_label(m: OusterhoutMatrix, x: int) -> str:
    n = m.processors
    x %= n if m.ring else n + 1
    if not m.ring and x == 0:
        return "the left end"
    if not m.ring and x == n:
        return "the right end"
    return f"{processor_label((x - 1) % n)}|{processor_label(x % n)}"


def plan_merge(
    m: OusterhoutMatrix, row_a: int, row_b: int, target: Sequence[int], cuts: list[int] | None = None
) -> list[tuple[int, int]]:
    """Return the regions :func:`merge_rows` would swap to make ``row_a`` idle on ``target``.

    Regions are ``(lo, hi)`` column ranges between common legal cuts (``hi`` may exceed N on a
    ring); neighbouring regions are merged, so the regions returned alternate with regions left
    in place. ``cuts`` may pass :func:`common_legal_cuts` of the two rows when known. Raises
    :class:`RepackError` when the premise of :func:`merge_rows` fails.
    """
    return plan_both(m, row_a, row_b, target, cuts)[0][0]


def plan_both(
    m: OusterhoutMatrix, row_a: int, row_b: int, target: Sequence[int], cuts: list[int] | None = None
) -> tuple[CostedPlan, CostedPlan]:
    """Return both ways to merge two rows, each as ``(plan, cost)``: first the plan that makes
    ``row_a`` idle on ``target`` (:func:`plan_merge`), then the one that makes ``row_b`` idle
    there. A cost is ``(processes moved, two-sided swaps)``: the busy cells of both rows in
    the swapped regions, and how many of those regions hold jobs in both rows.

    The two plans share the rows' legal cuts and idle cells, so they are found in one pass.
    Raises :class:`RepackError` as :func:`plan_merge`.
    """
    n = m.processors
    cells = m.cells
    want = np.zeros(n, dtype=bool)
    if isinstance(target, range):
        want[target.start : target.stop] = True
    else:
        want[list(target)] = True
    a_busy = cells[row_a] != IDLE
    b_busy = cells[row_b] != IDLE
    if np.any(want & a_busy & b_busy):
        bad = int(np.flatnonzero(want & a_busy & b_busy)[0])
        raise RepackError(
            f"cannot merge {slot_label(row_a)} and {slot_label(row_b)}: "
            f"{processor_label(bad)} is busy in both"
        )
    if cuts is None:
        cuts = common_legal_cuts(m, row_a, row_b)
    if m.ring:
        # Break the ring at a common legal cut that does not fall inside the target run, so
        # that the run stays contiguous once the ring is unrolled (the argument needs that).
        target = list(target)
        inside = set(target[1:]) if len(target) < n else set()
        usable = [c for c in cuts if c not in inside]
        if not usable:
            raise NoRingCut(
                f"{slot_label(row_a)} and {slot_label(row_b)} share no legal cut to break the ring at"
            )
        start = usable[0]
        bounds = [c for c in cuts if c >= start] + [c + n for c in cuts if c < start] + [start + n]
    else:
        bounds = cuts
    if len(bounds) < 2:
        return ([], (0, 0)), ([], (0, 0))
    # Per region between neighbouring cuts (on a ring the arrays are unrolled twice): does a
    # wanted cell of a row hold a job (then that row's plan swaps the region); both at once is
    # impossible by the argument of merge_rows, and guarded all the same.
    edges = np.asarray(bounds)

    def running(flags: np.ndarray) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(np.tile(flags, 2) if m.ring else flags)))

    def per_region(flags: np.ndarray) -> np.ndarray:
        total = running(flags)
        found: np.ndarray = total[edges[1:]] > total[edges[:-1]]
        return found

    need_a = per_region(want & a_busy)
    need_b = per_region(want & b_busy)
    if np.any(need_a & need_b):
        raise RepackError(f"no legal re-pack of {slot_label(row_a)} with {slot_label(row_b)}")
    busy_a, busy_b = running(a_busy), running(b_busy)

    def plan(need: np.ndarray) -> CostedPlan:
        swaps: list[list[int]] = []
        for i in np.flatnonzero(need).tolist():
            lo, hi = bounds[i], bounds[i + 1]
            if swaps and swaps[-1][1] == lo:
                swaps[-1][1] = hi
            else:
                swaps.append([lo, hi])
        regions = [(lo - n, hi - n) if lo >= n else (lo, hi) for lo, hi in swaps]
        if not regions:
            return regions, (0, 0)
        lo_i, hi_i = np.asarray(regions).T
        moved_a, moved_b = busy_a[hi_i] - busy_a[lo_i], busy_b[hi_i] - busy_b[lo_i]
        cost = (int(moved_a.sum() + moved_b.sum()), int(np.count_nonzero((moved_a > 0) & (moved_b > 0))))
        return regions, cost

    return plan(need_a), plan(need_b)


def plans_on_a_line(
    a: np.ndarray, b: np.ndarray, lo: int, k: int, reach: int
) -> tuple[CostedPlan, CostedPlan]:
    """:func:`plan_both` for one step of :func:`gather` on a linear array, in fewer operations.

    ``a`` and ``b`` are the cells of the two rows; ``a`` is idle on ``[lo, lo + k)`` and ``b``
    on ``[lo + k, lo + reach)``, and the target is ``[lo, lo + reach)``. So the target cells
    ``a`` holds lie right of ``lo + k`` and those ``b`` holds left of it, and the premise of
    :func:`merge_rows` holds by construction. Returns what ``plan_both(m, row_a, row_b,
    range(lo, lo + reach))`` returns; raises :class:`RepackError` as it does.
    """
    n = len(a)
    a_busy = a != IDLE
    b_busy = b != IDLE
    crossed = (a[1:] == a[:-1]) & a_busy[1:]
    crossed |= (b[1:] == b[:-1]) & b_busy[1:]
    bounds = np.concatenate(([0], np.flatnonzero(~crossed) + 1, [n]))
    mid, end = lo + k, lo + reach
    # The regions (between neighbouring common legal cuts) holding a busy target cell of a row.
    need_a = np.searchsorted(bounds, np.flatnonzero(a_busy[mid:end]) + mid, side="right") - 1
    need_b = np.searchsorted(bounds, np.flatnonzero(b_busy[lo:mid]) + lo, side="right") - 1
    busy_a = np.concatenate(([0], np.cumsum(a_busy))).tolist()
    busy_b = np.concatenate(([0], np.cumsum(b_busy))).tolist()
    edges = bounds.tolist()

    def plan(need: list[int]) -> CostedPlan:
        regions: list[tuple[int, int]] = []
        last = -2
        for i in need:
            if i == last:
                continue
            if i == last + 1:
                regions[-1] = (regions[-1][0], edges[i + 1])
            else:
                regions.append((edges[i], edges[i + 1]))
            last = i
        moved = two_sided = 0
        for r_lo, r_hi in regions:
            in_a, in_b = busy_a[r_hi] - busy_a[r_lo], busy_b[r_hi] - busy_b[r_lo]
            moved += in_a + in_b
            two_sided += in_a > 0 and in_b > 0
        return regions, (moved, two_sided)

    regions_a, regions_b = need_a.tolist(), need_b.tolist()
    if not set(regions_a).isdisjoint(regions_b):  # impossible by the argument of merge_rows
        raise RepackError("no legal re-pack of the two rows")
    return plan(regions_a), plan(regions_b)


def merge_rows(
    m: OusterhoutMatrix,
    row_a: int,
    row_b: int,
    target: Sequence[int],
    out: list[MatrixChange],
    why: str = "Property 1",
) -> None:
    """Make ``row_a`` idle on every column of ``target`` by legal swaps with ``row_b``.

    Premise: every target column is idle in ``row_a`` or in ``row_b``. Then, within each region
    between consecutive common legal cuts, the target columns are all idle in one of the two
    rows (between an idle cell of one row and an idle cell of the other there is always a common
    legal cut), so swapping exactly the regions whose idle part lies in ``row_b`` suffices, each
    once (Fig. 4).

    Raises :class:`RepackError` if the premise fails, or, on a ring, if the two rows have no
    common legal cut to break the ring at.
    """
    for lo, hi in plan_merge(m, row_a, row_b, target):
        _swap_region(m, row_a, row_b, lo, hi, out, why)


def _swap_region(
    m: OusterhoutMatrix, row_a: int, row_b: int, lo: int, hi: int, out: list[MatrixChange], why: str
) -> None:
    """Record the exchange of ``[lo, hi)`` between two rows as shifts or one region swap."""
    cols = m.region_cols(lo, hi)
    idx = list(cols) if not isinstance(cols, range) else cols
    a_jobs = _jobs_in(m.cells[row_a, idx])
    b_jobs = _jobs_in(m.cells[row_b, idx])
    cuts = f"legal cuts at {_cut_label(m, lo)} and {_cut_label(m, hi)}"
    if not b_jobs or not a_jobs:
        src, dst, jobs = (row_a, row_b, a_jobs) if a_jobs else (row_b, row_a, b_jobs)
        for job in jobs:
            reason = (
                f"legal shift: {slot_label(dst)} is idle on {cols_label(m.job_cols(job))}; "
                f"{why}, {cuts}"
            )
            emit(m, out, JobShifted(job, src, dst, reason))
        return
    emit(m, out, RegionSwapped(row_a, row_b, lo, hi, tuple(a_jobs), tuple(b_jobs), f"{why}, {cuts}"))


def _jobs_in(cells: np.ndarray) -> list[int]:
    seen: dict[int, None] = {}
    for j in cells[cells != IDLE].tolist():
        seen.setdefault(j, None)
    return list(seen)


def _open_runs(cells: np.ndarray, cols: Sequence[int], start: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the rows idle on ``cols[start]`` (ascending) and, for each, how many of
    ``cols[start:]`` are idle before its first busy cell.

    Other rows have no idle run there at all. There are as many open rows as that column's WLV
    entry, usually few in a full matrix, so the others are never scanned.
    """
    rows = np.flatnonzero(cells[:, cols[start]] == IDLE)
    if isinstance(cols, range):
        busy = cells[rows, cols.start + start : cols.stop] != IDLE
    else:
        busy = cells[rows][:, list(cols[start:])] != IDLE
    return rows, np.where(busy.any(axis=1), busy.argmax(axis=1), busy.shape[1])


def _idle_run(m: OusterhoutMatrix, cols: Sequence[int], row: int) -> int:
    """Return how many of ``cols`` are idle in ``row`` before its first busy cell."""
    if isinstance(cols, range):
        busy = m.cells[row, cols.start : cols.stop] != IDLE
    else:
        busy = m.cells[row, list(cols)] != IDLE
    return int(busy.argmax()) if busy.any() else len(busy)


def gather(
    m: OusterhoutMatrix, lo: int, hi: int, out: list[MatrixChange], why: str = "Property 1",
    pairwise: bool = False,
) -> int:
    """Re-pack so that one row is idle on columns ``[lo, hi)``; return that row.

    On a ring ``hi`` may exceed the number of processors (the range wraps). Premise: every
    column of the range has an idle slot (its WLV entry is non-zero). Raises
    :class:`RepackError` when the premise fails or the matrix has no rows.

    ``pairwise=True`` plays the proof of Property 1 literally, as Fig. 3 of [Zhou99 §3] draws
    it: at every gap the left end of the array and the cut at the gap bound one region, and all
    of it is exchanged, so the grown fragment moves into the partner row. Jobs left of earlier
    gaps are swapped again at every later gap (the redundant exchanges the paper points out);
    the default is the efficient form of Fig. 4, which swaps each needed region once. Pairwise
    needs a linear array; on a ring the efficient form is used.
    """
    cols = m.region_cols(lo, hi)
    if m.n_rows == 0:
        raise RepackError("the matrix has no slot")
    wlv = m.wlv
    if np.any(wlv[col_index(cols)] == 0):
        bad = next(c for c in cols if wlv[c] == 0)
        raise RepackError(f"{processor_label(bad)} has no idle slot")
    cells = m.cells  # a view: the swaps below change it in place, and no row comes or goes
    rows, runs = _open_runs(cells, cols, 0)
    at = len(runs) - 1 - int(np.argmax(runs[::-1]))  # the longest run, ties to the highest row
    row, k = int(rows[at]), int(runs[at])
    while k < len(cols):
        # ``row`` is busy on cols[k] (its run ends there), so it is not among these rows.
        rows, runs = _open_runs(cells, cols, k)
        at = int(np.argmax(runs))  # the furthest reach, ties to the lowest row
        partner = int(rows[at])
        reach = k + int(runs[at])
        if pairwise and not m.ring:
            # Both the left end and the cut at the gap are legal: row is idle just left of the
            # gap and partner just right of it, so no job of either row crosses it.
            _swap_region(m, row, partner, 0, int(cols[k]), out, why)
            row = partner
            k = _idle_run(m, cols, row)
            continue
        if m.ring:
            cuts = common_legal_cuts(m, row, partner)  # the same seen from either row
            (keep, keep_cost), (move, move_cost) = plan_both(m, row, partner, cols[:reach], cuts)
        else:
            (keep, keep_cost), (move, move_cost) = plans_on_a_line(cells[row], cells[partner], lo, k, reach)
        if move_cost <= keep_cost:
            row, partner, keep = partner, row, move
        for a, b in keep:
            _swap_region(m, row, partner, a, b, out, why)
        k = _idle_run(m, cols, row)
    return row


def ring_gather(
    m: OusterhoutMatrix, lo: int, hi: int, out: list[MatrixChange], why: str = "Property 1",
    pairwise: bool = False,
) -> int | None:
    """:func:`gather`, or ``None`` when on a ring two rows it would merge share no legal cut to
    break the ring at (end of [Zhou99 §3]); then ``m`` and ``out`` are left as they were.

    On a linear array this is :func:`gather` (the boundaries are natural cuts, so it cannot fail
    that way). On a ring the re-pack is first played on a copy, so a merge found impossible
    half-way leaves no partial shifts behind. Raises :class:`RepackError` as :func:`gather`
    for any other failure.
    """
    if m.ring:
        try:
            gather(m.copy(), lo, hi, [], why, pairwise)
        except NoRingCut:
            return None
    return gather(m, lo, hi, out, why, pairwise)


def eliminate_slots(m: OusterhoutMatrix, out: list[MatrixChange], pairwise: bool = False) -> int:
    """Apply Property 2 while it holds; return how many slots were removed.

    While every processor has an idle slot (the WLT root is non-zero), gather the idle
    fragments into one slot (``pairwise`` as in :func:`gather`) and remove it. On a ring the
    property needs a legal cut to break the ring at for every merge; when one is missing, no
    more slots are removed (:func:`ring_gather`).
    """
    removed = 0
    while m.n_rows > 0 and int(m.wlv.min()) >= 1:
        why = "Property 2: every processor has an idle slot"
        row = ring_gather(m, 0, m.processors, out, why, pairwise)
        if row is None:
            break
        emit(m, out, SlotRemoved(row, why))
        removed += 1
    return removed
