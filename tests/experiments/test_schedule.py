"""A run kept as its schedule answers "who waits, who runs at t" as a brute force count does."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.experiments.schedule import Schedule, run_schedule
from gangviz.workloads.source import load_source


@st.composite
def schedules(draw):
    n = draw(st.integers(1, 30))
    arrival = np.array(draw(st.lists(st.integers(0, 50), min_size=n, max_size=n)), dtype=float)
    arrival.sort()
    wait = np.array(draw(st.lists(st.integers(0, 20), min_size=n, max_size=n)), dtype=float)
    run = np.array(draw(st.lists(st.integers(1, 20), min_size=n, max_size=n)), dtype=float)
    start, finish = arrival + wait, arrival + wait + run
    size = np.array(draw(st.lists(st.integers(1, 8), min_size=n, max_size=n)), dtype=np.int64)
    return Schedule("p", "matrix", 8, np.arange(n), arrival, size, start, finish, float(finish.max()))


@given(schedules(), st.floats(-1, 120))
@settings(max_examples=80, deadline=None)
def test_counts_and_sets_match_a_brute_force_reading(s, t):
    waiting, running, done = s.counts(t)
    assert waiting == int(np.sum((s.arrival <= t) & (s.start > t)))
    assert running == int(np.sum((s.start <= t) & (s.finish > t)))
    assert done == int(np.sum(s.finish <= t))
    assert sorted(s.running(t)) == list(np.flatnonzero((s.start <= t) & (s.finish > t)))
    assert len(s.waiting(t)) == waiting
    nxt = s.next_event(t)
    assert nxt > t
    every = np.concatenate([s.arrival, s.start, s.finish])
    assert not np.any((every > t) & (every < nxt))
    assert s.previous_event(t) < t or s.previous_event(t) == 0.0


@given(schedules())
@settings(max_examples=40, deadline=None)
def test_curves_count_the_jobs_at_each_time(s):
    c = s.curves(points=50)
    for i, t in enumerate(c["time"]):
        w, r, _d = s.counts(t)
        assert c["waiting"][i] == w and c["running"][i] == r
        held = s.size[(s.start <= t) & (s.finish > t)].sum() / s.processors
        assert np.isclose(c["demand"][i], held)


def test_a_schedule_holds_the_figures_of_run_and_every_job_once():
    src = load_source("downey", jobs=60, procs=32, load=0.7, seed=3)
    s = run_schedule(src, "easy")
    assert len(s.ids) == 60 and np.all(np.isfinite(s.finish))
    assert np.all(s.start >= s.arrival) and np.all(s.finish > s.start)
    assert s.counts(s.end) == (0, 0, 60)
    assert "wait" in s.figures.values
