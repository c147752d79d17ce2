"""Runs command lines in one capped child process and judges what comes back.

The child sets hard limits on itself before importing gangviz (``RLIMIT_AS`` of
:data:`MEMORY_CAP` bytes, ``RLIMIT_CPU`` of :data:`CPU_CAP` seconds), sets a memory budget below
that cap (so a run the budget should refuse is refused, not killed), and runs each case under
an alarm of :data:`CASE_SECONDS`. A case that overruns is reported as ``"timeout"`` (the alarm
raises an exception the command line does not catch), one that exhausts memory as a traceback,
so a regression fails the test instead of hanging or killing CI. When a run succeeds the child
checks the simulation's invariants (:func:`tests.fuzz.invariants.check_run`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MEMORY_CAP = 1536 << 20
CPU_CAP = 600
CASE_SECONDS = 20
BUDGET = "256M"
ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import contextlib, io, json, resource, signal, sys, traceback
resource.setrlimit(resource.RLIMIT_AS, ({mem}, {mem}))
resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu}))
from gangviz.cli import main
from tests.fuzz.invariants import check_run

class CaseTimeout(BaseException):
    pass

def alarm(*_):
    raise CaseTimeout()

signal.signal(signal.SIGALRM, alarm)
reply = sys.__stdout__
for line in sys.stdin:
    case = json.loads(line)
    out, err = io.StringIO(), io.StringIO()
    signal.alarm({secs})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(case["argv"])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
            problem = check_run(case["argv"]) if code == 0 else None
    except CaseTimeout:
        code, problem = "timeout", None
    except BaseException:
        code, problem = "crash", traceback.format_exc()
    finally:
        signal.alarm(0)
    reply.write(json.dumps({{"code": code, "out": out.getvalue()[-4000:], "err": err.getvalue()[-4000:],
                            "problem": problem}}) + "\n")
    reply.flush()
"""


class Child:
    """One capped child process that runs command lines sent to it, one JSON line each."""

    def __init__(self) -> None:
        env = dict(os.environ, GANGVIZ_MEMORY_BUDGET=BUDGET, QT_QPA_PLATFORM="offscreen",
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        code = _CHILD.format(mem=MEMORY_CAP, cpu=CPU_CAP, secs=CASE_SECONDS)
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    def run(self, argv: list[str]) -> dict:
        """Return ``{"code", "out", "err", "problem"}`` of one command line."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"argv": argv}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the capped child died running {argv!r} (exit {self.proc.wait()})")
        return json.loads(line)

    def close(self) -> None:
        """End the child (it stops at the end of its input)."""
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def outside_usage(err: str) -> list[str]:
    """Return the lines of ``err`` outside argparse's usage block (a ``usage:`` line and the
    indented lines that continue it); the hostile-input campaign in benchmarks shares it."""
    lines = []
    in_usage = False
    for ln in err.splitlines():
        if ln.startswith("usage:"):
            in_usage = True
            continue
        if in_usage and ln.startswith(" "):
            continue
        in_usage = False
        lines.append(ln)
    return lines


def message_lines(err: str) -> list[str]:
    """The lines of ``err`` that are messages: argparse's usage block is left out, and so are
    the warnings a successful read prints."""
    return [ln for ln in outside_usage(err) if ln.strip() and not _is_warning_header(ln)]


def _is_warning_header(line: str) -> bool:
    return line.startswith("gangviz: ") and (line.startswith("gangviz: warning:")
                                             or " warning about " in line or " warnings about " in line)


def judge(argv: list[str], result: dict) -> None:
    """Raise ``AssertionError`` unless ``result`` is a clean outcome of ``argv``: exit 0 with the
    run's invariants holding, or exit 1 or 2 with exactly one message line and no traceback."""
    code, err = result["code"], result["err"]
    where = f"{argv!r}\n--- stderr ---\n{err}\n--- problem ---\n{result.get('problem')}"
    assert code not in ("timeout", "crash"), f"{code}: {where}"
    assert "Traceback" not in err and "Traceback" not in result["out"], where
    if code == 0:
        assert result["problem"] is None, where
        return
    assert code in (1, 2), where
    msgs = [ln for ln in message_lines(err) if not ln.startswith("  ")]
    if argv and argv[0] == "validate":  # the report is on stdout; stderr stays empty
        return
    assert len(msgs) == 1, f"expected one message line: {where}"
