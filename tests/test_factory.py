"""The factory: one way from (source, policy spec, options) to a simulation or a finished run."""

from __future__ import annotations

import json
import math

import pytest

from gangviz import factory
from gangviz.cli import main
from gangviz.factory.compiled import RUNNERS, compiled_runner
from gangviz.workloads.source import Source, load_source


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (math.isnan(a[k]) and math.isnan(b[k])) for k in a)


@pytest.fixture
def no_reference_engine(monkeypatch):
    """Make building the reference engine fail, so a test proves it was never instantiated."""
    from gangviz.sim import engine

    def refuse(*_args, **_kw):
        raise AssertionError("the reference engine was instantiated")

    monkeypatch.setattr(engine.Simulation, "__init__", refuse)


@pytest.mark.parametrize(("name", "policy", "family"), [
    ("fig2-repacking", None, "matrix"),
    ("downey", "easy", "space-sharing"),
    ("papazachos-migration", None, "multisite"),
    ("mccann-fig6-epochs", None, "epoch"),
])
def test_build_gives_a_steppable_simulation_of_every_family(name, policy, family):
    sim = factory.build(load_source(name), policy)
    assert sim.family == family
    assert sim.step() is not None


def test_the_random_models_of_the_other_families_are_built_here_too():
    assert factory.multisite_model(migrate=False, gangs=5, seed=2).family == "multisite"
    assert factory.epoch_model(32, 4, "HEURISTIC(2):spread=level", departures=3).family == "epoch"


@pytest.mark.parametrize(("source", "spec", "names"), [
    ("fig2-repacking", "nope", ["known:", "repack", "brmms", "easy", "gs"]),
    ("papazachos-migration", "repack", ["AFCFS, AFCFSwM"]),
    ("mccann-fig6-epochs", "brms", ["BUDDY, BUDDY*, HYBRID(k), EQUI-EPOCH"]),
])
def test_an_unknown_policy_is_refused_with_the_allowed_names(source, spec, names):
    with pytest.raises(ValueError) as err:
        factory.build(load_source(source), spec)
    for name in names:
        assert name in str(err.value)


@pytest.mark.parametrize(("spec", "message"), [
    ("repack:cuts", "'cuts' is not key=value"),
    (":seed=3", "give a name"),
    ("random:colour=red", "colour"),
    ("afcfs:x=1", "takes no parameters"),
])
def test_a_bad_policy_spec_gets_a_one_line_message(spec, message):
    source = load_source("papazachos-migration") if spec.startswith("afcfs") else load_source("downey", jobs=4)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        factory.build(source, spec)


def test_parameters_merge_in_one_order_defaults_source_spec_params():
    source = Source("model", "t", 8, [], params={"random": {"seed": 1, "window": 2}})
    assert factory.resolve(source, "random", defaults={"seed": 9, "a": 0}).params == {"seed": 1, "window": 2, "a": 0}
    assert factory.resolve(source, "random:seed=4", params={"seed": 5}).params["seed"] == 5
    assert factory.resolve(source, "random:seed=5").params == {"seed": 5, "window": 2}
    assert factory.resolve(source, "random:seed=5", params={"seed": 6}).params == {"seed": 6, "window": 2}
    assert factory.resolve(source, "RANDOM").params == {"seed": 1, "window": 2}  # names are case-blind
    assert factory.resolve(source, None).name == "repack"  # the family's default


def test_a_covered_headless_run_never_instantiates_the_reference_engine(no_reference_engine):
    source = load_source("downey", jobs=300, load=0.9, procs=64)
    done = factory.run(source, "brmms:occupy=block")
    assert done.engine == "compiled:buddy" and done.simulation is None
    assert done.final_matrix() == [] and set(done.metrics) >= {"r_a", "t_ta"}
    # a per-job table needs no reference run: the loop keeps what each job's row needs
    jobs = factory.run(source, "brmms", jobs=True)
    assert jobs.engine == "compiled:buddy" and jobs.result.raw.first_run is not None
    for reason in ({"record": True}, {"engine": "reference"}):
        with pytest.raises(AssertionError, match="reference engine was instantiated"):
            factory.run(source, "brmms", **reason)
    with pytest.raises(AssertionError, match="reference engine was instantiated"):
        factory.run(source, "repack")  # no compiled loop runs repack


