"""Each rule of the space-sharing loops, on a small hand-made trace, in every loop that runs it.

The same trace runs through the Python loop (the reference), the optional C loop and, for
conservative backfilling, the numba loop, and each must give the schedule worked out by hand in
the comment above it. The times are floats with fractions, so the C loop accepts the columns
(it declines anything else and the Python loop runs instead). Each trace is built so that its
schedule changes if one rule is left out of a loop: the shadow time and its tie at equality,
the extra processors, the running job taken out when it ends (so the shadow time moves back),
the first reservation kept, kill at the estimate, the booking of every waiting job, the release
of a booking when a job ends early, and the compression that follows it.

Rows are ``(arrival, processors, work, requested estimate)``, in priority order.
"""

from __future__ import annotations

import importlib
import math

import pytest

from gangviz.spacesharing import backfill
from gangviz.spacesharing.backfill import BackfillRecord, _conservative, _easy, _estimates_and_runs

EASY_LOOPS = ["python", "c"]
CONSERVATIVE_LOOPS = ["python", "c", "numba"]


def _module(name):
    """The optional compiled module ``name``, or skip the test when it is not there."""
    try:
        return importlib.import_module(name)
    except ImportError:
        pytest.skip(f"{name} is not built here")


def _columns(rows, processors, mode, kill):
    arrival = [r[0] for r in rows]
    size = [r[1] for r in rows]
    assert all(type(x) is float for r in rows for x in (r[0], r[2], r[3]))
    est, run = _estimates_and_runs(size, [r[2] for r in rows], [r[3] for r in rows], processors,
                                   mode, kill, str)
    return arrival, size, est, run


def easy(loop, rows, processors, *, backfill_on=True, kill=True):
    """Run EASY (FCFS without ``backfill_on``) in ``loop``; return (starts, first reservations)."""
    arrival, size, est, run = _columns(rows, processors, "easy", kill)
    if loop == "python":
        _, _, start, _, resv = _easy(arrival, size, est, run, processors, 0, backfill_on, None)
    else:
        out = _module("gangviz.spacesharing._easyloop").easy(arrival, size, est, run, processors,
                                                             0, backfill_on)
        assert out is not None, "the C loop declined the columns"
        _, _, start, _, resv = out
    return start, resv


def conservative(loop, rows, processors, *, kill=True):
    """Run conservative backfilling in ``loop``; return (starts, first reservations)."""
    arrival, size, est, run = _columns(rows, processors, "conservative", kill)
    if loop == "python":
        records = [BackfillRecord(None) for _ in rows]
        _conservative(arrival, size, est, run, records, processors, 0, None)
        return [r.start for r in records], [r.reservation for r in records]
    if loop == "c":
        out = _module("gangviz.spacesharing._easyloop").conservative(arrival, size, est, run,
                                                                     processors, 0)
        assert out is not None, "the C loop declined the columns"
        return out[2], out[4]
    compiled = _module("gangviz.spacesharing.compiled")
    start, _, first, _, _ = compiled.conservative_compiled(arrival, size, est, run, processors, 0)
    return start.tolist(), [None if math.isnan(f) else f for f in first.tolist()]


@pytest.mark.parametrize("loop", EASY_LOOPS)
def test_easy_backfills_a_job_that_ends_exactly_at_the_shadow_time(loop):
    # 4 processors. J0 (3) runs to 10.5; the head J1 needs all 4: its shadow time is 10.5, with
    # no extra processors. J2 (1 processor) arrives at 1.25 with an estimate of 9.25: it ends at
    # 10.5, by the shadow time (equal counts), so it backfills at once.
    rows = [(0.0, 3, 10.5, 10.5), (0.5, 4, 2.0, 2.0), (1.25, 1, 9.25, 9.25)]
    assert easy(loop, rows, 4) == ([0.0, 10.5, 1.25], [None, 10.5, None])
    # FCFS: J2 waits behind the head
    assert easy(loop, rows, 4, backfill_on=False) == ([0.0, 10.5, 12.5], [None, None, None])
    # The same test at a completion: on 5 processors J1 (1) ends at 1.25 as J3 (2, ending at
    # 10.5) arrives; the head J2 (5) has its shadow time at 10.5, so J3 backfills then.
    rows = [(0.0, 3, 10.5, 10.5), (0.0, 1, 1.25, 1.25), (0.5, 5, 2.0, 2.0), (1.25, 2, 9.25, 9.25)]
    assert easy(loop, rows, 5) == ([0.0, 0.0, 10.5, 1.25], [None, None, 10.5, None])


