"""``gangviz repro TARGET``: reproduce a published table and check the paper's findings."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import gangviz.experiments.repro as repro_pkg


def _targets() -> dict[str, object]:
    found: dict[str, object] = {}
    for info in sorted(pkgutil.iter_modules(repro_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gangviz.experiments.repro.{info.name}")
        for name in getattr(module, "TARGETS", {}):
            found[name] = module
    return found


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``repro`` sub-command, one nested parser per reproduction target."""
    targets = _targets()
    p = sub.add_parser("repro", help="reproduce a paper's table and check its findings")
    inner = p.add_subparsers(dest="target", metavar="TARGET")
    for name, module in targets.items():
        tp = inner.add_parser(name, help=module.TARGETS[name])  # type: ignore[attr-defined]
        module.add_arguments(tp)  # type: ignore[attr-defined]
        tp.set_defaults(func=lambda args, m=module: m.run(args.target, args))
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])
