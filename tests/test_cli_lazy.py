"""The command line imports only the module of the command being run.

``gangviz.cli.COMMANDS`` lists every sub-command with its help line so ``gangviz --help`` needs
no command module; these tests keep that table equal to what the modules register, and check
that a headless backfilling run leaves the window, the compiler, the gang engine and its
policies, and the other commands alone.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import subprocess
import sys

import gangviz.commands as commands
from gangviz.cli import COMMANDS, build_parser


def _choices(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help for a in action._choices_actions}
    raise AssertionError("no sub-commands")


def test_table_lists_every_module_that_registers_a_command():
    modules = {info.name for info in pkgutil.iter_modules(commands.__path__)
               if hasattr(importlib.import_module(f"gangviz.commands.{info.name}"), "register")}
    assert {module for module, _ in COMMANDS.values()} == modules


def test_table_help_lines_match_the_registered_parsers():
    full = _choices(build_parser())
    assert full == {name: help_line for name, (_, help_line) in COMMANDS.items()}
    for name in COMMANDS:
        assert _choices(build_parser(only=name)) == full


def test_only_builds_the_named_command_in_full():
    parser = build_parser(only="run")
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert any("--policy" in a.option_strings for a in sub.choices["run"]._actions)
    assert not any("--policy" in a.option_strings for a in sub.choices["compare"]._actions)


def test_easy_run_imports_neither_qt_nor_numba_nor_gang_engine_nor_other_commands(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 1 0 5 4 -1 -1 4 5 -1 1 1 1 1 1 -1 -1 -1\n")
    code = ("import sys; from gangviz.cli import main; "
            f"rc = main(['run', {str(trace)!r}, '--policy', 'easy']); "
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'PySide6', 'scipy', 'PIL') "
            "or m.startswith(('gangviz.gui', 'gangviz.commands.', 'gangviz.policies.', 'gangviz.sim'))); "
            "print(rc, heavy)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == (
        "0 ['gangviz.commands.errors', 'gangviz.commands.options', 'gangviz.commands.run', "
        "'gangviz.commands.run_space_sharing']")
