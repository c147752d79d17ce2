"""The paper's optimality claims against exhaustive search, and its counterexamples.

McCann94: Theorem 1 (§3.1), Fig. 4 (§3.2), Theorem 2 (§4.1.1), Fig. 7
(§4.1.2), Fig. 8 (§4.1.3), OPT-EPOCH(k) (§4.2).
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.epoch.buddy import buddy
from gangviz.epoch.epochs import equi_epoch, equi_epoch_epochs, opt_epoch, opt_epoch_epochs
from gangviz.epoch.exhaustive import min_epochs, min_single_piece_overhead
from gangviz.epoch.model import check_schedule


@st.composite
def pow2_instances(draw):
    nodes = draw(st.sampled_from([2, 4, 8, 16]))
    jobs = draw(st.sampled_from([j for j in (1, 2, 4, 8) if j <= max(nodes, 4)]))
    mins = draw(st.lists(st.integers(1, nodes), min_size=jobs, max_size=jobs))
    return nodes, mins


@settings(max_examples=40, deadline=None)
@given(pow2_instances())
def test_theorem1_buddy_is_optimal_among_power_of_two_allocations(inst):
    nodes, mins = inst
    best, witness = min_single_piece_overhead(nodes, mins, "pow2")
    check_schedule(witness, mins, equal=True)
    assert buddy(nodes, mins).overhead == best


def test_fig4_buddy_is_not_optimal_with_general_widths():
    # Fig. 4's drawing did not survive in the text; this small instance, found with
    # the exhaustive search, shows the same thing: widths of 3 beat the powers of two.
    mins = [3, 1, 1, 1]
    best, witness = min_single_piece_overhead(4, mins, "any")
    check_schedule(witness, mins, equal=True)
    assert buddy(4, mins).overhead == 12
    assert best == 10 and 3 in witness.allocation().values()
    assert min_single_piece_overhead(4, mins, "pow2")[0] == 12


@st.composite
def epoch_instances(draw, pow2=False):
    nodes = (1 << draw(st.integers(1, 5))) if pow2 else draw(st.integers(2, 30))
    jobs = draw(st.integers(1, 8))
    mins = draw(st.lists(st.integers(1, nodes), min_size=jobs, max_size=jobs))
    return nodes, mins


@settings(max_examples=60, deadline=None)
@given(epoch_instances(pow2=True))
def test_theorem2_equi_epoch_is_optimal_when_n_is_a_power_of_two(inst):
    nodes, mins = inst
    best, _ = min_epochs(nodes, mins, 0)
    assert len(equi_epoch(nodes, mins).epochs) == best


@settings(max_examples=60, deadline=None)
@given(epoch_instances(), st.integers(0, 3))
def test_opt_epoch_is_optimal_among_epoch_schedules_with_inequity_k(inst, k):
    nodes, mins = inst
    best, epochs = min_epochs(nodes, mins, k)
    sched = opt_epoch(nodes, mins, k)
    check_schedule(sched, mins)
    assert len(sched.epochs) == best
    assert sched.overhead == best * nodes


def test_fig7_equi_epoch_is_not_optimal_when_n_is_not_a_power_of_two():
    # Text of §4.1.2: N = 140, ten jobs each needing 20 nodes: 7 + 2 + 1 epochs against 5 + 5.
    assert [len(e) for e in equi_epoch_epochs(140, [20] * 10)] == [7, 2, 1]
    assert min_epochs(140, [20] * 10, 0)[0] == 2
    assert [len(e) for e in opt_epoch_epochs(140, [20] * 10, 0)] == [5, 5]
    # Fig. 7's caption says J = 20, M_j = 10: the same failure (14 + 5 + 1 against 10 + 10).
    assert [len(e) for e in equi_epoch_epochs(140, [10] * 20)] == [14, 5, 1]
    assert len(opt_epoch_epochs(140, [10] * 20, 0)) == 2


def test_fig8_greedy_from_the_largest_job_is_not_optimal():
    mins = [4, 4, 4, 4, 8]
    assert [len(e) for e in equi_epoch_epochs(16, mins)] == [4, 1]
    assert [len(e) for e in equi_epoch_epochs(16, mins, order="descending")] == [2, 2, 1]
    assert min_epochs(16, mins, 0)[0] == 2
