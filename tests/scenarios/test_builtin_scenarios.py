"""Every built-in scenario: loads, has a title and an explanation, and reaches its
``[expect]`` end state under its own policy, through the shared :func:`gangviz.factory.build`."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.cli import main
from gangviz.factory import build, check_expect, end_state, run_to_end
from gangviz.factory.scripted import ScriptedGangStream
from gangviz.resources import list_scenarios
from gangviz.workloads.scenario import load_scenario
from gangviz.workloads.source import load_source

BUILTINS = list_scenarios()


@pytest.mark.parametrize("path", BUILTINS, ids=lambda p: p.stem)
def test_builtin_reaches_its_expected_end(path):
    sc = load_scenario(path)
    assert sc.title and len(sc.explanation.split()) >= 40, "a lecturer needs a real paragraph"
    assert sc.policy, "each scenario names the policy it is meant for"
    assert sc.expect, "each scenario has an [expect] end state"
    sim = build(sc)
    assert sim.family == sc.model
    run_to_end(sim)
    assert check_expect(sc, sim) == []


def test_the_issue_figures_are_all_there():
    names = {p.stem for p in BUILTINS}
    models = {p.stem: load_scenario(p).model for p in BUILTINS}
    policies = {p.stem: load_scenario(p).policy for p in BUILTINS}
    assert {"zhou-fig1-random-trap", "fig2-repacking", "zhou-fig3-4-legal-cuts", "zhou-fig5-wlv",
            "zhou-fig6-wlt", "zhou-multislot-brms", "zhou-multislot-br", "zhang-fig7-replicated",
            "zhang-fig13-migration", "papazachos-migration", "mccann-fig3-buddy",
            "mccann-fig6-epochs"} <= names
    assert models["papazachos-migration"] == "multisite"
    assert models["mccann-fig3-buddy"] == models["mccann-fig6-epochs"] == "epoch"
    assert policies["zhou-fig1-random-trap"] == "random" and policies["zhang-fig7-replicated"] == "gs"
    assert policies["zhang-fig13-migration"] == "mgs"


def test_multislot_pair_differs_only_in_policy_and_br_needs_fewer_slots():
    brms, br = (load_scenario(p) for p in BUILTINS if p.stem in ("zhou-multislot-brms", "zhou-multislot-br"))
    assert brms.matrix.to_rows() == br.matrix.to_rows() and brms.script == br.script
    ends = {}
    for sc in (brms, br):
        sim = build(sc)
        run_to_end(sim)
        ends[sc.policy] = sim
    assert ends["br"].matrix.n_rows < ends["brms"].matrix.n_rows
    jn = lambda sim: next(r for r in sim.jobs.values() if r.spec.name == "Jn")
    assert jn(ends["br"]).finish < jn(ends["brms"]).finish


def test_running_a_scenario_under_another_policy_reports_no_false_success():
    sc = load_scenario(next(p for p in BUILTINS if p.stem == "zhou-multislot-brms"))
    sim = build(sc, "br")
    run_to_end(sim)
    assert check_expect(sc, sim), "BR does not reach the BRMS end state"


def test_check_expect_reports_unknown_keys_and_missing_phrases():
    sc = load_scenario(next(p for p in BUILTINS if p.stem == "fig2-repacking"))
    sim = build(sc)
    run_to_end(sim)
    sc.expect = {"final_matrix": ["x"], "colour": 1, "narration_contains": ["no such phrase"]}
    problems = check_expect(sc, sim)
    assert len(problems) == 3
    assert any("unknown [expect] key 'colour'" in p for p in problems)


@pytest.mark.parametrize("name, model, family", [
    ("fig2-repacking", "matrix", "matrix"),
    ("papazachos-migration", "multisite", "multisite"),
    ("mccann-fig3-buddy", "epoch", "epoch"),
])
def test_source_carries_the_model_and_build_dispatches(name, model, family):
    source = load_source(name)
    assert source.kind == "scenario" and source.model == model and source.scenario is not None
    assert build(source).family == family


def test_build_rejects_a_policy_of_another_family():
    with pytest.raises(ValueError, match="AFCFS"):
        build(load_source("papazachos-migration"), "repack")
    with pytest.raises(ValueError, match="BUDDY"):
        build(load_source("mccann-fig3-buddy"), "brms")
    with pytest.raises(ValueError, match="unknown policy"):
        build(load_source("fig2-repacking"), "AFCFS")


def test_build_also_builds_workload_sources():
    source = load_source("downey", jobs=20, procs=16)
    sim = build(source, "bc")
    sim.run()
    assert sim.family == "matrix" and sim.done and not sim.watch


def test_multisite_and_epoch_runs_step_back_to_the_start():
    for name in ("papazachos-migration", "mccann-fig6-epochs"):
        sim = build(load_source(name))
        snap0 = sim.state.snapshot()
        run_to_end(sim)
        while sim.step_back() is not None:
            pass
        assert sim.state.snapshot() == snap0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 3, allow_nan=False), st.integers(1, 4), st.integers(0, 1),
                          st.floats(0.05, 2, allow_nan=False)), min_size=1, max_size=8),
       st.booleans())
def test_any_scripted_gang_list_runs_every_gang_to_completion(raw, migrate):
    from gangviz.multisite.config import MultiSiteConfig
    from gangviz.multisite.simulation import MultiSiteSimulation
    from gangviz.workloads.scenario import ScriptedGang

    gangs = [ScriptedGang(at, size, site, svc) for at, size, site, svc in sorted(raw)]
    sim = MultiSiteSimulation(MultiSiteConfig(procs=4, migrate=migrate), max_gangs=len(gangs),
                              stream=ScriptedGangStream(gangs))
    run_to_end(sim)
    state = end_state(sim)
    assert sorted(state["completed"]) == sorted(f"G{i}" for i in range(len(gangs)))
    for i, g in enumerate(gangs):
        assert sim.state.gangs[i].size == g.size and sim.state.gangs[i].arrival == g.at
        assert sim.state.finish[i] >= g.at + g.service - 1e-12
    if not migrate:
        assert state["local_migrations"] == state["grid_migrations"] == 0


def test_gangviz_scenarios_lists_every_builtin(capsys):
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    for p in BUILTINS:
        sc = load_scenario(p)
        line = next(line for line in out.splitlines() if line.startswith(p.stem + " "))
        assert sc.title in line and sc.model in line and sc.policy in line


def test_gangviz_scenarios_json(capsys):
    assert main(["scenarios", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in doc["scenarios"]}
    assert set(rows) == {p.stem for p in BUILTINS}
    assert rows["papazachos-migration"]["model"] == "multisite"
    assert rows["papazachos-migration"]["policy"] == "AFCFSwM"
    assert all(r["explanation"] for r in rows.values())


def test_gangviz_scenarios_flags_a_broken_builtin(tmp_path, monkeypatch, capsys):
    import gangviz.commands.scenarios as cmd

    bad = tmp_path / "bad.toml"
    bad.write_text('model = "grid"\n')
    monkeypatch.setattr(cmd, "list_scenarios", lambda: [bad])
    assert main(["scenarios"]) == 1
    assert "BROKEN" in capsys.readouterr().out


@pytest.mark.parametrize("path", BUILTINS, ids=lambda p: p.stem)
def test_gangviz_run_works_for_every_builtin(path, capsys):
    assert main(["run", path.stem]) == 0
    out = capsys.readouterr().out
    sc = load_scenario(path)
    assert sc.title in out
    if sc.model == "matrix":
        assert "final matrix" in out
    else:
        assert "expected end state: reached" in out


def test_gangviz_run_json_for_a_family(capsys):
    assert main(["run", "papazachos-migration", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model"] == "multisite" and doc["expect_met"] is True
    assert doc["end"]["grid_migrations"] == 2


def test_gangviz_scenarios_lists_the_playlists(capsys):
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    assert "Lecture playlists" in out and "repacking-lecture" in out
    assert main(["scenarios", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lecture = next(r for r in doc["playlists"] if r["name"] == "repacking-lecture")
    assert lecture["scenarios"][:2] == ["zhou-fig1-random-trap", "fig2-repacking"]
