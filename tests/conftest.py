"""Test-wide settings: Qt renders offscreen, so the suite needs no display; the tests that take
seconds are marked ``slow`` (``make test-quick`` leaves them out).

A test is marked ``slow`` at its definition (a fuzz campaign, a README command in a
subprocess), or in ``tests/slow_tests.txt`` (:data:`SLOW_TESTS`): the tests measured at 1.5 s or more each
(``pytest -n auto --durations=0`` on two busy cores, where a test takes several times its
quiet time), and those measured at 0.3 s or more of CPU time (the test's own process and the
processes it started and waited for: a measure a busy machine hardly changes), except the one
quickest test of a file, which stays in the quick tier. An entry is a test file, a test
(``file::name``: every parametrization of it) or one parametrization (``file::name[id]``); an
entry that names no collected test of a file that was collected is reported in the warnings
summary, so a renamed test does not leave the slow tier silently. The file lists the entries
longest first (the tests marked where they are defined too), and the slow tests run first in
that order (:data:`SLOW_RANK`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

_OWN_BASETEMP = pytest.StashKey[str]()

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Give the run a short temporary folder of its own (``/tmp/gv-XXXXXXXX``; pytest-xdist's
    workers use ``popen-gwN`` folders in it), removed at the end. A message cuts a word longer
    than 80 characters, so a test that reads a file name back from a message needs the path of
    ``tmp_path`` short whether or not the run is spread over workers."""
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="gv-")
        config.stash[_OWN_BASETEMP] = config.option.basetemp


def pytest_sessionstart(session: pytest.Session) -> None:
    """Before pytest-xdist starts its workers, compile every compiled loop once
    (:func:`tests.compiled_loops.compile_loops`): on a fresh checkout the workers would
    otherwise each compile the same loops at once, and a command under a timeout would take
    the compile for a hang (the slow tier's fuzz and hostile campaigns). A run in one process
    (``-n 0``) or without the slow tier (``-m 'not slow'``) compiles as it goes."""
    config = session.config
    if (hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)
            or config.option.markexpr.replace(" ", "") == "notslow"):
        return
    from tests.compiled_loops import compile_loops

    took = compile_loops([sys.executable, "-m", "gangviz"], dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and took > 10:
        reporter.write_line(f"compiled loops ready in {took:.0f} s")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the temporary folder :func:`pytest_configure` made."""
    own = config.stash.get(_OWN_BASETEMP, None)
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)

_SLOW_LIST = [line.strip() for line in (Path(__file__).parent / "slow_tests.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
SLOW_TESTS = frozenset(_SLOW_LIST)
#: each entry's place in ``slow_tests.txt`` (longest first)
SLOW_RANK = {entry: i for i, entry in reversed(list(enumerate(_SLOW_LIST)))}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SLOW_TESTS` ``slow`` and run the slow tests first; warn of an
    entry that matches nothing (unless the command line picks single tests)."""
    used: set[str] = set()
    files = set()
    rank: dict[str, int] = {}
    for item in items:
        path, _, rest = item.nodeid.partition("::")
        files.add(path)
        rank[item.nodeid] = len(SLOW_RANK)
        for key in (path, f"{path}::{rest.split('[')[0]}", item.nodeid):
            if key in SLOW_TESTS:
                item.add_marker(pytest.mark.slow)
                used.add(key)
                rank[item.nodeid] = min(rank[item.nodeid], SLOW_RANK[key])
    # the slow tests first, the longest first: spread over the workers while the quick ones
    # are still to come, the last test a worker takes is a short one (a long one last keeps
    # one core busy while the others wait at the end of the run). A file's slow tests stay
    # together, at the place of its longest, so that a fixture a file shares (scope "module":
    # a capped child process, results computed once) is made once, not once per stretch
    slow = {item.nodeid for item in items if item.get_closest_marker("slow") is not None}
    first: dict[str, int] = {}
    for item in items:
        if item.nodeid in slow:
            path = item.nodeid.partition("::")[0]
            first[path] = min(first.get(path, len(SLOW_RANK)), rank[item.nodeid])
    items.sort(key=lambda item: (0, first[item.nodeid.partition("::")[0]], rank[item.nodeid])
               if item.nodeid in slow else (1, 0, 0))
    stale = sorted(k for k in SLOW_TESTS - used if k.partition("::")[0] in files and "::" in k)
    if stale and not any("::" in str(arg) for arg in config.args):
        warnings.warn(f"tests/conftest.py SLOW_TESTS names no such test: {', '.join(stale)}",
                      pytest.PytestConfigWarning, stacklevel=1)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move every object alive after collection (the imported modules, hypothesis's strategies,
    the test items) out of the cyclic collector's reach: they live to the end of the run, and
    each full collection would otherwise walk them all again."""
    import gc

    gc.collect()
    gc.freeze()
