"""Loading a user's policy wherever a policy is named, and the one-line errors when it fails."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

import gangviz
from gangviz import factory
from gangviz.cli import main
from gangviz.userpolicy import UserPolicyError
from gangviz.userpolicy.loader import split_user_spec
from gangviz.workloads.source import load_source

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "policies"
SOURCE = load_source("downey", jobs=40, procs=16, seed=3)

FIRST_FIT = """
from gangviz.userpolicy import MatrixPolicy, Param

class {name}(MatrixPolicy):
    params = (Param("spare", "int", 0, low=0, high=4), Param("fast", "bool", False))

    def decide(self, view, act):
        for slot in reversed(view.empty_slots()):
            act.delete_slot(slot)
        for job in view.waiting:
            room = view.first_fit(job.size)
            slot, first = room if room is not None else (act.open_slot(), 0)
            act.place(job.id, slot, range(first, first + job.size))
"""


def write(tmp_path: Path, text: str, name: str = "mine.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


@pytest.mark.parametrize("spec, parts", [
    ("my.py", ("my.py", None, "")), ("dir/my.py:Mine", ("dir/my.py", "Mine", "")),
    ("my.py:Mine:mpl=3,x=1", ("my.py", "Mine", "mpl=3,x=1")), ("my.py:mpl=3", ("my.py", None, "mpl=3")),
    ("pkg.mod:Cls", ("pkg.mod", "Cls", "")), ("pkg.mod:Cls:a=1", ("pkg.mod", "Cls", "a=1")),
    ("repack", None), ("random:seed=3", None), ("OPT-EPOCH(1)", None),
])
def test_a_spec_names_a_file_a_module_or_a_built_in(spec, parts):
    assert split_user_spec(spec) == parts


def test_the_one_class_of_a_file_runs_and_gives_the_built_in_first_fit_schedule(tmp_path):
    path = write(tmp_path, FIRST_FIT.format(name="Mine"))
    mine = factory.run(SOURCE, path, engine="reference")
    assert mine.policy.name == "Mine"
    assert all(r.finish is not None for r in mine.simulation.jobs.values())
    assert mine.metrics["t_ta"] > 0


def test_a_class_is_named_and_its_parameters_typed(tmp_path):
    path = write(tmp_path, FIRST_FIT.format(name="A") + FIRST_FIT.format(name="B").split("\n", 2)[2])
    with pytest.raises(UserPolicyError, match=r"2 policy classes \(A, B\); name one, e\.g\. .*mine\.py:A"):
        factory.build(SOURCE, path)
    sim = factory.build(SOURCE, f"{path}:B:spare=2,fast=yes,isolated=false")
    assert sim.policy.user.spare == 2 and sim.policy.user.fast is True
    isolated = factory.build(SOURCE, f"{path}:B:spare=2,fast=yes").policy  # in its own process
    assert isolated._request["params"]["spare"] == 2 and isolated._request["params"]["fast"] is True
    with pytest.raises(ValueError, match="policy B: parameter spare must be a whole number in 0..4, got '9'"):
        factory.build(SOURCE, f"{path}:B:spare=9")
    with pytest.raises(ValueError, match="parameter fast is given twice"):
        factory.build(SOURCE, f"{path}:B:fast=1,fast=0")


def test_a_module_class_and_an_entry_point_load_too(tmp_path, monkeypatch):
    pkg = tmp_path / "mypolicies"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    write(pkg, FIRST_FIT.format(name="Packed"), "packed.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert factory.build(SOURCE, "mypolicies.packed:Packed").policy.name == "Packed"

    class Point:
        name, value, group = "packed-ep", "mypolicies.packed:Packed", "gangviz.policies"

        def load(self):
            from mypolicies.packed import Packed
            return Packed

    import importlib.metadata
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [Point()])
    installed = factory.build(SOURCE, "packed-ep:spare=1").policy  # in a process of its own
    assert installed._request["params"]["spare"] == 1
    assert factory.build(SOURCE, "packed-ep:spare=1,isolated=false").policy.user.spare == 1


@pytest.mark.parametrize("text, message", [
    ("def f(:\n", r"mine\.py:1: SyntaxError"),
    ("import no_such_module_here\n", r"mine\.py:1 in <module>: ModuleNotFoundError"),
    ("x = 1\n", r"mine\.py: no policy class"),
    ("from gangviz.userpolicy import MatrixPolicy\n\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
     "        return 1 / 0\n", r"mine\.py:5 in decide: ZeroDivisionError: division by zero"),
    ("from gangviz.userpolicy import MatrixPolicy\n\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
     "        return 'go'\n", r"decide returned 'go'; it must return None"),
    ("from gangviz.userpolicy import MatrixPolicy\n\nclass P(MatrixPolicy):\n    def __init__(self):\n"
     "        raise RuntimeError('no')\n", r"mine\.py:5 in __init__: RuntimeError: no"),
])
def test_a_broken_file_is_one_line_naming_the_users_file_and_line(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(UserPolicyError, match=message) as err:
        factory.run(SOURCE, path, engine="reference")
    assert "gangviz/" not in str(err.value).replace(str(tmp_path), "") and "\n" not in str(err.value)


def test_the_command_line_reports_it_without_a_traceback(tmp_path, capsys):
    path = write(tmp_path, "import no_such_module_here\n")
    assert main(["run", "downey", "--jobs", "5", "--procs", "8", "--policy", path]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "mine.py:1" in err and "ModuleNotFoundError" in err


def test_a_decision_past_its_limit_ends_the_run_naming_the_line(tmp_path):
    path = write(tmp_path, """
        from gangviz.userpolicy import MatrixPolicy

        class Slow(MatrixPolicy):
            def decide(self, view, act):
                while True:
                    pass
        """)
    with pytest.raises(UserPolicyError, match=r"Slow\.decide was stopped at .*mine\.py:[67] in decide "
                                              r"after its limit of 0\.2 s"):
        factory.run(SOURCE, f"{path}:decision_limit=0.2", engine="reference")
    # in the engine's own process (isolated=false) the timer of the process ends it
    with pytest.raises(UserPolicyError, match=r"mine\.py:[67] in decide: DecisionTimeout: took longer "
                                              r"than its limit of 0\.2 s"):
        factory.run(SOURCE, f"{path}:decision_limit=0.2,isolated=false", engine="reference")


RETRY_HEAD = """
from gangviz.userpolicy import MatrixPolicy

