"""Every ``gangviz ...`` command of README.md's code blocks (and of the help epilogs) runs.

Each command runs as a user would type it, through ``python -m gangviz`` in a fresh temporary
folder that holds only links to the project's ``resources/`` and ``examples/`` (the README's commands run from
the project folder). The test asserts exit status 0, no traceback, and that every file the
command says it writes (``-o``/``--out``/``--screenshot`` and ``export``'s output) exists and is
not empty. A command that reads a file an earlier README command writes (``plot-sweep
results.csv``, ``validate w.swf``) first runs that command in the same folder.

Long runs are shrunk by :data:`SHRINK`, a documented mapping from the README's command to the
options appended (later options win in argparse): fewer jobs, replications and sets, one worker.
Window commands run offscreen (``QT_QPA_PLATFORM=offscreen``) with ``--screenshot``.

The benchmarks: each ``benchmarks/*.py --help`` exits 0, and each one's ``--quick`` mode runs
(marked ``slow``; every one takes seconds).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: README command (its first words) -> options appended to keep the test short, and why.
SHRINK: dict[tuple[str, ...], list[str]] = {
    # the window opens on a display; here it renders offscreen and exits
    ("gangviz",): ["open", "--screenshot", "window.png"],
    ("gangviz", "open"): ["--screenshot", "open.png"],
    ("gangviz", "compare", "--window"): ["--screenshot", "compare.png"],
    # 2,000 jobs take seconds on the reference engine; 300 show the same output
    ("gangviz", "run", "downey"): ["--jobs", "300"],
    # Pillow's quantizing of 93 frames takes most of the export: 4 of its 15 steps write the same file
    ("gangviz", "export", "fig2-repacking", "fig2.gif"): ["--steps", "4"],
    # quantizing 46 frames of 1920 x 1080 takes most of it; a quarter of the pixels runs the
    # same by-move presentation export (tests/gui/test_step_by_move.py checks its frames)
    ("gangviz", "export", "fig2-repacking", "fig2-moves.gif"): ["--size", "960x540"],
    ("gangviz", "sweep"): ["--workers", "1"],
    ("gangviz", "repro", "zhou-table1"): ["--sets", "2", "--jobs", "50", "--workers", "1"],
    ("gangviz", "repro", "zhou-table2"): ["--sets", "1", "--jobs", "200", "--workers", "1"],
    # 10,000 jobs x 9 workloads x 4 policies take ten minutes
    ("gangviz", "repro", "zhang-table1"): ["--jobs", "60", "--reps", "2", "--workers", "1"],
    # 10 replications of 64,000 gangs per cell take a quarter of an hour
    ("gangviz", "repro", "papazachos"): ["--reps", "1", "--jobs", "300", "--workers", "1"],
    ("gangviz", "repro", "mccann"): ["--reps", "3", "--jobs", "7,8", "--nodes", "128", "--max-k", "2",
                                     "--departures", "15", "--warmup", "2", "--rt-reps", "1",
                                     "--rt-jobs", "7,8", "--rt-nodes", "128", "--workers", "1"],
}


def _commands_in(text: str) -> list[str]:
    """Return the ``gangviz`` command lines of the fenced code blocks of ``text``."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        stripped = line.strip()
        if fenced and (stripped == "gangviz" or stripped.startswith("gangviz ")
                       or stripped.startswith("gangviz\t")):
            out.append(stripped)
    return out


def _epilog_commands() -> list[str]:
    """Return the ``gangviz`` example lines of every help epilog (indented lines)."""
    from gangviz.cli import build_parser
    from tests.test_help import _subcommands

    out = []
    for _, parser in _subcommands(build_parser()):
        for line in (parser.epilog or "").splitlines():
            if line.strip().startswith("gangviz "):
                out.append(line.strip())
    return out


def readme_commands() -> list[str]:
    """Return every command line the test runs, README first, each once."""
    return list(dict.fromkeys(_commands_in(README.read_text()) + _epilog_commands()))


