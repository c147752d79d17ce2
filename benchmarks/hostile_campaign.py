"""A campaign of hostile inputs through every door, run as a user would: each case is one
``gangviz`` process (or one Python process calling the API) under a timeout and a memory cap.

Each case is judged as one of:

* a clean refusal: exit 1 or 2, exactly one message line on stderr (argparse's usage block and
  the reader's warnings aside) of at most 400 characters, no traceback;
* a correct success: exit 0 and what the case checks holds (the output reads back, the figures
  are finite, no hidden temporary file is left);
* a failure: a traceback, a hang (no exit within the timeout), a refusal of valid input, an exit
  0 where the input must be refused (a silent wrong), a truncated or left-over file, or a
  maximum resident set over 4 GB.

Run ``python benchmarks/hostile_campaign.py`` (about 800 cases; ``--quick`` about one in ten of
each door, spread over its commands (:func:`quick_sample`); ``--door NAME`` one door,
``--workers N`` in parallel, ``--verbose`` prints every failure's output). It prints a table of
cases, failures and CPU seconds (of the cases' processes) by door and exits 1 when any case
failed.

Before the cases it compiles the compiled loops (or loads them from numba's cache) without a
timeout (:func:`tests.compiled_loops.compile_loops`): on a fresh checkout a first compile on a
busy machine takes minutes, which the per-case timeout would report as a hang.
"""

from __future__ import annotations

import argparse
import bz2
import csv
import gzip
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for the fuzz tests' reading of a refusal's stderr
from tests.compiled_loops import compile_loops
from tests.fuzz.harness import outside_usage

#: the gangviz tree the commands import (another checkout's, to compare two versions)
CODE = Path(os.environ.get("GANGVIZ_CAMPAIGN_CODE", ROOT))
BIN = Path(sys.executable).parent
GANGVIZ = str(BIN / "gangviz")
TIMEOUT = 60
RSS_LIMIT_KB = 4 << 20  # 4 GB
MEMORY_CAP = 6 << 30  # address-space cap, above the RSS limit so a big run shows as over 4 GB

Check = Callable[[Path, "Outcome"], "str | None"]


@dataclass
class Case:
    """One hostile input: a command line (``argv``, ``gangviz`` prepended unless it starts with
    ``python``), the files it needs, and what it must do (``"refuse"``, ``"ok"``, ``"either"``)."""

    door: str
    argv: list[str]
    files: dict[str, bytes | str] = field(default_factory=dict)
    expect: str = "refuse"
    check: Check | None = None
    setup: Callable[[Path], None] | None = None
    signal_after: tuple[int, float] | None = None  # (signal, seconds) sent to the process


@dataclass
class Outcome:
    code: int | str
    out: str
    err: str
    rss_kb: int
    seconds: float
    cpu: float = 0.0  # user + system seconds of the case's process


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    os.setsid()


def run_case(case: Case) -> tuple[Case, Outcome, str | None]:
    """Return the case, its outcome and the failure (``None`` when it passed)."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        d = Path(tmp)
        for name, data in case.files.items():
            p = d / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, str):
                p.write_text(data, encoding="utf-8")
            else:
                p.write_bytes(data)
        if case.setup:
            case.setup(d)
        argv = ([str(BIN / "python")] + case.argv[1:]) if case.argv[0] == "python" else [GANGVIZ] + case.argv
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(CODE), COLUMNS="200")
        start = time.monotonic()
        with open(d / ".stdout", "w+b") as fo, open(d / ".stderr", "w+b") as fe:
            try:
                proc = subprocess.Popen(argv, cwd=d, env=env, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                                        preexec_fn=_limit)
            except (OSError, ValueError) as exc:  # an argument the kernel refuses: not a case gangviz sees
                return case, Outcome("not run", "", str(exc), 0, 0.0), f"not run: {exc}"
            if case.signal_after:
                sig, after = case.signal_after
                time.sleep(after)
                try:  # (the child is reaped below, by wait4 only: its usage is wanted)
                    os.kill(proc.pid, sig)
                except ProcessLookupError:
                    pass
            code: int | str = "hang"
            rss = 0
            cpu = 0.0
            while time.monotonic() - start < TIMEOUT:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    code = os.waitstatus_to_exitcode(status)
                    rss = usage.ru_maxrss
                    cpu = usage.ru_utime + usage.ru_stime
                    proc.returncode = code
                    break
                time.sleep(0.02)
            else:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            fo.seek(0)
            fe.seek(0)
            out = fo.read().decode("utf-8", "replace")
            err = fe.read().decode("utf-8", "replace")
        for name in (".stdout", ".stderr"):
            (d / name).unlink()
        outcome = Outcome(code, out, err, rss, time.monotonic() - start, cpu)
        return case, outcome, judge(case, outcome, d)


#: what Qt's offscreen plugin prints on its own, not a message of gangviz
QT_NOISE = {"This plugin does not support propagateSizeHints()"}


def message_lines(err: str) -> list[str]:
    """The message lines of ``err``: argparse's usage block and warnings left out."""
    lines = []
    for ln in outside_usage(err):
        if not ln.strip() or ln.startswith("  ") or ln in QT_NOISE:
            continue
        if "warning" in ln.split(":", 2)[1 if ln.startswith("gangviz:") else 0][:40].lower() \
                or " warning about " in ln or " warnings about " in ln:
            continue
        lines.append(ln)
    return lines


def judge(case: Case, o: Outcome, d: Path) -> str | None:
    """Return why ``o`` is a failure of ``case``, or ``None``."""
    if o.code == "hang":
        return "hang"
    if "Traceback" in o.err or "Traceback" in o.out:
        return "traceback: " + o.err.strip().splitlines()[-1][:200]
    if o.rss_kb > RSS_LIMIT_KB:
        return f"memory: {o.rss_kb / 2**20:.1f} GB"
    left = [p.name for p in d.rglob(".*") if p.is_file() and p.name not in (".stdout", ".stderr")]
    left = [n for n in left if n not in case.files]
    if left:
        return f"left-over hidden file(s) {left}"
    if case.signal_after:
        bad = case.check(d, o) if case.check else None
        return bad
    if o.code == 0:
        if case.expect == "refuse":
            return "silent wrong: exit 0 where a refusal was due; stdout " + o.out.strip()[-160:]
        return case.check(d, o) if case.check else None
    if o.code not in (1, 2):
        return f"exit {o.code}"
    if case.expect == "ok":
        return "refused valid input: " + o.err.strip()[-240:]
    msgs = message_lines(o.err)
    if case.argv[0] == "validate" and not msgs:
        return None
    if len(msgs) != 1:
        return f"{len(msgs)} message lines: {msgs[:3]!r}"
    if len(msgs[0]) > 400:
        return f"message of {len(msgs[0])} characters"
    if "\x1b" in o.err:
        return "raw escape sequence on stderr"
    return None


# ----------------------------------------------------------------------------------------- checks

def finite_table(_d: Path, o: Outcome) -> str | None:
    """The printed figures are numbers, not nan/inf."""
    text = o.out.lower()
    for bad in (" nan", " inf", "nan\n", "inf\n"):
        if bad in text:
            return f"non-finite figure in output: {o.out.strip()[-200:]}"
    return None


