"""Property-based tests of the core model over random matrices (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gangviz.core import changes as ch
from gangviz.core.allocation import best_window, place_buddy
from gangviz.core.matrix import IDLE
from gangviz.core.repack import (
    RepackError,
    common_legal_cuts,
    eliminate_slots,
    gather,
    plan_both,
    plan_merge,
    plans_on_a_line,
)
from gangviz.core.wlt import WorkloadTree

from .strategies import assert_wlv_places_a_job, matrices, signature

SETTINGS = settings(max_examples=150, deadline=None)


def candidate_changes(m, draw):
    """Every kind of change that is valid on ``m`` (one random instance of each)."""
    out = [ch.SlotAdded(draw(st.integers(0, m.n_rows))), ch.RowActivated(draw(st.none() | st.integers(0, 5)), m.active_row)]
    empty = [r for r in range(m.n_rows) if m.row_is_empty(r)]
    if empty:
        out.append(ch.SlotRemoved(draw(st.sampled_from(empty))))
    idle_cells = [(r, c) for r in range(m.n_rows) for c in range(m.processors) if m.cells[r, c] == IDLE]
    if idle_cells:
        r, c = draw(st.sampled_from(idle_cells))
        out.append(ch.JobPlaced(999, r, range(c, c + 1)))
    jobs = m.jobs()
    if jobs:
        j = draw(st.sampled_from(jobs))
        cols = m.job_cols(j)
        if not m.replica_rows(j):
            out.append(ch.JobRemoved(j, m.home_row(j), cols))
        free = [r for r in range(m.n_rows) if r not in m.job_rows(j) and m.is_idle(r, cols)]
        if free:
            dst = draw(st.sampled_from(free))
            out.append(ch.JobShifted(j, draw(st.sampled_from(m.job_rows(j))), dst))
            out.append(ch.JobReplicated(j, tuple(draw(st.lists(st.sampled_from(free), min_size=1, unique=True))), cols))
            if len(m.job_rows(j)) == 1 and idle_cells:
                r, c = draw(st.sampled_from(idle_cells))
                out.append(ch.JobMigrated(j, m.home_row(j), cols, r, range(c, c + 1), 0.5))
        if m.replica_rows(j):
            out.append(ch.JobUnreplicated(j, tuple(draw(st.lists(st.sampled_from(m.replica_rows(j)), min_size=1, unique=True))), cols))
    if m.n_rows >= 2:
        a, b = draw(st.lists(st.integers(0, m.n_rows - 1), min_size=2, max_size=2, unique=True))
        cuts = common_legal_cuts(m, a, b)
        if len(cuts) >= 2:
            lo, hi = sorted(draw(st.lists(st.sampled_from(cuts), min_size=2, max_size=2, unique=True)))
            out.append(ch.RegionSwapped(a, b, lo, hi))
    return out


@SETTINGS
@given(st.data())
def test_apply_then_invert_restores_the_state_exactly(data):
    m = data.draw(matrices(ring=None))
    for change in candidate_changes(m, data.draw):
        before = m.state_key()
        change.apply(m)
        m.check()
        change.invert().apply(m)
        assert m.state_key() == before, change
        m.check()


@SETTINGS
@given(st.data())
def test_a_change_that_does_not_fit_raises_and_changes_nothing(data):
    m = data.draw(matrices(min_rows=1))
    busy = [(r, c) for r in range(m.n_rows) for c in range(m.processors) if m.cells[r, c] != IDLE]
    assume(busy)
    r, c = data.draw(st.sampled_from(busy))
    before = m.state_key()
    for change in (ch.JobPlaced(999, r, range(c, c + 1)), ch.SlotRemoved(r)):
        with pytest.raises(ValueError):
            change.apply(m)
        assert m.state_key() == before


@SETTINGS
@given(st.data())
def test_gather_keeps_processors_and_rows_and_frees_the_range(data):
    m = data.draw(matrices(ring=None, min_rows=1))
    wlv = m.wlv
    n = m.processors
    lo = data.draw(st.integers(0, n - 1))
    length = data.draw(st.integers(1, n if m.ring else n - lo))
    cols = [(lo + k) % n for k in range(length)]
    assume(all(wlv[c] > 0 for c in cols))
    before = signature(m)
    rows = m.n_rows
    out: list = []
    try:
        row = gather(m, lo, lo + length, out)
    except RepackError as exc:
        # Only a ring can fail: two rows may share no legal cut to break the ring at.
        assert m.ring and "share no legal cut" in str(exc)
        return
    assert all(m.cells[row, c] == IDLE for c in cols)
    assert signature(m) == before  # no process changed processor, no job gained or lost rows
    assert m.n_rows == rows
    m.check()  # each job's processes share each of its rows; WLV and WLT agree
    assert all(c.kind in ("job_shifted", "region_swapped") for c in out)


def regions_cost(m, row_a, row_b, plan):
    """Processes moved and two-sided swaps of ``plan``, counted cell by cell."""
    moved = two_sided = 0
    for lo, hi in plan:
        cols = [c % m.processors for c in range(lo, hi)]
        a = sum(m.cells[row_a, c] != IDLE for c in cols)
        b = sum(m.cells[row_b, c] != IDLE for c in cols)
        moved += a + b
        two_sided += bool(a and b)
    return moved, two_sided


@SETTINGS
@given(st.data())
def test_both_merge_plans_are_the_two_one_way_plans_with_their_costs(data):
    m = data.draw(matrices(ring=None, min_rows=2))
    a, b = data.draw(st.lists(st.integers(0, m.n_rows - 1), min_size=2, max_size=2, unique=True))
    n = m.processors
    lo = data.draw(st.integers(0, n - 1))
    length = data.draw(st.integers(1, n if m.ring else n - lo))
    target = [(lo + k) % n for k in range(length)]
    assume(all(m.cells[a, c] == IDLE or m.cells[b, c] == IDLE for c in target))
    try:
        (keep, keep_cost), (move, move_cost) = plan_both(m, a, b, target)
    except RepackError:
        with pytest.raises(RepackError):
            plan_merge(m, a, b, target)
        return
    assert keep == plan_merge(m, a, b, target)
    assert move == plan_merge(m, b, a, target)
    assert keep_cost == regions_cost(m, a, b, keep)
    assert move_cost == regions_cost(m, a, b, move)


def idle_run(m, row, start):
    """How many cells of ``row`` from column ``start`` on are idle before a busy one."""
    run = 0
    while start + run < m.processors and m.cells[row, start + run] == IDLE:
        run += 1
    return run


@settings(max_examples=60, deadline=None)
@given(matrices(min_rows=2))
def test_a_gather_step_plans_on_a_line_as_plan_both_does(m):
    # Every step gather could take on this matrix: a row's idle run from lo ends at lo + k,
    # where another row's idle run takes over and reaches lo + reach.
    for a in range(m.n_rows):
        for lo in range(m.processors):
            k = idle_run(m, a, lo)
            for b in range(m.n_rows):
                if b == a or lo + k >= m.processors or m.cells[b, lo + k] != IDLE:
                    continue
                reach = k + idle_run(m, b, lo + k)
                expected = plan_both(m, a, b, range(lo, lo + reach))
                assert plans_on_a_line(m.cells[a], m.cells[b], lo, k, reach) == expected


@SETTINGS
@given(st.data())
def test_property2_removes_exactly_one_slot_when_every_processor_has_an_idle_slot(data):
    m = data.draw(matrices(min_rows=1))
    assume(int(m.wlv.min()) >= 1)
    before = signature(m)
    rows = m.n_rows
    out: list = []
    row = gather(m, 0, m.processors, out, "Property 2")
    ch.SlotRemoved(row).apply(m)
    assert m.n_rows == rows - 1
    assert signature(m) == before
    m.check()


@SETTINGS
@given(st.data())
def test_eliminate_slots_stops_exactly_when_some_processor_is_full(data):
    m = data.draw(matrices())
    expected = int(m.wlv.min()) if m.n_rows else 0
    out: list = []
    assert eliminate_slots(m, out) == expected
    assert m.n_rows == 0 or int(m.wlv.min()) == 0
    m.check()


@SETTINGS
@given(st.lists(st.integers(0, 4), min_size=1, max_size=16), st.integers(1, 16), st.booleans())
def test_best_window_is_the_least_loaded_run_of_non_zeros(wlv, size, ring):
    wlv = np.array(wlv)
    n = len(wlv)
    assume(size <= n)
    starts = range(n) if (ring and size < n) else range(n - size + 1)
    ok = [s for s in starts if all(wlv[(s + k) % n] > 0 for k in range(size))]
    got = best_window(wlv, size, ring)
    if not ok:
        assert got is None
        return
    best = max(sum(wlv[(s + k) % n] for k in range(size)) for s in ok)
    assert got == min(s for s in ok if sum(wlv[(s + k) % n] for k in range(size)) == best)


@pytest.mark.parametrize("ring", [None, True])  # always on a ring: a new slot where no cut combines
@SETTINGS
@given(data=st.data())
def test_allocation_places_the_job_in_one_row_on_its_own_columns(ring, data):
    m = data.draw(matrices(ring=ring))
    assert_wlv_places_a_job(m, data.draw(st.integers(1, m.processors)))


@SETTINGS
@given(st.data())
def test_buddy_allocation_takes_an_aligned_block(data):
    procs = data.draw(st.sampled_from([1, 2, 4, 8, 16]))
    m = data.draw(matrices(max_procs=procs, max_rows=4))
    assume(m.processors == procs)
    size = data.draw(st.integers(1, procs))
    out: list = []
    place_buddy(m, 777, size, out)
    cols = m.job_cols(777)
    block = len(cols)
    assert block >= size and block & (block - 1) == 0 and cols.start % block == 0
    m.check()


@SETTINGS
@given(st.lists(st.integers(0, 5), min_size=1, max_size=20), st.data())
def test_wlt_incremental_updates_equal_a_rebuild(leaves, data):
    tree, wlv = _tree(leaves)
    for _ in range(5):
        _update_at_random(tree, wlv, data)
        fresh = WorkloadTree(len(leaves))
        fresh.rebuild(wlv)
        assert [a.tolist() for a in tree.levels] == [b.tolist() for b in fresh.levels]
        # Definition: an inner node is the sum of its children when both are non-zero, else 0.
        for lower, upper in zip(tree.levels, tree.levels[1:]):
            for i, v in enumerate(upper):
                a, b = lower[2 * i], lower[2 * i + 1]
                assert v == (a + b if a and b else 0)


@SETTINGS
@given(st.lists(st.integers(0, 5), min_size=1, max_size=32), st.data())
def test_wlt_best_node_is_the_leftmost_maximum_after_any_updates(leaves, data):
    tree, wlv = _tree(leaves)
    for _ in range(4):
        block = 1 << data.draw(st.integers(0, tree.width.bit_length() - 1))
        level = tree.level_for_block(block)
        value, index = tree.best(block)
        assert value == level.max() and index == int(np.argmax(level))
        _update_at_random(tree, wlv, data)


def _tree(leaves):
    """Return a workload tree built on ``leaves`` and the leaves as an array."""
    wlv = np.array(leaves)
    tree = WorkloadTree(len(wlv))
    tree.rebuild(wlv)
    return tree, wlv


def _update_at_random(tree, wlv, data):
    """Draw new values for a random range of ``wlv`` and tell ``tree`` of them."""
    lo = data.draw(st.integers(0, len(wlv) - 1))
    hi = data.draw(st.integers(lo + 1, len(wlv)))
    wlv[lo:hi] = data.draw(st.lists(st.integers(0, 5), min_size=hi - lo, max_size=hi - lo))
    tree.update(lo, hi, wlv)


def a_matrix_and_one_of_its_jobs(data):
    """Draw a matrix with at least one job; return it, a job in it, and the job's columns."""
    m = data.draw(matrices(min_rows=1))
    assume(m.jobs())
    job = data.draw(st.sampled_from(m.jobs()))
    return m, job, m.job_cols(job)


