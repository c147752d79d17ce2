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

import gangviz.commands as commands
from gangviz.cli import COMMANDS, build_parser
from tests.imports_after import modules_after_run


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
    heavy = modules_after_run(tmp_path, "easy", "m.split('.')[0] in ('numba', 'PySide6', 'scipy', 'PIL') "
                              "or m.startswith(('gangviz.gui', 'gangviz.commands.', 'gangviz.policies.', "
                              "'gangviz.sim'))")
    assert heavy == (0, ["gangviz.commands.errors", "gangviz.commands.options", "gangviz.commands.run"])