def reads_back_swf(name: str) -> Check:
    def check(d: Path, o: Outcome) -> str | None:
        p = d / name
        if not p.exists():
            return f"{name} missing after exit 0"
        r = subprocess.run([GANGVIZ, "validate", str(p), "--procs", "4096"], capture_output=True, text=True,
                           timeout=TIMEOUT, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        if r.returncode != 0:
            return f"convert wrote a file its reader refuses: {r.stderr.strip()[-200:]}"
        lines = p.read_text().splitlines()
        if any(not ln.isprintable() for ln in lines):
            return "control character in the written file"
        return None
    return check


def csv_complete(pattern: str) -> Check:
    """Every file matching ``pattern`` is a whole CSV (header and rows of one width)."""
    def check(d: Path, o: Outcome) -> str | None:
        for p in d.glob(pattern):
            rows = list(csv.reader(p.read_text().splitlines()))
            if not rows or any(len(r) != len(rows[0]) for r in rows):
                return f"{p.name} is truncated ({len(rows)} rows)"
            if not p.read_text().endswith("\n"):
                return f"{p.name} does not end with a line break"
        if o.code == 0 and not list(d.glob(pattern)):
            return "exit 0 but no per-job file"
        return None
    return check


def exists(name: str) -> Check:
    def check(d: Path, o: Outcome) -> str | None:
        return None if (d / name).exists() and (d / name).stat().st_size > 0 else f"{name} not written"
    return check


def both(*checks: Check) -> Check:
    def check(d: Path, o: Outcome) -> str | None:
        for c in checks:
            bad = c(d, o)
            if bad:
                return bad
        return None
    return check


def out_contains(text: str) -> Check:
    def check(_d: Path, o: Outcome) -> str | None:
        return None if text in o.out else f"expected {text!r} in stdout, got {o.out.strip()[-200:]!r}"
    return check


# ------------------------------------------------------------------------------------------ inputs

def swf_line(n: int, arrival: int = 0, run: int = 10, size: int = 4, req: int = 20) -> str:
    return f"{n} {arrival} 0 {run} {size} -1 -1 {size} {req} -1 1 1 1 -1 -1 -1 -1 -1"


GOOD_SWF = "; MaxProcs: 16\n" + "\n".join(swf_line(i + 1, i * 3, 5 + i, 1 + i % 8) for i in range(12)) + "\n"


def swf_cases() -> list[Case]:
    bodies: dict[str, bytes | str] = {
        "empty": "", "header only": "; MaxProcs: 16\n", "binary": bytes(range(256)) * 4,
        "nul": GOOD_SWF + "\x00", "latin1": GOOD_SWF.encode() + b"; \xe9\n",
        "negative size": "; MaxProcs: 16\n" + swf_line(1, size=-4) + "\n",
        "size over machine": "; MaxProcs: 16\n" + swf_line(1, size=64) + "\n",
        "huge MaxProcs": "; MaxProcs: 99999999999999\n" + swf_line(1) + "\n",
        "MaxProcs nan": "; MaxProcs: nan\n" + swf_line(1) + "\n",
        "2**63 run": "; MaxProcs: 16\n" + swf_line(1, run=2**63) + "\n",
        "1e400 run": "; MaxProcs: 16\n" + swf_line(1).replace(" 10 ", " 1e400 ", 1) + "\n",
        "nan arrival": "; MaxProcs: 16\n" + swf_line(1).replace("1 0 0", "1 nan 0", 1) + "\n",
        "unicode digits": "; MaxProcs: 16\n" + swf_line(1).replace(" 10 ", " ١٠ ", 1) + "\n",
        "short line": "; MaxProcs: 16\n1 0 0 10\n",
        "long line": "; MaxProcs: 16\n" + swf_line(1) + " 5 6 7\n",
        "2 MB token": "; MaxProcs: 16\n" + "9" * 2_000_000 + " 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n",
        "escape in header": "; Computer: \x1b[2J\x1b]0;pwned\x07\n; MaxProcs: 16\n" + swf_line(1) + "\n",
        "million jobs header": "; MaxProcs: 16\n; MaxJobs: 99999999999\n" + swf_line(1) + "\n",
        "decreasing arrivals": "; MaxProcs: 16\n" + swf_line(1, 50) + "\n" + swf_line(2, 10) + "\n",
        "duplicate ids": "; MaxProcs: 16\n" + swf_line(1) + "\n" + swf_line(1, 5) + "\n",
        "zero run": "; MaxProcs: 16\n" + swf_line(1, run=0) + "\n",
        "scenario inside": "processors = 4\nmatrix = ['A A . .']\n",
        "gzip junk": b"\x1f\x8b\x08\x00garbage" * 10,
        "gzip truncated": gzip.compress(GOOD_SWF.encode())[:-20],
        "gzip bomb": gzip.compress(b"0" * (300 << 20), 9),
        "bz2 of binary": bz2.compress(bytes(range(256)) * 10),
        "crlf": GOOD_SWF.replace("\n", "\r\n"),
        "bom": "\ufeff" + GOOD_SWF,
        "no MaxProcs": swf_line(1) + "\n",
    }
    # a stray Latin-1 byte in a comment is kept (archive traces have them); a scenario is told by
    # its content, whatever its name
    ok = {"latin1", "scenario inside", "crlf", "bom", "decreasing arrivals", "duplicate ids", "zero run", "escape in header",
          "huge MaxProcs", "MaxProcs nan", "million jobs header", "no MaxProcs"}
    cases = []
    for label, body in bodies.items():
        cmds = [["run", "t.swf"], ["validate", "t.swf"]]
        if label in ("crlf", "gzip bomb", "2 MB token", "negative size"):
            cmds.append(["compare", "t.swf", "--policy", "bc", "--policy", "gs"])
        for cmd in cmds:
            procs = ["--procs", "16"] if label in ("no MaxProcs", "huge MaxProcs", "MaxProcs nan") and cmd[0] != "validate" else []
            expect = "either" if label in ok else "refuse"
            check = finite_table if cmd[0] != "validate" else None
            cases.append(Case("swf", cmd + procs, {"t.swf": body}, expect, check))
    cases.append(Case("swf", ["run", "t.swf"], {"t.swf": GOOD_SWF}, "ok", finite_table))
    cases.append(Case("swf", ["run", "t.swf.gz"], {"t.swf.gz": gzip.compress(GOOD_SWF.encode())}, "ok", finite_table))
    return cases


SCEN = "processors = 4\nmatrix = ['A A . .', 'B B B .']\n"


def scenario_cases() -> list[Case]:
    texts = {
        "valid": (SCEN, "ok"),
        "zero procs": ("processors = 0\nmatrix = []\n", "refuse"),
        "huge procs": ("processors = 99999999999\nmatrix = []\n", "refuse"),
        "float procs": ("processors = 4.5\nmatrix = ['A A . .']\n", "refuse"),
        "bool procs": ("processors = true\nmatrix = ['A A . .']\n", "refuse"),
        "nan work": (SCEN + "[jobs]\nA = { work = nan }\n", "refuse"),
        "inf work": (SCEN + "[jobs]\nA = { work = inf }\n", "either"),  # runs until terminated
        "1e400 work": (SCEN + "[jobs]\nA = { work = 1e400 }\n", "either"),  # TOML's inf
        "negative work": (SCEN + "[jobs]\nA = { work = -3 }\n", "refuse"),
        "wrong width": ("processors = 4\nmatrix = ['A A .']\n", "refuse"),
        "split gang": ("processors = 4\nmatrix = ['A . A .']\n", "either"),
        "unknown key": (SCEN + "colour = 1\n", "refuse"),
        "unknown policy": (SCEN + "policy = 'nope'\n", "refuse"),
        "policy bad param": (SCEN + "policy = 'bc:occupy=maybe'\n", "refuse"),
        "policy repeated key": (SCEN + "policy = 'bc:occupy=size,occupy=block'\n", "refuse"),
        "params typo": (SCEN + "[params.random]\nsede = 3\n", "refuse"),
        "params bool from text": (SCEN + "policy = 'mgs'\n[params.mgs]\ncharge_migration = 'no'\n", "either"),
        "params bool maybe": (SCEN + "policy = 'mgs'\n[params.mgs]\ncharge_migration = 'maybe'\n", "refuse"),
        "params migration inf": (SCEN + "policy = 'mgs'\n[params.mgs]\nmigration_cost = inf\n", "refuse"),
        "params migration 1e13": (SCEN + "policy = 'mgs'\n[params.mgs]\nmigration_cost = 1e13\n", "refuse"),
        "event nan": (SCEN + "[[events]]\nat = nan\nterminate = ['A']\n", "refuse"),
        "event 1e400": (SCEN + "[[events]]\nat = 1e400\nterminate = ['A']\n", "refuse"),
        "event unknown job": (SCEN + "[[events]]\nat = 1\nterminate = ['Z']\n", "refuse"),
        "submit huge": (SCEN + "[[events]]\nat = 1\nsubmit = { name = 'C', size = 99999999, work = 2 }\n", "refuse"),
        "submit zero size": (SCEN + "[[events]]\nat = 1\nsubmit = { name = 'C', size = 0, work = 2 }\n", "refuse"),
        "65537 slots": ("processors = 1\nmatrix = [" + ",".join(["'A'"] * 65537) + "]\n", "refuse"),
        "toml syntax": ("processors = \n", "refuse"),
        "not utf8": (b"processors = 4\n# \xff\xfe\nmatrix = ['A A . .']\n", "refuse"),
        "nul": (SCEN + "\x00", "refuse"),
        "escape title": ("title = '\\u001b[2Jx'\n" + SCEN, "either"),
        "2MB name": ("processors = 4\nmatrix = ['" + "A" * 2_000_000 + " . . .']\n", "either"),
        "deep nesting": ("x = " + "[" * 5000 + "]" * 5000 + "\n" + SCEN, "refuse"),
        "empty": ("", "refuse"),
        "matrix not list": ("processors = 4\nmatrix = 3\n", "refuse"),
    }
    cases = []
    for label, (text, expect) in texts.items():
        for argv in (["run", "s.toml"], ["validate", "s.toml"]):
            if argv[0] == "validate" and expect == "either":
                continue
            e = "refuse" if argv[0] == "validate" else expect  # validate reads SWF traces only
            if "--policy" in argv and label in ("unknown policy", "policy bad param", "policy repeated key"):
                e = "either"
            cases.append(Case("scenario", argv, {"s.toml": text}, e, finite_table if argv[0] == "run" else None))
    return cases


def session_text(source: str = "fig2-repacking", policy: str | None = "repack", compare: list | None = None,
                 extra: str = "", playlist: str | None = None, entry: int | None = None) -> str:
    out = ["[session]", "version = 1", "[source]", f"name = {json.dumps(source)}"]
    if playlist is not None:
        out.append(f"playlist = {json.dumps(playlist)}")
    if entry is not None:
        out.append(f"entry = {entry}")
    out.append("[policy]")
    if policy is not None:
        out.append(f"name = {json.dumps(policy)}")
    if compare is not None:
        out += ["[compare]", f"policies = {json.dumps(compare)}"]
    return "\n".join(out) + "\n" + extra


PLAYLIST = "title = 'p'\n[[scenario]]\nsource = 'fig2-repacking'\n[[scenario]]\nsource = 'zhou-fig1-random-trap'\n"


def session_cases() -> list[Case]:
    shot = ["--screenshot", "o.png", "--size", "400x300"]
    specs = [
        ("valid", session_text(), {}, "ok"),
        ("valid compare", session_text(compare=["repack", "firstfit"]), {}, "ok"),
        ("compare one", session_text(compare=["repack"]), {}, "refuse"),
        ("compare eleven", session_text(compare=["repack"] * 11), {}, "refuse"),
        ("compare unknown", session_text(compare=["repack", "nope"]), {}, "refuse"),
        ("compare repeat case", session_text(compare=["repack", "REPACK"]), {}, "refuse"),
        ("compare repeat space", session_text(compare=["repack", " repack"]), {}, "refuse"),
        ("compare bad param", session_text(compare=["repack", "mgs:charge_migration=maybe"]), {}, "refuse"),
        ("compare not list", session_text(extra="[compare]\npolicies = 'bc'\n"), {}, "refuse"),
        ("policy unknown", session_text(policy="nope"), {}, "refuse"),
        ("policy empty", session_text(policy=""), {}, "refuse"),
        ("policy bool param", session_text(policy="mgs:charge_migration=maybe"), {}, "refuse"),
        ("policy repeated key", session_text(policy="bc:occupy=size,occupy=block"), {}, "refuse"),
        ("policy inf", session_text(policy="mgs:migration_cost=inf"), {}, "refuse"),
        ("source missing", session_text(source="missing.toml"), {}, "refuse"),
        ("source empty", session_text(source=""), {}, "refuse"),
        ("source escape", session_text(source="\x1b[2J"), {}, "refuse"),
        ("source huge", session_text(source="x" * 300000), {}, "refuse"),
        ("source itself", session_text(source="s.toml"), {}, "refuse"),
        ("playlist valid", session_text(policy="random", playlist="p.toml", entry=1), {"p.toml": PLAYLIST}, "ok"),
        ("playlist entry out", session_text(playlist="p.toml", entry=5), {"p.toml": PLAYLIST}, "refuse"),
        ("playlist entry negative", session_text(playlist="p.toml", entry=-1), {"p.toml": PLAYLIST}, "refuse"),
        ("playlist entry 2**63", session_text(playlist="p.toml", entry=2**63 - 1), {"p.toml": PLAYLIST}, "refuse"),
        ("playlist missing", session_text(playlist="missing.toml", entry=0), {}, "refuse"),
        ("playlist broken", session_text(playlist="p.toml", entry=0), {"p.toml": "[[scenario\n"}, "refuse"),
        ("playlist is session", session_text(playlist="s.toml", entry=0), {}, "refuse"),
        ("unknown key", session_text(extra="[view]\ncolour = 1\n"), {}, "refuse"),
        ("step negative", session_text(extra="[view]\nstep = -1\n"), {}, "refuse"),
        ("step huge", session_text(extra="[view]\nstep = 1000000000000\n"), {}, "either"),  # to the end
        ("zoom nan", session_text(extra="[view]\nzoom = { 'Slots over time' = [nan, 1, 0, 1] }\n"), {}, "refuse"),
        ("version 2", session_text().replace("version = 1", "version = 2"), {}, "refuse"),
        ("watch text", session_text().replace("[policy]", "[policy]\nwatch = 'no'"), {}, "refuse"),
        ("jobs zero", session_text(source="downey", extra="").replace("[policy]", "jobs = 0\n[policy]"), {}, "refuse"),
        ("jobs huge", session_text(source="downey").replace("[policy]", "jobs = 1000000000\n[policy]"), {}, "refuse"),
        ("binary", b"\x00\xff" * 100, {}, "refuse"),
        ("over 1 MiB", session_text() + "#" * (2 << 20) + "\n", {}, "refuse"),
    ]
    cases = []
    for _label, text, files, expect in specs:
        files = {"s.toml": text, **files}
        cases.append(Case("session", ["open", "s.toml", *shot], files, expect,
                          exists("o.png") if expect == "ok" else None))
    return cases


def playlist_cases() -> list[Case]:
    shot = ["--screenshot", "o.png", "--size", "400x300"]
    specs = [
        ("valid", PLAYLIST, "ok"),
        ("itself", "[[scenario]]\nsource = 'p.toml'\n", "refuse"),
        ("other playlist", "[[scenario]]\nsource = 'q.toml'\n", "refuse"),
        ("cycle via other", "[[scenario]]\nsource = 'q2.toml'\n", "refuse"),
        ("empty", "", "refuse"),
        ("no entries", "title = 'x'\n", "refuse"),
        ("scenario list", "scenario = []\n", "refuse"),
        ("scenario int", "scenario = 3\n", "refuse"),
        ("unknown key", PLAYLIST + "colour = 1\n", "refuse"),
        ("entry no source", "[[scenario]]\nnote = 'x'\n", "refuse"),
        ("entry missing", "[[scenario]]\nsource = 'missing.toml'\n", "refuse"),
        ("entry broken scenario", "[[scenario]]\nsource = 'bad.toml'\n", "refuse"),
        ("entry source int", "[[scenario]]\nsource = 3\n", "refuse"),
        ("entry source empty", "[[scenario]]\nsource = ''\n", "refuse"),
        ("entry escape", "[[scenario]]\nsource = '\\u001b[2J'\n", "refuse"),
        ("entry path traversal", "[[scenario]]\nsource = '../../../../etc/passwd'\n", "refuse"),
        ("entry device", "[[scenario]]\nsource = '/dev/zero'\n", "refuse"),
        ("entry fifo", "[[scenario]]\nsource = 'fifo.toml'\n", "refuse"),
        ("title escape", "title = '\\u001b[2J\\u001b]0;x\\u0007'\n" + PLAYLIST.split("\n", 1)[1], "either"),
        ("title huge", "title = '" + "x" * 300000 + "'\n" + PLAYLIST.split("\n", 1)[1], "either"),
        ("note int", "[[scenario]]\nsource = 'fig2-repacking'\nnote = 3\n", "refuse"),
        ("binary", b"\xff\xfe\x00", "refuse"),
        ("toml error", "[[scenario]\n", "refuse"),
        ("10000 entries", "".join("[[scenario]]\nsource = 'fig2-repacking'\n" for _ in range(10000)), "either"),
    ]
    files_extra = {"q.toml": "[[scenario]]\nsource = 'fig2-repacking'\n",
                   "q2.toml": "[[scenario]]\nsource = 'p.toml'\n", "bad.toml": "processors = 0\n"}

    def mkfifo(d: Path) -> None:
        os.mkfifo(d / "fifo.toml")

    cases = []
    for _label, text, expect in specs:
        cases.append(Case("playlist", ["open", "p.toml", *shot], {"p.toml": text, **files_extra}, expect,
                          exists("o.png") if expect == "ok" else None, setup=mkfifo))
    return cases


def sweep_text(policies: str = "['repack', 'firstfit']", jobs: str = "10", load: str = "[0.5]",
               extra: str = "", reps: str = "1") -> str:
    return (f"policies = {policies}\nreplications = {reps}\n[workload]\nmodel = 'downey'\njobs = {jobs}\n"
            f"procs = 16\n{extra}[grid]\nload = {load}\n")


def sweep_cases() -> list[Case]:
    specs = [
        ("valid", sweep_text(), "ok"),
        ("policy unknown", sweep_text("['nope']"), "refuse"),
        ("policy empty", sweep_text("['']"), "refuse"),
        ("policies empty", sweep_text("[]"), "refuse"),
        ("policy twice", sweep_text("['bc', 'BC']"), "refuse"),
        ("policy bool no", sweep_text("['mgs:charge_migration=no']"), "either"),
        ("policy bool maybe", sweep_text("['mgs:charge_migration=maybe']"), "refuse"),
        ("policy kill maybe", sweep_text("['easy:kill=maybe']"), "refuse"),
        ("policy repeated key", sweep_text("['bc:occupy=size,occupy=block']"), "refuse"),
        ("policy inf", sweep_text("['mgs:migration_cost=inf']"), "refuse"),
        ("policy 1e13", sweep_text("['mgs:migration_cost=1e13']"), "refuse"),
        ("policy seed 1e400", sweep_text("['random:seed=1e400']"), "refuse"),
        ("policy int", sweep_text("[3]"), "refuse"),
        ("policies text", sweep_text("'bc'"), "refuse"),
        ("jobs zero", sweep_text(jobs="0"), "refuse"),
        ("jobs huge", sweep_text(jobs="100000000"), "refuse"),
        ("jobs 2**63", sweep_text(jobs=str(2**63 - 1)), "refuse"),
        ("jobs float", sweep_text(jobs="10.5"), "refuse"),
        ("jobs text", sweep_text(jobs="'10'"), "refuse"),
        ("load zero", sweep_text(load="[0.0]"), "refuse"),
        ("load negative", sweep_text(load="[-1.0]"), "refuse"),
        ("load nan", sweep_text(load="[nan]"), "refuse"),
        ("load inf", sweep_text(load="[inf]"), "refuse"),
        ("load huge", sweep_text(load="[1e308]"), "either"),  # every job at time 0
        ("load empty", sweep_text(load="[]"), "refuse"),
        ("load text", sweep_text(load="['x']"), "refuse"),
        ("reps zero", sweep_text(reps="0"), "refuse"),
        ("reps huge", sweep_text(reps="1000000000"), "refuse"),
        ("unknown key", sweep_text(extra="colour = 1\n"), "refuse"),
        ("max_work huge", sweep_text(extra="max_work = 99999999999999\n"), "refuse"),
        ("model unknown", sweep_text().replace("'downey'", "'nope'"), "refuse"),
        ("not utf8", sweep_text().encode() + b"# \xff\n", "refuse"),
        ("nul", sweep_text() + "\x00", "refuse"),
        ("bom", "\ufeff" + sweep_text(), "ok"),
        ("crlf", sweep_text().replace("\n", "\r\n"), "ok"),
        ("toml error", "policies = [\n", "refuse"),
        ("empty", "", "refuse"),
        ("over 16 MiB", sweep_text() + ("#" * 1000 + "\n") * 17000, "refuse"),
        ("grid huge product", sweep_text(load="[" + ",".join(f"0.{i:03d}1" for i in range(1, 999)) + "]",
                                         reps="1000"), "refuse"),
        ("policy file missing", sweep_text("['missing.py']"), "refuse"),
        ("policy file raising", sweep_text("['raise_import.py']"), "refuse"),
    ]
    cases = []
    for _label, text, expect in specs:
        check = both(exists("r.csv"), csv_complete("r.csv")) if expect == "ok" else None
        cases.append(Case("sweep", ["sweep", "w.toml", "--out", "r.csv", "--quiet"],
                          {"w.toml": text, "raise_import.py": "raise RuntimeError('at import')\n"}, expect, check))
    return cases


SACCT_HEADER = "JobID|Submit|Start|End|AllocCPUS|Timelimit|State"


def sacct(*rows: str, header: str = SACCT_HEADER) -> str:
    return header + "\n" + "\n".join(rows) + "\n"


GOOD_ROW = "101|2024-03-01T09:00:00|2024-03-01T09:10:00|2024-03-01T10:00:00|8|02:00:00|COMPLETED"


def row(**kw: str) -> str:
    fields = dict(zip(SACCT_HEADER.split("|"), GOOD_ROW.split("|")))
    fields.update(kw)
    return "|".join(fields[c] for c in SACCT_HEADER.split("|"))


def sacct_cases() -> list[Case]:
    specs = [
        ("valid", sacct(GOOD_ROW, row(JobID="102")), "ok"),
        ("empty", "", "refuse"),
        ("header only", SACCT_HEADER + "\n", "refuse"),
        ("no JobID column", sacct("2024|x", header="Submit|Start"), "refuse"),
        ("AllocCPUS twice", sacct(GOOD_ROW + "|8", header=SACCT_HEADER + "|AllocCPUS"), "refuse"),
        ("huge AllocCPUS", sacct(row(AllocCPUS="99999999999")), "refuse"),
        ("zero AllocCPUS", sacct(row(AllocCPUS="0")), "refuse"),
        ("negative AllocCPUS", sacct(row(AllocCPUS="-4")), "refuse"),
        ("float AllocCPUS", sacct(row(AllocCPUS="1.5")), "refuse"),
        ("arabic AllocCPUS", sacct(row(AllocCPUS="٤")), "refuse"),
        ("superscript JobID", sacct(row(JobID="²")), "ok"),  # not a plain number: renumbered, warned
        ("23 digit JobID", sacct(row(JobID="9" * 23)), "refuse"),
        ("JobID 0123 and 123", sacct(row(JobID="0123"), row(JobID="123")), "ok"),
        ("JobID step", sacct(GOOD_ROW, row(JobID="101.batch")), "ok"),
        ("JobID array", sacct(row(JobID="7_1"), row(JobID="7_2")), "ok"),
        ("Timelimit huge", sacct(row(Timelimit="100000000000000000000-00")), "refuse"),
        ("Timelimit 00:61:99", sacct(row(Timelimit="00:61:99")), "refuse"),
        ("Timelimit arabic", sacct(row(Timelimit="٣٠")), "refuse"),
        ("Timelimit UNLIMITED", sacct(row(Timelimit="UNLIMITED")), "ok"),
        ("Timelimit negative", sacct(row(Timelimit="-5")), "refuse"),
        ("offset time", sacct(row(Submit="2024-03-01T09:00:00+02:00", Start="2024-03-01T08:10:00Z",
                                  End="2024-03-01T09:00:00Z")), "ok"),
        ("bad month", sacct(row(Submit="2024-13-01T00:00:00")), "refuse"),
        ("fullwidth date", sacct(row(Submit="２０２４-03-01T09:00:00")), "refuse"),
        ("year 9999", sacct(row(End="9999-12-31T23:59:59")), "ok"),  # 2.5e11 s: within 2**40 s
        ("end before start", sacct(row(End="2024-03-01T09:00:00")), "refuse"),
        ("start Unknown", sacct(row(Start="Unknown")), "refuse"),
        ("state 500 chars", sacct(row(State="x" * 500)), "refuse"),
        ("2 MB field", sacct(row(JobID="1" * 2_000_000)), "refuse"),
        ("extra column in row", sacct(GOOD_ROW + "|extra"), "refuse"),
        ("missing column in row", sacct("101|2024"), "refuse"),
        ("Cluster newline", sacct(GOOD_ROW + "|a\\nb", header=SACCT_HEADER + "|Cluster"), "either"),
        ("Cluster escape", sacct(GOOD_ROW + "|\x1b[2J", header=SACCT_HEADER + "|Cluster"), "either"),
        ("binary", bytes(range(256)) * 10, "refuse"),
        ("latin1", sacct(GOOD_ROW).encode() + b"\xe9\n", "refuse"),
        ("nul", sacct(GOOD_ROW) + "\x00", "refuse"),
        ("gz", gzip.compress(sacct(GOOD_ROW).encode()), "ok"),
        ("crlf", sacct(GOOD_ROW, row(JobID="102")).replace("\n", "\r\n"), "ok"),
        ("all skipped", sacct(row(State="RUNNING", End="Unknown")), "refuse"),
    ]
    cases = []
    for _label, text, expect in specs:
        check = reads_back_swf("o.swf") if expect == "ok" else None
        cases.append(Case("sacct", ["convert", "in.txt", "o.swf"], {"in.txt": text}, expect, check))
        if expect != "ok":
            cases.append(Case("sacct", ["convert", "in.txt", "o.swf", "--strict"], {"in.txt": text}, expect))
    return cases


def convert_option_cases() -> list[Case]:
    good = {"in.txt": sacct(GOOD_ROW, row(JobID="102"))}
    specs = [
        (["--computer", "a\nb"], "refuse"), (["--computer", "\x1b[2J"], "refuse"),
        (["--computer", "x" * 100000], "either"), (["--computer", ""], "either"),
        (["--computer", "a\u2028b"], "refuse"), (["--computer", "ok"], "ok"),
        (["--procs", "0"], "refuse"), (["--procs", "-1"], "refuse"), (["--procs", "99999999999"], "refuse"),
        (["--procs", "nan"], "refuse"), (["--procs", "١٦"], "refuse"), (["--procs", "4"], "either"),
        (["--procs", "16"], "ok"), (["--nodes"], "either"), (["--strict"], "ok"),
    ]
    cases = []
    for opts, expect in specs:
        check = reads_back_swf("o.swf") if expect in ("ok", "either") else None
        cases.append(Case("convert-options", ["convert", "in.txt", "o.swf", *opts], good, expect, check))
    cases.append(Case("convert-options", ["convert", "in.txt", "o.swf"], {**good, "o.swf": "old"}, "refuse"))
    cases.append(Case("convert-options", ["convert", "in.txt", "o.swf", "--force"], {**good, "o.swf": "old"}, "ok",
                      reads_back_swf("o.swf")))
    cases.append(Case("convert-options", ["convert", "in.txt", "in.txt", "--force"], good, "refuse"))
    cases.append(Case("convert-options", ["convert", "missing.txt", "o.swf"], {}, "refuse"))
    cases.append(Case("convert-options", ["convert", ".", "o.swf"], {}, "refuse"))
    return cases


def cli_cases() -> list[Case]:
    bad_ints = ["0", "-1", "", " ", "nan", "inf", "1e3", "1.5", "99999999999999999999", "0x10", "١٢", "abc",
                str(2**63)]
    bad_floats = ["0", "-1", "nan", "inf", "-inf", "1e400", "", "abc", "١", "1e-400"]
    cases = []
    for v in bad_ints:
        cases.append(Case("cli", ["run", "downey", "--jobs", v], {}, "refuse"))
        cases.append(Case("cli", ["run", "downey", "--procs", v], {}, "refuse"))
    for v in bad_floats:
        cases.append(Case("cli", ["run", "downey", "--jobs", "10", "--load", v], {}, "refuse"))
        cases.append(Case("cli", ["run", "fig2-repacking", "--slice", v], {}, "refuse"))
    for v in ["-1", "nan", "-inf", "abc", "١"]:
        cases.append(Case("cli", ["compare", "fig2-repacking", "--policy", "repack", "--policy", "firstfit",
                                  "--window", "--screenshot", "o.png", "--at", v], {}, "refuse"))
    for v in ["-1", "1.5", "abc", "1e400", str(2**64)]:
        cases.append(Case("cli", ["run", "downey", "--jobs", "10", "--seed", v], {}, "refuse"))
    for v in ["0x0", "-1x5", "99999x99999", "axb", "400", "", "1e3x400", "400x300x2", "١٠٠x١٠٠"]:
        cases.append(Case("cli", ["open", "fig2-repacking", "--screenshot", "o.png", "--size", v], {}, "refuse"))
    cases += [
        Case("cli", ["run", "downey", "--jobs", "10000001"], {}, "refuse"),
        Case("cli", ["run", "downey", "--jobs", "10", "--seed", "5"], {}, "ok", finite_table),
        Case("cli", ["run", "downey", "--jobs", "10", "--load", "0.3"], {}, "ok", finite_table),
        Case("cli", ["run", "fig2-repacking", "--jobs", "10"], {}, "refuse"),
        Case("cli", ["run", "fig2-repacking", "--load", "0.5"], {}, "refuse"),
        Case("cli", ["run", "fig2-repacking", "--seed", "1"], {}, "refuse"),
        Case("cli", ["run", "fig2-repacking", "--procs", "16"], {}, "refuse"),
        Case("cli", ["run", "t.swf", "--jobs", "10"], {"t.swf": GOOD_SWF}, "refuse"),
        Case("cli", ["run", "t.swf", "--seed", "1"], {"t.swf": GOOD_SWF}, "refuse"),
        Case("cli", ["run", "downey", "--slice", "2"], {}, "refuse"),
        Case("cli", ["compare", "fig2-repacking", "--policy", "repack", "--policy", "firstfit", "--at", "3"], {},
             "refuse"),
        Case("cli", ["compare", "fig2-repacking", "--policy", "bc", "--policy", "BC"], {}, "refuse"),
        Case("cli", ["compare", "fig2-repacking", "--policy", "bc", "--policy", "bc "], {}, "refuse"),
        Case("cli", ["compare", "fig2-repacking", "--policy", "bc", "--policy", "bc\t"], {}, "refuse"),
        Case("cli", ["compare", "fig2-repacking", "--policy", "random:seed=1", "--policy", "random:seed=1.0"], {},
             "refuse"),
        Case("cli", ["compare", "fig2-repacking", "--policy", "bc"], {}, "either"),
        Case("cli", ["run", "downey", "--jobs", "20", "--seed", "1", "--ring", "--policy", "repack"], {}, "ok",
             finite_table),
        Case("cli", ["run", "downey", "--jobs", "40", "--seed", "3", "--ring", "--policy", "repack"], {}, "ok",
             finite_table),
        Case("cli", ["run", "nonexistent-scenario"], {}, "refuse"),
        Case("cli", ["run", ""], {}, "refuse"),
        Case("cli", ["run", "x" * 5000], {}, "refuse"),
        Case("cli", ["run", "\x1b[2J"], {}, "refuse"),
        Case("cli", ["run", "downey", "--decision-limit", "nan"], {}, "refuse"),
        Case("cli", ["run", "downey", "--decision-limit", "-1"], {}, "refuse"),
        Case("cli", ["frobnicate"], {}, "refuse"),
    ]
    return cases


POLICY_SPECS_REFUSED = [
    "mgs:charge_migration=maybe", "mgs:charge_migration=", "mgs:charge_migration=2", "mgs:charge_migration=tru",
    "easy:kill=maybe", "easy:kill=on", "bc:occupy=size,occupy=block", "bc:occupy=size,occupy=size",
    "bc:occupy=tower", "bc:occupy=", "mgs:migration_cost=inf", "mgs:migration_cost=nan", "mgs:migration_cost=-1",
    "mgs:migration_cost=1e13", "mgs:migration_cost=1e400", "mgs:migration_cost=-inf", "random:seed=1e400",
    "random:seed=-1", "random:seed=1.5", "random:seed=" + "9" * 30, "random:seed=١٢", "random:seed=²",
    "random:seed=0x10", "gs:mpl=0", "gs:mpl=-1", "gs:mpl=99999999", "gs:mpl=1.5", "gs:mpl=٣", "mgs:q=-1",
    "mgs:q=1e400", "gs:decide=sometimes", "repack:window=middle", "repack:cuts=", "nope", "", ":", ":a=1",
    "bc:occupy", "bc:=3", "bc:nope=1", "repack:" + "x=1," * 5000,
    "x" * 60000, "bc:occupy=" + "s" * 60000, "\x1b[2J", "bc:occupy=\x1b[2J",
    "repack:seed=3", "firstfit:seed=1", "brms:extra_slots_on=sometimes", "easy:estimates=guess",
    "mgs:charge_migration=no,charge_migration=yes", "bc:OCCUPY=size", "mgs:q=none,q=3",
]
POLICY_SPECS_OK = [
    "mgs:charge_migration=no", "mgs:charge_migration=YES", "mgs:charge_migration=0", "mgs:charge_migration= true ",
    "easy:kill=false", "bc:occupy=block", "bc:occupy=BLOCK", "mgs:migration_cost=2", "mgs:migration_cost=1e3",
    "random:seed=7", "random:seed=7.0", "gs:mpl=3", "mgs:q=none", "mgs:q=2", "brms:extra_slots_on=arrival",
    "easy:estimates=exact", "repack:window=leftmost", "BC", " bc ", "bc:", "bc:occupy=size,",
]


def policy_spec_cases() -> list[Case]:
    cases = []
    for spec in POLICY_SPECS_REFUSED:
        cases.append(Case("policy-spec", ["run", "downey", "--jobs", "12", "--procs", "16", "--policy", spec], {},
                          "refuse"))
    for spec in POLICY_SPECS_REFUSED[:12]:
        cases.append(Case("policy-spec", ["compare", "downey", "--jobs", "12", "--procs", "16", "--policy", "repack",
                                          "--policy", spec], {}, "refuse"))
    for spec in POLICY_SPECS_OK:
        cases.append(Case("policy-spec", ["run", "downey", "--jobs", "12", "--procs", "16", "--policy", spec], {},
                          "ok", finite_table))
    # a boolean read as its value: charge_migration=no and =false give one result, =yes and =true another
    for a, b in (("no", "false"), ("yes", "1"), ("0", "FALSE")):
        code = ("import gangviz,json;"
                f"r1=gangviz.simulate('downey',policy='mgs:charge_migration={a},migration_cost=5',jobs=30,procs=16);"
                f"r2=gangviz.simulate('downey',policy='mgs:charge_migration={b},migration_cost=5',jobs=30,procs=16);"
                "assert r1.metrics==r2.metrics,(r1.metrics,r2.metrics);print('same')")
        cases.append(Case("policy-spec", ["python", "-c", code], {}, "ok", out_contains("same")))
    code = ("import gangviz;"
            "r1=gangviz.simulate('downey',policy='mgs:charge_migration=no,migration_cost=50',jobs=60,procs=16,load=0.9);"
            "r2=gangviz.simulate('downey',policy='mgs:charge_migration=yes,migration_cost=50',jobs=60,procs=16,load=0.9);"
            "print('differ' if r1.metrics!=r2.metrics else 'same')")
    cases.append(Case("policy-spec", ["python", "-c", code], {}, "ok", out_contains("differ")))
    return cases


USER_POLICIES = {
    "syntax": ("class P(:\n    pass\n", 1),
    "raise_import": ("raise RuntimeError('boom at import')\n", 1),
    "no_class": ("x = 1\n", None),
    "two_classes": ("from gangviz.userpolicy import MatrixPolicy\nclass A(MatrixPolicy):\n    def decide(self, v, a):\n"
                    "        pass\nclass B(MatrixPolicy):\n    def decide(self, v, a):\n        pass\n", None),
    "raising": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
                "        raise ValueError('mine')\n", 4),
    "returns": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
                "        return 42\n", 3),
    "loops": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
              "        while True:\n            pass\n", 4),
    "sleeps": ("import time\nfrom gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n"
               "    def decide(self, view, act):\n        time.sleep(1000)\n", 5),
    "recursion": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
                  "        return self.decide(view, act)\n", 4),
    "memory": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n    def decide(self, view, act):\n"
               "        x = [0] * (10**10)\n", 4),
    "sysexit": ("import sys\nfrom gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n"
                "    def decide(self, view, act):\n        sys.exit(0)\n", 5),
    "never_places": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n"
                     "    def decide(self, view, act):\n        pass\n", None),
    "bad_action": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n"
                   "    def decide(self, view, act):\n        for j in view.waiting:\n"
                   "            act.place(j.id, 99, range(j.size))\n", 5),
    "bad_action_types": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n"
                         "    def decide(self, view, act):\n        for j in view.waiting:\n"
                         "            act.place('x', None, 'abc')\n", 5),
    "bad_param_decl": ("from gangviz.userpolicy import MatrixPolicy, Param\nclass P(MatrixPolicy):\n"
                       "    params = (Param('n', 'complex', 1),)\n    def decide(self, view, act):\n        pass\n", None),
    "not_subclass": ("class P:\n    def decide(self, view, act):\n        pass\n", None),
    "space_raising": ("from gangviz.userpolicy import SpacePolicy\nclass P(SpacePolicy):\n"
                      "    def decide(self, view, act):\n        raise ValueError('mine')\n", 4),
    "space_loops": ("from gangviz.userpolicy import SpacePolicy\nclass P(SpacePolicy):\n"
                    "    def decide(self, view, act):\n        while True:\n            pass\n", 4),
    "space_never": ("from gangviz.userpolicy import SpacePolicy\nclass P(SpacePolicy):\n"
                    "    def decide(self, view, act):\n        pass\n", None),
    "mutates_view": ("from gangviz.userpolicy import MatrixPolicy\nclass P(MatrixPolicy):\n"
                     "    def decide(self, view, act):\n        view.waiting.clear()\n", None),
}


