"""``gangviz repro TARGET``: reproduce a published table and check the paper's findings.

The exit status is 0 when the reproduction ran, whether or not each finding held (the output
says which did not); with ``--strict`` it is 3 when a finding does not hold; 1 when a run failed
(one line on stderr names it and why, e.g. its worker process died twice).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import Protocol, cast

import gangviz.experiments.repro as repro_pkg
from gangviz.commands.errors import EXIT_FINDING_FAILED
from gangviz.commands.options import add_strict
from gangviz.experiments.repro import FINDING_FAILED
from gangviz.experiments.runner import RunError


class _Reproduction(Protocol):
    """What a module of :mod:`gangviz.experiments.repro` that lists ``TARGETS`` offers."""

    TARGETS: dict[str, str]

    def add_arguments(self, p: argparse.ArgumentParser) -> None: ...

    def run(self, target: str, args: argparse.Namespace) -> int: ...


def targets() -> dict[str, _Reproduction]:
    """Return target name -> its module, for every module of :mod:`gangviz.experiments.repro`
    that lists ``TARGETS``, by module name and then as the module lists them."""
    found: dict[str, _Reproduction] = {}
    for info in sorted(pkgutil.iter_modules(repro_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gangviz.experiments.repro.{info.name}")
        for name in getattr(module, "TARGETS", {}):
            found[name] = cast(_Reproduction, module)  # a module with TARGETS has the rest
    return found


def exit_status(code: int, strict: bool) -> int:
    """Return the exit status for a reproduction's ``code``: a finding that does not hold
    (:data:`~gangviz.experiments.repro.FINDING_FAILED`) gives 0, or 3 with ``--strict``."""
    if code == FINDING_FAILED:
        return EXIT_FINDING_FAILED if strict else 0
    return code


def run_target(module: _Reproduction, args: argparse.Namespace) -> int:
    """Run ``module``'s reproduction of ``args.target``; return the exit status. A run that
    failed (:class:`RunError`) is one line on stderr and status 1."""
    try:
        code = module.run(args.target, args)
    except RunError as exc:
        print(f"gangviz: repro {args.target}: run {exc.index} failed: {exc.message}", file=sys.stderr)
        return 1
    return exit_status(code, args.strict)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``repro`` sub-command, one nested parser per reproduction target."""
    found = targets()
    p = sub.add_parser("repro", help="reproduce a paper's table and check its findings",
                       description="Reproduce a published table and check the paper's findings. "
                       "Exit status 0 when the reproduction ran; with --strict, 3 when a finding "
                       "does not hold.")
    inner = p.add_subparsers(dest="target", metavar="TARGET")
    for name, module in found.items():
        tp = inner.add_parser(name, help=module.TARGETS[name])
        module.add_arguments(tp)
        add_strict(tp)
        tp.set_defaults(func=lambda args, m=module: run_target(m, args))

    def usage(args: argparse.Namespace) -> int:  # no target named: say which there are
        p.print_help()
        return 2

    p.set_defaults(func=usage)
