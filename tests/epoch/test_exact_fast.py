"""The epoch model's integer arithmetic and one-pass loops against the versions they replaced
(tests/epoch/reference.py): the same pieces, traces, schedules and floats, bit for bit, on
random inputs."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.epoch import epochs as epochs_mod
from gangviz.epoch.buddy import buddy_pieces
from gangviz.epoch.epochs import (
    epochs_to_schedule,
    equi_epoch_epochs,
    heuristic_epoch_epochs,
    opt_epoch_epochs,
)
from gangviz.epoch.sim import EpochSimulation
from tests.epoch import reference

POW2 = [1, 2, 4, 8, 16, 32, 64, 128, 256]
#: a window [start, start + length) inside the quantum, as BUDDY* and HYBRID(k) pass one
windows = st.tuples(st.integers(0, 12), st.integers(1, 12), st.integers(1, 12)).map(
    lambda t: (Fraction(min(t[0], t[2] - 1), t[2]) if t[2] > 1 else Fraction(0),
               Fraction(t[1], 13)))


@st.composite
def buddy_cases(draw):
    nodes = draw(st.sampled_from(POW2))
    jobs = draw(st.sampled_from([j for j in POW2 if j <= 64]))
    mins = draw(st.lists(st.integers(1, nodes), min_size=jobs, max_size=jobs))
    ids = draw(st.permutations(range(jobs)))
    return nodes, {ids[i]: m for i, m in enumerate(mins)}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(buddy_cases(), windows)
def test_buddy_pieces_and_trace_equal_the_fraction_reference(case, window):
    nodes, table = case
    start, length = window
    trace, ref_trace = [], []
    got = buddy_pieces(nodes, table, start, length, trace)
    want = reference.buddy_pieces(nodes, table, start, length, ref_trace)
    assert got == want
    assert trace == ref_trace
    # the fractions are the normalised ones (str and float go by them)
    assert [(str(p.start), str(p.end)) for p in got] == [(str(p.start), str(p.end)) for p in want]


@st.composite
def epoch_cases(draw):
    nodes = draw(st.integers(1, 96))
    jobs = draw(st.integers(1, 20))
    mins = draw(st.lists(st.integers(1, nodes), min_size=jobs, max_size=jobs))
    maker = draw(st.sampled_from(["equi", "heuristic", "opt"]))
    if maker == "equi":
        return nodes, equi_epoch_epochs(nodes, mins)
    if maker == "heuristic":
        return nodes, heuristic_epoch_epochs(nodes, mins, draw(st.integers(1, 4)))
    return nodes, opt_epoch_epochs(nodes, mins, draw(st.integers(0, 3)))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(epoch_cases(), windows)
def test_epochs_to_schedule_equals_the_fraction_reference(case, window):
    nodes, epochs = case
    start, length = window
    assert (epochs_to_schedule(epochs, nodes, "P", start, length)
            == reference.epochs_to_schedule(epochs, nodes, "P", start, length))


POLICIES = ["BUDDY*", "HYBRID(1)", "HYBRID(2)", "EQUI-EPOCH", "OPT-EPOCH(1)", "OPT-EPOCH(0)",
            "HEURISTIC(1)", "HEURISTIC(3)"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(POLICIES), st.sampled_from([8, 16, 32, 64, 128]), st.integers(1, 12),
       st.integers(0, 10_000), st.booleans(), st.sampled_from([0.5, 1.0, 2.0]))
def test_the_closed_system_equals_the_reference_bit_for_bit(policy, nodes, jobs, seed, static,
                                                            load):
    runs = [cls(nodes, jobs, policy, static=static, seed=seed, load=load, departures=60)
            for cls in (EpochSimulation, reference.ReferenceSimulation)]
    for sim in runs:
        sim.run()
    fast, ref = runs
    assert [f.departure.hex() for f in fast.state.finished] == \
        [f.departure.hex() for f in ref.state.finished]
    assert fast.state.snapshot() == ref.state.snapshot()
    assert [s.changes for s in fast.steps] == [s.changes for s in ref.steps]
    # the told narration: every job is named J<id>, as the sentences were made at each step
    assert [s.narration for s in fast.steps] == \
        [[c.describe(None) for c in s.changes] for s in ref.steps]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=14),
       st.lists(st.integers(1, 40), min_size=1, max_size=14))
def test_loading_in_one_pass_takes_the_positions_the_scan_takes(parts, rest):
    parts_desc = tuple(sorted(parts, reverse=True))
    rest_desc = tuple(sorted(rest, reverse=True))
    assert epochs_mod._load_largest(parts_desc, rest_desc) == \
        reference.load_largest(parts_desc, rest_desc)
