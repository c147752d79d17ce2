"""Run a ``multisite`` or ``epoch`` scenario headless for ``gangviz run`` (text or JSON).

The matrix family keeps its own output in :mod:`gangviz.commands.run`; the other families have no
matrix or Zhou metrics, so they print their narration and the end state that
:func:`gangviz.factory.expect.end_state` compares with ``[expect]``.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from gangviz.factory import check_expect, end_state, policy_name, run

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.workloads.scenario import Scenario
    from gangviz.workloads.source import Source


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


def run_family(source: Source | Scenario, policy: str | None = None, *, as_json: bool = False,
               out: TextIO | None = None, steps: bool | None = None) -> int:
    """Run the scenario of ``source`` (a Source or Scenario of model multisite or epoch) to its
    end under ``policy`` (default: the scenario's); print the steps (unless ``steps`` is
    false), the end state and the figures with units to ``out`` (default stdout), or the
    schema-1 JSON document (steps in it only when ``steps`` is true); return 0. Raises
    ``ValueError`` for a policy of another family."""
    from gangviz.results.figures import family_figures
    from gangviz.results.summary import machine, policy_object
    from gangviz.workloads.source import source_of

    out = out or sys.stdout
    source = source_of(source)
    name = policy_name(source, policy)
    sim = run(source, name, record=True).simulation
    state = end_state(sim)
    problems = check_expect(source, sim) if name == policy_name(source) else []
    figs = family_figures(sim)
    if as_json:
        from gangviz.results.summary import base_document

        doc = base_document("run", source, machine(source), figs.clock)
        doc.update({"model": source.model, "policy": policy_object(name, source.model, {}), "engine": "reference",
                    "metrics": figs.json_values(), "units": figs.units, "definitions": figs.definitions,
                    "end": state,
                    "expect_met": not problems if source.expect and name == policy_name(source) else None})
        if steps:
            records = [s.to_dict() for s in sim.steps]
            if source.model == "multisite":
                for step in records:
                    for change in step["changes"]:
                        change["labels"] = site_labels(change)
            doc["steps"] = records
        out.write(json.dumps(doc, indent=1, default=str) + "\n")
        return 0
    sites = source.scenario.sites if source.scenario is not None else 1
    where = f"{sites} sites of {source.processors} processors" if source.model == "multisite" \
        else f"{source.processors} node{'' if source.processors == 1 else 's'}"
    print(f"{source.title} — {source.model} model, policy {name}, {where}", file=out)
    from gangviz.inputs import printable  # a gang's name from a file may hold control characters

    if steps is not False:
        for s in sim.steps:
            for line in s.narration:
                print(f"  t={s.time:.4g}: {printable(line)}", file=out)
    print("end state:", file=out)
    for key, value in state.items():
        print(f"  {key}: {printable(str(value))}", file=out)
    print(figs.text(), file=out)
    if source.expect and name == policy_name(source):
        print("expected end state: " + ("reached" if not problems else "; ".join(problems)), file=out)
    return 0

