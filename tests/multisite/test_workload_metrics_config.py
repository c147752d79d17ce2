"""Workload stream, metrics and configuration checks (Papazachos09 §2, §4.1)."""

import numpy as np
import pytest

from gangviz.metrics.multisite import Metrics, mean_metrics, metrics_of, relative_decrease
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.workload import BLOCK, GangStream, gang_sizes


def test_gang_sizes_respect_the_range_and_the_mean():
    rng = np.random.default_rng(0)
    for dist, sigma, sd in (("normal", 3.0, 3.0), ("normal", 4.0, 4.0), ("uniform", 3.0, None)):
        s = gang_sizes(rng, MultiSiteConfig(size_dist=dist, sigma=sigma), 200_000)
        assert s.min() == 1 and s.max() == 16
        assert abs(s.mean() - 8.5) < 0.03
        if dist == "uniform":
            assert np.allclose(np.bincount(s)[1:] / s.size, 1 / 16, atol=0.003)
        else:
            # Truncation at 1 and 16 and rounding shrink the spread a little, never raise it.
            assert sd - 0.6 < s.std() < sd + 0.1
    s3 = gang_sizes(rng, MultiSiteConfig(sigma=3.0), 50_000)
    s4 = gang_sizes(rng, MultiSiteConfig(sigma=4.0), 50_000)
    assert (np.abs(s3 - 8.5) < 2).mean() > (np.abs(s4 - 8.5) < 2).mean()


def test_stream_is_deterministic_and_independent_of_block_reads():
    cfg = MultiSiteConfig(sites=3, arrival_rate=2.0)
    a, b = GangStream(cfg, 9), GangStream(cfg, 9)
    a.ensure(2 * BLOCK)
    b.ensure(10)
    b.ensure(2 * BLOCK)
    assert a.arrival == b.arrival and a.size == b.size and a.site == b.site
    assert set(a.site) == {0, 1, 2}
    gaps = np.diff(a.arrival)
    assert abs(gaps.mean() - 0.5) < 0.02 and (gaps > 0).all()
    assert abs(np.mean(a.service) - 1.0) < 0.03


def test_metrics_follow_the_paper_formulas():
    m = metrics_of([(0.0, 2.0, 1.0, 1), (1.0, 7.0, 2.0, 3)])
    assert m.rt == 4.0
    assert m.wrt == (1 * 2 + 3 * 6) / 4
    assert m.sld == (2.0 + 3.0) / 2
    assert m.wsld == (1 * 2 + 3 * 3) / 4
    with pytest.raises(ValueError, match="no gang has completed"):
        metrics_of([])


def test_relative_decrease_and_mean():
    base, new = Metrics(10, 20, 4, 8, 5), Metrics(5, 15, 3, 2, 5)
    d = relative_decrease(base, new)
    assert d == {"D_RT": 50.0, "D_WRT": 25.0, "D_SLD": 25.0, "D_WSLD": 75.0}
    assert mean_metrics([base, new]) == Metrics(7.5, 17.5, 3.5, 5.0, 10)


@pytest.mark.parametrize("field, value, message", [
    ("sites", 0, r"sites must be an integer in \[1, 64\]"),
    ("procs", 2.5, r"procs must be an integer"),
    ("arrival_rate", -1, "arrival_rate must be a finite number > 0"),
    ("size_dist", "gamma", "size_dist must be one of normal, uniform"),
    ("sigma", 0, "sigma must be a finite number > 0"),
    ("grid_overhead", -0.1, "grid_overhead must be a finite number >= 0"),
    ("aging_k", 0, r"aging_k must be an integer in \[1, "),
    ("afcfs_overtake", "yes", "afcfs_overtake must be True or False"),
])
def test_bad_configuration_is_named_with_its_allowed_range(field, value, message):
    with pytest.raises(ValueError, match=message):
        MultiSiteConfig(**{field: value})


def test_paper_defaults():
    cfg = MultiSiteConfig()
    assert (cfg.sites, cfg.procs, cfg.local_overhead, cfg.grid_overhead, cfg.aging_k) == (2, 16, 0.05, 0.1, 3)
    assert cfg.policy == "AFCFS" and cfg.with_(migrate=True).policy == "AFCFSwM"
