"""Table 1: valid partitions of N = 128 by allowed inequity k."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.epoch.partitions import (
    count_valid_partitions,
    iter_valid_partitions,
    partitions_with_parts,
)

TABLE_1 = [8, 128, 2144, 21527, 144055, 692693, 2560378]


@pytest.mark.parametrize("k, printed", list(enumerate(TABLE_1)))
def test_table1_counts_for_n_128(k, printed):
    assert count_valid_partitions(128, k) == printed


def brute(nodes, k):
    out = set()

    def rec(prefix, left, cap):
        if left == 0:
            if max(prefix) - min(prefix) <= k:
                out.add(tuple(prefix))
            return
        for v in range(min(cap, left), 0, -1):
            rec(prefix + [v], left - v, v)

    rec([], nodes, nodes)
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 18), st.integers(0, 4))
def test_enumeration_matches_count_and_brute_force(nodes, k):
    listed = list(iter_valid_partitions(nodes, k))
    assert len(listed) == len(set(listed)) == count_valid_partitions(nodes, k)
    assert set(listed) == brute(nodes, k)
    assert all(sum(p) == nodes and list(p) == sorted(p, reverse=True) for p in listed)


def test_parts_are_ordered_most_even_first():
    assert partitions_with_parts(10, 2, 4) == ((4, 2, 2, 2), (3, 3, 2, 2), (3, 3, 3, 1))


def test_bad_arguments():
    with pytest.raises(ValueError, match="N >= 1 and k >= 0"):
        count_valid_partitions(0, 1)
