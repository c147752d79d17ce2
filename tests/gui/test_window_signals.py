"""The window ends on Ctrl-C (SIGINT) and SIGTERM from its terminal, idle or not, at once and
without a traceback, with exit code 130 or 143: ``open``, the default ``gangviz`` (``make run``)
and ``compare --window``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: runs the command line with a line printed once the window's event loop runs
LAUNCH = """
import sys
from PySide6.QtCore import QTimer
import gangviz.gui.kit.qapp as qapp

run_loop = qapp.exec_until_signal

def announced(app):
    QTimer.singleShot(0, lambda: print("ready", flush=True))
    if "--step-first" in sys.argv:  # the test's own flag: take one step once the loop runs
        sys.argv.remove("--step-first")
        win = next(w for w in app.topLevelWidgets() if hasattr(w, "player") and hasattr(w, "statusBar"))
        QTimer.singleShot(10, lambda: win.player.step_forward(animate=False))
    return run_loop(app)

qapp.exec_until_signal = announced
from gangviz.cli import main
sys.exit(main([a for a in sys.argv[1:] if a != "--step-first"]))
"""


def _start(args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "XDG_CONFIG_HOME": os.environ.get("XDG_CONFIG_HOME", "")}
    return subprocess.Popen([sys.executable, "-c", LAUNCH, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def _line(proc: subprocess.Popen[str], timeout: float = 120) -> str:
    """The next line the process prints, or a failure after ``timeout`` seconds (never a hang).

    Reads the pipe a byte at a time, so a second line that arrived with the first stays in the
    pipe for the next call (a buffered ``readline`` would take it, and ``select`` would then
    wait for a line already read)."""
    import select
    import time

    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no line from the window within {timeout:g} s (so far {line!r})"
        byte = os.read(fd, 1)
        assert byte, f"the window closed its output after {line!r}"
        line += byte
    return line.decode().strip()


def _errors(stderr: str) -> list[str]:
    """stderr without the offscreen platform's own notices."""
    return [line for line in stderr.splitlines() if "propagateSizeHints" not in line]


@pytest.mark.parametrize("args", [["open", "fig2-repacking"], [],
                                  ["compare", "fig2-repacking", "--policy", "bc", "--policy", "repack",
                                   "--window"]])
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_idle_window_at_once(tmp_path, monkeypatch, args, sig, code):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # the window's settings stay here
    proc = _start(args)
    try:
        assert _line(proc) == "ready"  # the event loop runs, idle
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code
    assert _errors(err) == []  # no traceback, nothing else


def test_a_second_signal_ends_a_window_held_by_user_code(tmp_path, monkeypatch):
    """A policy holding the loop (up to its decision limit): the second signal ends it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    policy = tmp_path / "slow.py"
    policy.write_text("import time\nfrom gangviz.userpolicy import MatrixPolicy\n\n"
                      "class Slow(MatrixPolicy):\n    def decide(self, view, act):\n"
                      "        print('deciding', flush=True)\n        time.sleep(1000)\n")
    # in the window's own process (isolated=false), where its print reaches this test's pipe
    proc = _start(["open", "downey", "--jobs", "20", "--procs", "8", "--policy",
                   f"{policy}:decision_limit=600,isolated=false", "--step-first"])
    try:
        assert _line(proc) == "ready"
        assert _line(proc) == "deciding"  # the policy holds the loop
        proc.send_signal(signal.SIGINT)  # asks the loop to end: it cannot until the decision returns
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=2)  # (a decision limit of 600 s: the window waits for it)
        # two signals sent at once may arrive as one: send until the process has ended
        for _ in range(30):
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=1)
                break
            except subprocess.TimeoutExpired:
                continue
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert "Traceback" not in err