# 6 processors. J0 (2, to 3.0) and J1 (3, to 10.5) start at 0. The head J2 (4) has its shadow
# time at 10.5 (1 free + J0's 2 + J1's 3 = 6 >= 4) with 2 extra processors. At 1.5 (an arrival
# only) J3 (1, 20 long) runs past the shadow time but fits in the extra ones: it starts; 1
# extra left. At 3.0 J0 ends: 2 free, shadow 10.5, 1 extra. J4 (2, 30 long) fails (2 > 1 extra);
# J5 (1, 40 long) takes the last extra processor; J6 (the same) finds none and waits.
# At 10.5 J2 starts; at 11.5 J4 and J6 start.
EXTRA = [(0.0, 2, 3.0, 3.0), (0.0, 3, 10.5, 10.5), (1.0, 4, 1.0, 1.0), (1.5, 1, 20.0, 20.0),
         (2.5, 2, 30.0, 30.0), (2.75, 1, 40.0, 40.0), (2.75, 1, 40.0, 40.0)]


@pytest.mark.parametrize("loop", EASY_LOOPS)
def test_easy_backfills_on_the_extra_processors_and_uses_each_once(loop):
    assert easy(loop, EXTRA, 6) == ([0.0, 0.0, 10.5, 1.5, 11.5, 3.0, 11.5],
                                    [None, None, 10.5, None, 11.5, None, None])


@pytest.mark.parametrize("loop", EASY_LOOPS)
def test_jobs_arriving_together_share_the_extra_processors(loop):
    # 8 processors. J0 (2, to 3.0) and J1 (3, to 10.5) run; the head J2 (6) has its shadow time
    # at 10.5 with 2 extra processors and 3 free. J3 (1) and J4 (2), both 20 long, arrive
    # together at 1.5: J3 takes one extra processor, and J4 does not fit in the one left.
    rows = [(0.0, 2, 3.0, 3.0), (0.0, 3, 10.5, 10.5), (1.0, 6, 1.0, 1.0), (1.5, 1, 20.0, 20.0),
            (1.5, 2, 20.0, 20.0)]
    assert easy(loop, rows, 8) == ([0.0, 0.0, 10.5, 1.5, 11.5], [None, None, 10.5, None, 11.5])


@pytest.mark.parametrize("loop", EASY_LOOPS)
def test_fcfs_starts_jobs_strictly_in_order(loop):
    # the same trace without backfilling: nothing passes the head J2, which starts at 10.5
    # with J3 (1 free then); J4, J5 and J6 start when J2 ends at 11.5
    assert easy(loop, EXTRA, 6, backfill_on=False) == (
        [0.0, 0.0, 10.5, 10.5, 11.5, 11.5, 11.5], [None] * 7)


# 4 processors. J0 (2) is predicted to end at 5.0 but ends at 2.5; J1 (2) is predicted to end
# at 8.0 and, with kill at the estimate, is stopped then (its work is 9.0). The head J2 (4) has
# its shadow time at 8.0. When J0 ends it leaves the running jobs, so the shadow time stays 8.0
# (not J0's stale 5.0): J3 (2, ends at 7.0) backfills at 3.0. J2 starts at 8.0 when J1 is killed.
EARLY_END = [(0.0, 2, 2.5, 5.0), (0.0, 2, 9.0, 8.0), (0.5, 4, 1.0, 1.0), (3.0, 2, 4.0, 4.0)]


@pytest.mark.parametrize("loop", EASY_LOOPS)
def test_easy_drops_an_ended_job_from_the_shadow_time_and_kills_at_the_estimate(loop):
    assert easy(loop, EARLY_END, 4) == ([0.0, 0.0, 8.0, 3.0], [None, None, 8.0, None])
    # without killing, J1 runs its full 9.0 and J2 starts then
    assert easy(loop, EARLY_END, 4, kill=False) == ([0.0, 0.0, 9.0, 3.0],
                                                    [None, None, 8.0, None])


@pytest.mark.parametrize("loop", EASY_LOOPS)
def test_easy_keeps_the_first_reservation_and_moves_the_shadow_time_back(loop):
    # 6 processors. J0 (2, to 8.0), J1 (2, to 9.5) and J2 (2, predicted 12.0, ends at 3.0)
    # start at 0. The head J3 (5) gets shadow time 12.0, its reservation. When J2 ends at 3.0
    # the shadow time moves back to 9.5 (1 extra): J4 (2, to 10.5) now runs past it and waits;
    # J5 (1, to 8.75) backfills. J3 starts at 9.5; its reservation stays the first, 12.0.
    rows = [(0.0, 2, 8.0, 8.0), (0.0, 2, 9.5, 9.5), (0.0, 2, 3.0, 12.0), (0.5, 5, 1.0, 1.0),
            (3.5, 2, 7.0, 7.0), (3.75, 1, 5.0, 5.0)]
    assert easy(loop, rows, 6) == ([0.0, 0.0, 0.0, 9.5, 10.5, 3.75],
                                   [None, None, None, 12.0, 10.5, None])


