"""Print a ``multisite`` or ``epoch`` run of ``gangviz run`` (text or JSON).

The matrix family keeps its own output in :mod:`gangviz.commands.run`; the other families have no
matrix or Zhou metrics, so they print their narration and the end state that
:func:`gangviz.factory.expect.end_state` compares with ``[expect]``
(:func:`gangviz.experiments.headless.family_run` runs them).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.experiments.headless import HeadlessRun


def site_labels(change: dict[str, Any]) -> dict[str, str]:
    """Return the names the window gives the gang, task, sites and processors of a multi-site
    change (a ``to_dict``): ``G3``, ``G3.2``, ``Site 1``, ``P4``; the JSON numbers are 0-based
    for sites, processors and tasks, and gangs keep their own numbers."""
    labels: dict[str, str] = {}
    gang = change.get("gang")
    if isinstance(gang, int):
        labels["gang"] = f"G{gang}"
        if isinstance(change.get("task"), int):
            labels["task"] = f"G{gang}.{change['task'] + 1}"
    for key in ("site", "src_site", "dst_site"):
        if isinstance(change.get(key), int):
            labels[key] = f"Site {change[key] + 1}"
    for key in ("proc", "src_proc", "dst_proc"):
        if isinstance(change.get(key), int):
            labels[key] = f"P{change[key] + 1}"
    return labels


def print_family_run(done: HeadlessRun, *, as_json: bool = False, out: TextIO | None = None,
                     steps: bool | None = None) -> None:
    """Print the multi-site or epoch run ``done`` (:func:`gangviz.experiments.headless.family_run`)
    to ``out`` (default stdout): the steps (unless ``steps`` is false), the end state and the
    figures with units, or the schema-1 JSON document (steps in it only when ``steps`` is true)."""
    out = out or sys.stdout
    source, figs, state = done.source, done.figures, done.end or {}
    assert done.finished is not None  # a family run keeps its steps
    sim = done.finished.simulation
    if as_json:
        doc = done.document()
        if steps:
            records = [s.to_dict() for s in sim.steps]
            if source.model == "multisite":
                for step in records:
                    for change in step["changes"]:
                        change["labels"] = site_labels(change)
            doc["steps"] = records
        out.write(json.dumps(doc, indent=1, default=str) + "\n")
        return
    sites = source.scenario.sites if source.scenario is not None else 1
    where = f"{sites} sites of {source.processors} processors" if source.model == "multisite" \
        else f"{source.processors} node{'' if source.processors == 1 else 's'}"
    print(f"{source.title} — {source.model} model, policy {done.name}, {where}", file=out)
    from gangviz.inputs import printable  # a gang's name from a file may hold control characters

    if steps is not False:
        for s in sim.steps:
            for line in s.narration:
                print(f"  t={s.time:.4g}: {printable(line)}", file=out)
    print("end state:", file=out)
    for key, value in state.items():
        print(f"  {key}: {printable(str(value))}", file=out)
    print(figs.text(), file=out)
    if done.expected is not None:
        problems = done.expected
        print("expected end state: " + ("reached" if not problems else "; ".join(problems)), file=out)
