"""``gangviz scenarios [--json]``: list the built-in scenarios and lecture playlists.

Each line gives the name to pass to ``gangviz run`` / ``gangviz open``, the model (matrix,
multisite or epoch), the policy the scenario is meant for, and its title. The built-in lecture
playlists follow, each with its name (for ``gangviz open``), title and the scenarios it walks
through. A built-in file that does not load is listed with its error instead of stopping the
listing (and the exit code is 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from gangviz.factory import policy_name
from gangviz.resources import list_scenarios
from gangviz.workloads.playlist import list_playlists, load_playlist
from gangviz.workloads.scenario import load_scenario

T = TypeVar("T")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``scenarios`` sub-command."""
    p = sub.add_parser("scenarios", help="list the built-in scenarios (the papers' figures) and lecture playlists")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def describe_builtins() -> list[dict[str, Any]]:
    """Return one dict per built-in scenario: name, model, policy, title, explanation, path; or
    name, path and error for a file that does not load."""
    return _describe(list_scenarios(), load_scenario, lambda sc: {
        "model": sc.model, "policy": policy_name(sc), "title": sc.title, "explanation": sc.explanation})


def describe_playlists() -> list[dict[str, Any]]:
    """Return one dict per built-in lecture playlist: name, title, the entries' sources in
    order, path; or name, path and error for a file that does not load."""
    return _describe(list_playlists(), load_playlist, lambda pl: {
        "title": pl.title, "scenarios": [str(item.source) for item in pl.items]})


def _describe(paths: list[Path], load: Callable[[Path], T], fields: Callable[[T], dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """Return one dict per file of ``paths``: its name, the ``fields`` of what ``load`` reads
    from it, and its path; or name, path and the error of a file that does not load."""
    rows: list[dict[str, Any]] = []
    for path in paths:
        try:
            item = load(path)
        except (ValueError, OSError) as exc:
            rows.append({"name": path.stem, "path": str(path), "error": str(exc)})
            continue
        rows.append({"name": path.stem, **fields(item), "path": str(path)})
    return rows


def run(args: argparse.Namespace) -> int:
    """Print the list (text or JSON); return 0, or 1 when a built-in file is broken."""
    rows = describe_builtins()
    lists = describe_playlists()
    broken = any("error" in r for r in rows) or any("error" in r for r in lists)
    if args.json:
        json.dump({"scenarios": rows, "playlists": lists}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        width = max((len(r["name"]) for r in rows), default=4)
        pw = max((len(r.get("policy", "")) for r in rows), default=6)
        print(f"{'name':<{width}}  {'model':<9}  {'policy':<{pw}}  title")
        for r in rows:
            if "error" in r:
                print(f"{r['name']:<{width}}  BROKEN: {r['error']}")
            else:
                print(f"{r['name']:<{width}}  {r['model']:<9}  {r['policy']:<{pw}}  {r['title']}")
        print("\nRun one with: gangviz run NAME (matrix scenarios also open in the window: gangviz open NAME)")
        if lists:
            print("\nLecture playlists (gangviz open NAME; Page Down / Page Up walk through them):")
            lw = max(len(str(r["name"])) for r in lists)
            for pl in lists:
                if "error" in pl:
                    print(f"{pl['name']!s:<{lw}}  BROKEN: {pl['error']}")
                else:
                    entries = pl["scenarios"]
                    count = len(entries) if isinstance(entries, list) else 0
                    print(f"{pl['name']!s:<{lw}}  {count} scenarios  {pl['title']}")
    return 1 if broken else 0