def shrunk(argv: list[str]) -> list[str]:
    """Return ``argv`` with the options of the longest matching :data:`SHRINK` key appended."""
    best: tuple[str, ...] | None = None
    for key in SHRINK:
        head = [k for k in key if not k.startswith("--")]
        flags = [k for k in key if k.startswith("--")]
        if argv[:len(head)] == head and all(f in argv for f in flags) and "--screenshot" not in argv:
            if best is None or len(key) > len(best):
                best = key
    if best is None:
        return argv
    if best == ("gangviz",):
        return argv if len(argv) > 1 else argv + SHRINK[best]
    return argv + SHRINK[best]


def written_files(argv: list[str]) -> list[str]:
    """Return the files ``argv`` says it writes: after -o/--out/--screenshot, and export's OUT."""
    files = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-o", "--out", "--screenshot")]
    if argv[1:2] == ["export"]:
        positional = [a for a in argv[2:] if not a.startswith("-")]
        files.append(positional[1])
    return [f for f in files if f != "-"]


def _run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "gangviz", *argv[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


COMMANDS = readme_commands()


def test_the_readme_has_commands_and_every_one_is_collected():
    assert len(COMMANDS) >= 15
    assert any(c.startswith("gangviz repro") for c in COMMANDS)
    assert all(not re.search(r"\btrace\.swf\b|zhou-loads", c) for c in COMMANDS)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A fresh folder with a link to the project's resources, shared by the commands in order."""
    d = tmp_path_factory.mktemp("readme")
    (d / "resources").symlink_to(ROOT / "resources", target_is_directory=True)
    (d / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    return d


def _producer(name: str) -> str | None:
    for cmd in COMMANDS:
        if name in written_files(shlex.split(cmd, comments=True)):
            return cmd
    return None


@pytest.mark.slow
@pytest.mark.parametrize("line", COMMANDS, ids=lambda c: shlex.join(shlex.split(c, comments=True)))
def test_readme_command_runs(line, workdir):
    argv = shrunk(shlex.split(line, comments=True))
    for token in argv[2:]:  # a file an earlier command writes: write it first
        producer = _producer(token)
        if producer is not None and producer != line and not (workdir / token).exists():
            res = _run(shrunk(shlex.split(producer, comments=True)), workdir)
            assert res.returncode == 0, f"{producer}\n{res.stderr[-2000:]}"
    res = _run(argv, workdir)
    assert res.returncode == 0, f"{' '.join(argv)} exited {res.returncode}:\n{res.stderr[-3000:]}"
    assert "Traceback" not in res.stderr
    for name in written_files(argv):
        path = workdir / name
        assert path.exists() and path.stat().st_size > 0, f"{' '.join(argv)} did not write {name}"


def test_shrink_mapping_applies_where_meant():
    assert shrunk(["gangviz"]) == ["gangviz", "open", "--screenshot", "window.png"]
    assert shrunk(["gangviz", "compare", "downey", "--policy", "bc", "--window"])[-2:] == \
        ["--screenshot", "compare.png"]
    assert shrunk(["gangviz", "compare", "downey", "--policy", "bc"]) == \
        ["gangviz", "compare", "downey", "--policy", "bc"]
    assert written_files(["gangviz", "export", "fig2-repacking", "fig2.gif", "--fps", "10"]) == ["fig2.gif"]


#: the benchmark scripts (a module named with a leading underscore is a helper they import)
BENCHMARKS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_help(script, tmp_path):
    res = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("usage:")
    assert not re.search(r"/(tmp|work)/", res.stdout), "help names a path of one machine"


@pytest.mark.slow
@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_quick_mode(script, tmp_path):
    # (test_benchmark_help runs each --help; a script that names no --quick has no such mode)
    if '"--quick"' not in script.read_text(encoding="utf-8"):
        pytest.skip(f"{script.name} has no --quick mode")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TMPDIR=str(tmp_path))
    res = subprocess.run([sys.executable, str(script), "--quick"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert res.stdout.strip(), "a benchmark prints figures"
    assert not [p for p in tmp_path.iterdir()], "a benchmark leaves no files behind"
