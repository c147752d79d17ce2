"""The rule checker on every space-sharing schedule, and the properties of the three policies."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.spacesharing.backfill import simulate_backfill
from gangviz.spacesharing.checker import check_schedule
from tests.spacesharing.helpers import spaced_jobs

MODES = ("fcfs", "easy", "conservative")


def _jobs(rows):
    return [JobSpec(i, f"J{i}", a, n, w, e) for i, (a, n, w, e) in enumerate(rows)]


def checked(jobs, procs, mode, estimates="requested"):
    """Simulate, then assert the checker finds nothing; return the result."""
    res = simulate_backfill(jobs, procs, mode=mode, estimates=estimates)
    starts = {r.spec.id: r.start for r in res.records}
    assert check_schedule(jobs, starts, procs, mode, estimates=estimates) == []
    return res


@settings(max_examples=120, deadline=None)
@given(spaced_jobs(12, 30, [0.5, 1.0, 1.5, 4.0]), st.sampled_from(MODES), st.sampled_from(["requested", "exact"]))
def test_every_schedule_follows_its_rule(wl, mode, estimates):
    procs, jobs = wl
    res = checked(jobs, procs, mode, estimates)
    events = []
    for r in res.records:
        assert r.start >= r.spec.arrival  # no job starts before it arrives
        events += [(r.start, r.spec.size), (r.finish, -r.spec.size)]
        if mode != "fcfs" and r.reservation is not None:
            # EASY: the head's reservation; conservative: every job's: never delayed
            assert r.start <= r.reservation + 1e-9
    used = 0
    for _, d in sorted(events):  # completions (negative) before starts at one instant
        used += d
        assert used <= procs  # processors in use never exceed the machine


def test_easy_backfills_only_what_does_not_delay_the_head():
    # 4 processors: J0 runs 10 on 3; J1 (4 procs) waits for 10; J2 ends by 10 and backfills;
    # J3 would run to 22 on the one processor J1 needs: it must wait.
    jobs = _jobs([(0, 3, 10, 10), (1, 4, 5, 5), (2, 1, 5, 5), (2, 1, 20, 20)])
    res = checked(jobs, 4, "easy")
    start = {r.spec.name: r.start for r in res.records}
    assert start == {"J0": 0, "J1": 10, "J2": 2, "J3": 15}


def test_checker_finds_a_job_that_could_have_backfilled():
    jobs = _jobs([(0, 3, 10, 10), (1, 4, 5, 5), (2, 1, 5, 5)])
    fcfs = {r.spec.id: r.start for r in simulate_backfill(jobs, 4, mode="fcfs").records}
    assert check_schedule(jobs, fcfs, 4, "fcfs") == []
    found = check_schedule(jobs, fcfs, 4, "easy")
    assert [(v.job, v.time, v.rule) for v in found] == [(2, 2.0, "could start")]
    found = check_schedule(jobs, fcfs, 4, "conservative")
    assert [(v.job, v.rule) for v in found] == [(2, "could start")]


def test_checker_finds_a_backfill_that_delays_the_head():
    jobs = _jobs([(0, 3, 10, 10), (1, 4, 5, 5), (2, 1, 20, 20)])
    bad = {0: 0.0, 1: 22.0, 2: 2.0}  # J2 took the processor J1 needed at 10
    rules = {(v.job, v.rule) for v in check_schedule(jobs, bad, 4, "easy")}
    assert (2, "delays reservation") in rules
    assert (2, "delays reservation") in {(v.job, v.rule) for v in check_schedule(jobs, bad, 4, "conservative")}
    easy = {r.spec.id: r.start for r in simulate_backfill(jobs, 4, mode="easy").records}
    assert {(v.job, v.rule) for v in check_schedule(jobs, easy, 4, "fcfs")} == set()


def test_checker_catches_overtaking_under_fcfs_and_basic_breaches():
    jobs = _jobs([(0, 3, 10, 10), (1, 4, 5, 5), (2, 1, 5, 5)])
    easy = {r.spec.id: r.start for r in simulate_backfill(jobs, 4, mode="easy").records}
    assert [(v.job, v.rule) for v in check_schedule(jobs, easy, 4, "fcfs")] == [(2, "delays reservation")]
    rules = {v.rule for v in check_schedule(jobs, {0: 0.0, 1: 0.5, 2: 2.0}, 4, "easy")}
    assert {"before arrival", "overcommit"} <= rules
    with pytest.raises(ValueError, match="no start time"):
        check_schedule(jobs, {0: 0.0}, 4, "easy")
    with pytest.raises(ValueError, match="mode"):
        check_schedule(jobs, easy, 4, "sjf")


def test_conservative_reserves_for_every_waiting_job():
    # J1 (4 procs) reserved at 10; J2 (2 procs, 20 long) would delay it and must wait;
    # under EASY it would wait too; J3 (1 proc, 5 long) backfills in both.
    jobs = _jobs([(0, 3, 10, 10), (1, 4, 5, 5), (2, 2, 20, 20), (3, 1, 5, 5)])
    cons = checked(jobs, 4, "conservative")
    start = {r.spec.name: r.start for r in cons.records}
    assert start["J3"] == 3 and start["J1"] == 10 and start["J2"] == 15


def test_exact_estimates_change_the_schedule():
    # J0's request says 100, it runs 10: with exact estimates J2 (ends at 12) may backfill at 2
    jobs = _jobs([(0, 3, 10, 100), (1, 4, 5, 5), (2, 1, 10, 10)])
    req = {r.spec.name: r.start for r in checked(jobs, 4, "easy").records}
    exact = {r.spec.name: r.start for r in checked(jobs, 4, "easy", "exact").records}
    assert req["J2"] == 2 and exact["J2"] == 15


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("estimates", ["requested", "exact"])
@pytest.mark.parametrize("trace", ["KTH-SP2-1996-2.1-cln-first300.swf", "downey-200-load0.5-seed1.swf"])
def test_shipped_traces_follow_the_rule(trace, mode, estimates):
    from gangviz.resources import RESOURCES
    from gangviz.workloads.swf import read_swf

    wl = read_swf(RESOURCES / "workloads" / trace)
    checked(wl.jobs, wl.processors, mode, estimates)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(spaced_jobs(12, 30, [0.5, 1.0, 1.5, 4.0]), st.sampled_from(["requested", "exact"]), st.booleans())
def test_compiled_conservative_equals_the_python_loop(wl, estimates, kill):
    procs, jobs = wl
    if not kill and estimates == "requested" and any(j.work > j.estimate for j in jobs):
        with pytest.raises(ValueError, match="runs past|estimate"):
            simulate_backfill(jobs, procs, mode="conservative", kill_at_estimate=False)
        return
    a = simulate_backfill(jobs, procs, mode="conservative", estimates=estimates, kill_at_estimate=kill)
    b = simulate_backfill(jobs, procs, mode="conservative", estimates=estimates, kill_at_estimate=kill,
                          compiled=False)
    assert [(r.start, r.finish, r.reservation) for r in a.records] == \
        [(r.start, r.finish, r.reservation) for r in b.records]
    assert a.capacity == b.capacity and a.end == b.end


def test_easy_tie_breaks(monkeypatch):
    # Float times, so the run goes through the C loop when it is built (it declines ints).
    calls = []
    try:
        from gangviz.spacesharing import _easyloop
    except ImportError:
        _easyloop = None
    else:
        real = _easyloop.easy
        monkeypatch.setattr(_easyloop, "easy", lambda *a: calls.append(a) or real(*a))
    # A job that ends exactly at the head's shadow time backfills: J0 (3 of 4 processors) ends
    # at 10.5, the head J1 needs all 4, J2 (1 processor, 8.5 long, arriving at 2) ends at 10.5.
    jobs = _jobs([(0.0, 3, 10.5, 10.5), (1.0, 4, 5.0, 5.0), (2.0, 1, 8.5, 8.5)])
    start = {r.spec.name: r.start for r in checked(jobs, 4, "easy").records}
    assert start == {"J0": 0.0, "J1": 10.5, "J2": 2.0}
    # The extra processors count every job predicted to end at the shadow time: on 5 processors
    # J0 (3) and J1 (1) both end at 10.5; the head J2 needs 4, reached with J0 alone, but at
    # 10.5 J1 frees one more, so 1 processor is extra and J3 (1 processor, running past 10.5)
    # backfills.
    jobs = _jobs([(0.0, 3, 10.5, 10.5), (0.0, 1, 10.5, 10.5), (1.0, 4, 5.0, 5.0),
                  (2.0, 1, 20.0, 20.0)])
    start = {r.spec.name: r.start for r in checked(jobs, 5, "easy").records}
    assert start == {"J0": 0.0, "J1": 0.0, "J2": 10.5, "J3": 2.0}
    assert len(calls) == (0 if _easyloop is None else 2)  # both runs reached the C loop
