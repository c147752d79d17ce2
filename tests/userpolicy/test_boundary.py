"""A user's policy in its own process: nothing it does there reaches the engine's results, its
limits hold whatever it catches, and every way it fails is one line naming its file."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gangviz import factory
from gangviz.cli import main
from gangviz.userpolicy import RULES, RuleViolation, UserPolicyError
from gangviz.workloads.source import load_source

ROOT = Path(__file__).resolve().parents[2]
SJF = str(ROOT / "examples" / "policies" / "gang_sjf.py")
SOURCE = load_source("downey", jobs=40, procs=16, seed=3)

HEAD = """
import os, sys, time
import numpy as np
from gangviz.userpolicy import MatrixPolicy

class P(MatrixPolicy):
    def decide(self, view, act):
        for slot in reversed(view.empty_slots()):
            act.delete_slot(slot)
"""
FIT = """
for job in view.waiting:
    room = view.first_fit(job.size)
    slot, first = room if room is not None else (act.open_slot(), 0)
    act.place(job.id, slot, range(first, first + job.size))
"""


def write(tmp_path: Path, body: str, top: str = "", name: str = "mine.py", fit: bool = False) -> str:
    path = tmp_path / name
    code = textwrap.dedent(body) + (FIT if fit else "")
    path.write_text(textwrap.dedent(top) + HEAD + textwrap.indent(code, " " * 8))
    return str(path)


def t_ta(spec: str) -> float:
    return float(factory.run(SOURCE, spec, engine="reference").metrics["t_ta"])


def test_a_bare_except_retry_loop_ends_at_its_limit_naming_file_and_line(tmp_path):
    path = write(tmp_path, """
        while True:
            try:
                act.place(10**9, 0, [0])
            except:
                pass
        """)
    start = time.monotonic()
    with pytest.raises(UserPolicyError) as err:
        factory.run(SOURCE, f"{path}:decision_limit=0.3", engine="reference")
    assert time.monotonic() - start < 0.3 + 20  # the limit, not for ever (the margin: a busy machine)
    message = str(err.value)
    assert "\n" not in message
    assert "mine.py:1" in message and "in decide" in message and "limit of 0.3 s" in message


def test_a_policy_that_catches_every_signal_and_alarm_is_still_stopped(tmp_path):
    path = write(tmp_path, """
        signal.signal(signal.SIGALRM, lambda *a: None)
        signal.signal(signal.SIGTERM, lambda *a: None)
        while True:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        """, top="import signal\n")
    with pytest.raises(UserPolicyError, match=r"was stopped at .*mine\.py:\d+ in decide after its limit of 0\.2 s"):
        factory.run(SOURCE, f"{path}:decision_limit=0.2", engine="reference")


@pytest.mark.parametrize("body, words", [
    ("os._exit(0)\n", "its process ended with exit code 0"),
    ("os.kill(os.getpid(), 9)\n", "its process was killed by SIGKILL"),
    ("raise type('Odd', (BaseException,), {})('no')\n", "mine.py:10 in decide: Odd: no"),
    ("raise KeyboardInterrupt\n", "mine.py:10 in decide: KeyboardInterrupt"),
    ("return 3\n", "decide returned 3"),
])
def test_every_way_out_of_the_policys_process_is_one_line(tmp_path, body, words):
    path = write(tmp_path, body)
    with pytest.raises(UserPolicyError) as err:
        factory.run(SOURCE, path, engine="reference")
    assert words in str(err.value) and "\n" not in str(err.value)


def test_what_the_policy_prints_never_reaches_stdout(tmp_path, capfd):
    path = write(tmp_path, "print('{\"passed\": true}' * 1000); os.write(1, b'raw')\n", fit=True)
    assert main(["run", "downey", "--jobs", "20", "--procs", "16", "--policy", path, "--json"]) == 0
    out, err = capfd.readouterr()
    json.loads(out)  # one whole document
    assert "raw" not in out and "printed" in err


def test_changing_job_specs_or_patching_the_checker_reaches_nothing(tmp_path):
    clean = t_ta(write(tmp_path, "", name="clean.py", fit=True))
    path = write(tmp_path, """
        for rec in act._sim.jobs.values():
            object.__setattr__(rec.spec, "work", 1.0)
        """, fit=True, top="""
        import gangviz.userpolicy.actions as a
        a.MatrixActions._idle = lambda *args: None   # the checker, patched at import
        """, name="sneaky.py")
    assert t_ta(path) == clean
    overlap = write(tmp_path, """
        act._check = False
        for job in view.waiting:
            if view.slots == 0:
                act.open_slot()
            act.place(job.id, 0, range(job.size))
        """, top="import gangviz.userpolicy.actions as a\na.MatrixActions._idle = lambda *args: None\n",
                    name="overlap.py")
    with pytest.raises(RuleViolation) as err:
        factory.run(SOURCE, overlap, engine="reference")
    assert err.value.rule == RULES[0] and "overlap.py:" in err.value.where
    assert t_ta("gs") == t_ta("gs")  # and the built-ins beside it are untouched


def test_writing_the_mirror_directly_is_not_applied(tmp_path):
    # the policy writes its own copy of the matrix through a private attribute and places
    # nothing: the engine's matrix stays empty and the idle-machine rule fails it
    path = write(tmp_path, """
        m = act._sim.matrix
        for job in view.waiting:
            m._cells = np.full((1, view.processors), job.id, dtype=np.int32)
        """)
    with pytest.raises(RuleViolation) as err:
        factory.run(SOURCE, path, engine="reference")
    assert err.value.rule == RULES[6]


def test_a_refused_action_caught_by_the_policy_still_fails_the_run(tmp_path):
    path = write(tmp_path, """
        try:
            act.place(view.waiting[0].id, 99, [0]) if view.waiting else None
        except Exception:
            pass
        """, fit=True)
    with pytest.raises(RuleViolation) as err:
        factory.run(SOURCE, path, engine="reference")
    assert err.value.rule == RULES[7] and "no slot 99" in str(err.value)


def test_numpy_integers_are_numbers_and_floats_bools_nan_are_named_bad_arguments(tmp_path):
    numpy_fit = write(tmp_path, """
        for job in view.waiting:
            room = view.first_fit(job.size)
            slot, first = room if room is not None else (act.open_slot(), 0)
            act.place(np.int64(job.id), np.argmin([0]) + np.int32(slot),
                      np.arange(first, first + job.size))
        """, name="np_fit.py")
    assert t_ta(numpy_fit) == t_ta(write(tmp_path, "", name="plain.py", fit=True))
    for bad, words in (("1.0", "the slot must be a whole number (an int or a numpy integer), got float 1.0"),
                       ("True", "the slot must be a whole number (an int or a numpy integer), got bool True"),
                       ("float('nan')", "the slot must be a whole number (an int or a numpy integer), got NaN")):
        path = write(tmp_path, f"""
            for job in view.waiting:
                act.open_slot()
                act.place(job.id, {bad}, range(job.size))
            """, name="bad.py")
        with pytest.raises(RuleViolation) as err:
            factory.run(SOURCE, path, engine="reference")
        assert err.value.rule == RULES[7] and words in str(err.value), str(err.value)


def test_a_rule_violation_pickles_with_its_fields():
    v = RuleViolation(3.0, "J1", RULES[0], "detail", "f.py:3", slot=2, processors=(1, 2))
    w = pickle.loads(pickle.dumps(v))
    assert (w.time, w.job, w.rule, w.detail, w.where, w.slot, w.processors) == (3.0, "J1", RULES[0], "detail",
                                                                               "f.py:3", 2, (1, 2))
    assert str(w) == str(v)


def test_a_control_character_in_a_name_is_escaped(tmp_path, capfd):
    path = tmp_path / "named.py"
    path.write_text(Path(SJF).read_text().replace('name = "gang-sjf"', 'name = "sjf\\x1b[2J\\nX"'))
    main(["run", "downey", "--jobs", "10", "--procs", "16", "--policy", str(path), "--json"])
    out, err = capfd.readouterr()
    assert "\x1b" not in out + err
    json.loads(out)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_command_whatever_the_policy_catches(tmp_path, sig, code):
    deciding = tmp_path / "deciding"  # the policy makes it once it is deciding
    path = write(tmp_path, f"""
        open({str(deciding)!r}, "a").close()
        while True:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        """)
    out = tmp_path / "jobs.csv"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for extra in ("", ",isolated=false"):
        deciding.unlink(missing_ok=True)
        proc = subprocess.Popen([sys.executable, "-m", "gangviz", "run", "downey", "--jobs", "20", "--procs", "16",
                                 "--policy", f"{path}:decision_limit=600{extra}", "--jobs-out", str(out)],
                                env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path)
        # the signal comes while the policy decides, however long the start took on a busy machine
        deadline = time.monotonic() + 120
        while not deciding.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert deciding.exists(), proc.communicate()[1]
        proc.send_signal(sig)
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:  # the first was swallowed by the policy: the second ends it
            proc.send_signal(sig)
        assert proc.wait(10) == code
        assert not out.exists()


def test_in_the_engines_process_a_caught_stop_ends_the_process_in_one_line(tmp_path):
    path = write(tmp_path, """
        while True:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "gangviz", "run", "downey", "--jobs", "10", "--procs", "16",
                           "--policy", f"{path}:decision_limit=0.5,isolated=false"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "mine.py:" in lines[0] and "limit of 0.5 s" in lines[0], proc.stderr


