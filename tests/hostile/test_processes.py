"""Worker processes: capped to the work and the cores, and gone when their parent is killed."""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
import time
from pathlib import Path

from gangviz.cli import main
from gangviz.experiments.runner import cap_workers, cores

SWEEP = """policies = ["repack", "firstfit"]
replications = 4
seed = 3
[workload]
model = "downey"
jobs = {jobs}
[grid]
load = [0.5, 0.9]
"""


def test_cap_workers_to_the_runs_and_the_cores():
    assert cap_workers(1, 8) == (1, None)
    n, note = cap_workers(300, 8)
    assert n == min(8, cores()) and "not 300" in note
    assert cap_workers(5, 0)[0] == 1


def test_sweep_says_when_it_lowers_the_workers(tmp_path, capsys):
    (tmp_path / "w.toml").write_text(SWEEP.format(jobs=5))
    code = main(["sweep", str(tmp_path / "w.toml"), "--out", str(tmp_path / "r.csv"), "--workers", "300",
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 0 and f"using {min(16, cores())} worker" in err and "not 300" in err


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(p) for p in (task / "children").read_text().split()}
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((ln for ln in status.splitlines() if ln.startswith("State:")), "")
    return "Z" not in state.split(":", 1)[1].split()[0] if state else False


def _runs(path: Path) -> list[list[str]]:
    with open(path, newline="") as fh:
        return sorted(r for r in csv.reader(fh) if r and r[0] == "run")


def test_sigkill_leaves_no_worker_behind_and_resume_gives_the_same_rows(tmp_path):
    sweep = tmp_path / "w.toml"
    sweep.write_text(SWEEP.format(jobs=400))
    out = tmp_path / "r.csv"
    cmd = [sys.executable, "-m", "gangviz.cli", "sweep", str(sweep), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd + ["--workers", "2"], stderr=subprocess.DEVNULL)
    try:
        workers: set[int] = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            workers |= _children(proc.pid)
            if out.exists() and _runs(out) and workers:
                break
            time.sleep(0.05)
        assert workers, "the sweep started no worker processes"
        assert proc.poll() is None, "the sweep finished before it could be killed; give it more work"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)], "workers outlived their killed parent"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    partial = len(_runs(out))
    assert partial < 16
    subprocess.run(cmd + ["--resume"], check=True, stderr=subprocess.DEVNULL, timeout=300)
    fresh = tmp_path / "fresh.csv"
    subprocess.run([sys.executable, "-m", "gangviz.cli", "sweep", str(sweep), "--out", str(fresh), "--quiet"],
                   check=True, stderr=subprocess.DEVNULL, timeout=300)
    assert len(_runs(out)) == 16 and _runs(out) == _runs(fresh)


def test_ctrl_c_while_a_command_is_imported_is_an_interruption_not_a_traceback(monkeypatch, capsys):
    # on a loaded machine the command's modules take seconds to import: Ctrl-C may come then
    import gangviz.cli as cli

    def slow_import(only=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", slow_import)
    assert main(["compare", "downey", "--policy", "bc"]) == 130
    assert capsys.readouterr().err == "gangviz: interrupted\n"
