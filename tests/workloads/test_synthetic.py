"""Synthetic models: exact moments of their distributions, sample moments, seeds, round trips."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gangviz.workloads.dists import (
    HyperErlang,
    bounded_normal_pmf,
    phi_overestimation,
    pmf_moments,
    uniform_log_pmf,
)
from gangviz.workloads.swf import parse_swf, write_swf
from gangviz.workloads.synthetic import (
    fit_classes,
    gangs,
    hyper_erlang,
    min_nodes,
    min_nodes_upper,
    power_of_two_classes,
    uniform_log,
    uniform_log_means,
)


def within(sample: np.ndarray, mean: float, var: float, z: float = 5.0) -> bool:
    """The sample mean lies within z standard errors of the exact mean."""
    return abs(sample.mean() - mean) <= z * math.sqrt(var / len(sample))


# --- 001 uniform-log ------------------------------------------------------------------------------


def test_uniform_log_pmf_is_the_rounded_log_uniform_law():
    pmf = uniform_log_pmf(120)
    assert len(pmf) == 120 and math.isclose(pmf.sum(), 1.0)
    assert math.isclose(pmf[0], math.log(1.5) / math.log(120))  # k = 1 covers [1, 1.5)
    assert math.isclose(pmf[-1], (math.log(120) - math.log(119.5)) / math.log(120))
    assert np.all(np.diff(pmf[1:-1]) < 0)  # density 1/x: falling


def test_uniform_log_sizes_and_work_follow_their_exact_pmfs():
    w = uniform_log(40_000, 0.5, procs=128, max_work=120, seed=3)
    sizes, work = w.sizes(), w.works()
    for values, hi in ((sizes, 128), (work, 120)):
        pmf = uniform_log_pmf(hi)
        mean, var = pmf_moments(pmf)
        assert within(values, mean, var)
        assert values.min() >= 1 and values.max() <= hi and np.all(values == np.rint(values))
        freq = np.bincount(values.astype(int), minlength=hi + 1)[1:] / len(values)
        assert np.abs(freq - pmf).max() < 0.01
    assert abs(np.corrcoef(np.log(sizes), np.log(work))[0, 1]) < 0.03  # independent


def test_uniform_log_arrival_rate_gives_the_requested_load():
    load, procs, max_work = 0.7, 128, 120
    w = uniform_log(40_000, load, procs=procs, max_work=max_work, seed=5)
    ep, et = uniform_log_means(procs, max_work)
    lam = load * procs / (ep * et)
    a = w.arrivals()
    assert a[0] == 0.0 and np.all(np.diff(a) >= 0)
    gaps = np.diff(a)
    assert within(gaps, 1 / lam, 1 / lam**2)
    assert float(w.header["ArrivalRate"]) == pytest.approx(lam)
    assert w.offered_load() == pytest.approx(load, rel=0.05)
    assert [j.id for j in w.jobs[:3]] == [0, 1, 2] and w.jobs[0].name == "J1"


def test_seeds_reproduce_and_differ():
    assert uniform_log(50, 0.5, seed=1).jobs == uniform_log(50, 0.5, seed=1).jobs
    assert uniform_log(50, 0.5, seed=1).jobs != uniform_log(50, 0.5, seed=2).jobs
    assert gangs(30, seed=4).jobs == gangs(30, seed=4).jobs
    assert hyper_erlang(30, seed=4, phi=0.3).jobs == hyper_erlang(30, seed=4, phi=0.3).jobs
    assert min_nodes(8, seed=4).jobs == min_nodes(8, seed=4).jobs


@pytest.mark.parametrize("kw, msg", [
    ({"n_jobs": 0, "load": 0.5}, "n_jobs must be a whole number >= 1"),
    ({"n_jobs": 5, "load": 0}, "load must be a finite number > 0"),
    ({"n_jobs": 5, "load": 0.5, "procs": 0}, "procs must be"),
    ({"n_jobs": 5, "load": float("inf")}, "load must be"),
])
def test_uniform_log_rejects_bad_parameters(kw, msg):
    with pytest.raises(ValueError, match=msg):
        uniform_log(**kw)


# --- 003 hyper-Erlang and Phi ---------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(m1=st.floats(1e-3, 1e4), cv2=st.floats(0.05, 50), extra=st.floats(1e-3, 10))
@example(m1=1.0, cv2=0.333984375, extra=4.0)  # a rare, long branch (p ~ 1e-11): ill-conditioned
def test_hyper_erlang_fit_matches_three_moments_exactly(m1, cv2, extra):
    m2 = (1 + cv2) * m1 * m1
    m3 = m2 * m2 / m1 * (1 + extra)  # any m3 above Cauchy-Schwarz
    h = HyperErlang.fit(m1, m2, m3, max_order=10**9)
    assert h.order == HyperErlang.min_order(m1, m2, m3)
    assert 0 < h.p < 1 and h.scale1 > h.scale2 > 0
    for got, want in zip(h.moments(), (m1, m2, m3)):
        assert got == pytest.approx(want, rel=1e-6)
    if h.order > 1:  # the smallest order: one less cannot match
        with pytest.raises(ValueError):
            HyperErlang.fit(m1, m2, m3, order=h.order - 1)


def test_hyper_erlang_samples_have_the_fitted_moments():
    h = HyperErlang.fit(10.0, 300.0, 18_000.0)  # CV^2 = 2
    x = h.sample(np.random.default_rng(0), 400_000)
    assert x.mean() == pytest.approx(10.0, rel=0.02)
    assert np.mean(x**2) == pytest.approx(300.0, rel=0.04)
    assert np.mean(x**3) == pytest.approx(18_000.0, rel=0.12)


@pytest.mark.parametrize("m, msg", [((1, 0.5, 1), "positive variance"), ((1, 2, 3), "Cauchy-Schwarz"),
                                    ((-1, 2, 9), "must be a finite number > 0")])
def test_hyper_erlang_rejects_impossible_moments(m, msg):
    with pytest.raises(ValueError, match=msg):
        HyperErlang.fit(*m)


def test_hyper_erlang_order_cap():
    with pytest.raises(ValueError, match="needs order"):
        HyperErlang.fit(1.0, 1.0 + 1e-9, 1.0 + 4e-9, max_order=1000)


@pytest.mark.parametrize("phi", [0.0, 0.2, 0.5, 1.0])
def test_phi_model_moments(phi):
    f = phi_overestimation(np.random.default_rng(1), 200_000, phi)
    assert np.all(f >= 1.0)
    exact = f == 1.0
    assert exact.mean() == pytest.approx(phi, abs=0.005)
    if phi < 1:
        frac = 1.0 / f[~exact]  # uniform on (0, 1]
        assert within(frac, 0.5, 1 / 12)
        assert np.var(frac) == pytest.approx(1 / 12, rel=0.02)
        # E[run / estimate] = Phi + (1 - Phi) / 2
        assert (1 / f).mean() == pytest.approx(phi + (1 - phi) / 2, abs=0.005)
    with pytest.raises(ValueError, match=r"phi must lie in \[0, 1\]"):
        phi_overestimation(np.random.default_rng(0), 3, 1.5)


def test_hyper_erlang_workload_moments_factors_and_estimates():
    base = dict(interarrival=(10.0, 300.0, 18_000.0), service=(50.0, 10_000.0, 4.0e6), procs=64,
                max_size=64, seed=2)
    w = hyper_erlang(100_000, phi=0.3, **base)
    gaps = np.diff(w.arrivals())
    assert gaps.mean() == pytest.approx(10.0, rel=0.02)
    assert np.mean(gaps**2) == pytest.approx(300.0, rel=0.05)
    work = w.works()
    assert work.mean() == pytest.approx(50.0, rel=0.03)
    assert np.mean(work**2) == pytest.approx(10_000.0, rel=0.1)
    sizes = w.sizes()
    assert sizes.min() >= 1 and sizes.max() <= 64 and within(sizes, 32.5, (64**2 - 1) / 12)
    est = np.array([j.estimate for j in w.jobs])
    assert np.all(est >= work) and np.mean(est == work) == pytest.approx(0.3, abs=0.01)
    fast = hyper_erlang(100_000, arrival_factor=2.0, service_factor=3.0, **base)
    assert np.diff(fast.arrivals()).mean() == pytest.approx(5.0, rel=0.02)
    assert fast.works().mean() == pytest.approx(150.0, rel=0.03)
    assert all(j.estimate is None for j in fast.jobs[:10])


def test_fit_classes_recovers_per_class_moments():
    # Two classes with different streams; the fit per power-of-two bin recovers their means.
    src = hyper_erlang(30_000, procs=64, interarrival=(10.0, 300.0, 18_000.0),
                       service=(50.0, 10_000.0, 4.0e6), max_size=2, seed=9)
    left, classes = fit_classes(src)
    assert [(c.lo, c.hi) for c in classes] == [(1, 1), (2, 2)]
    for c in classes:  # each bin gets about half the jobs: gaps twice as long
        assert c.interarrival.moment(1) == pytest.approx(20.0, rel=0.05)
        assert c.service.moment(1) == pytest.approx(50.0, rel=0.05)
    regen = hyper_erlang(30_000, procs=64, classes=classes, seed=1)
    assert np.diff(regen.arrivals()).mean() == pytest.approx(10.0, rel=0.05)
    assert set(np.unique(regen.sizes())) == {1, 2}


def test_power_of_two_classes():
    assert power_of_two_classes(20) == [(1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 20)]
    assert power_of_two_classes(1) == [(1, 1)]


# --- 002 gangs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [3.0, 4.0])
def test_bounded_normal_gang_sizes(sigma):
    pmf = bounded_normal_pmf(16, 8.5, sigma)
    assert math.isclose(pmf.sum(), 1.0) and np.allclose(pmf, pmf[::-1])  # symmetric about 8.5
    mean, var = pmf_moments(pmf)
    assert mean == pytest.approx(8.5)
    assert var < sigma**2  # truncation shrinks the variance
    w = gangs(50_000, sizes="normal", sigma=sigma, seed=1)
    sizes = w.sizes()
    assert sizes.min() >= 1 and sizes.max() <= 16
    assert within(sizes, mean, var) and np.var(sizes) == pytest.approx(var, rel=0.03)
    assert w.processors == 32 and w.header["Sites"] == "2" and w.header["SiteProcs"] == "16"


def test_sigma_3_concentrates_more_than_sigma_4():
    p3, p4 = bounded_normal_pmf(16, 8.5, 3.0), bounded_normal_pmf(16, 8.5, 4.0)
    assert p3[7] > p4[7] and p3[0] < p4[0]  # Papazachos09 §4.3: fewer small gangs with sigma 3


def test_clip_bound_puts_tail_mass_on_the_ends():
    r, c = bounded_normal_pmf(16, 8.5, 4.0), bounded_normal_pmf(16, 8.5, 4.0, bound="clip")
    assert c[0] > r[0] and c[-1] > r[-1]
    assert c[0] == pytest.approx(0.5 * math.erfc((8.5 - 1.5) / (4 * math.sqrt(2))))


def test_uniform_gangs_and_exponential_times():
    w = gangs(50_000, sizes="uniform", lam=2.4, mu=2.0, seed=2)
    sizes = w.sizes()
    assert within(sizes, 8.5, (16**2 - 1) / 12)
    assert set(np.unique(sizes)) == set(range(1, 17))
    work = w.works()
    assert within(work, 0.5, 0.25) and np.var(work) == pytest.approx(0.25, rel=0.05)
    gaps = np.diff(w.arrivals())
    assert within(gaps, 1 / 2.4, 1 / 2.4**2)


@pytest.mark.parametrize("kw, msg", [({"sizes": "pareto"}, "sizes must be"), ({"sigma": 0}, "sigma"),
                                     ({"bound": "wrap"}, "bound must be"), ({"lam": -1}, "lam")])
def test_gangs_reject_bad_parameters(kw, msg):
    with pytest.raises(ValueError, match=msg):
        gangs(10, **kw)


# --- 004 minimum nodes ----------------------------------------------------------------------------


def test_min_nodes_defaults_follow_table_3():
    assert min_nodes_upper(128, 8, 1.0) == 31  # mean 16 = L N / J
    assert min_nodes_upper(128, 8, 2.0) == 63
    assert min_nodes_upper(128, 1, 1.0) == 128  # clipped to the machine
    w = min_nodes(8, count=60_000, seed=1)
    m = np.array([j.min_nodes for j in w.jobs])
    assert np.array_equal(m, w.sizes())
    assert m.min() == 1 and m.max() == 31
    assert within(m, 16.0, (31**2 - 1) / 12)
    # load factor: J * E[M] / N = 100%
    assert 8 * m.mean() / 128 == pytest.approx(1.0, rel=0.01)
    work = w.works()
    assert within(work, 0.5 * 400 + 0.5 * 4000, 0.5 * 2 * 400**2 + 0.5 * 2 * 4000**2 - 2200**2)
    longs = np.array([j.extra["class"] == "long" for j in w.jobs])
    assert longs.mean() == pytest.approx(0.5, abs=0.01)
    assert work[~longs].mean() == pytest.approx(400, rel=0.02)
    betas = np.array([j.extra["beta"] for j in w.jobs])
    assert betas.min() >= 30 and betas.max() <= 300 and within(betas, 165, 270**2 / 12)
    assert all(j.arrival == 0 for j in w.jobs) and w.header["Population"] == "8"


# --- every model round-trips through SWF ----------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: uniform_log(300, 0.8, seed=1),
    lambda: hyper_erlang(300, phi=0.5, seed=1),
    lambda: gangs(300, seed=1),
    lambda: min_nodes(8, count=40, seed=1),
])
def test_models_round_trip_through_swf(make):
    w = make()
    buf = io.StringIO()
    write_swf(w, buf)
    back = parse_swf(buf.getvalue().encode())
    assert back.jobs == w.jobs and back.processors == w.processors and back.warnings == []


@pytest.mark.parametrize("load", [1e-300, 1e-308, 5e-324])
@pytest.mark.parametrize("policy", ["bc", "br", "gs", "easy", "repack"])
def test_a_load_too_small_for_the_time_limit_is_refused_alike_everywhere(load, policy):
    from gangviz import api
    from gangviz.core.limits import LimitError

    with pytest.raises(LimitError, match=r"^load \S+ is too small for 200 jobs: the last would arrive at "
                                         r"(about t=\S+ slices|t=\S+ slices|a time past any number), over the limit of 1\.1e\+12 slices \(2\*\*40\); "
                                         r"the load must be at least (\S+) here") as info:
        api.simulate("downey", policy, load=load)
    need = float(str(info.value).split("at least ")[1].split(" ")[0])
    assert 1e-10 < need < 1e-8
    assert api.simulate("downey", policy, load=need, jobs=20).metrics["makespan"] < 2**40
