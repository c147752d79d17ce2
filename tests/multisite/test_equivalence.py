"""The fast headless runner gives exactly the step-able simulation's metrics for one seed."""

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.fast import run_fast
from gangviz.multisite.simulation import MultiSiteSimulation

from .strategies import configs


@settings(max_examples=60, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 10**9), n=st.integers(1, 120))
def test_fast_and_stepable_metrics_are_identical(cfg, seed, n):
    sim = MultiSiteSimulation(cfg, seed, stop_after=n)
    sim.run()
    assert run_fast(cfg, seed, n) == sim.metrics()


def test_identical_on_the_paper_configuration():
    for migrate in (False, True):
        cfg = MultiSiteConfig(arrival_rate=2.45, sigma=3.0, migrate=migrate)
        sim = MultiSiteSimulation(cfg, 11, stop_after=400)
        sim.run()
        assert run_fast(cfg, 11, 400) == sim.metrics()


def test_same_seed_same_result_and_seeds_matter():
    cfg = MultiSiteConfig(arrival_rate=2.4, migrate=True)
    assert run_fast(cfg, 5, 500) == run_fast(cfg, 5, 500)
    assert run_fast(cfg, 5, 500) != run_fast(cfg, 6, 500)
