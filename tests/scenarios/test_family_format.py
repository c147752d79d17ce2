"""The ``model`` key and the multisite / epoch scenario formats: every problem names the file,
the line and the field."""

from __future__ import annotations

import pytest

from gangviz.cli import main
from gangviz.factory import build
from gangviz.workloads.scenario import ScenarioError, load_scenario

MULTI = '''model = "multisite"
title = "m"
explanation = "e"
processors = 4
sites = 2
policy = "AFCFSwM"

[params]
aging_k = 3

[[gangs]]
at = 0
size = 2
site = 1
service = 1.0

[[gangs]]
at = 0.5
size = 3
site = 2
service = 0.5
'''

EPOCH = '''model = "epoch"
title = "e"
processors = 16
policy = "BUDDY"
in_system = 2

[[workload]]
min = 3
work = 400
beta = 100

[[workload]]
min = 8
work = 400

[[workload]]
min = 2
work = 40
'''


def write(tmp_path, text):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return p


def test_good_family_files_load(tmp_path):
    sc = load_scenario(write(tmp_path, MULTI))
    assert sc.model == "multisite" and sc.sites == 2 and [g.site for g in sc.gangs] == [0, 1]
    assert sc.params == {"aging_k": 3}
    sc = load_scenario(write(tmp_path, EPOCH))
    assert sc.model == "epoch" and sc.in_system == 2 and [j.min_nodes for j in sc.workload] == [3, 8, 2]
    assert sc.workload[1].beta == 100.0  # the default beta


def test_matrix_is_the_default_model(tmp_path):
    sc = load_scenario(write(tmp_path, 'processors = 2\nmatrix = ["A A"]\n'))
    assert sc.model == "matrix"


@pytest.mark.parametrize(
    "base, old, new, line, needle",
    [
        (MULTI, 'model = "multisite"', 'model = "grid"', 1, "model must be one of 'matrix', 'multisite', 'epoch'"),
        (MULTI, 'model = "multisite"', "model = 3", 1, "got 3"),
        (MULTI, 'sites = 2', 'sites = 2\nmatrix = ["A"]', 6, "key 'matrix' belongs to model 'matrix'"),
        (MULTI, 'policy = "AFCFSwM"', 'policy = "repack"', 6, "AFCFS"),
        (MULTI, 'sites = 2', 'sites = 0', 5, "sites must be a whole number in 1..64"),
        (MULTI, 'aging_k = 3', 'aging_k = 0', 9, "aging_k"),
        (MULTI, 'aging_k = 3', 'speed = 3', 9, "unknown multisite parameter 'speed'"),
        (MULTI, 'size = 3', 'size = 5', 19, "G1: size must be a whole number in 1..4"),
        (MULTI, 'site = 2', 'site = 3', 20, "G1: site must be a whole number in 1..2"),
        (MULTI, 'at = 0.5', 'at = -1', 18, "G1: 'at' must be a number >= 0"),
        (MULTI, 'service = 0.5', 'service = 0', 21, "G1: service must be a number > 0"),
        (MULTI, 'at = 0\n', 'at = 1\n', 18, "arrival order"),
        (MULTI, 'service = 0.5', 'service = 0.5\ncolour = 1', 22, "unknown gang key 'colour'"),
        (EPOCH, 'policy = "BUDDY"', 'policy = "SMART"', 4, "unknown policy 'SMART'"),
        (EPOCH, 'in_system = 2', 'in_system = 3', 4, "BUDDY does not apply to N = 16, J = 3"),
        (EPOCH, 'in_system = 2', 'in_system = 9', 5, "in_system must be a whole number in 1..3"),
        (EPOCH, 'min = 8', 'min = 17', 13, "J2: min must be a whole number in 1..16"),
        (EPOCH, 'work = 40\n', 'work = "x"\n', 18, "J3: work must be a number > 0"),
        (EPOCH, 'beta = 100', 'beta = -1', 10, "J1: beta must be a number > 0"),
        (EPOCH, 'in_system = 2', 'in_system = 2\nstatic = "yes"', 6, "static must be true or false"),
        (EPOCH, 'in_system = 2', 'in_system = 2\nquantum = 0', 6, "quantum must be a number > 0"),
        (EPOCH, 'in_system = 2', 'in_system = 2\nring = true', 6, "key 'ring' belongs to model 'matrix'"),
        (EPOCH, 'in_system = 2', 'in_system = 2\nsites = 2', 6, "key 'sites' belongs to model 'multisite'"),
    ],
)
def test_family_errors_name_file_line_and_field(tmp_path, base, old, new, line, needle):
    assert old in base
    path = write(tmp_path, base.replace(old, new, 1))
    with pytest.raises(ScenarioError) as err:
        build(load_scenario(path))  # the policy checks come with the first simulation
    msg = str(err.value)
    assert str(path) in msg and needle in msg, msg
    assert f":{line}:" in msg, msg


def test_matrix_keys_in_a_matrix_file_still_load_and_family_keys_do_not(tmp_path):
    path = write(tmp_path, 'processors = 2\nmatrix = ["A A"]\n\n[[gangs]]\nat = 0\n')
    with pytest.raises(ScenarioError, match=r":4: key 'gangs' belongs to model 'multisite'"):
        load_scenario(path)


def test_empty_gang_list_and_workload_are_reported(tmp_path):
    with pytest.raises(ScenarioError, match="at least one \\[\\[gangs\\]\\]"):
        load_scenario(write(tmp_path, 'model = "multisite"\nprocessors = 4\n'))
    with pytest.raises(ScenarioError, match="at least one \\[\\[workload\\]\\]"):
        load_scenario(write(tmp_path, 'model = "epoch"\nprocessors = 4\n'))


def test_cli_reports_a_bad_model_in_one_line(tmp_path, capsys):
    path = write(tmp_path, MULTI.replace('model = "multisite"', 'model = "grid"'))
    assert main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{path}:1: model must be one of" in err


def test_run_with_a_policy_of_another_family_is_one_line(tmp_path, capsys):
    assert main(["run", "mccann-fig3-buddy", "--policy", "repack"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unknown policy 'repack'" in err