def user_policy_cases() -> list[Case]:
    cases = []
    for name, (text, line) in USER_POLICIES.items():
        for extra in ([], ["--decision-limit", "0.5"]):
            argv = ["run", "downey", "--jobs", "10", "--procs", "16", "--policy", f"{name}.py", *extra]
            cases.append(Case("user-policy", argv, {f"{name}.py": text}, "refuse",
                              check=_names_file(f"{name}.py", line)))
        if name in ("raising", "loops", "returns"):
            cases.append(Case("user-policy", ["compare", "downey", "--jobs", "10", "--procs", "16", "--policy",
                                              "repack", "--policy", f"{name}.py:decision_limit=0.5"],
                              {f"{name}.py": text}, "refuse", check=_names_file(f"{name}.py", line)))
    for spec in ["gang.py:decision_limit=0", "gang.py:decision_limit=inf", "gang.py:decision_limit=1e400",
                 "gang.py:check=maybe", "gang.py:seed=-1", "gang.py:seed=1e400", "gang.py:nope=1",
                 "gang.py:Missing", "gang.py:seed=1,seed=2", "missing.py", "gang.txt", "/dev/null",
                 "gang.py:P:x=1"]:
        cases.append(Case("user-policy", ["run", "downey", "--jobs", "10", "--procs", "16", "--policy", spec],
                          {"gang.py": (ROOT / "examples/policies/gang_sjf.py").read_text(), "gang.txt": "x"},
                          "refuse"))
    cases.append(Case("user-policy", ["run", "downey", "--jobs", "10", "--procs", "16", "--policy", "gang.py"],
                      {"gang.py": (ROOT / "examples/policies/gang_sjf.py").read_text()}, "ok", finite_table))
    return cases


