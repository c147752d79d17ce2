"""The pairwise re-packing of Fig. 3 [Zhou99 §3] and the leftmost WLV window of Fig. 5's other
subset: the same guarantees as the efficient form."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gangviz.core.allocation import best_window, leftmost_window
from gangviz.core.matrix import IDLE
from gangviz.core.repack import gather
from gangviz.policies import make_policy

from .strategies import matrices, signature


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_pairwise_gather_frees_the_range_keeping_processors(data):
    m = data.draw(matrices(min_rows=2))
    n = m.processors
    lo = data.draw(st.integers(0, n - 1))
    length = data.draw(st.integers(1, n - lo))
    assume(all(m.wlv[c] > 0 for c in range(lo, lo + length)))
    before = signature(m)
    out = []
    row = gather(m, lo, lo + length, out, pairwise=True)
    assert all(m.cells[row, c] == IDLE for c in range(lo, lo + length))
    assert signature(m) == before
    m.check()
    assert all(c.kind in ("job_shifted", "region_swapped") for c in out)
    # every exchange of the pairwise form is bounded by the left end of the array
    assert all(c.lo == 0 for c in out if c.kind == "region_swapped")


def test_leftmost_window_takes_the_first_run_best_window_the_least_loaded():
    wlv = [0, 0, 1, 2, 2, 2, 2, 3]  # Fig. 5
    assert leftmost_window(wlv, 5) == 2 and best_window(wlv, 5) == 3
    assert leftmost_window(wlv, 7) is None
    with pytest.raises(ValueError):
        leftmost_window(wlv, 9)


def test_repack_options_are_checked():
    assert make_policy("repack", cuts="pairwise", window="leftmost").cuts == "pairwise"
    with pytest.raises(ValueError, match="cuts must be"):
        make_policy("repack", cuts="diagonal")
    with pytest.raises(ValueError, match="window must be"):
        make_policy("repack", window="random")