@SETTINGS
@given(st.data())
def test_a_record_of_several_extra_slots_equals_one_record_per_slot(data):
    m, job, cols = a_matrix_and_one_of_its_jobs(data)
    free = [r for r in range(m.n_rows) if r not in m.job_rows(job) and m.is_idle(r, cols)]
    rows = data.draw(st.permutations(free).map(lambda p: tuple(p[: data.draw(st.integers(1, max(len(p), 1)))])))
    ones, batch = m.copy(), m.copy()
    for r in rows:
        ch.JobReplicated(job, (r,), cols).apply(ones)
    added = ch.JobReplicated(job, rows, cols)
    added.apply(batch)
    assert batch.state_key() == ones.state_key()
    batch.check()
    # giving them back one record at a time, in any order, restores the start
    for r in data.draw(st.permutations(rows)):
        ch.JobUnreplicated(job, (r,), cols).apply(ones)
    assert ones.state_key() == m.state_key()
    added.invert().apply(batch)
    assert batch.state_key() == m.state_key()
    batch.check()


@SETTINGS
@given(st.data())
def test_a_record_of_extra_slots_that_does_not_fit_changes_nothing(data):
    m, job, cols = a_matrix_and_one_of_its_jobs(data)
    taken = [r for r in range(m.n_rows) if r in m.job_rows(job) or not m.is_idle(r, cols)]
    assume(taken)
    before = m.state_key()
    with pytest.raises(ValueError):
        ch.JobReplicated(job, tuple(range(m.n_rows)) + (m.n_rows,), cols).apply(m)
    with pytest.raises(ValueError):
        ch.JobReplicated(job, (data.draw(st.sampled_from(taken)),), cols).apply(m)
    with pytest.raises(ValueError):
        ch.JobUnreplicated(job, (m.home_row(job),), cols).apply(m)
    assert m.state_key() == before
    m.check()