def _names_file(fname: str, line: int | None) -> Check:
    """(Judged only on a refusal, by :func:`judge_user_policy`)."""
    def check(_d: Path, o: Outcome) -> str | None:
        return None
    check.fname = fname  # type: ignore[attr-defined]
    check.line = line  # type: ignore[attr-defined]
    return check


ORDERS = {
    "raise": ("def key(job):\n    raise ValueError('mine')\n", 2),
    "none": ("def key(job):\n    return None\n", None),
    "mixed": ("def key(job):\n    return 'a' if job.id % 2 else 1\n", None),
    "loop": ("def key(job):\n    while True:\n        pass\n", 2),
    "nan": ("def key(job):\n    return float('nan')\n", None),
    "wrong_arity": ("def key():\n    return 1\n", None),
    "not_callable": ("key = 3\n", None),
    "syntax": ("def key(job)\n    return 1\n", 1),
    "mutate": ("def key(job):\n    job.size = 0\n    return 1\n", 2),
}


def order_cases() -> list[Case]:
    cases = []
    for name, (text, _line) in ORDERS.items():
        for policy in ("gs", "easy", "repack"):
            expect = "either" if name in ("nan",) else "refuse"
            cases.append(Case("order", ["run", "downey", "--jobs", "100", "--procs", "16", "--load", "0.95",
                                        "--policy", policy,
                                        "--order", f"{name}.py:key", "--decision-limit", "0.5"],
                              {f"{name}.py": text}, expect, finite_table))
    for spec in ["o.py", "o.py:", "o.py:missing", "missing.py:key", ":key", "o.py:key:x"]:
        cases.append(Case("order", ["run", "downey", "--jobs", "12", "--procs", "16", "--policy", "gs", "--order", spec],
                          {"o.py": "def key(job):\n    return job.work\n"}, "refuse"))
    return cases


