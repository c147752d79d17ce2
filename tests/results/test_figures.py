"""One set of figures for every run: the core of the IBM study with units for every policy of
every family, the same numbers whichever loop ran, and a bounded slowdown of at least 1 for
every job (a property over random workloads and the shipped traces)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.factory import run
from gangviz.metrics.ibm import bounded_slowdowns
from gangviz.results.figures import CORE_KEYS, ZHOU_KEYS, run_figures, units
from gangviz.workloads.source import Source, load_source

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "resources" / "workloads"
TIME_SLOT = ("gs", "mgs", "bgs", "mbgs", "bc", "br", "brms", "brmms")
SPACE_SHARING = ("easy", "conservative", "fcfs")


def per_job_slowdowns(done) -> np.ndarray:
    """Every finished job's bounded slowdown, from the columns of whichever engine ran."""
    src = done.source
    if done.engine.startswith("compiled:"):
        specs = sorted(src.jobs, key=lambda j: (j.arrival, j.id))
        start, finish = done.result.raw.start, done.result.raw.finish
    else:
        records = done.simulation.records() if done.simulation is not None and done.family == "matrix" \
            else (done.result or done.simulation.result).records
        records = [r for r in records if r.finish is not None and not r.terminated]
        specs = [r.spec for r in records]
        start = [r.start for r in records]
        finish = [r.finish for r in records]
    arrival = [j.arrival for j in specs]
    work = [j.work for j in specs]
    return bounded_slowdowns(np.multiply(arrival, src.slice_seconds), np.multiply(start, src.slice_seconds),
                             np.multiply(finish, src.slice_seconds), np.multiply(work, src.slice_seconds))


@st.composite
def workloads(draw):
    """A small machine of 16 processors and jobs whose estimates may fall short of their work
    (space sharing then stops them at the estimate)."""
    n = draw(st.integers(1, 14))
    jobs = []
    t = 0.0
    for i in range(n):
        t += draw(st.integers(0, 15))
        work = float(draw(st.integers(1, 40)))
        estimate = float(draw(st.integers(1, 60)))
        jobs.append(JobSpec(i, f"J{i + 1}", t, draw(st.integers(1, 16)), work, estimate))
    return Source("swf", "random", 16, jobs, slice_seconds=float(draw(st.sampled_from([1, 3, 200]))))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.sampled_from(TIME_SLOT + SPACE_SHARING))
def test_every_jobs_bounded_slowdown_is_at_least_one(source, policy):
    done = run(source, policy)
    slow = per_job_slowdowns(done)
    assert len(slow) and np.all(slow >= 1.0), (policy, slow.min())
    figs = run_figures(done).values
    for suffix in ("", "_small", "_large"):
        v = figs["bounded_slowdown" + suffix]
        assert math.isnan(v) or v >= 1.0


@pytest.mark.parametrize("trace, procs", [("KTH-SP2-1996-2.1-cln-first300.swf", None),
                                          ("NASA-iPSC-1993-3.1-cln-norm.swf.gz", None),
                                          ("SDSC-SP2-1998-4.2-cln-norm.swf.gz", None)])
@pytest.mark.parametrize("policy", SPACE_SHARING + ("gs", "mgs"))
def test_shipped_traces_have_no_slowdown_below_one(trace, procs, policy):
    done = run(load_source(str(TRACES / trace), procs=procs), policy)
    slow = per_job_slowdowns(done)
    assert np.all(slow >= 1.0)
    assert run_figures(done).values["bounded_slowdown"] >= 1.0


def test_a_job_stopped_at_its_estimate_divides_by_the_time_it_ran():
    """A job whose log says 100 s but asked for 40 s runs 40 s under EASY: its slowdown is
    response over 40 s, not over the 100 s it never got (that gave means below 1)."""
    src = Source("swf", "killed", 4, [JobSpec(0, "J1", 0.0, 4, 100.0, 40.0)])
    done = run(src, "easy")
    assert done.result.records[0].finish == 40.0
    assert run_figures(done).values["bounded_slowdown"] == 1.0
    assert list(per_job_slowdowns(done)) == [1.0]


@pytest.mark.parametrize("policy", TIME_SLOT)
def test_compiled_and_reference_loops_give_the_same_figures(policy):
    src = load_source("downey", jobs=60, load=0.8, seed=4)
    compiled, reference = run(src, policy), run(src, policy, engine="reference")
    assert compiled.engine.startswith("compiled:") and reference.engine == "reference"
    a, b = run_figures(compiled).values, run_figures(reference).values
    assert list(a) == list(CORE_KEYS + ZHOU_KEYS)
    for key in a:
        assert a[key] == pytest.approx(b[key], rel=1e-12, nan_ok=True), key


def test_every_figure_has_a_unit_on_either_clock():
    assert units("s")["wait"] == "s" and units("slice")["wait"] == "slices"
    assert units("s")["throughput"] == "jobs/h" and units("slice")["t_ta"] == "slices"
    assert units("s")["t_ta"] == "s"
    src = load_source(str(TRACES / "KTH-SP2-1996-2.1-cln-first300.swf"), procs=128, slice_seconds=10)
    gs = run_figures(run(src, "gs"))
    assert set(gs.units) == set(gs.values) == set(gs.definitions)
    # t_ta is in seconds on a trace whatever the slice: ten times the slices at 10 s a slice
    assert gs.values["t_ta"] == pytest.approx(gs.values["response"])
