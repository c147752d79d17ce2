"""``gangviz policies [--json]``: list every built-in policy from the registry.

One block per policy: its name, family and group, the paper section it follows, the loops that
run it, when it decides, and each parameter with its type, default and allowed values
(:mod:`gangviz.core.registry`).
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``policies`` sub-command."""
    p = sub.add_parser("policies", help="list the built-in policies with their papers and parameters")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the registry (text or JSON); return 0."""
    from gangviz.core.registry import entries

    rows = list(entries())
    if args.json:
        json.dump({"policies": [e.to_dict() for e in rows]}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for e in rows:
        print(f"{e.title}  ({e.family}, {e.group})  {e.paper}")
        print(f"    {e.doc}" if e.doc else "", end="\n" if e.doc else "")
        print(f"    loops: {', '.join(e.loops)}; decides at: {e.decides}")
        for p in e.params:
            print(f"    {p.name} = {p.describe_default()}  ({p.allowed()})  {p.doc}")
    print("\nWrite a policy with parameters as NAME:key=value,key=value (e.g. mgs:mpl=3,q=none).")
    return 0
