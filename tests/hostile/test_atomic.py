"""Every output file is written whole or not at all; one compare runs each policy once."""

from __future__ import annotations

import os
import signal
import stat

import numpy as np
import pytest

from gangviz import cli
from gangviz.cli import main
from gangviz.outputs import atomic, write_text_atomically
from gangviz.results import jobs as jobs_module


def _listing(folder):
    return sorted(p.name for p in folder.iterdir())


def test_atomic_renames_when_complete_and_keeps_the_extensions(tmp_path):
    out = tmp_path / "t.swf.gz"
    with atomic(out) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".t.part-") and tmp.name.endswith(".swf.gz")
        assert not out.exists()
        tmp.write_text("data")
    assert out.read_text() == "data" and _listing(tmp_path) == ["t.swf.gz"]
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError, SystemExit])
def test_an_interrupted_write_leaves_the_old_file_and_no_part(tmp_path, error):
    out = tmp_path / "x.csv"
    out.write_text("old")
    with pytest.raises(error):
        with atomic(out) as tmp:
            tmp.write_text("half of the new")
            raise error()
    assert out.read_text() == "old" and _listing(tmp_path) == ["x.csv"]


def test_write_text_atomically_returns_the_path(tmp_path):
    assert write_text_atomically(tmp_path / "a.txt", "x\n") == tmp_path / "a.txt"


def _half_writing_open(monkeypatch):
    """Make the per-job writer's files write half of what they are given, then stop as Ctrl-C
    would."""
    import builtins

    class Half:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, text):
            self.fh.write(text[: len(text) // 2])
            self.fh.flush()
            raise KeyboardInterrupt

    monkeypatch.setattr(jobs_module, "open", lambda *a, **k: Half(builtins.open(*a, **k)), raising=False)


def test_a_per_job_table_interrupted_half_way_is_not_left_behind(tmp_path, monkeypatch):
    table = np.zeros(3, dtype=jobs_module.JOB_DTYPE)
    table["job_id"] = ["1", "2", "3"]
    _half_writing_open(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        jobs_module.write_jobs(table, tmp_path / "jobs.csv")
    assert _listing(tmp_path) == []


def test_sigterm_interrupts_like_ctrl_c_inside_a_command():
    with pytest.raises(KeyboardInterrupt):
        with cli._terminate_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10_000_000):  # the handler runs at the next bytecode boundary
                pass
    assert signal.getsignal(signal.SIGTERM) is not cli._interrupt


def test_compare_jobs_out_interrupted_leaves_no_file_the_next_run_refuses(tmp_path, capsys, monkeypatch):
    out = tmp_path / "x.csv"
    _half_writing_open(monkeypatch)
    code = main(["compare", "downey", "--jobs", "10", "--policy", "repack", "--policy", "firstfit",
                 "--jobs-out", str(out), "--workers", "1"])
    assert code == 130 and _listing(tmp_path) == []
    monkeypatch.undo()
    code = main(["compare", "downey", "--jobs", "10", "--policy", "repack", "--policy", "firstfit",
                 "--jobs-out", str(out)])
    # each per-job file with its provenance sidecar
    assert code == 0 and _listing(tmp_path) == ["x-firstfit.csv", "x-firstfit.csv.json", "x-repack.csv",
                                                "x-repack.csv.json"]


@pytest.mark.parametrize("second", ["BC", "bc ", "bc\t", " Bc"])
def test_one_policy_written_twice_is_refused(capsys, second):
    assert main(["compare", "downey", "--jobs", "5", "--policy", "bc", "--policy", second]) == 1
    assert "is the same policy as 'bc'" in capsys.readouterr().err


def test_params_equal_by_value_are_the_same_policy(capsys):
    assert main(["compare", "downey", "--jobs", "5", "--policy", "random:seed=1",
                 "--policy", "random: seed = 1.0"]) == 1
    assert "same policy" in capsys.readouterr().err


def test_per_job_files_that_would_collide_are_refused_before_any_run(tmp_path, capsys, monkeypatch):
    # two policy files whose specs differ only in a character a file name replaces ('/' and '_')
    policies = tmp_path / "policies"
    (policies / "a").mkdir(parents=True)
    text = ("from gangviz.userpolicy import MatrixPolicy\n\n\nclass P(MatrixPolicy):\n"
            "    def decide(self, view, act):\n        pass\n")
    (policies / "a" / "b.py").write_text(text)
    (policies / "a_b.py").write_text(text)
    monkeypatch.chdir(policies)
    out = tmp_path / "out" / "x.csv"
    out.parent.mkdir()
    assert main(["compare", "downey", "--jobs", "5", "--policy", "a/b.py", "--policy", "a_b.py",
                 "--jobs-out", str(out)]) == 1
    tmp_path = out.parent
    assert "the same per-job file" in capsys.readouterr().err and _listing(tmp_path) == []