def test_gangviz_run_takes_the_compiled_loop_when_it_covers_the_run(no_reference_engine, capsys):
    assert main(["run", "downey", "--jobs", "200", "--policy", "br", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["policy"]["name"] == "br" and doc["engine"] == "compiled:buddy"
    assert "final_matrix" not in doc and "steps" not in doc
    with pytest.raises(AssertionError, match="reference engine was instantiated"):
        main(["run", "downey", "--jobs", "20", "--policy", "br", "--steps", "--json"])


@pytest.mark.parametrize("spec", ["bc", "br", "brms:extra_slots_on=arrival", "brmms:occupy=block"])
def test_the_compiled_and_the_reference_run_give_the_same_numbers(spec):
    source = load_source("downey", jobs=400, load=0.9, procs=32, seed=4)
    fast, ref = factory.run(source, spec), factory.run(source, spec, engine="reference")
    assert fast.engine == "compiled:buddy" and ref.engine == "reference"
    assert _same(fast.metrics, ref.metrics)
    assert fast.final_matrix() == ref.final_matrix()


def test_the_compiled_choice_is_made_in_one_place():
    downey = load_source("downey", jobs=50)
    assert compiled_runner(downey, "BR", {}, False) is RUNNERS[0]
    assert compiled_runner(downey, "br", {"seed": 1}, False) is None  # a parameter it does not take
    assert compiled_runner(downey, "br", {}, True) is None  # a ring
    assert compiled_runner(load_source("zhou-multislot-brms"), "brms", {}, False) is None  # a matrix
    with pytest.raises(ValueError, match="no compiled loop covers repack"):
        factory.run(downey, "repack", engine="compiled")
    with pytest.raises(ValueError, match="engine must be one of"):
        factory.run(downey, "br", engine="numba")


def test_a_space_sharing_run_uses_the_backfilling_simulator_and_loads_no_gang_engine():
    import subprocess
    import sys

    code = ("import sys; from gangviz import factory; from gangviz.workloads.source import load_source; "
            "r = factory.run(load_source('downey', jobs=50), 'easy'); "
            "assert r.engine == 'backfill' and r.metrics['n_l'] == 1; "
            "print(sorted(m for m in sys.modules if m.startswith(('gangviz.sim', 'gangviz.policies'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_scenario_run_keeps_its_steps_and_meets_its_expectations():
    source = load_source("papazachos-migration")
    done = factory.run(source, record=True)
    assert done.family == "multisite" and done.simulation.steps
    assert factory.check_expect(source, done.simulation) == []
    with pytest.raises(ValueError, match="no Zhou00 metrics"):
        _ = done.metrics


def test_workloads_describe_jobs_and_machines_only():
    """workloads/ reads jobs, machines and scenario files; the models and the factory sit above."""
    import re
    from pathlib import Path

    import gangviz.workloads

    above = re.compile(r"gangviz\.(sim|policies|multisite|epoch|spacesharing|fast)\b")
    for path in Path(gangviz.workloads.__file__).parent.glob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not above.search(line), f"{path.name}:{number}: {line.strip()}"


def test_a_scenario_naming_a_policy_badly_fails_when_built_with_its_file_and_line(tmp_path):
    from gangviz.workloads.scenario import ScenarioError, load_scenario

    path = tmp_path / "s.toml"
    path.write_text('processors = 4\nmatrix = ["A A . ."]\n\n[params.random]\nsede = 3\n')
    sc = load_scenario(path)  # the file's shape is fine
    with pytest.raises(ScenarioError, match=rf"{path}:4: \[params.random\]: .*sede"):
        factory.build(sc)
    with pytest.raises(ScenarioError, match=rf"{path}:4:"):
        factory.run(load_source(str(path)), "repack")


def test_gangviz_compare_takes_the_compiled_loop_for_covered_runs(no_reference_engine, capsys):
    assert main(["compare", "downey", "--jobs", "100", "--policy", "bc", "--policy", "brmms", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(p["name"], p["engine"]) for p in doc["policies"]] == [("bc", "compiled:buddy"),
                                                                     ("brmms", "compiled:buddy")]
    assert doc["metrics"]["bc"]["t_ta"] > 0
