"""A queue order for the built-ins: arrival order changes nothing, any other keeps the rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.spacesharing.backfill import simulate_backfill
from gangviz.spacesharing.checker import check_schedule
from tests.spacesharing.helpers import whole_jobs


@settings(max_examples=60, deadline=None)
@given(whole_jobs(25, (0, 10)), st.sampled_from(["easy", "fcfs"]))
def test_arrival_order_as_a_key_gives_the_plain_schedule(wl, mode):
    jobs, procs = wl
    plain = simulate_backfill(jobs, procs, mode=mode)
    keyed = simulate_backfill(jobs, procs, mode=mode, order=lambda j: (j.arrival, j.id))
    assert [(r.start, r.finish) for r in plain.records] == [(r.start, r.finish) for r in keyed.records]


@settings(max_examples=60, deadline=None)
@given(whole_jobs(25, (0, 10)), st.sampled_from(["easy", "fcfs"]), st.integers(0, 3))
def test_any_order_starts_no_job_early_and_never_oversubscribes(wl, mode, which):
    jobs, procs = wl
    key = [lambda j: j.work, lambda j: -j.size, lambda j: j.size, lambda j: j.id % 3][which]
    res = simulate_backfill(jobs, procs, mode=mode, order=key)
    events = []
    for r in res.records:
        assert r.start >= r.spec.arrival and r.finish is not None
        events += [(r.start, 1, r.spec.size), (r.finish, 0, -r.spec.size)]
    busy = 0
    for _, _, delta in sorted(events):
        busy += delta
        assert busy <= procs


def test_the_fcfs_checker_still_holds_for_plain_runs():
    jobs = [JobSpec(i, f"J{i}", float(i), 1 + i % 4, 5.0, 6.0) for i in range(12)]
    res = simulate_backfill(jobs, 4, mode="easy")
    assert check_schedule(jobs, {r.spec.id: r.start for r in res.records}, 4, "easy") == []