API = """
import sys, gangviz
try:
    r = {call}
except (TypeError, ValueError, FileNotFoundError) as exc:
    print(type(exc).__name__ + ': ' + str(exc)[:300], file=sys.stderr)
    sys.exit(1)
res = r if isinstance(r, dict) else {{'one': r}}
import math
for k, v in res.items():
    # a class with no jobs reports NaN ("n/a"); nothing is infinite or negative
    assert all(isinstance(x, (int, float)) and not math.isinf(x) and not x < 0 for x in v.metrics.values()), k
print('ran', sorted(res))
"""


def api_cases() -> list[Case]:
    s = "gangviz.simulate('downey', jobs=8, procs=16, {})"
    c = "gangviz.compare('downey', {}, jobs=8, procs=16)"
    refused = [s.format(a) for a in [
        "policy=7", "policy=['bc']", "policy=b'bc'", "policy=''", "policy=' '", "policy=None or 3",
        "policy='nope'", "policy='mgs:charge_migration=maybe'", "policy='bc:occupy=size,occupy=block'",
        "policy='mgs:migration_cost=inf'", "policy='random:seed=1e400'", "params={1: 2}", "params=[1]",
        "params={'nope': 1}", "policy='mgs', params={'charge_migration': 'maybe'}",
        "policy='mgs', params={'charge_migration': 2}", "policy='mgs', params={'migration_cost': float('inf')}",
        "policy='mgs', params={'migration_cost': float('nan')}", "policy='random', params={'seed': 1e400}",
        "policy='random', params={'seed': -1}", "policy='gs', params={'mpl': True}",
        "load=True", "load=0", "load=-1", "load=float('nan')", "load='0.5'", "record='no'", "record=1",
        "ring='yes'", "seed=1.5", "seed='1'", "seed=True", "slice_seconds=1",
            ]] + [
        "gangviz.simulate('downey', jobs=0)", "gangviz.simulate('downey', jobs=-1)",
        "gangviz.simulate('downey', jobs=1.5)", "gangviz.simulate('downey', jobs='8')",
        "gangviz.simulate('downey', jobs=True)", "gangviz.simulate('downey', jobs=10**9)",
        "gangviz.simulate('downey', procs=0, jobs=8)", "gangviz.simulate('downey', procs=2**40, jobs=8)",
        "gangviz.simulate(7)", "gangviz.simulate(None)", "gangviz.simulate('')", "gangviz.simulate(b'downey')",
        "gangviz.simulate('missing.toml')", "gangviz.simulate('fig2-repacking', jobs=5)",
        "gangviz.simulate('fig2-repacking', procs=16)", "gangviz.simulate('fig2-repacking', nope=1)",
        "gangviz.simulate('t.swf', jobs=5)", "gangviz.simulate('t.swf', seed=5)",
    ] + [c.format(a) for a in [
        "[1, 2]", "[]", "iter([])", "['bc', None]", "['bc', 'BC']", "['bc', 'bc ']", "'bc'",
        "['bc', 'nope']", "['bc'] * 11", "None", "{'bc': 1}", "['bc', 'mgs:charge_migration=maybe']",
        "['random:seed=1', 'random:seed=1.0']", "[b'bc', 'br']", "{'bc': 1, 'br': 2}",
    ]]
    ok = [s.format("policy='bc'"), s.format("policy='mgs:charge_migration=no'"),
          s.format("policy='mgs', params={'charge_migration': False}"), c.format("['bc', 'br']"),
          c.format("iter(['bc', 'br'])"), c.format("('repack', 'firstfit', 'random')"),
          "gangviz.simulate('fig2-repacking')", "gangviz.simulate('t.swf')"]
    cases = [Case("api", ["python", "-c", API.format(call=call)], {"t.swf": GOOD_SWF}, "refuse") for call in refused]
    cases += [Case("api", ["python", "-c", API.format(call=call)], {"t.swf": GOOD_SWF}, "ok", out_contains("ran"))
              for call in ok]
    return cases


