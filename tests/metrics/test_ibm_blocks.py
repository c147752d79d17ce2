"""The IBM figures computed a block at a time are those of the whole columns, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from gangviz.metrics.ibm import CapacityLog, ibm_metrics_of_columns
from gangviz.metrics.reduce import pairwise_sum


def _spread(n: int) -> np.ndarray:
    """Values over sixteen orders of magnitude, whose sum's rounding depends on the order."""
    rng = np.random.default_rng(n)
    return rng.standard_normal(n) * 10.0 ** rng.uniform(0, 16, n)


@pytest.mark.parametrize("n", [0, 1, 7, 8, 127, 128, 129, 1000, 4097, 100_003])
@pytest.mark.parametrize("leaf", [128, 129, 1000])
def test_pairwise_sum_is_numpy_s_sum(n, leaf):
    x = _spread(n)
    assert pairwise_sum(n, lambda lo, hi: x[lo:hi], leaf) == float(np.sum(x))


def test_other_orders_give_other_sums():
    # the test above tells orders apart: in order, or block by block, the sum is another number
    x = _spread(100_003)
    assert sum(x.tolist()) != float(np.sum(x))
    assert sum(float(np.sum(x[lo:lo + 1000])) for lo in range(0, len(x), 1000)) != float(np.sum(x))


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


@seed(20261126)
@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 700), block=st.integers(1, 300), large=st.integers(1, 200),
       unit=st.sampled_from([1.0, 60.0, 0.3]), seed_=st.integers(0, 10**6), lost=st.booleans())
def test_blocks_give_the_whole_columns_figures(n, block, large, unit, seed_, lost):
    rng = np.random.default_rng(seed_)
    arrival = np.sort(rng.exponential(size=n) * 100)
    start = arrival + rng.exponential(size=n) * 50 * rng.integers(0, 2, n)
    work = rng.integers(1, 120, n).astype(np.int32)
    finish = start + work * rng.uniform(0.5, 3, n)  # some below their work: the executed time
    size = rng.integers(1, 32 + large, n).astype(np.int32)  # small, large or both classes
    cap = CapacityLog(123.5, 100.25, 20.0) if lost else None
    kw = dict(time_unit=unit, capacity=cap, throughput_per=3600.0)
    whole = ibm_metrics_of_columns(arrival, start, finish, work, size, 128, **kw)
    assert _same(ibm_metrics_of_columns(arrival, start, finish, work, size, 128, block=block, **kw), whole)


def test_blocks_refuse_what_the_columns_refuse():
    with pytest.raises(ValueError, match="no job finished"):
        ibm_metrics_of_columns([], [], [], [], [], 4)
    with pytest.raises(ValueError, match="processors must be >= 1"):
        ibm_metrics_of_columns([0.0], [0.0], [1.0], [1.0], [1], 0)
    with pytest.raises(ValueError, match="block must be >= 1"):
        ibm_metrics_of_columns([0.0], [0.0], [1.0], [1.0], [1], 4, block=0)
