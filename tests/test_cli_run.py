"""``gangviz run`` and scenario files."""

from __future__ import annotations

import json

import pytest

from gangviz.cli import main
from gangviz.resources import list_scenarios
from gangviz.workloads.scenario import ScenarioError, load_scenario


def test_run_fig2_json_prints_the_two_slot_matrix(capsys):
    assert main(["run", "fig2-repacking", "--policy", "repack", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "steps" not in summary and "final_matrix" not in summary  # detail only when asked
    assert main(["run", "fig2-repacking", "--policy", "repack", "--json", "--steps"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metrics"] == summary["metrics"]
    assert doc["policy"]["name"] == "repack" and doc["machine"]["processors"] == 8
    assert doc["final_matrix"] == ["J1 J1 J2 J2 J4 J4 J7 J7", "J5 J5 J5 J6 J6 J3 J3 J3"]
    first = doc["steps"][0]
    assert first["cause"] == "script"
    kinds = [c["kind"] for c in first["changes"]]
    assert kinds[:2] == ["job_removed", "job_removed"] and "slot_removed" in kinds
    assert any("Property 2" in line for line in first["narration"])
    from gangviz.results.figures import CORE_KEYS, ZHOU_KEYS

    assert list(doc["metrics"]) == list(CORE_KEYS + ZHOU_KEYS)
    assert doc["units"]["t_ta"] == "slices" and doc["time_unit"] == "slice"


@pytest.mark.parametrize("path", list_scenarios(), ids=lambda p: p.stem)
def test_every_builtin_scenario_reaches_its_expected_end(path):
    sc = load_scenario(path)
    if sc.model != "matrix":
        pytest.skip("not an Ousterhout matrix; tests/scenarios runs the other models")
    from gangviz.policies import make_policy
    from gangviz.sim.engine import Simulation

    sim = Simulation(sc.jobs, make_policy(sc.policy or "repack", **sc.params.get(sc.policy or "repack", {})),
                     sc.processors, ring=sc.ring, initial=sc.matrix, script=sc.script)
    sim.run()
    if "final_matrix" in sc.expect:
        assert sim.matrix.to_rows() == sc.expect["final_matrix"]
    assert sc.title and sc.explanation


def write(tmp_path, text):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return p


GOOD = '''title = "t"
processors = 4
matrix = [
  "A A . .",
  "B B C C",
]
'''


@pytest.mark.parametrize(
    "text, line, needle",
    [
        (GOOD + "colour = 3\n", 7, "unknown key 'colour'"),
        (GOOD.replace('"A A . ."', '"A A . . ."'), 4, "5 cells, expected 4"),
        (GOOD.replace('"A A . ."', '"A . A ."'), 4, "split across non-adjacent"),
        (GOOD.replace('"A A . ."', '". . A A"').replace('"B B C C"', '"A A C C"'), 4, "different processors"),
        (GOOD + "[[events]]\nat = 1\nterminate = [\"Z\"]\n", 9, "unknown job 'Z'"),
        (GOOD + "[[events]]\nat = 1\nwhen = 2\n", 9, "unknown event key 'when'"),
        (GOOD + "[[events]]\nat = 1\nsubmit = { name = \"N\", size = 9, work = 1 }\n", 9, "1..4"),
        ("title = \"t\"\nprocessors = [\n", 3, ""),
    ],
)
def test_scenario_errors_name_file_line_and_problem(tmp_path, text, line, needle):
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    msg = str(err.value)
    assert str(path) in msg and needle in msg
    assert f":{line}:" in msg or f"line {line}" in msg


def test_random_allocation_scenarios_may_split_jobs(tmp_path):
    path = write(tmp_path, 'allocation = "random"\n' + GOOD.replace('"A A . ."', '"A . A ."'))
    sc = load_scenario(path)
    assert sc.matrix.to_rows()[0] == "A . A ."


def test_cli_reports_a_bad_scenario_without_traceback(tmp_path, capsys):
    path = write(tmp_path, GOOD + "colour = 3\n")
    assert main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unknown key 'colour'" in err


def test_guided_must_be_a_boolean(tmp_path):
    path = write(tmp_path, GOOD + 'guided = "yes"\n')
    with pytest.raises(ScenarioError, match=r":7: guided must be true or false"):
        load_scenario(path)
    assert load_scenario(write(tmp_path, "guided = true\n" + GOOD)).guided


def test_multisite_json_carries_the_window_names(capsys):
    from gangviz.cli import main

    assert main(["run", "papazachos-migration", "--json", "--steps"]) == 0
    doc = json.loads(capsys.readouterr().out)
    queued = next(c for s in doc["steps"] for c in s["changes"] if c["kind"] == "task_queued")
    assert queued["labels"]["task"] == f"G{queued['gang']}.{queued['task'] + 1}"
    assert queued["labels"]["site"] == f"Site {queued['site'] + 1}"
    assert queued["labels"]["proc"] == f"P{queued['proc'] + 1}"


def test_a_closed_pipe_is_not_an_error(tmp_path):
    import subprocess
    import sys

    # `gangviz run ... --json | head -1`: the reader leaves early; no message, exit 0
    proc = subprocess.Popen([sys.executable, "-m", "gangviz", "run", "downey", "--jobs", "300", "--steps",
                             "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert "Broken pipe" not in err and "Traceback" not in err