def helper():
    while True:
        try:
            try:
                pass
            except:
                pass
        except:
            continue

class Retry(MatrixPolicy):
    def decide(self, view, act):
"""


@pytest.mark.parametrize("body, line", [
    # the retry loop of the limit swallowed by a bare except, in the decision itself (lines 16-21:
    # a stop can land on the loop's own line as it goes round)
    ("""
        while True:
            try:
                view.waiting[0].id
            except:
                pass
""", range(16, 22)),
    # in a helper, inside nested handlers and a loop in a finally: each frame is left in turn
    ("""
        while True:
            try:
                helper()
            except BaseException:
                continue
            finally:
                try:
                    while True:
                        pass
                except:
                    pass
""", None),
])
def test_a_decision_that_swallows_its_limit_still_ends_at_it(tmp_path, body, line):
    import sys
    import time

    path = tmp_path / "mine.py"
    path.write_text(RETRY_HEAD + body.lstrip("\n"))
    before = sys.gettrace(), sys.getprofile()
    start = time.perf_counter()
    # in the engine's own process: the stop is raised where no handler of the user's catches it
    with pytest.raises(UserPolicyError, match=r"mine\.py:\d+ in \w+: DecisionTimeout: took longer "
                                              r"than its limit of 0\.2 s") as info:
        factory.run(SOURCE, f"{path}:decision_limit=0.2,isolated=false", engine="reference")
    assert time.perf_counter() - start < 20  # the limit plus a little (on a busy machine), not for ever
    assert (sys.gettrace(), sys.getprofile()) == before  # a debugger's or coverage's hooks given back
    if line is not None:  # the line of the loop the decision was stopped in
        assert any(f"mine.py:{n} in decide" in str(info.value) for n in line)
    # in its own process (the default) the process is ended from outside, naming the line too
    with pytest.raises(UserPolicyError, match=r"Retry\.decide was stopped at .*mine\.py:\d+ in \w+ "
                                              r"after its limit of 0\.2 s") as info:
        factory.run(SOURCE, f"{path}:decision_limit=0.2", engine="reference")
    if line is not None:
        assert any(f"mine.py:{n} in decide" in str(info.value) for n in line)


def test_a_changed_file_is_imported_again(tmp_path):
    path = write(tmp_path, FIRST_FIT.format(name="Old"))
    assert factory.build(SOURCE, path).policy.name == "Old"
    Path(path).write_text(textwrap.dedent(FIRST_FIT.format(name="Newer")))
    import os
    os.utime(path, ns=(1, 2))  # a different stamp even within the clock's resolution
    assert factory.build(SOURCE, path).policy.name == "Newer"


def test_a_queue_order_changes_what_a_built_in_does_and_fails_in_the_users_line(tmp_path):
    source = load_source("downey", jobs=300, procs=32, load=0.9, seed=0)
    order = str(EXAMPLES / "shortest_first.py") + ":shortest_first"
    plain = factory.run(source, "gs:mpl=2").metrics
    ordered = factory.run(source, "gs:mpl=2", order=order).metrics
    assert ordered["t_ta"] < plain["t_ta"]
    bad = write(tmp_path, "def key(job):\n    return job.nothing\n")
    with pytest.raises(UserPolicyError, match=r"mine\.py:2 in key: AttributeError"):
        factory.run(source, "gs:mpl=2", order=f"{bad}:key")


def test_the_api_runs_a_file_policy(tmp_path):
    path = write(tmp_path, FIRST_FIT.format(name="Api"))
    res = gangviz.simulate("downey", path, jobs=30, procs=16)
    assert res.metrics["t_ta"] > 0


@pytest.mark.parametrize("declaration, message", [
    ("name = 3", "class P: name must be text, got 3"),
    ("paper = ['Zhou00']", "class P: paper must be text"),
    ('family = "space-sharing"', "class P: family is 'space-sharing' but the class derives from MatrixPolicy"),
    ('params = (Param("k", "int", "3"),)', "class P: parameter k: the default '3' is not a whole number"),
    ('params = (Param("k", "int", True),)', "class P: parameter k: the default True is not a whole number"),
    ('params = (Param("k", "bool", 1),)', "class P: parameter k: the default 1 is not true or false"),
    ('params = (Param("k", "float", 2.0, low=0, high=1),)', "the default 2.0 is not a finite number in 0..1"),
    ('params = (Param("k", "choice", "c", choices=("a", "b")),)', "the default 'c' is not one of a, b"),
    ('params = ("k",)', "class P: params must be a tuple of Param(...)"),
])
def test_a_bad_declaration_is_one_line_naming_the_class(tmp_path, declaration, message):
    path = write(tmp_path, f"""
        from gangviz.userpolicy import MatrixPolicy, Param

        class P(MatrixPolicy):
            {declaration}

            def decide(self, view, act):
                pass
        """)
    with pytest.raises(UserPolicyError, match="^" + re.escape(f"{path}: ") + ".*" + re.escape(message)) as info:
        factory.build(SOURCE, path)
    assert "\n" not in str(info.value)


def test_a_policy_file_is_read_only_when_regular_and_small(tmp_path):
    import os

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    with pytest.raises(UserPolicyError, match=r"pipe\.py: is a FIFO \(named pipe\), not a regular file"):
        factory.build(SOURCE, str(fifo))
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 200_000)  # 1.2 MB
    with pytest.raises(UserPolicyError, match=r"big\.py: is 1,200,000 bytes, over the limit of 1,048,576 "
                                              r"bytes for a policy file"):
        factory.build(SOURCE, str(big))
