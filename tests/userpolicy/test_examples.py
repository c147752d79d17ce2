"""The example policies pass check-policy (the broken one is rejected with its rule) and run
in run, compare, a 2-worker sweep and gangviz.simulate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gangviz
from gangviz.cli import main
from gangviz.commands.check_policy import check_run
from gangviz.workloads.source import load_source

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policies"
GOOD = ["gang_sjf.py", "best_fit_slot.py"]


@pytest.mark.parametrize("name", GOOD)
def test_each_example_keeps_every_rule_on_scenarios_and_random_workloads(name):
    spec = str(EXAMPLES / name)
    for source in (load_source("fig2-repacking"), load_source("zhou-fig6-wlt"),
                   load_source("downey", jobs=60, procs=16, load=0.9, seed=1)):
        assert check_run(source, spec)[:2] == (None, "ok")


@pytest.mark.slow
@pytest.mark.parametrize("name", GOOD)
def test_check_policy_passes_each_example(name, capsys):
    assert main(["check-policy", str(EXAMPLES / name), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["passed"] and all(v["holds"] for v in doc["rules"].values())
    assert "brmms" in doc["metrics"] and len(doc["metrics"]) >= 5


def test_check_policy_rejects_the_broken_example_naming_its_rule(capsys):
    assert main(["check-policy", str(EXAMPLES / "broken_overlap.py")]) == 1
    out = capsys.readouterr().out
    assert "FAIL  no processor holds two processes in one slot" in out
    assert "broken_overlap.py:16" in out and "FAILED" in out


@pytest.mark.parametrize("name", GOOD)
def test_each_example_runs_in_run_compare_and_the_api(name, capsys):
    spec = str(EXAMPLES / name)
    assert main(["run", "downey", "--jobs", "60", "--procs", "16", "--policy", spec, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metrics"]["t_ta"] > 0
    assert main(["compare", "downey", "--jobs", "60", "--procs", "16", "--policy", "brmms",
                 "--policy", spec]) == 0
    assert spec in capsys.readouterr().out or Path(spec).name in capsys.readouterr().out
    res = gangviz.simulate("downey", spec, jobs=60, procs=16)
    assert res.metrics["t_ta"] == pytest.approx(doc["metrics"]["t_ta"])


def test_a_sweep_of_a_policy_file_runs_on_two_worker_processes(tmp_path):
    sweep = tmp_path / "s.toml"
    # the policy is named relative to the sweep file; the workers import it themselves
    (tmp_path / "mine.py").write_text((EXAMPLES / "gang_sjf.py").read_text())
    (tmp_path / "space.py").write_text((EXAMPLES / "sjf_easy.py").read_text())
    sweep.write_text('title = "t"\nseed = 1\nreplications = 2\npolicies = ["firstfit", "mine.py", "space.py"]\n'
                     '[workload]\nmodel = "downey"\njobs = 40\nprocs = 16\n[grid]\nload = [0.5, 0.9]\n')
    out = tmp_path / "r.csv"
    assert main(["sweep", str(sweep), "--out", str(out), "--workers", "2", "--quiet"]) == 0
    rows = out.read_text().splitlines()
    for name in ("mine.py", "space.py"):
        mine = [r for r in rows if r.startswith("run,") and name in r]
        assert len(mine) == 4 and all(",ok," in r for r in mine)


def test_new_policy_writes_a_template_that_check_policy_passes(tmp_path, capsys):
    path = tmp_path / "student.py"
    assert main(["new-policy", str(path), "--family", "matrix"]) == 0
    assert "class Student(MatrixPolicy)" in path.read_text()
    assert main(["new-policy", str(path), "--family", "matrix"]) == 1  # never overwrites
    capsys.readouterr()
    spec = str(path)
    assert check_run(load_source("downey", jobs=60, procs=16, load=0.9, seed=1), spec)[:2] == (None, "ok")
    space = tmp_path / "queue_first.py"
    assert main(["new-policy", str(space), "--family", "space-sharing"]) == 0
    assert "class QueueFirst(SpacePolicy)" in space.read_text()
    assert check_run(load_source("downey", jobs=60, procs=16, load=0.9, seed=1), str(space))[:2] == (None, "ok")


@pytest.mark.parametrize("name", ["class", "None", "True", "def", "it's", "9lives", "é-tude"])
@pytest.mark.parametrize("family", ["matrix", "space-sharing", "order"])
def test_new_policy_writes_a_file_that_compiles_whatever_the_name(tmp_path, capsys, name, family):
    path = tmp_path / f"{name}.py"
    assert main(["new-policy", str(path), "--family", family]) == 0
    compile(path.read_text(encoding="utf-8"), str(path), "exec")


@pytest.mark.parametrize("name", ['a"b', "new\nline", "back\\slash", "bell\a"])
def test_new_policy_refuses_a_name_the_template_cannot_hold(tmp_path, capsys, name):
    assert main(["new-policy", str(tmp_path / name)]) == 1
    err = capsys.readouterr().err
    assert "choose a plain file name" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_new_policy_never_writes_through_a_link(tmp_path, capsys):
    (tmp_path / "mine.py").symlink_to(tmp_path / "elsewhere.py")  # dangling
    assert main(["new-policy", str(tmp_path / "mine")]) == 1
    assert "exists" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere.py").exists()


@pytest.mark.slow
def test_check_policy_grades_the_examples_folder_into_one_table(capsys):
    assert main(["check-policy", str(EXAMPLES), "--json"]) == 1  # broken_overlap.py fails
    rows = {Path(r["file"]).name: r for r in json.loads(capsys.readouterr().out)}
    assert not rows["broken_overlap.py"]["passed"]
    assert rows["broken_overlap.py"]["failed_rules"] == ["no processor holds two processes in one slot"]
    for name in ("shortest_first.py:shortest_first", "sjf_backfill.py:shortest_estimate"):
        assert rows[name]["passed"] and rows[name]["kind"] == "order"
    for name in ("best_fit_slot.py", "gang_sjf.py", "sjf_easy.py"):
        assert rows[name]["passed"] and rows[name]["value"] > 0 and rows[name]["best_builtin"]


def test_a_policy_writing_the_engines_state_fails_the_audit_naming_the_step(tmp_path):
    from gangviz.userpolicy import RULES
    from gangviz.workloads.source import load_source

    path = tmp_path / "direct.py"
    path.write_text(
        "from gangviz.core.changes import JobPlaced\n"
        "from gangviz.userpolicy import MatrixPolicy\n"
        "class Direct(MatrixPolicy):\n"
        "    def decide(self, view, act):\n"
        "        sim = act._sim\n"
        "        for job in view.waiting:\n"
        "            if sim.matrix.n_rows == 0:\n"
        "                act.open_slot()\n"
        "            room = view.first_fit(job.size)\n"
        "            if room is None:\n"
        "                act.open_slot(); room = (view.slots - 1, 0)\n"
        "            slot, first = room\n"
        "            JobPlaced(job.id, slot, range(first, first + job.size)).apply(sim.matrix)  # no record\n")
    source = load_source("downey", jobs=30, procs=16, load=0.5, seed=1)
    rule, message, _ = check_run(source, f"{path}:isolated=false")
    assert rule == RULES[9] and message.startswith("step 0 (t=0): J1 starts in the engine, and the log does not place it")


def test_a_policy_whose_setup_refuses_every_machine_fails(tmp_path, capsys):
    path = tmp_path / "never.py"
    path.write_text("from gangviz.userpolicy import MatrixPolicy\n"
                    "class Never(MatrixPolicy):\n"
                    "    def setup(self, processors):\n"
                    "        raise ValueError('no')\n"
                    "    def decide(self, view, act):\n"
                    "        pass\n")
    assert main(["check-policy", str(path), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert "never ran" in doc["rules"]["runs without error"]["violations"][0]