@pytest.mark.parametrize("loop", EASY_LOOPS)
def test_easy_counts_every_job_predicted_to_end_at_the_shadow_time(loop):
    # 6 processors. J0 (3) and J1 (1) both end at 10.5, J2 (1) at 2.0. The head J3 needs 5: at
    # 2.0 (J2's end, when J4 and J5 arrive) 2 are free, J0 brings 5, and J1, ending at the same
    # time, one more: 1 extra. J4 (1, 20 long) takes it; J5 finds none and waits.
    rows = [(0.0, 3, 10.5, 10.5), (0.0, 1, 10.5, 10.5), (0.0, 1, 2.0, 2.0), (1.0, 5, 5.0, 5.0),
            (2.0, 1, 20.0, 20.0), (2.0, 1, 20.0, 20.0)]
    assert easy(loop, rows, 6) == ([0.0, 0.0, 0.0, 10.5, 2.0, 15.5],
                                   [None, None, None, 10.5, None, 15.5])


@pytest.mark.parametrize("loop", CONSERVATIVE_LOOPS)
def test_conservative_books_every_waiting_job(loop):
    # 4 processors. J0 (3) runs to 10.5. J1 (4) is booked at 10.5-12.5; J2 (1, 13 long) cannot
    # end before J1's booking and is booked after it, at 12.5; J3 (1, to 10.5) backfills at
    # 1.5. J4 (4) is booked after J2, at 25.5. J5 (3, 5 long) fits beside J2 from 12.5, before
    # J4's booking: it is booked there (EASY would have no booking for J2 and J4 to respect).
    rows = [(0.0, 3, 10.5, 10.5), (0.5, 4, 2.0, 2.0), (1.0, 1, 13.0, 13.0), (1.5, 1, 9.0, 9.0),
            (2.0, 4, 1.0, 1.0), (2.5, 3, 5.0, 5.0)]
    assert conservative(loop, rows, 4) == ([0.0, 10.5, 12.5, 1.5, 25.5, 12.5],
                                           [None, 10.5, 12.5, None, 25.5, 12.5])


@pytest.mark.parametrize("loop", CONSERVATIVE_LOOPS)
def test_conservative_releases_an_early_end_and_compresses(loop):
    # 4 processors. J0 (2) is booked to 10.5 but ends at 3.0; J1 (2, work 12.0) is booked to
    # 10.5 and killed there. J2 (4) is booked at 10.5; J3 (2, 4 long) after it, at 12.5. When
    # J0 ends its booking of 3.0-10.5 is released and the queue compressed: J3 moves to 3.0
    # and starts (its first reservation stays 12.5). J4 (2, 8 long) is booked at 12.5. J5 (2,
    # 3.5 long) fits 7.0-10.5, ending exactly where J2's booking starts: booked at 7.0.
    rows = [(0.0, 2, 3.0, 10.5), (0.0, 2, 12.0, 10.5), (0.5, 4, 2.0, 2.0), (1.0, 2, 4.0, 4.0),
            (3.5, 2, 8.0, 8.0), (3.75, 2, 3.5, 3.5)]
    assert conservative(loop, rows, 4) == ([0.0, 0.0, 10.5, 3.0, 12.5, 7.0],
                                           [None, None, 10.5, 12.5, 12.5, 7.0])


def test_the_loops_are_those_the_runs_use():
    # the wrappers the simulations call pick these loops: the same answers through them
    arrival, size, est, run = _columns(EXTRA, 6, "easy", True)
    assert backfill._easy_loop(arrival, size, est, run, 6, 0, True, None)[2] == \
        easy("python", EXTRA, 6)[0]


@pytest.mark.parametrize("loop", CONSERVATIVE_LOOPS)
def test_conservative_moves_a_reservation_and_frees_its_old_booking(loop):
    # 4 processors. J0 (2) runs to 5.0; J1 (2) is booked to 20.0 but ends at 2.0. J2 (4) is
    # booked at 20.0, J3 (2, 6 long) at 5.0, J4 (3, 4 long) at 21.0: these first reservations
    # stay what they are. At 2.0 J1's booking is released: J2 moves to 11.0 (giving back
    # 20.0-21.0), J3 moves to 2.0 and starts, and J4 moves to 12.0, after J2. At 5.0 J0 ends:
    # J2 moves to 8.0 (giving back 11.0-12.0, which lets J4 move to 9.0). J3 ends at 8.0.
    rows = [(0.0, 2, 5.0, 5.0), (0.0, 2, 2.0, 20.0), (0.5, 4, 1.0, 1.0), (1.0, 2, 6.0, 6.0),
            (1.5, 3, 4.0, 4.0)]
    assert conservative(loop, rows, 4) == ([0.0, 0.0, 8.0, 2.0, 9.0],
                                           [None, None, 20.0, 5.0, 21.0])
