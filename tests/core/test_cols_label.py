"""Processor lists in the narration stay short: runs are ranges, and past a few runs the rest is
counted, so a 512-wide gang on a 9,216-processor machine is told in one readable line."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from gangviz.core.changes import MAX_RUNS, cols_label

#: the longest label: MAX_RUNS runs of two five-digit names, and the count
BOUND = MAX_RUNS * len("P9216..P9216, ") + len(" and 9,999 more runs (9,216 processors in all)")


def parse(label: str) -> set[int]:
    out: set[int] = set()
    for lo, hi in re.findall(r"P(\d+)(?:\.\.P(\d+))?", label.split(" and ")[0]):
        out |= set(range(int(lo) - 1, int(hi or lo)))
    return out


@given(st.sets(st.integers(0, 9215), min_size=1, max_size=2000))
def test_the_label_is_bounded_and_names_exactly_the_processors_when_it_lists_them(cols):
    label = cols_label(cols)
    assert len(label) <= BOUND
    runs = sum(1 for c in cols if c - 1 not in cols)
    if runs <= MAX_RUNS:
        assert parse(label) == cols
    else:
        assert f"{runs - MAX_RUNS:,} more run" in label and f"{len(cols):,} processors in all" in label
        assert parse(label) < cols  # the first runs are named, each exactly


def test_runs_are_ranges_in_ascending_order():
    assert cols_label([5, 0, 1, 2, 3, 9]) == "P1..P4, P6, P10"
    assert cols_label(range(0, 512)) == "P1..P512"
    assert cols_label(range(0, 100, 2)) == ("P1, P3, P5, P7, P9, P11 and 44 more runs "
                                           "(50 processors in all)")


def test_the_ibm_gang_policies_narrate_in_bounded_lines_at_9216_processors():
    from gangviz.factory import build
    from gangviz.workloads.source import load_source

    src = load_source("downey", jobs=120, load=0.9, procs=9216, seed=1)
    for policy in ("gs", "mgs"):
        sim = build(src, policy)
        longest = ""
        for _ in range(150):
            step = sim.step()
            if step is None:
                break
            longest = max([longest, *step.narration], key=len)
        # a sentence names at most two processor labels, a slot, a job and its reason
        assert len(longest) <= 2 * BOUND + 200, longest[:300]
        assert "P1, P2, P3" not in longest
