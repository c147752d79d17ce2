"""The shared moves of the multi-slot policies."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gangviz.core.matrix import IDLE
from gangviz.core.wlt import WorkloadTree
from gangviz.policies.slots import buddy_blocks, relaxed_level

from ..core.strategies import matrices


def smallest_aligned_block(lo: int, hi: int) -> tuple[int, int]:
    """Try block sizes 1, 2, 4, ... until an aligned block holds columns lo..hi-1."""
    size = 1
    while lo // size != (hi - 1) // size:
        size *= 2
    return lo // size * size, size


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 65535), st.integers(1, 65536)), min_size=1, max_size=40))
def test_buddy_blocks_are_the_smallest_aligned_blocks_covering_each_span(spans):
    lo = np.array([a for a, _ in spans], dtype=np.int64)
    hi = np.array([min(a + w, 65536) for a, w in spans], dtype=np.int64)
    start, size = buddy_blocks(lo, hi)
    assert list(zip(start.tolist(), size.tolist())) == [
        smallest_aligned_block(a, b) for a, b in zip(lo.tolist(), hi.tolist())
    ]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_relaxed_level_is_the_tree_level_with_replica_cells_counted_idle(data):
    m = data.draw(matrices(max_procs=16, max_rows=5))
    assume(m.processors & (m.processors - 1) == 0)
    block = 1 << data.draw(st.integers(0, m.processors.bit_length() - 1))
    tree = WorkloadTree(m.processors)
    idle_or_replica = [
        m.n_rows - sum(1 for r in range(m.n_rows) if m.cells[r, c] != IDLE and m.home_row(int(m.cells[r, c])) == r)
        for c in range(m.processors)
    ]
    tree.rebuild(np.array(idle_or_replica))
    assert relaxed_level(m, block).tolist() == tree.level_for_block(block).tolist()
