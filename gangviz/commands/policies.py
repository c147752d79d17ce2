"""``gangviz policies [--json]``: list every built-in policy from the registry, then the
policies installed by packages through the ``gangviz.policies`` entry-point group.

One block per policy: its name, family and group, the paper section it follows, the loops that
run it, when it decides, and each parameter with its type, default and allowed values
(:mod:`gangviz.core.registry`). An installed policy that does not load is listed with the
reason, and the others still are.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover  (annotations only: the registry loads when run)
    from gangviz.core.registry import PolicyEntry


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``policies`` sub-command."""
    p = sub.add_parser("policies", help="list the built-in and installed policies with their papers and parameters")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the registry and the installed policies (text or JSON); return 0."""
    from gangviz.core.registry import entries
    from gangviz.userpolicy.loader import ENTRY_POINT_GROUP, installed_entries

    rows = list(entries())
    installed = installed_entries()
    if args.json:
        doc = {"policies": [e.to_dict() for e in rows],
               "installed": [{**(e.to_dict() if e is not None else {"key": name}),
                              "entry_point": target, **({"error": error} if error else {})}
                             for name, target, e, error in installed]}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for e in rows:
        _print_entry(e)
    if installed:
        print(f"\nInstalled policies (entry points {ENTRY_POINT_GROUP}):")
        for name, target, entry, error in installed:
            if entry is None:
                print(f"{name}  ({target})  does not load: {error}")
            else:
                _print_entry(entry, f"  {name} = {target}")
    print("\nWrite a policy with parameters as NAME:key=value,key=value (e.g. mgs:mpl=3,q=none).")
    return 0


def _print_entry(e: PolicyEntry, where: str = "") -> None:
    """Print one policy's block."""
    print(f"{e.title}  ({e.family}, {e.group})  {e.paper}{where}")
    print(f"    {e.doc}" if e.doc else "", end="\n" if e.doc else "")
    print(f"    loops: {', '.join(e.loops)}; decides at: {e.decides}")
    for p in e.params:
        print(f"    {p.name} = {p.describe_default()}  ({p.allowed()})  {p.doc}")
