"""A gang run a stretch at a time gives the whole run's finish times and figures, bit for bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.fast.gang import JobArrays, run_gang
from gangviz.fast.gang_chunks import run_gang_chunks, zhou_metrics_of_columns
from gangviz.metrics.zhou import zhou_metrics_of
from gangviz.workloads.synthetic import uniform_log, uniform_log_columns


@settings(max_examples=40, deadline=None)
@given(policy=st.sampled_from(["gs", "bgs", "mgs", "mbgs"]), mpl=st.integers(1, 4),
       load=st.sampled_from([0.3, 0.7, 1.1]), n=st.integers(1, 400), seed=st.integers(0, 10**6),
       stretch=st.integers(1, 50))
def test_stretches_give_the_whole_run(policy, mpl, load, n, seed, stretch):
    c = uniform_log_columns(n, load, procs=16, max_work=40, seed=seed)
    whole = run_gang(JobArrays(np.arange(n), c.arrival, c.size.astype(np.int64), c.work.astype(float),
                               np.full(n, np.nan)), policy, {"mpl": mpl}, 16)
    parts = run_gang_chunks(c.arrival, c.size, c.work, policy, {"mpl": mpl}, 16, stretch=stretch, starts=True)
    assert np.array_equal(parts.finish, whole.finish) and np.array_equal(parts.start, whole.start)
    assert (parts.time, parts.max_rows, parts.slot_time) == (whole.time, whole.max_rows, whole.slot_time)
    assert (parts.migrated_tasks, parts.migration_overhead) == (whole.migrated_tasks, whole.migration_overhead)
    assert parts.capacity() == whole.capacity()
    done = list(zip(c.arrival.tolist(), c.size.tolist(), c.work.astype(float).tolist(), whole.finish.tolist()))
    assert zhou_metrics_of_columns(c.arrival, c.size, c.work, parts.finish, 16, parts.time, parts.max_rows,
                                   parts.slot_time, block=7) == \
        zhou_metrics_of(done, 16, whole.time, whole.max_rows, whole.slot_time)


def test_a_busy_machine_is_never_cut():
    # above saturation the machine is never empty: one stretch has to take every job
    c = uniform_log_columns(300, 3.0, procs=16, max_work=40, seed=1)
    run = run_gang_chunks(c.arrival, c.size, c.work, "gs", {}, 16, stretch=10)
    whole = run_gang(JobArrays(np.arange(300), c.arrival, c.size.astype(np.int64), c.work.astype(float),
                               np.full(300, np.nan)), "gs", {}, 16)
    assert np.array_equal(run.finish, whole.finish)


@pytest.mark.parametrize("n, block", [(1, 1), (7, 3), (1000, 256), (1024, 256)])
def test_columns_drawn_by_blocks_are_the_draws_of_one_call(monkeypatch, n, block):
    from gangviz.workloads import synthetic
    from gangviz.workloads.dists import sample_uniform_log

    monkeypatch.setattr(synthetic, "DRAW_BLOCK", block)
    c = uniform_log_columns(n, 0.7, procs=64, max_work=90, seed=3)
    rng = np.random.default_rng(3)
    size = sample_uniform_log(rng, n, 64)
    work = sample_uniform_log(rng, n, 90)
    gaps = rng.exponential(1.0 / c.rate, size=n)
    arrival = np.concatenate(([0.0], np.cumsum(gaps[:-1])))
    assert np.array_equal(c.size, size) and np.array_equal(c.work, work)
    assert np.array_equal(c.arrival, arrival)
    assert [(j.arrival, j.size, j.work) for j in uniform_log(n, 0.7, procs=64, max_work=90, seed=3).jobs] == \
        list(zip(arrival.tolist(), size.tolist(), work.astype(float).tolist()))


def test_out_of_order_arrivals_are_refused():
    with pytest.raises(ValueError, match="in order"):
        run_gang_chunks(np.array([1.0, 0.5]), np.array([1, 1]), np.array([1.0, 1.0]), "gs", {}, 4)


def test_bad_jobs_are_refused_with_the_loop_s_message():
    with pytest.raises(ValueError, match=r"job size must be in 1..4 processors, got 9 \(job 1\)"):
        run_gang_chunks(np.array([0.0, 1.0]), np.array([1, 9]), np.array([1.0, 1.0]), "gs", {}, 4)
    with pytest.raises(ValueError, match="job work must be finite"):
        run_gang_chunks(np.array([0.0, 1.0]), np.array([1, 1]), np.array([1.0, 0.0]), "gs", {}, 4)


def test_a_bad_job_late_in_the_run_is_named_by_its_own_number():
    c = uniform_log_columns(50, 0.3, procs=16, seed=2)
    size = c.size.copy()
    size[40] = 17
    with pytest.raises(ValueError, match=r"got 17 \(job 40\)"):
        run_gang_chunks(c.arrival, size, c.work, "gs", {}, 16, stretch=5)