def _no_partial_jobs_out(d: Path, o: Outcome) -> str | None:
    if o.code == "hang":
        return "hang"
    if o.code == 0:
        return csv_complete("x-*.csv")(d, o)
    if o.code not in (1, 2, 130, 143, -2, -15):
        return f"exit {o.code} after the signal"
    bad = csv_complete("x-*.csv")(d, Outcome(1, "", "", 0, 0))
    return bad


def signal_cases() -> list[Case]:
    cases = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        for after in (0.8, 1.5, 2.5, 3.5, 5.0):
            argv = ["compare", "downey", "--jobs", "3000", "--procs", "64", "--policy", "firstfit", "--policy", "bc",
                    "--policy", "repack", "--jobs-out", "x.csv"]
            cases.append(Case("signals", argv, {}, "either", _no_partial_jobs_out, signal_after=(sig, after)))
        argv = ["sweep", "w.toml", "--out", "r.csv", "--quiet"]
        cases.append(Case("signals", argv, {"w.toml": sweep_text(jobs="400", load="[0.3,0.5,0.7,0.9]")}, "either",
                          lambda d, o: None if o.code in (0, 130, 143, -2, -15, 1) else f"exit {o.code}",
                          signal_after=(sig, 2.0)))
        argv = ["convert", "in.txt", "o.swf"]
        big = sacct(*[row(JobID=str(i)) for i in range(1, 200001)])
        cases.append(Case("signals", argv, {"in.txt": big}, "either",
                          lambda d, o: (reads_back_swf("o.swf")(d, o) if (d / "o.swf").exists() else None),
                          signal_after=(sig, 1.2)))
    return cases


