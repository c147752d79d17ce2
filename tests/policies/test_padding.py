"""A trace run on more processors than its machine has (a buddy policy needs a power of two):
the padded processors never hold a job, and the active ratio and utilisation count only the
real ones."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.factory import build
from gangviz.metrics.zhou import zhou_metrics
from gangviz.workloads.source import load_source

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def test_a_trace_on_more_processors_than_its_header_knows_its_padding():
    assert load_source(str(KTH), procs=128).absent_from == 100
    assert load_source(str(KTH)).absent_from is None
    assert load_source(str(KTH), procs=100).absent_from is None


@pytest.mark.parametrize("policy", ["bc", "br", "brms", "brmms"])
def test_no_job_ever_holds_a_padded_processor_of_the_kth_trace(policy):
    sim = build(load_source(str(KTH), procs=128), policy)
    assert sim.real_processors == 100
    busiest = 0
    for _ in range(400):
        if sim.step() is None:
            break
        cells = sim.matrix.cells
        assert (cells[:, 100:] == -1).all()
        busiest = max(busiest, int((cells[:, :100] >= 0).sum(axis=1).max(initial=0)))
    assert busiest > 64  # the real machine was used beyond the buddy half
    ratios = [s.active_ratio for s in sim.samples]
    assert max(ratios) <= 1.0 and max(ratios) > 0.64
    r_a = zhou_metrics(sim)["r_a"]
    work = sum(r.spec.size * r.spec.work for r in sim.jobs.values() if r.finish is not None
               and not r.terminated)
    assert r_a == pytest.approx(work / (100 * sim.time))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["bc", "br", "brms", "brmms"]), st.integers(9, 31), st.integers(1, 5))
def test_padding_is_never_allocated_whatever_the_real_size(policy, real, seed):
    src = load_source("downey", jobs=40, load=0.9, procs=32, seed=seed)
    src = replace(src, absent_from=real,
                  jobs=[replace(j, size=min(j.size, real)) for j in src.jobs])
    sim = build(src, policy)
    for _ in range(200):
        if sim.step() is None:
            break
        assert (np.asarray(sim.matrix.cells)[:, real:] == -1).all()


def test_the_ibm_utilisation_counts_only_the_real_processors():
    from gangviz.metrics.ibm import engine_ibm_metrics

    sim = build(load_source(str(KTH), procs=128), "br")
    while sim.step() is not None:
        pass
    padded = engine_ibm_metrics(sim)["utilization"]
    work = sum(r.spec.size * r.spec.work for r in sim.jobs.values())
    assert 0 < padded <= 1
    assert padded > work / (128 * sim.time)  # not diluted by the 28 absent processors


@pytest.mark.parametrize("policy", ["bc", "br", "brms", "brmms"])
def test_the_compiled_loop_leaves_the_padding_alone_as_the_reference_does(policy):
    from gangviz.factory.compiled import compiled_runner

    src = load_source("downey", jobs=150, load=0.9, procs=64, seed=4)
    src = replace(src, absent_from=40, jobs=[replace(j, size=min(j.size, 40)) for j in src.jobs])
    runner = compiled_runner(src, policy, {}, False)
    assert runner is not None
    fast = runner.run(src, policy, {}).metrics
    sim = build(src, policy)
    while sim.step() is not None:
        assert (np.asarray(sim.matrix.cells)[:, 40:] == -1).all()
    ref = zhou_metrics(sim)
    assert fast["r_a"] == pytest.approx(ref["r_a"]) and fast["t_ta"] == pytest.approx(ref["t_ta"])