def test_a_headless_run_is_simulated_ahead_and_gives_the_same_figures(tmp_path):
    src = load_source("downey", jobs=300, procs=32, load=0.8, seed=2)
    ahead = factory.run(src, SJF, engine="reference")
    assert ahead.simulation.policy._ahead_queue is not None  # one round trip per batch
    here = factory.run(src, f"{SJF}:isolated=false", engine="reference")
    assert ahead.metrics == here.metrics


def test_a_rule_broken_in_a_sweep_worker_is_reported_with_its_rule(tmp_path, capsys):
    (tmp_path / "bad.py").write_text((ROOT / "examples" / "policies" / "broken_overlap.py").read_text())
    sweep = tmp_path / "s.toml"
    sweep.write_text('title = "t"\nseed = 1\nreplications = 2\npolicies = ["bad.py"]\n'
                     '[workload]\nmodel = "downey"\njobs = 30\nprocs = 16\n')
    main(["sweep", str(sweep), "--out", str(tmp_path / "r.csv"), "--workers", "2", "--quiet"])
    err = capsys.readouterr().err
    assert "no processor holds two processes in one slot" in err and "worker process died" not in err


def test_a_comparison_in_forked_workers_runs_a_policy_file_after_this_process_ran_one():
    # this process has started its fork server (the comparison reads the file's declarations
    # first); a worker forked from it starts one of its own instead of checking on this one's
    from gangviz.experiments.compare import _SOURCES, run_policy
    from gangviz.experiments.runner import map_runs
    from gangviz.userpolicy.boundary import fetch_declarations

    policy = str(ROOT / "examples" / "policies" / "best_fit_slot.py")
    fetch_declarations(policy, None, policy)
    load = ("downey", 16, None, 40, None, 3)
    _SOURCES.clear()
    _SOURCES[load] = SOURCE
    tasks = [(load, spec, None, None, None, None, 10.0) for spec in ("brmms", policy)]
    runs = dict(map_runs(run_policy, tasks, workers=2, mp_context="fork"))
    assert [runs[i].label for i in range(2)] == ["brmms", policy]
    assert all(runs[i].figures.values["jobs_completed"] == 40 for i in range(2))
    assert runs[1].name == "best-fit-slot"
