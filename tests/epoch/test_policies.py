"""Policies of Table 2: validity of every schedule, restrictions, and the paper's examples."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.epoch.buddy import binary_subsets, buddy, buddy_star, hybrid
from gangviz.epoch.epochs import (
    epoch_widths,
    equi_epoch,
    heuristic_epoch,
    heuristic_epoch_epochs,
    opt_epoch,
    share_out,
    water_fill,
)
from gangviz.epoch.model import check_schedule
from gangviz.epoch.policies import make_policy


@st.composite
def instances(draw, pow2_nodes=False, max_jobs=12):
    if pow2_nodes:
        nodes = 1 << draw(st.integers(0, 6))
    else:
        nodes = draw(st.integers(1, 64))
    jobs = draw(st.integers(1, max_jobs))
    mins = draw(st.lists(st.integers(1, nodes), min_size=jobs, max_size=jobs))
    return nodes, mins


def inequity_of_epochs(schedule):
    widths = schedule.allocation()
    return max((max(widths[j] for j in e) - min(widths[j] for j in e) for e in schedule.epochs),
               default=0)


@settings(max_examples=60, deadline=None)
@given(instances(pow2_nodes=True, max_jobs=20))
def test_buddy_family_schedules_are_valid(inst):
    nodes, mins = inst
    star = buddy_star(nodes, mins)
    check_schedule(star, mins, equal=True)
    assert all(p.width & (p.width - 1) == 0 for p in star.pieces)
    check_schedule(hybrid(nodes, mins, 1), mins)
    if len(mins) & (len(mins) - 1) == 0:
        assert buddy(nodes, mins) == star.__class__(nodes, star.pieces, "BUDDY")
        assert hybrid(nodes, mins, 2).pieces == star.pieces


@settings(max_examples=60, deadline=None)
@given(instances(), st.integers(1, 3))
def test_epoch_policies_are_valid_and_respect_k(inst, k):
    nodes, mins = inst
    equi = equi_epoch(nodes, mins)
    check_schedule(equi, mins, equal=True)
    assert inequity_of_epochs(equi) == 0
    for sched in (opt_epoch(nodes, mins, k), heuristic_epoch(nodes, mins, k),
                  heuristic_epoch(nodes, mins, k, spread="level")):
        check_schedule(sched, mins)
        assert inequity_of_epochs(sched) <= k
        # every epoch uses all N nodes, so normalised overhead = number of epochs
        assert sched.normalized_overhead == len(sched.epochs)
    assert len(opt_epoch(nodes, mins, k).epochs) <= len(heuristic_epoch(nodes, mins, k).epochs)


def test_epoch_durations_are_proportional_to_jobs():
    s = equi_epoch(16, [4, 4, 4, 4, 8])
    by_job = {p.job: p for p in s.pieces}
    assert by_job[0].duration == Fraction(4, 5) and by_job[4].duration == Fraction(1, 5)
    assert all(p.area == Fraction(16, 5) for p in s.pieces)


def test_buddy_reproduces_fig3():
    # N = 16, J = 8, M = [1, 2, 3, 3, 3, 3, 3, 8]; Fig. 3(b): the M = 8 job first, 8 wide,
    # then the next M = 3 job is forced to 8 nodes by the min-seg at height 1/4.
    s = buddy(16, [1, 2, 3, 3, 3, 3, 3, 8])
    first, second = s.pieces[:2]
    assert (first.job, first.width, first.end) == (7, 8, Fraction(1, 4))
    assert (second.width, second.start, second.node) == (8, Fraction(1, 4), 0)
    assert sorted(s.allocation().values()) == [2, 2, 4, 4, 4, 4, 8, 8]
    assert s.overhead == 36


def test_binary_subsets_and_buddy_star_order():
    assert binary_subsets(7) == [4, 2, 1] and binary_subsets(8) == [8]
    s = buddy_star(16, [9, 1, 2, 3, 4, 5, 6])
    # the four smallest jobs share the first 4/7 of the quantum, the largest job is alone last
    assert {p.job for p in s.pieces if p.end <= Fraction(4, 7)} == {1, 2, 3, 4}
    last = s.piece_of(0)
    assert (last.start, last.end, last.width) == (Fraction(6, 7), 1, 16)


def test_heuristic_skips_a_job_that_does_not_fit():
    # k = 1, N = 10, M = [6, 5, 3]: 6 first, 5 needs max(5, 5) = 5 > 4 free, 4 >= 6 - 1 fails,
    # so the epoch closes; then 5 and 3 (3 raised to 4): [5, 5] after spreading
    assert heuristic_epoch_epochs(10, [6, 5, 3], 1) == [[(0, 10)], [(1, 5), (2, 5)]]
    # k = 3, N = 12, M = [6, 5, 4]: 6, then 5 fits the 6 free; 1 node left < 6 - 3 closes it
    assert heuristic_epoch_epochs(12, [6, 5, 4], 3) == [[(0, 6), (1, 6)], [(2, 12)]]
    # skip rule: N = 10, k = 2, M = [4, 4, 3, 1]: 4, 4 leave 2 free >= 4 - 2, the 3 is skipped
    # and the 1 (given 2 nodes) is placed
    assert heuristic_epoch_epochs(10, [4, 4, 3, 1], 2) == [[(0, 4), (1, 4), (3, 2)], [(2, 10)]]


def test_water_fill_is_even_and_respects_bases():
    assert water_fill([5, 3, 3], 16) == [6, 5, 5]
    assert water_fill([2, 2], 5) == [3, 2]
    assert epoch_widths([9, 1], 10, 1) is None and epoch_widths([5, 4], 10, 0) == [5, 5]
    with pytest.raises(ValueError):
        water_fill([5, 6], 10)


@pytest.mark.parametrize("name, nodes, mins, message", [
    ("BUDDY", 12, [1, 2], "N to be a power of two, got N = 12"),
    ("BUDDY", 16, [1, 2, 3], "J to be a power of two, got J = 3"),
    ("BUDDY*", 24, [1, 2, 3], "power of two"),
    ("HYBRID(1)", 10, [1], "power of two"),
    ("EQUI-EPOCH", 8, [9], "must be in 1..8"),
    ("OPT-EPOCH(1)", 8, [], "at least one job"),
])
def test_restrictions_raise_clear_errors(name, nodes, mins, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("*", r"\*")):
        make_policy(name)(nodes, mins)


@pytest.mark.parametrize("name", ["HEURISTIC(0)", "HYBRID(0)", "OPT-EPOCH", "BUDDY(2)", "X"])
def test_bad_policy_names(name):
    with pytest.raises(ValueError):
        make_policy(name)


def test_share_out_gives_equal_shares_and_the_excess_to_the_narrowest():
    # §4.3: 18 free nodes over 4 jobs -> 4 each, the 2 left to the two narrowest (29, then 30)
    assert share_out([31, 28, 26, 25], 128) == [35, 32, 31, 30]
    # levelling the widths instead (the other reading) evens them out completely
    assert water_fill([31, 28, 26, 25], 128) == [32, 32, 32, 32]
    assert share_out([5, 5, 5], 17) == [6, 6, 5]  # tie: the earliest job first
    with pytest.raises(ValueError):
        share_out([5, 5], 9)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=10), st.integers(0, 100))
def test_share_out_keeps_the_differences(base, free):
    total = sum(base) + free
    widths = share_out(base, total)
    added = [w - b for w, b in zip(widths, base)]
    assert sum(widths) == total
    assert max(added) - min(added) <= 1  # the free nodes, not the widths, are spread evenly
    assert min(added) == free // len(base)
    # the excess goes to the narrowest: a job that got the extra node was no wider than one
    # that did not
    got = [i for i, a in enumerate(added) if a > free // len(base)]
    rest = [i for i, a in enumerate(added) if a == free // len(base)]
    for i in got:
        for j in rest:
            assert base[i] <= base[j]
    assert max(widths) - min(widths) <= max(max(base) - min(base), 1)


def test_heuristic_spread_readings_differ_only_in_widths():
    # N = 128, k = 6: first epoch 31, 29, 25 and 20 raised to 25 (18 nodes free, 15 needs 25)
    mins = [31, 29, 25, 20, 15, 10, 5, 2]
    shares = heuristic_epoch_epochs(128, mins, 6)
    level = heuristic_epoch_epochs(128, mins, 6, spread="level")
    assert shares[0] == [(0, 35), (1, 33), (2, 30), (3, 30)]
    assert level[0] == [(0, 32), (1, 32), (2, 32), (3, 32)]
    assert [[j for j, _ in e] for e in shares] == [[j for j, _ in e] for e in level]
    with pytest.raises(ValueError, match="spread"):
        heuristic_epoch_epochs(128, mins, 6, spread="even")
    with pytest.raises(ValueError, match="spread"):
        make_policy("HEURISTIC(2)", spread="bogus")


@settings(max_examples=60, deadline=None)
@given(instances(), st.integers(1, 6))
def test_the_spread_rule_never_changes_the_epochs_and_not_at_all_for_k1(inst, k):
    nodes, mins = inst
    shares = heuristic_epoch_epochs(nodes, mins, k)
    level = heuristic_epoch_epochs(nodes, mins, k, spread="level")
    assert [[j for j, _ in e] for e in shares] == [[j for j, _ in e] for e in level]
    if k == 1:
        assert shares == level


def test_make_policy_passes_the_spread_to_heuristic_and_hybrid():
    mins = [31, 27, 26, 20, 15, 10, 5, 2, 3, 4, 6]  # HYBRID: 31, 27, 26 after BUDDY
    for name in ("HEURISTIC(6)", "HYBRID(6)"):
        a = make_policy(name)(128, mins).allocation()
        b = make_policy(name, spread="level")(128, mins).allocation()
        assert a != b
    # the other policies ignore it
    assert (make_policy("OPT-EPOCH(1)", spread="level")(128, mins)
            == make_policy("OPT-EPOCH(1)")(128, mins))