def _fifo(name: str) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        os.mkfifo(d / name)
    return setup


def device_cases() -> list[Case]:
    readers = [
        ["run", "{p}"], ["validate", "{p}"], ["compare", "{p}", "--policy", "bc", "--policy", "br"],
        ["convert", "{p}", "o.swf"], ["sweep", "{p}", "--out", "r.csv"], ["open", "{p}", "--screenshot", "o.png"],
        ["sweep", "w.toml", "--out", "{p}", "--resume"], ["plot-sweep", "{p}", "-o", "o.png"],
        ["run", "downey", "--jobs", "5", "--policy", "{p}"],
        ["run", "downey", "--jobs", "5", "--policy", "gs", "--order", "{p}:key"],
        ["export", "{p}", "o.gif"], ["generate", "hetero", "--fit", "{p}", "-o", "o.swf"],
        ["check-policy", "{p}"],
    ]
    cases = []
    for argv in readers:
        for path, setup in (("/dev/zero", None), ("/dev/urandom", None), ("f.swf", _fifo("f.swf")),
                            ("f.toml", _fifo("f.toml")), (".", None)):
            a = [x.replace("{p}", path) for x in argv]
            cases.append(Case("devices", a, {"w.toml": sweep_text()}, "refuse", setup=setup))
    return cases


