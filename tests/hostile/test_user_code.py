"""User code is hostile input too: a policy or a queue order that exits, loops, returns what
does not sort or returns nonsense ends the run with one line naming the user's file and line,
never with a traceback, a hang or a silent exit 0."""

from __future__ import annotations

import os

import pytest

import gangviz
from gangviz.cli import main
from gangviz.userpolicy import UserPolicyError
from gangviz.userpolicy.errors import def_line

MATRIX = "from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
SPACE = "from gangviz.userpolicy import SpacePolicy\nclass P(SpacePolicy):\n    def decide(self, view, act):\n"


def _file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("head", [MATRIX, SPACE])
def test_sys_exit_in_decide_is_the_policys_failure_not_a_clean_exit(tmp_path, capsys, head, monkeypatch):
    _file(tmp_path, "quits.py", "import sys\n" + head + "        sys.exit(0)\n")
    monkeypatch.chdir(tmp_path)  # a short name: a message cuts a long path, and tmp paths vary
    assert main(["run", "downey", "--jobs", "8", "--procs", "16", "--policy", "quits.py"]) == 1
    err = capsys.readouterr().err
    assert "quits.py:5 in decide: SystemExit" in err and "Traceback" not in err


def test_sys_exit_while_importing_a_policy_file_is_reported(tmp_path):
    path = _file(tmp_path, "leaves.py", "import sys\nsys.exit(3)\n")
    with pytest.raises(UserPolicyError, match=r"leaves.py:2.*SystemExit"):
        gangviz.simulate("downey", policy=path, jobs=4, procs=8)


@pytest.mark.parametrize("head, line", [(MATRIX, 3), (SPACE, 3)])
def test_decide_returning_a_value_names_the_line_of_decide(tmp_path, head, line):
    path = _file(tmp_path, "gives.py", head + "        return 42\n")
    with pytest.raises(UserPolicyError, match=rf"gives.py:{line}\): decide returned 42"):
        gangviz.simulate("downey", policy=path, jobs=4, procs=8)


def test_a_rule_broken_after_decide_names_the_users_file_not_the_launcher(tmp_path, capsys):
    path = _file(tmp_path, "idle.py", SPACE + "        pass\n")
    assert main(["run", "downey", "--jobs", "8", "--procs", "16", "--policy", path]) == 1
    err = capsys.readouterr().err
    assert "idle.py" in err and "bin" not in err.split(" at ")[-1]


def test_frames_of_the_python_installation_are_not_user_code():
    import sys

    from gangviz.userpolicy.errors import _is_user

    assert not _is_user(f"{sys.prefix}/bin/gangviz", None)
    assert _is_user(os.path.join(os.sep, "somewhere", "mine.py"), None)
    assert def_line(def_line, None).endswith(f"errors.py:{def_line.__code__.co_firstlineno}")
    assert def_line(3, "mine.py") == "mine.py"


@pytest.mark.parametrize("body, says", [
    ("return None", "returned None"),
    ("return float('nan')", "returned nan"),
    ("return [job.work]", "returned [" ),
    ("return 'a' if job.id % 2 else 1", "the same kind"),
    ("raise ValueError('mine')", "key.py:2 in key: ValueError: mine"),
    ("import sys; sys.exit(0)", "SystemExit"),
])
@pytest.mark.parametrize("policy", ["gs", "easy", "repack"])
def test_a_queue_order_that_fails_or_does_not_sort_is_one_line_naming_the_file(tmp_path, capsys, body, says,
                                                                                policy):
    path = _file(tmp_path, "key.py", f"def key(job):\n    {body}\n")
    argv = ["run", "downey", "--jobs", "150", "--procs", "16", "--load", "0.95", "--policy", policy,
            "--order", f"{path}:key"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert says in err and "key.py" in err and "Traceback" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("body", ["return job.work", "return job.name", "return (job.size, -job.work)",
                                  "return True"])
def test_a_queue_order_of_numbers_text_or_tuples_still_runs(tmp_path, capsys, body):
    path = _file(tmp_path, "ok.py", f"def key(job):\n    {body}\n")
    argv = ["run", "downey", "--jobs", "150", "--procs", "16", "--load", "0.95", "--policy", "easy",
            "--order", f"{path}:key", "--json"]
    assert main(argv) == 0


def test_a_queue_order_that_never_returns_ends_within_its_limit(tmp_path, capsys, monkeypatch):
    from gangviz.userpolicy import loader

    monkeypatch.setattr(loader, "ORDER_LIMIT", 0.2)
    path = _file(tmp_path, "spin.py", "def key(job):\n    while True:\n        pass\n")
    argv = ["run", "downey", "--jobs", "150", "--procs", "16", "--load", "0.95", "--policy", "easy",
            "--order", f"{path}:key"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "spin.py:" in err and "limit of 0.2 s" in err


def test_decision_limit_and_no_check_are_refused_for_a_built_in_policy(capsys):
    assert main(["run", "downey", "--jobs", "5", "--decision-limit", "2"]) == 1
    assert "user's policy" in capsys.readouterr().err
    assert main(["run", "downey", "--jobs", "5", "--policy", "bc", "--no-check"]) == 1
    with pytest.raises(SystemExit):
        main(["run", "downey", "--decision-limit", "nan"])


def test_a_queue_order_spec_takes_no_parameters(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _file(tmp_path, "o.py", "def key(job):\n    return job.work\n")
    assert main(["run", "downey", "--jobs", "12", "--procs", "16", "--policy", "gs", "--order", "o.py:key:x"]) == 1
    assert "file.py:function" in capsys.readouterr().err


def test_compare_refuses_a_mapping_of_policies():
    with pytest.raises(TypeError, match="policies must be a list"):
        gangviz.compare("downey", {"bc": 1, "br": 2}, jobs=8)
