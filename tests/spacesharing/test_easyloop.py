"""The optional C loop of EASY/FCFS (gangviz.spacesharing._easyloop) gives what the Python loop
``_easy`` gives, bit for bit: every start, finish and first reservation, the end time and the
three lost-capacity sums, on random workloads and on the shipped traces. Skipped when the
extension is not built (no C compiler at install time): the Python loop then runs alone."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gangviz.resources import RESOURCES
from gangviz.spacesharing import backfill
from gangviz.spacesharing.backfill import _easy, _estimates_and_runs
from gangviz.workloads.swf import read_swf_columns
from tests.spacesharing.helpers import assert_same_bits, draw_jobs, spy_on

easyloop = pytest.importorskip("gangviz.spacesharing._easyloop")


def _both(arrival, size, est, run, P, small_max, backfill_on):
    py = _easy(arrival, size, est, run, P, small_max, backfill_on, None)
    c = easyloop.easy(arrival, size, est, run, P, small_max, backfill_on)
    assert_same_bits(c, py[0], py[1], py[2], py[3], py[4])
    return py


@st.composite
def workloads(draw):
    P, arrival, size, work, requested = draw_jobs(
        draw, st.sampled_from([0.0, 0.1, 1.0, 2.0, 2.5, 7.0, 1 / 3, 10.0]))
    kill = draw(st.booleans())
    backfill_on = draw(st.booleans())  # False: FCFS
    small_max = draw(st.integers(0, P))
    est, run = _estimates_and_runs(size, work, requested, P, "easy", kill, str)
    return arrival, size, est, run, P, small_max, backfill_on


@settings(max_examples=400, deadline=None, derandomize=True)
@given(workloads())
# two running jobs predicted to end together at the head's shadow time both add to the extra
# processors (the random draws rarely line this up)
@example(([0.0, 0.0, 0.0, 1.0, 2.0, 2.0], [3, 1, 1, 5, 1, 1], [10.5, 10.5, 2.0, 5.0, 20.0, 20.0],
          [10.5, 10.5, 2.0, 5.0, 20.0, 20.0], 6, 0, True))
def test_c_loop_equals_python_loop_bit_for_bit(w):
    _both(*w)


@pytest.mark.parametrize("trace", ["NASA-iPSC-1993-3.1-cln-norm.swf.gz",
                                   "SDSC-SP2-1998-4.2-cln-norm.swf.gz",
                                   "KTH-SP2-1996-2.1-cln-first300.swf"])
@pytest.mark.parametrize("kill", [True, False])
@pytest.mark.parametrize("backfill_on", [True, False])
def test_c_loop_equals_python_loop_on_shipped_traces(trace, kill, backfill_on):
    c = read_swf_columns(RESOURCES / "workloads" / trace)
    size, work = c.size.tolist(), c.work.tolist()
    est, run = _estimates_and_runs(size, work, c.estimate.tolist(), c.processors, "easy", kill,
                                   str)
    py = _both(c.arrival.tolist(), size, est, run, c.processors, 32, backfill_on)
    assert py[1].lost > 0  # the trace exercises the waiting path


def test_non_float_columns_fall_back_to_python():
    # ints where floats are expected: the C loop declines, so result types stay Python's
    assert easyloop.easy([0, 1], [1, 1], [1.0, 1.0], [1.0, 1.0], 2, 1, True) is None
    assert easyloop.easy([0.0], [1.5], [1.0], [1.0], 2, 1, True) is None
    end, cap, start, finish, resv = backfill._easy_loop([0, 1], [1, 1], [1, 1], [1, 1], 2, 1,
                                                        True, None)
    assert (end, start, finish) == (2, [0, 1], [1, 2]) and type(end) is int


def test_the_columns_run_uses_the_c_loop(monkeypatch):
    calls = spy_on(monkeypatch, easyloop, "easy")
    res = backfill.simulate_backfill_columns([0.0, 0.0], [2, 1], [3.0, 1.0], [3.0, 1.0], 2)
    assert len(calls) == 1 and res.start == [0.0, 3.0]
    monkeypatch.setenv("GANGVIZ_PURE_PYTHON", "1")
    assert backfill.simulate_backfill_columns([0.0, 0.0], [2, 1], [3.0, 1.0], [3.0, 1.0],
                                              2).start == [0.0, 3.0]
    assert len(calls) == 1