def _readonly(name: str) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        (d / name).mkdir()
        (d / name).chmod(0o500)
    return setup


def output_cases() -> list[Case]:
    writes = [
        ["run", "fig2-repacking", "--jobs-out", "{o}.csv"],
        ["compare", "fig2-repacking", "--policy", "bc", "--policy", "br", "--jobs-out", "{o}.csv"],
        ["convert", "in.txt", "{o}.swf"], ["sweep", "w.toml", "--out", "{o}.csv", "--quiet"],
        ["open", "fig2-repacking", "--screenshot", "{o}.png", "--size", "300x200"],
        ["compare", "fig2-repacking", "--policy", "bc", "--policy", "br", "--window", "--screenshot", "{o}.png",
         "--size", "400x300"],
        ["generate", "downey", "-o", "{o}.swf"],
        ["repro", "zhou99-fig1", "--json", "{o}.json"],
    ]
    cases = []
    files = {"in.txt": sacct(GOOD_ROW), "w.toml": sweep_text()}
    for argv in writes:
        ext = next(a.rsplit(".", 1)[1] for a in argv if a.startswith("{o}."))
        for where, setup in (("ro/x", _readonly("ro")), ("missing/x", None), ("/dev/full", None),
                             ("/proc/x", None), ("fifo-out", _fifo(f"fifo-out.{ext}"))):
            a = [x.replace("{o}", where) for x in argv]
            if where == "/dev/full":
                a = [x.replace("/dev/full.csv", "/dev/full").replace("/dev/full.swf", "/dev/full")
                     .replace("/dev/full.png", "/dev/full").replace("/dev/full.json", "/dev/full") for x in a]
            # (root writes into a read-only folder: there the write may succeed)
            expect = "either" if where == "ro/x" and os.geteuid() == 0 else "refuse"
            cases.append(Case("outputs", a, files, expect, setup=setup))
    return cases


DOORS = {"swf": swf_cases, "scenario": scenario_cases, "session": session_cases, "playlist": playlist_cases,
         "sweep": sweep_cases, "sacct": sacct_cases, "convert-options": convert_option_cases, "cli": cli_cases,
         "policy-spec": policy_spec_cases, "user-policy": user_policy_cases, "order": order_cases,
         "api": api_cases, "signals": signal_cases, "devices": device_cases, "outputs": output_cases}


def judge_user_policy(case: Case, o: Outcome, failure: str | None) -> str | None:
    """A user policy's refusal names the user's file (and the line, where one is known)."""
    if failure or o.code not in (1, 2) or not case.check or not hasattr(case.check, "fname"):
        return failure
    msg = " ".join(message_lines(o.err))
    fname, line = case.check.fname, case.check.line  # type: ignore[attr-defined]
    if fname not in msg:
        return f"message does not name {fname}: {msg[:200]!r}"
    if line is not None and f"{fname}:{line}" not in msg and f"line {line}" not in msg:
        return f"message does not name {fname}:{line}: {msg[:200]!r}"
    if "decision-limit" in case.argv and o.seconds > 30:
        return f"took {o.seconds:.0f} s with a 0.5 s decision limit"
    return None


def quick_sample(cases: list[Case], every: int = 10) -> list[Case]:
    """Return about one case in ``every`` of each door (its first case at least).

    The j-th case taken from a door is its case ``j * every + j % every``: the offset moves on
    by one each time, so a door whose cases run through the same few commands or places in turn
    (each reader on each device, each output on each bad place) is sampled across all of them,
    where a fixed stride would take the same command or place every time."""
    by_door: dict[str, list[Case]] = {}
    for case in cases:
        by_door.setdefault(case.door, []).append(case)
    out = []
    for door_cases in by_door.values():
        j = 0
        while j * every + j % every < len(door_cases):
            out.append(door_cases[j * every + j % every])
            j += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="about one case in ten of each door, spread over its commands and places")
    ap.add_argument("--door", action="append", choices=sorted(DOORS), help="only these doors")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", metavar="FILE", help="write every case's outcome")
    args = ap.parse_args(argv)
    cases = [c for door, make in DOORS.items() if not args.door or door in args.door for c in make()]
    if args.quick:
        cases = quick_sample(cases)
    took = compile_loops([GANGVIZ], dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(CODE)))
    print(f"compiled loops ready in {took:.1f} s", flush=True)
    counts: dict[str, list[int]] = {}
    cpu: dict[str, float] = {}
    rows = []
    with ThreadPoolExecutor(args.workers) as pool:
        for case, o, failure in pool.map(run_case, cases):
            failure = judge_user_policy(case, o, failure) if case.door == "user-policy" else failure
            n = counts.setdefault(case.door, [0, 0])
            n[0] += 1
            cpu[case.door] = cpu.get(case.door, 0.0) + o.cpu
            if failure:
                n[1] += 1
                shown = [a if len(a) < 120 else a[:100] + "..." for a in case.argv]
                print(f"FAIL {case.door}: {shown!r}\n     {failure}", flush=True)
                if args.verbose:
                    for name, data in case.files.items():
                        print(f"     {name}: {data[:160]!r}")
                    print("     stderr:", o.err.strip()[-800:])
            rows.append({"door": case.door, "argv": [a[:200] for a in case.argv], "code": o.code,
                         "rss_mb": o.rss_kb // 1024, "seconds": round(o.seconds, 2), "cpu_s": round(o.cpu, 2),
                         "failure": failure, "err": o.err[-400:]})
    print(f"\n{'door':<16}{'cases':>7}{'failures':>10}{'cpu s':>8}")
    for door, (n, f) in counts.items():
        print(f"{door:<16}{n:>7}{f:>10}{cpu[door]:>8.1f}")
    total = sum(n for n, _ in counts.values())
    fails = sum(f for _, f in counts.values())
    print(f"{'total':<16}{total:>7}{fails:>10}{sum(cpu.values()):>8.1f}")
    print(f"largest resident set: {max(r['rss_mb'] for r in rows)} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
