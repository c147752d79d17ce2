"""Student-t quantiles and confidence intervals."""

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.experiments.stats import betainc, mean_ci, t_cdf, t_quantile

# Reference quantiles t_{0.975, df} (printed tables, to 10 digits).
KNOWN = {1: 12.70620474, 2: 4.302652730, 4: 2.776445105, 9: 2.262157163, 10: 2.228138852,
         19: 2.093024054, 30: 2.042272456, 120: 1.979930405}


@pytest.mark.parametrize("df,expected", sorted(KNOWN.items()))
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, rel=1e-8)


def test_t_quantile_tends_to_normal():
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959963985, rel=1e-6)


@settings(max_examples=60, deadline=None)
@given(p=st.floats(0.01, 0.99), df=st.integers(1, 200))
def test_quantile_inverts_cdf_and_is_symmetric(p, df):
    q = t_quantile(p, df)
    assert t_cdf(q, df) == pytest.approx(p, abs=1e-10)
    assert t_quantile(1 - p, df) == pytest.approx(-q, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(0.2, 20), b=st.floats(0.2, 20), x=st.floats(1e-6, 1 - 1e-6))
def test_betainc_symmetry(a, b, x):
    assert betainc(a, b, x) == pytest.approx(1 - betainc(b, a, 1 - x), abs=1e-10)


@pytest.mark.parametrize("p,df", [(0, 3), (1, 3), (0.5, 0), (1.2, 3)])
def test_t_quantile_rejects_bad_arguments(p, df):
    with pytest.raises(ValueError):
        t_quantile(p, df)


def test_mean_ci_example():
    mean, half, n = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert (mean, n) == (2.5, 4)
    assert half == pytest.approx(3.182446305 * statistics.stdev([1, 2, 3, 4]) / 2, rel=1e-8)


@settings(max_examples=60, deadline=None)
@given(xs=st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=12),
       scale=st.floats(0.1, 10), shift=st.floats(-100, 100))
def test_mean_ci_is_affine_equivariant(xs, scale, shift):
    mean, half, n = mean_ci(xs)
    mean2, half2, n2 = mean_ci([scale * x + shift for x in xs])
    assert n == n2 == len(xs)
    assert mean2 == pytest.approx(scale * mean + shift, abs=1e-6)
    assert half2 == pytest.approx(scale * half, abs=1e-6)
    assert half >= 0


def test_mean_ci_leaves_out_undefined_values():
    assert mean_ci([2.0, math.nan, 4.0])[0::2] == (3.0, 2)
    assert math.isnan(mean_ci([5.0])[1]) and mean_ci([5.0])[0] == 5.0
    assert all(math.isnan(v) for v in mean_ci([math.nan])[:2])
    with pytest.raises(ValueError):
        mean_ci([1, 2], level=1.5)
