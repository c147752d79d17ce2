"""The optional C loop of conservative backfilling (``conservative`` of
gangviz.spacesharing._easyloop) gives what the Python loop ``_conservative`` gives, bit for bit:
every start, finish and first reservation, the end time and the three lost-capacity sums, on
random workloads and on the shipped traces; a conservative run then never imports numba.
Skipped when the extension is not built (no C compiler at install time): the numba loop then
runs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.resources import RESOURCES
from gangviz.spacesharing import backfill
from gangviz.spacesharing.backfill import BackfillRecord, _conservative, _estimates_and_runs
from gangviz.workloads.swf import read_swf_columns
from tests.imports_after import modules_after_run
from tests.spacesharing.helpers import assert_same_bits, bits, draw_jobs, spy_on

easyloop = pytest.importorskip("gangviz.spacesharing._easyloop")

TRACES = ["NASA-iPSC-1993-3.1-cln-norm.swf.gz", "SDSC-SP2-1998-4.2-cln-norm.swf.gz",
          "KTH-SP2-1996-2.1-cln-first300.swf"]


def _both(arrival, size, est, run, P, small_max):
    """Run both loops, assert they agree bit for bit; return the Python loop's (end, capacity)."""
    records = [BackfillRecord(None) for _ in arrival]
    end, cap = _conservative(arrival, size, est, run, records, P, small_max, None)
    c = easyloop.conservative(arrival, size, est, run, P, small_max)
    assert_same_bits(c, end, cap, [r.start for r in records], [r.finish for r in records],
                     [r.reservation for r in records])
    return end, cap


@st.composite
def workloads(draw):
    # no zero run times: a job that books nothing can start beside another on a full machine,
    # which the Python loop stops at (an assertion), so there is nothing to compare; up to 30
    # jobs, which already queue on 1-16 processors (the shipped traces below compare long
    # queues), at half the time of 60
    P, arrival, size, work, requested = draw_jobs(
        draw, st.sampled_from([0.1, 1.0, 2.0, 2.5, 7.0, 1 / 3, 10.0]), max_jobs=30)
    kill = draw(st.booleans())
    if not kill:
        # conservative without killing needs estimates that bound the run time (callers refuse
        # anything else), so raise those below it
        requested = [w if r > 0 and r < w else r for r, w in zip(requested, work)]
    small_max = draw(st.integers(0, P))
    est, run = _estimates_and_runs(size, work, requested, P, "conservative", kill, str)
    return arrival, size, est, run, P, small_max


@settings(max_examples=400, deadline=None, derandomize=True)
@given(workloads())
def test_c_loop_equals_python_loop_bit_for_bit(w):
    _both(*w)


# the Python loop takes some forty seconds of CPU on the whole of SDSC-SP2 with requested
# estimates: its first 10,000 jobs (a tenth of that) already queue for hours, so that case
# covers the waiting path; the two smaller traces run whole, with both kinds of estimates
@pytest.mark.parametrize(("trace", "estimates"), [
    (TRACES[0], "requested"), (TRACES[0], "exact"), (TRACES[1], "requested"),
    (TRACES[2], "requested"), (TRACES[2], "exact")])
def test_c_loop_equals_python_loop_on_shipped_traces(trace, estimates):
    c = read_swf_columns(RESOURCES / "workloads" / trace)
    n = 10_000 if trace == TRACES[1] else len(c.size)
    size, work = c.size[:n].tolist(), c.work[:n].tolist()
    requested = c.estimate[:n].tolist() if estimates == "requested" else None
    est, run = _estimates_and_runs(size, work, requested, c.processors, "conservative", True, str)
    end, cap = _both(c.arrival[:n].tolist(), size, est, run, c.processors, 32)
    assert cap.lost > 0  # the trace exercises the waiting path


def test_non_float_columns_fall_back():
    # ints where floats are expected: the C loop declines and the numba loop runs
    assert easyloop.conservative([0, 1], [1, 1], [1.0, 1.0], [1.0, 1.0], 2, 1) is None
    assert easyloop.conservative([0.0], [1.5], [1.0], [1.0], 2, 1) is None
    end, cap, start, finish, resv = backfill._conservative_loop([0, 1], [2, 1], [1, 1], [1, 1], 2, 1)
    assert (end, start, finish, resv) == (2.0, [0.0, 1.0], [1.0, 2.0], [None, None])


def test_columns_run_uses_the_c_loop_and_the_numba_loop_agrees(monkeypatch):
    calls = spy_on(monkeypatch, easyloop, "conservative")
    c = read_swf_columns(RESOURCES / "workloads" / TRACES[2])
    cols = (c.arrival, c.size, c.work, c.estimate, c.processors)
    fast = backfill.simulate_backfill_columns(*cols, mode="conservative")
    assert len(calls) == 1
    monkeypatch.setenv("GANGVIZ_PURE_PYTHON", "1")  # skips the C loop: the numba loop runs
    slow = backfill.simulate_backfill_columns(*cols, mode="conservative")
    assert len(calls) == 1
    assert (bits(fast.start), bits(fast.finish), bits(fast.reservation), fast.capacity,
            bits(fast.end)) == (bits(slow.start), bits(slow.finish), bits(slow.reservation),
                                 slow.capacity, bits(slow.end))


def test_conservative_run_imports_no_numba(tmp_path):
    assert modules_after_run(tmp_path, "conservative", "m.split('.')[0] == 'numba' "
                             "or m == 'gangviz.spacesharing.compiled'") == (0, [])
