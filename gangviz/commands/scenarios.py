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

from gangviz.factory import policy_name
from gangviz.resources import list_scenarios
from gangviz.workloads.playlist import list_playlists, load_playlist
from gangviz.workloads.scenario import load_scenario


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``scenarios`` sub-command."""
    p = sub.add_parser("scenarios", help="list the built-in scenarios (the papers' figures) and lecture playlists")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def describe_builtins() -> list[dict[str, str]]:
    """Return one dict per built-in scenario: name, model, policy, title, explanation, path; or
    name, path and error for a file that does not load."""
    rows = []
    for path in list_scenarios():
        try:
            sc = load_scenario(path)
        except (ValueError, OSError) as exc:
            rows.append({"name": path.stem, "path": str(path), "error": str(exc)})
            continue
        rows.append({"name": path.stem, "model": sc.model, "policy": policy_name(sc),
                     "title": sc.title, "explanation": sc.explanation, "path": str(path)})
    return rows


def describe_playlists() -> list[dict[str, object]]:
    """Return one dict per built-in lecture playlist: name, title, the entries' sources in
    order, path; or name, path and error for a file that does not load."""
    rows: list[dict[str, object]] = []
    for path in list_playlists():
        try:
            pl = load_playlist(path)
        except (ValueError, OSError) as exc:
            rows.append({"name": path.stem, "path": str(path), "error": str(exc)})
            continue
        rows.append({"name": path.stem, "title": pl.title,
                     "scenarios": [str(item.source) for item in pl.items], "path": str(path)})
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
