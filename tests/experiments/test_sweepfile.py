"""Sweep files: the example files parse, mistakes name file, line and key."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.experiments.sweepfile import SweepFileError, load_sweep

from .helpers import DOWNEY_GRID

SWEEPS = Path(__file__).resolve().parents[2] / "resources" / "sweeps"

GOOD = """\
title = "t"
seed = 3
replications = 2
policies = ["repack", "random"]

""" + DOWNEY_GRID + """
[policy.random]
seed = 4
"""


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("path", sorted(SWEEPS.glob("*.toml")), ids=lambda p: p.name)
def test_example_sweeps_parse(path):
    sweep = load_sweep(path)
    assert sweep.tasks()


def test_good_file(tmp_path):
    sweep = load_sweep(write(tmp_path, GOOD))
    assert (sweep.seed, sweep.replications, sweep.policies) == (3, 2, ["repack", "random"])
    assert sweep.fixed == {"jobs": 20, "procs": 16} and sweep.axes == [("load", [0.5, 0.9])]
    tasks = sweep.tasks()
    assert len(tasks) == 2 * 2 * 2
    cell, task = tasks[-1]
    assert (cell.policy, cell.values, cell.index, task.replication) == ("random", (0.9,), (1,), 1)
    assert dict(task.workload_params) == {"jobs": 20, "procs": 16, "load": 0.9}
    assert dict(task.policy_params) == {"seed": 4}
    # common random numbers: both policies of a grid point and replication share the seed
    seeds = {(c.index, t.replication, c.policy): t.seed for c, t in tasks}
    assert seeds[((0,), 0, "repack")] == seeds[((0,), 0, "random")] != seeds[((0,), 1, "repack")]


BAD = [
    (GOOD.replace("seed = 3", "seed = -3"), 2, "seed"),
    (GOOD.replace("replications = 2", "replications = 0"), 3, "replications"),
    (GOOD.replace('"repack", "random"', '"repack", "nope"'), 4, "unknown policy 'nope'"),
    (GOOD.replace("jobs = 20", "jobz = 20"), 8, "[workload] jobz"),
    (GOOD.replace("procs = 16", "procs = 0"), 9, "[workload] procs: must be a whole number in 1..4,194,304"),
    (GOOD.replace("load = [0.5, 0.9]", "load = [0.5, \"high\"]"), 12, "[grid] load: must be a number > 0"),
    (GOOD.replace("load = [0.5, 0.9]", "jobs = [1, 2]"), 12, "[grid] jobs: is fixed in [workload]"),
    (GOOD.replace("load = [0.5, 0.9]", "speed = [1, 2]"), 12, "[grid] speed: not a parameter"),
    (GOOD.replace("load = [0.5, 0.9]", "load = []"), 12, "non-empty list"),
    (GOOD.replace("[policy.random]\nseed = 4", "[policy.random]\ncolour = 4"), 15, "[policy.random] colour"),
    (GOOD.replace('model = "downey"', 'model = "zipf"'), 7, "unknown model"),
    (GOOD.replace('model = "downey"', 'trace = "missing.swf"'), 7, "no such file"),
    ("extra = 1\n" + GOOD, 1, "extra: unknown key"),
    (GOOD.replace("seed = 3", "seed = = 3"), 2, "TOML syntax"),
]


@pytest.mark.parametrize("text,line,needle", BAD)
def test_bad_files_name_file_line_and_key(tmp_path, text, line, needle):
    path = write(tmp_path, text)
    with pytest.raises(SweepFileError) as info:
        load_sweep(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}:{line}:"), msg
    assert needle in msg


@settings(max_examples=25, deadline=None)
@given(loads=st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9]), min_size=1, max_size=4, unique=True),
       jobs=st.lists(st.integers(1, 300), min_size=1, max_size=3, unique=True),
       reps=st.integers(1, 4), policies=st.lists(st.sampled_from(["repack", "bc", "firstfit"]),
                                                 min_size=1, max_size=3, unique=True))
def test_grid_is_the_cartesian_product(tmp_path_factory, loads, jobs, reps, policies):
    text = (f"replications = {reps}\npolicies = {policies!r}\n[workload]\nmodel = \"downey\"\n"
            f"[grid]\nload = {loads!r}\njobs = {jobs!r}\n").replace("'", '"')
    sweep = load_sweep(write(tmp_path_factory.mktemp("g"), text))
    tasks = sweep.tasks()
    assert len(tasks) == len(loads) * len(jobs) * reps * len(policies)
    keys = {(c.policy, c.values, t.replication) for c, t in tasks}
    assert len(keys) == len(tasks)
    # a run's seed depends on its grid point and replication only
    by_point = {}
    for c, t in tasks:
        assert by_point.setdefault((c.index, t.replication), t.seed) == t.seed
    assert len(set(by_point.values())) == len(by_point)
