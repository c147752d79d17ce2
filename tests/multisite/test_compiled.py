"""The compiled loop gives the reference Python loop's metrics bit for bit."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.multisite.compiled import run_compiled
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.fast import run_fast

from .strategies import configs


@settings(max_examples=150, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 10**9), n=st.integers(1, 400))
def test_compiled_and_reference_metrics_are_identical(cfg, seed, n):
    assert run_compiled(cfg, seed, n) == run_fast(cfg, seed, n)


@pytest.mark.parametrize("migrate", [False, True])
@pytest.mark.parametrize("dist, sigma", [("normal", 3.0), ("uniform", 3.0)])
def test_identical_on_the_paper_configuration(migrate, dist, sigma):
    cfg = MultiSiteConfig(arrival_rate=2.45, size_dist=dist, sigma=sigma, migrate=migrate)
    assert run_compiled(cfg, 7, 3000) == run_fast(cfg, 7, 3000)


def test_runs_past_the_gangs_drawn_ahead(monkeypatch):
    # twice the system's capacity: the backlog outgrows the gangs drawn ahead, and the rerun on
    # longer arrays must still match
    from gangviz.multisite import kernel

    statuses = []

    def spy(*args):
        out = loop(*args)
        statuses.append(out[0])
        return out

    loop = kernel.run_loop
    monkeypatch.setattr(kernel, "run_loop", spy)
    cfg = MultiSiteConfig(arrival_rate=8.0, afcfs_overtake=False, migrate=True)
    assert run_compiled(cfg, 2, 3000) == run_fast(cfg, 2, 3000)
    assert statuses[0] == kernel.NEED_MORE and statuses[-1] == 0


def test_rejects_a_non_positive_count():
    with pytest.raises(ValueError, match="n_gangs"):
        run_compiled(MultiSiteConfig(), 1, 0)