def _slots_named(label: str) -> set[int]:
    """Read a rows_label back: the (0-based) rows it names."""
    label = label.replace(" and ", ", ")
    out: set[int] = set()
    for part in label.split(", "):
        a, _, b = part.partition("..")
        out.update(range(int(a[1:]) - 1, int((b or a)[1:])))
    return out


@given(st.lists(st.integers(0, 60), min_size=1, max_size=40, unique=True))
def test_rows_label_names_every_row_or_counts_them(rows):
    label = ch.rows_label(rows)
    runs = sum(1 for r in set(rows) if r - 1 not in set(rows))
    if runs <= 6:
        assert _slots_named(label) == set(rows)
    else:
        assert label.endswith(f"({len(rows)} slots)")
        assert label.startswith(f"S{min(rows) + 1}") and f"S{max(rows) + 1} (" in label


def test_an_extra_slot_record_reads_as_one_sentence():
    assert ch.JobReplicated(3, (4, 1, 2, 3, 9), range(0, 4), "why").describe() == (
        "J3 also runs in S2..S5 and S10 on P1..P4 (why)."
    )
    assert ch.JobUnreplicated(3, (1,), range(0, 4)).describe() == "J3 gives up its extra slot S2."
    assert ch.JobUnreplicated(3, (6, 1), range(0, 4)).describe() == "J3 gives up its extra slots S2 and S7."
