"""A model's jobs kept as columns: they read like the list of specs the model makes, and a
simulation of them gives the same job records, names and figures as one of that list."""

from __future__ import annotations

import numpy as np
import pytest

from gangviz.core.jobs import JobColumns
from gangviz.factory import run
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.sim.intake import ColumnNames
from gangviz.workloads.source import COLUMNS_FROM, Source, load_source
from gangviz.workloads.synthetic import uniform_log, uniform_log_columns


def model(n: int, seed: int = 3) -> tuple[list, JobColumns]:
    cols = uniform_log_columns(n, 0.8, procs=32, seed=seed)
    return uniform_log(n, 0.8, procs=32, seed=seed).jobs, JobColumns(cols.arrival, cols.size, cols.work)


def test_columns_read_like_the_models_list():
    specs, cols = model(300)
    assert len(cols) == 300
    assert list(cols) == specs and [cols[i] for i in range(300)] == specs
    assert cols[-1] == specs[-1] and cols[10:14] == specs[10:14]
    assert type(cols[7].work) is float and type(cols[7].size) is int and cols[7].name == "J8"
    with pytest.raises(IndexError):
        cols[300]


def test_columns_refuse_arrivals_out_of_order():
    with pytest.raises(ValueError, match="must not decrease"):
        JobColumns(np.array([0.0, 2.0, 1.0]), np.array([1, 1, 1]), np.array([1, 1, 1]))


@pytest.mark.parametrize("policy", ["repack", "firstfit", "gs", "repack:window=leftmost"])
def test_a_run_of_columns_equals_the_run_of_the_list(policy):
    specs, cols = model(1500)
    a = run(Source("model", "m", 32, specs), policy, engine="reference")
    b = run(Source("model", "m", 32, cols), policy, engine="reference")
    ja, jb = a.simulation.jobs, b.simulation.jobs
    assert list(ja) == list(jb) and all(ja[j] == jb[j] for j in ja)
    assert a.simulation.time == b.simulation.time
    assert b.metrics == a.metrics


def test_names_follow_the_columns_without_a_dict_entry_per_job():
    _, cols = model(50)
    sim = Simulation(cols, make_policy("repack"), 32, record=False)
    names = sim.matrix.names
    assert isinstance(names, ColumnNames) and len(dict(names)) == 0
    assert names[0] == "J1" and names.get(49) == "J50" and names.get(50, "none") == "none"
    assert 49 in names and 50 not in names and sim.matrix.name(4) == "J5"
    names[7] = "renamed"
    assert names[7] == "renamed" and names.get(7) == "renamed"


def test_a_large_model_is_kept_as_columns():
    small = load_source("downey", jobs=200)
    assert isinstance(small.jobs, list)
    big = load_source("downey", jobs=COLUMNS_FROM + 1)
    assert isinstance(big.jobs, JobColumns) and len(big.jobs) == COLUMNS_FROM + 1
    drawn = uniform_log(COLUMNS_FROM + 1, 0.5, procs=128, seed=1).jobs
    assert big.jobs[0] == drawn[0] and big.jobs[-1] == drawn[-1] and big.jobs[12345] == drawn[12345]
