"""The one table of figures: every figure a run reports is declared there once, and what the
outputs say of a figure (unit, goal, definition, name, which family has it) comes from it."""

import math

import numpy as np
import pytest

from gangviz.metrics import table
from gangviz.metrics.ibm import CapacityLog, ibm_metrics_of_columns
from gangviz.results.figures import CORE_KEYS, ZHOU_KEYS, definitions, units


def test_keys_are_declared_once():
    keys = [k for f in table.TABLE for k in table.split_keys(f)]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("clock, time, per", [("s", "s", "h"), ("slice", "slices", "slice"),
                                              ("time", "time units", "time unit")])
def test_units_follow_the_clock(clock, time, per):
    u = units(clock)
    assert u["wait"] == u["wait_small"] == u["makespan"] == u["t_ta"] == time
    assert u["throughput"] == f"jobs/{per}"
    assert u["work_unserved"] == f"processor-{time}"
    assert u["bounded_slowdown"] == "ratio" and u["utilization"] == "fraction"


def test_definitions_name_the_clock_the_class_and_gamma():
    d = definitions("slice", 5.0)
    assert "Γ = 5 slices" in d["bounded_slowdown"]
    assert d["wait_small"].endswith(", small jobs")
    assert d["jobs_large"] == "large jobs finished"
    assert "hour" in definitions("s")["throughput"]


def test_goals_say_which_way_is_better():
    g = table.goals()
    assert g["utilization"] == g["throughput_small"] == g["r_a"] == "max"
    assert g["wait"] == g["bounded_slowdown_large"] == g["loss_of_capacity"] == "min"
    assert "jobs" not in g and "jobs_killed" not in g


def test_families_point_at_their_figures():
    assert table.family_keys(table.SPACE_SHARING) == CORE_KEYS
    assert table.family_keys(table.MATRIX) == CORE_KEYS + ZHOU_KEYS
    assert table.family_keys(table.MULTISITE) == (
        "wait", "response", "bounded_slowdown", "utilization", "makespan", "throughput", "jobs",
        "RT", "WRT", "SLD", "WSLD", "gangs", "migrations")
    assert table.family_keys(table.EPOCH) == (
        "response", "makespan", "throughput", "jobs", "departed", "reallocations", "overhead")


def test_titles():
    assert table.title("bounded_slowdown") == "mean bounded slowdown"
    assert table.title("wait_small") == "mean wait, small jobs"
    assert table.title("jobs_small") == "small jobs finished"
    assert table.title("D_RT") == "D RT"


def _columns(n: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.integers(0, 500, n)).astype(float)
    start = arrival + rng.integers(0, 40, n)
    work = rng.integers(1, 60, n).astype(float)
    finish = start + work + rng.integers(0, 20, n)
    size = rng.integers(1, 64, n).astype(float)
    return arrival, start, finish, work, size


@pytest.mark.parametrize("block", [1, 7, 128, 1000])
def test_every_reduced_figure_is_the_same_whole_or_by_blocks(block):
    cols = _columns(700)
    cap = CapacityLog(123.0, 50.0, 80.0)
    whole = ibm_metrics_of_columns(*cols, 64, time_unit=2.0, capacity=cap, throughput_per=3600.0)
    blocks = ibm_metrics_of_columns(*cols, 64, time_unit=2.0, capacity=cap, throughput_per=3600.0,
                                          block=block)
    for k in table.keys(table.SPACE_SHARING):
        a, b = whole[k], blocks[k]
        assert (math.isnan(a) and math.isnan(b)) or a == b, k
    assert whole["std"] == blocks["std"]


def test_the_means_are_numpy_s_to_the_bit():
    arrival, start, finish, work, size = _columns(5000, seed=8)
    got = ibm_metrics_of_columns(arrival, start, finish, work, size, 64, time_unit=3.0)
    wait = start * 3.0 - arrival * 3.0
    small = size <= table.SMALL_NODES_MAX
    assert got["wait"] == float(wait.mean()) and got["std"]["wait"] == float(wait.std())
    assert got["wait_large"] == float(wait[~small].mean())
    assert got["utilization"] == float((size * work * 3.0).sum() / ((finish.max() - arrival.min()) * 3.0 * 64))


def test_the_families_summing_in_completion_order_get_a_loop_s_sums_to_the_bit():
    from gangviz.metrics.multisite import from_sums, multisite_figures
    from gangviz.metrics.reduce import ordered_figures

    rng = np.random.default_rng(5)
    arrival = np.cumsum(rng.exponential(0.5, 400))
    rows = [(float(a), float(a + r), float(s), int(p)) for a, r, s, p in
            zip(arrival, rng.exponential(3.0, 400) + 1e-9, rng.exponential(1.0, 400) + 1e-3, rng.integers(1, 17, 400))]
    # a loop's sums, in completion order, as the compiled loops keep them
    n = pr = p_sum = 0
    r_sum = s_sum = ps = 0.0
    for a, f, e, p in rows:
        r = f - a
        n, r_sum, pr, s_sum, ps, p_sum = (n + 1, r_sum + r, pr + p * r, s_sum + r / e,
                                          ps + p * (r / e), p_sum + p)
    got = multisite_figures(rows, 7, 16)
    loop = from_sums(n, r_sum, pr, s_sum, ps, p_sum)
    assert [got[k] for k in ("RT", "WRT", "SLD", "WSLD")] == list(loop.as_dict().values())
    assert got["gangs"] == 400 and got["migrations"] == 7
    empty = multisite_figures([], 0, 16)
    assert math.isnan(empty["RT"]) and empty["gangs"] == 0
    responses = np.array([f - a for a, f, _, _ in rows])
    running = ordered_figures(table.EPOCH, {"response": responses, "arrival": arrival,
                                            "finish": np.array([f for _, f, _, _ in rows])})
    assert running["response"][-1] == sum(f - a for a, f, _, _ in rows) / len(rows)
    assert list(running["departed"]) == list(range(1, 401))


def test_a_running_percentile_is_numpy_s_of_each_prefix():
    from gangviz.metrics.reduce import _running_percentile

    values = np.random.default_rng(1).exponential(3.0, 300)
    got = _running_percentile(values, 95.0)
    want = np.array([np.percentile(values[:i + 1], 95.0) for i in range(len(values))])
    assert np.allclose(got, want, rtol=1e-12, atol=0) and got[-1] == want[-1]
    assert list(_running_percentile(np.array([4.0, 2.0]), 50.0)) == [4.0, 3.0]
