"""The metrics package: one figure function per family, running curves that end on the figures,
and ``gangviz run --json`` printing the figures of every family."""

import json
import math

import pytest

from gangviz.cli import main
from gangviz.epoch.sim import EpochSimulation
from gangviz.metrics import figures, json_ready, series
from gangviz.metrics.epoch import epoch_figures
from gangviz.metrics.ibm import SMALL_NODES_MAX
from gangviz.metrics.multisite import multisite_figures
from gangviz.metrics.zhou import MEDIUM_WORK_MAX, SMALL_WORK_MAX
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.simulation import MultiSiteSimulation


def _json(capsys, *argv):
    assert main(["run", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_each_paper_keeps_its_own_small_job_class():
    # Zhou00 §4.3 classes by work in slots, Zhang01 §2.2 by size in nodes
    assert (SMALL_WORK_MAX, MEDIUM_WORK_MAX, SMALL_NODES_MAX) == (12, 60, 32)


def test_multisite_figures_match_the_simulation_accumulator_and_follow_step_back():
    sim = MultiSiteSimulation(MultiSiteConfig(migrate=True, arrival_rate=2.4), seed=3, max_gangs=300)
    sim.run()
    got = figures(sim)
    want = sim.metrics().as_dict()
    assert {k: got[k] for k in want} == want  # bit-equal: same sums, same order
    assert got["gangs"] == got["jobs"] == len(sim.state.completed) and got["response"] == got["RT"]
    moves = sum(1 for s in sim.steps for c in s.changes if c.kind == "task_migrated")
    assert got["migrations"] == moves > 0
    curves = series(sim)
    for key in ("RT", "WRT", "SLD", "migrations"):
        assert curves[key][1][-1] == got[key]
    for _ in range(40):
        sim.step_back()
    back = figures(sim)
    assert back["gangs"] < got["gangs"] and back["RT"] == sim.metrics().rt
    assert series(sim)["RT"][1][-1] == back["RT"]


def test_multisite_figures_of_no_gang_are_nan():
    out = multisite_figures([], 0, 8)
    assert math.isnan(out["RT"]) and out["gangs"] == 0 and out["migrations"] == 0
    assert math.isnan(out["wait"]) and math.isnan(out["makespan"]) and math.isnan(out["utilization"])


def test_multisite_core_figures_follow_their_definitions():
    # (arrival, finish, execution, size) on 4 processors; a gang waits response - execution
    rows = [(0.0, 2.0, 1.0, 2), (1.0, 4.0, 2.0, 4), (3.0, 5.0, 0.5, 1)]
    out = multisite_figures(rows, 0, 4)
    assert out["wait"] == (1.0 + 1.0 + 1.5) / 3 and out["response"] == out["RT"] == (2.0 + 3.0 + 2.0) / 3
    assert out["makespan"] == 5.0 and out["throughput"] == 3 / 5.0 and out["jobs"] == out["gangs"] == 3
    assert out["utilization"] == (2 * 1.0 + 4 * 2.0 + 1 * 0.5) / (5.0 * 4)
    # Γ = 10 time units bounds every response and execution here
    assert out["bounded_slowdown"] == 1.0 and out["SLD"] == (2.0 + 1.5 + 4.0) / 3


def test_epoch_figures_count_reallocations_by_quantum():
    # one schedule of overhead 8 on 4 nodes for 20 time units (2 quanta of T = 10)
    jobs = [(0.0, 30.0, math.nan, 1), (0.0, 50.0, math.nan, 2)]
    out = epoch_figures(jobs, [(0.0, 20.0, 8)], nodes=4, quantum=10.0, elapsed=20.0)
    assert out == {"response": 40.0, "makespan": 50.0, "throughput": 2 / 50.0, "jobs": 2, "departed": 2,
                   "reallocations": 16.0, "overhead": 2.0}


def test_epoch_figures_of_a_run_and_their_curves_agree():
    sim = EpochSimulation(32, 6, "OPT-EPOCH(1)", departures=30)
    sim.run()
    got = figures(sim)
    rt = sim.response_times()
    assert got["response"] == sum(rt) / len(rt) and got["departed"] == got["jobs"] == 30
    assert got["reallocations"] > 0 and got["overhead"] > 0
    curves = series(sim)
    for key in ("response", "makespan", "throughput", "jobs", "reallocations", "overhead"):
        assert curves[key][1][-1] == got[key]
    # a time-weighted mean of the schedules' normalised overheads
    each = [float(c.after.normalized_overhead) for st in sim.steps for c in st.changes
            if c.kind == "schedule_rebuilt"]
    assert min(each) - 1e-9 <= got["overhead"] <= max(each) + 1e-9


def test_run_json_prints_the_figures_of_the_multisite_and_epoch_families(capsys):
    doc = _json(capsys, "papazachos-migration")
    assert doc["metrics"]["gangs"] == doc["metrics"]["jobs"] == len(doc["end"]["completed"])
    assert doc["units"]["wait"] == "time units" and "Papazachos09" in doc["definitions"]["wait"]
    assert doc["metrics"]["migrations"] == doc["end"]["local_migrations"] + doc["end"]["grid_migrations"]
    doc = _json(capsys, "mccann-fig6-epochs")
    assert doc["metrics"]["departed"] == len(doc["end"]["departed"])
    assert doc["metrics"]["response"] > 0


def test_fig2_mean_turnaround_leaves_out_the_scripted_terminations(capsys):
    # the jobs a script terminates are not completed jobs: their turnaround is not 0
    assert _json(capsys, "fig2-repacking")["metrics"]["t_ta"] == 12.0


def test_json_ready_turns_nan_into_none_at_any_depth():
    assert json_ready({"a": math.nan, "b": {"c": math.nan, "d": 1.5}}) == {"a": None, "b": {"c": None, "d": 1.5}}


def test_a_family_without_figures_is_a_key_error():
    class Odd:
        family = "odd"

    with pytest.raises(KeyError):
        figures(Odd())
