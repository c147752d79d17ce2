"""Run a ``multisite`` or ``epoch`` scenario headless for ``gangviz run`` (text or JSON).

The matrix family keeps its own output in :mod:`gangviz.commands.run`; the other families have no
matrix or Zhou metrics, so they print their narration and the end state that
:func:`gangviz.factory.expect.end_state` compares with ``[expect]``.
"""

from __future__ import annotations

import json
import sys

from gangviz.factory import check_expect, end_state, policy_name, run


def site_labels(change: dict) -> dict:
    """Return the names the window gives the gang, task, sites and processors of a multi-site
    change (a ``to_dict``): ``G3``, ``G3.2``, ``Site 1``, ``P4``; the JSON numbers are 0-based
    for sites, processors and tasks, and gangs keep their own numbers."""
    labels: dict = {}
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


def run_family(source, policy: str | None = None, *, as_json: bool = False, out=None) -> int:
    """Run the scenario of ``source`` (a Source or Scenario of model multisite or epoch) to its
    end under ``policy`` (default: the scenario's); print the steps and the end state to ``out``
    (default stdout); return 0. Raises ``ValueError`` for a policy of another family."""
    from gangviz.experiments.numbers import number

    out = out or sys.stdout
    sc = getattr(source, "scenario", source)
    name = policy_name(sc, policy)
    sim = run(sc, name, record=True).simulation
    state = end_state(sim)
    problems = check_expect(sc, sim) if name == policy_name(sc) else []
    from gangviz.metrics import figures, json_ready

    metrics = json_ready(figures(sim))
    if as_json:
        steps = [s.to_dict() for s in sim.steps]
        if sc.model == "multisite":
            for step in steps:
                for change in step["changes"]:
                    change["labels"] = site_labels(change)
        doc = {"model": sc.model, "policy": name, "processors": sc.processors,
               "steps": steps, "end": state, "metrics": metrics,
               "expect_met": not problems if sc.expect and name == policy_name(sc) else None}
        json.dump(doc, out, indent=1, default=str)
        out.write("\n")
        return 0
    where = f"{sc.sites} sites of {sc.processors} processors" if sc.model == "multisite" \
        else f"{sc.processors} node{'' if sc.processors == 1 else 's'}"
    print(f"{sc.title} — {sc.model} model, policy {name}, {where}", file=out)
    for s in sim.steps:
        for line in s.narration:
            print(f"  t={s.time:.4g}: {line}", file=out)
    print("end state:", file=out)
    for key, value in state.items():
        print(f"  {key}: {value}", file=out)
    print("metrics: " + ", ".join(f"{k}={number(v)}" for k, v in metrics.items() if v is not None),
          file=out)
    if sc.expect and name == policy_name(sc):
        print("expected end state: " + ("reached" if not problems else "; ".join(problems)), file=out)
    return 0
