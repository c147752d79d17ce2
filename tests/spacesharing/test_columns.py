"""A trace run on columns (no job objects) gives the schedule and the figures of the run on job
objects, number for number: the simulator on random workloads and the shipped traces, the
metrics, and the text ``gangviz run TRACE --policy NAME`` prints."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from gangviz.core.jobs import JobSpec
from gangviz.experiments.headless import trace_run
from gangviz.metrics.ibm import ibm_metrics, ibm_metrics_of_columns
from gangviz.policies import make_policy
from gangviz.spacesharing.backfill import simulate_backfill, simulate_backfill_columns
from gangviz.workloads.source import load_source, load_trace_columns
from gangviz.workloads.swf import read_swf_columns

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted((ROOT / "resources" / "workloads").glob("*.swf*"))
MODES = ("fcfs", "easy", "conservative")


def _jobs(seed: int) -> list[JobSpec]:
    rnd = random.Random(seed)
    jobs, t = [], 0.0
    for i in range(80):
        t += rnd.choice([0.0, 0.0, 1.0, 2.5, 7.0])  # many jobs arrive together: ties by id
        est = rnd.choice([None, 0.0, float(rnd.randint(1, 40))])
        jobs.append(JobSpec(i, f"J{i}", t, rnd.randint(1, 8), float(rnd.randint(1, 30)), est))
    return jobs


def _columns(jobs):
    est = [math.nan if j.estimate is None else j.estimate for j in jobs]
    return ([j.arrival for j in jobs], [j.size for j in jobs], [j.work for j in jobs], np.array(est))


@pytest.mark.parametrize("estimates", ["requested", "exact"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", range(6))
def test_columns_give_the_schedule_of_job_objects(mode, estimates, seed):
    jobs = _jobs(seed)
    for kill in (True, False) if mode != "conservative" else (True,):
        a = simulate_backfill(jobs, 8, mode=mode, estimates=estimates, kill_at_estimate=kill)
        b = simulate_backfill_columns(*_columns(jobs), 8, mode=mode, estimates=estimates,
                                      kill_at_estimate=kill)
        assert [(r.start, r.finish, r.reservation) for r in a.records] == \
            list(zip(b.start, b.finish, b.reservation))
        assert (a.capacity, a.end) == (b.capacity, b.end)


def test_columns_out_of_priority_order_are_refused():
    with pytest.raises(ValueError, match="priority order"):
        simulate_backfill_columns([2.0, 1.0], [1, 1], [1.0, 1.0], [1.0, 1.0], 4)


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_trace_columns_give_the_schedule_and_metrics_of_the_workload(trace):
    cols = read_swf_columns(trace)
    wl = cols.workload()
    assert [(j.arrival, j.size, j.work) for j in wl.jobs] == \
        list(zip(cols.arrival.tolist(), cols.size.tolist(), cols.work.tolist()))
    for mode in MODES:
        a = simulate_backfill(wl.jobs, wl.processors, mode=mode)
        b = simulate_backfill_columns(cols.arrival, cols.size, cols.work, cols.estimate, cols.processors,
                                      mode=mode)
        assert [r.start for r in a.records] == b.start
        m1 = ibm_metrics(a.records, wl.processors, capacity=a.capacity)
        m2 = ibm_metrics_of_columns(cols.arrival, b.start, b.finish, cols.work, cols.size, cols.processors,
                                    capacity=b.capacity)
        assert repr(m1) == repr(m2)  # NaN-safe, bit for bit


@pytest.mark.parametrize("policy", ["easy", "conservative", "fcfs", "easy:estimates=exact"])
def test_trace_run_prints_what_the_general_run_prints(policy):
    from gangviz.factory import run
    from gangviz.results.figures import run_figures

    trace = str(ROOT / "resources" / "workloads" / "NASA-iPSC-1993-3.1-cln-norm.swf.gz")
    pol = make_policy(*policy.split(":")[:1], **dict(kv.split("=") for kv in policy.split(":")[1:]))
    general = run_figures(run(load_source(trace), policy))
    done = trace_run(Path(trace).name, load_trace_columns(trace), pol)
    lines = [done.header(), *done.provenance(), *done.figures.text().splitlines()]
    assert lines[1].startswith(f"policy {policy.split(':')[0]}:estimates=")  # every parameter
    assert lines[2] == "bounded slowdown threshold Γ = 10 s (--bsld-threshold)"
    assert lines[3:] == general.text().splitlines()
    assert "bounded_slowdown" in "\n".join(lines) and "(default)" in "\n".join(lines)


def test_load_trace_columns_is_none_for_what_is_not_a_trace(tmp_path):
    assert load_trace_columns("downey") is None
    assert load_trace_columns(str(tmp_path / "missing.swf")) is None
    toml = tmp_path / "s.toml"
    toml.write_text('processors = 4\n')
    assert load_trace_columns(str(toml)) is None
