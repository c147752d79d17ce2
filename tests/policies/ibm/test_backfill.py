"""Tests of the event-driven BF (conservative) and EASY simulator (Zhang01 §3)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.spacesharing.backfill import simulate_backfill
from tests.spacesharing.helpers import spaced_jobs


def _jobs(specs):
    return [JobSpec(i, f"J{i}", a, s, w, e) for i, (a, s, w, e) in enumerate(specs)]


def test_easy_backfills_a_short_job_but_not_a_long_one():
    # 4 processors. J0 (3 procs, 10 s) runs; J1 (4 procs) waits, shadow at 10 with no extra;
    # J2 (1 proc, 5 s) ends before the shadow and backfills; J3 (1 proc, 20 s) would delay J1.
    res = simulate_backfill(_jobs([(0, 3, 10, 10), (1, 4, 5, 5), (2, 1, 5, 5), (2, 1, 20, 20)]), 4)
    r = res.records
    assert r[0].start == 0 and r[1].start == 10 and r[2].start == 2 and r[3].start == 15
    assert r[1].reservation == 10


def test_conservative_protects_every_reservation():
    # J3 (1 proc, 7 s) fits the hole before J1 in EASY's view but would delay J2's reservation
    # under conservative backfilling: J2 (2 procs) is reserved at 15 after J1 (4 procs, 10..15).
    jobs = _jobs([(0, 3, 10, 10), (1, 4, 5, 5), (1, 2, 5, 5), (2, 1, 7, 7)])
    cons = simulate_backfill(jobs, 4, mode="conservative").records
    assert cons[1].start == 10 and cons[2].start == 15
    assert cons[3].start == 2  # ends at 9 < 10: delays nobody


def test_kill_at_estimate():
    res = simulate_backfill(_jobs([(0, 2, 10, 4)]), 4)
    assert res.records[0].finish == 4
    res = simulate_backfill(_jobs([(0, 2, 10, 4)]), 4, kill_at_estimate=False)
    assert res.records[0].finish == 10


@pytest.mark.parametrize("kw", [dict(mode="fifo"), dict(processors=0)])
def test_bad_arguments(kw):
    args = dict(processors=4, mode="easy") | kw
    with pytest.raises(ValueError):
        simulate_backfill(_jobs([(0, 1, 1, 1)]), args.pop("processors"), **args)


def test_too_big_job_names_it():
    with pytest.raises(ValueError, match="J0 needs 5"):
        simulate_backfill(_jobs([(0, 5, 1, 1)]), 4)


@settings(max_examples=80, deadline=None)
@given(spaced_jobs(16, 40, [1.0, 1.5, 4.0]), st.sampled_from(["easy", "conservative"]))
def test_backfill_invariants(wl, mode):
    procs, jobs = wl
    res = simulate_backfill(jobs, procs, mode=mode)
    events = []
    for rec in res.records:
        spec = rec.spec
        assert rec.start >= spec.arrival
        assert rec.finish - rec.start == pytest.approx(min(spec.work, spec.estimate))  # work conserved
        if rec.reservation is not None:
            assert rec.start <= rec.reservation + 1e-9  # a reservation is never violated
        events += [(rec.start, spec.size), (rec.finish, -spec.size)]
    used = 0
    for _, d in sorted(events, key=lambda e: (e[0], e[1])):
        used += d
        assert used <= procs  # the single row never holds more than P processes
    # backfilling never leaves the queue head waiting while it fits
    assert res.end == pytest.approx(max(r.finish for r in res.records))


@settings(max_examples=40, deadline=None)
@given(spaced_jobs(16, 40, [1.0, 1.5, 4.0]))
def test_easy_never_starts_a_job_later_than_fcfs_would_start_the_head(wl):
    procs, jobs = wl
    res = simulate_backfill(jobs, procs, mode="easy")
    first = min(res.records, key=lambda r: (r.spec.arrival, r.spec.id))
    assert first.start == first.spec.arrival
