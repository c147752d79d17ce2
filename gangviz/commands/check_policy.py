"""``gangviz check-policy FILE.py [--json]``: run a user's policy over the built-in scenarios and
random workloads, give each rule a verdict, and show its metrics beside the built-ins of its
family (a lecturer's autograder: exit 0 when every rule holds, 1 otherwise).

Runs: every built-in scenario of the time-slot family (the papers' figures, from their starting
matrices), then Downey's model on 8, 16, 32 and 128 processors at loads 0.5 and 0.9. Each run
is checked as it goes (:mod:`gangviz.userpolicy.actions`); at its end every job must have
finished with all its work served, none before it arrived. The metrics (Zhou00 §4.3) are of one
common workload, ``downey --jobs 300 --procs 32 --load 0.7``, on the reference engine for all.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, TypedDict

from gangviz.commands.errors import UserError
from gangviz.core.registry import SPACE_SHARING

#: The random workloads every policy is run on: (processors, load, seed).
WORKLOADS = ((8, 0.5, 1), (8, 0.9, 2), (16, 0.5, 3), (16, 0.9, 4), (32, 0.7, 5), (128, 0.9, 6))
JOBS = 120


class _ModelOptions(TypedDict):
    """The options of a synthetic model's workload (those of :func:`load_source`)."""

    jobs: int
    procs: int
    load: float
    seed: int


#: The workload of the metric table.
METRIC_WORKLOAD: _ModelOptions = {"jobs": 300, "procs": 32, "load": 0.7, "seed": 0}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``check-policy`` sub-command."""
    p = sub.add_parser("check-policy", help="check a policy file against the rules and compare it "
                                            "with the built-ins")
    p.add_argument("policy", help="the policy: FILE.py, FILE.py:Class or package.module:Class "
                                  "(optionally :key=value,...)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def _sources() -> list[tuple[str, Any]]:
    from gangviz.resources import list_scenarios
    from gangviz.workloads.source import load_source

    found = []
    for path in list_scenarios():
        src = load_source(str(path))
        if src.model == "matrix":
            found.append((path.stem, src))
    for procs, load, seed in WORKLOADS:
        found.append((f"downey --jobs {JOBS} --procs {procs} --load {load} --seed {seed}",
                      load_source("downey", jobs=JOBS, procs=procs, load=load, seed=seed)))
    return found


def check_run(source: Any, spec: str) -> tuple[str | None, str]:
    """Run ``spec`` on ``source`` checked; return ``(rule broken or None, message)``, the rule
    ``"runs without error"`` for user code that fails, ``"skipped"`` for a refused machine."""
    from gangviz.factory import build
    from gangviz.userpolicy import RuleViolation, UserPolicyError

    try:
        sim = build(source, spec, params={"check": True}, record=False, watch=False)
        if sim.family == SPACE_SHARING:
            return _space_verdict(sim)
        sim.run()
    except RuleViolation as exc:
        return exc.rule, str(exc)
    except UserPolicyError as exc:
        return "runs without error", str(exc)
    except ValueError as exc:
        return "skipped", str(exc)
    return _matrix_verdict(sim)


def _matrix_verdict(sim: Any) -> tuple[str | None, str]:
    from gangviz.userpolicy.errors import RULES

    for job, rec in sim.jobs.items():
        name = rec.spec.name or f"J{job}"
        if rec.finish is None and math.isfinite(rec.spec.work) and not rec.terminated:
            return RULES[6], f"{name} never finished (it waits at the end of the run)"
        if rec.start is not None and rec.start < rec.spec.arrival:
            return RULES[4], f"{name} started at {rec.start:g} before it arrived at {rec.spec.arrival:g}"
        if rec.finish is not None and not rec.terminated and abs(sim.served(job) - rec.spec.work) > 1e-6 * max(1.0, rec.spec.work):
            return RULES[5], f"{name} was served {sim.served(job):g} of its {rec.spec.work:g} slices"
    return None, "ok"


def _space_verdict(sim: Any) -> tuple[str | None, str]:
    """The end-of-run checks of a space-sharing run (its own checks ran while it was built)."""
    from gangviz.userpolicy.errors import RULES

    events = []
    for rec in sim.result.records:
        name = rec.spec.name
        if rec.finish is None:
            return RULES[6], f"{name} never finished (it waits at the end of the run)"
        if rec.start < rec.spec.arrival:
            return RULES[4], f"{name} started at {rec.start:g} before it arrived at {rec.spec.arrival:g}"
        events += [(rec.start, 1, rec.spec.size), (rec.finish, 0, -rec.spec.size)]
    busy = 0
    for t, _, delta in sorted(events):
        busy += delta
        if busy > sim.processors:
            return RULES[0], f"{busy} processors in use at t={t:g} on a machine of {sim.processors}"
    return None, "ok"


def _metrics(spec: str, family: str) -> dict[str, dict[str, float]]:
    from gangviz.core.registry import entries
    from gangviz.factory import run
    from gangviz.workloads.source import load_source

    source = load_source("downey", **METRIC_WORKLOAD)
    table = {}
    for label in [spec] + [e.name for e in entries(family=family)]:
        try:
            table[label] = run(source, label, engine="reference").metrics
        except ValueError:  # a built-in that cannot use this machine
            continue
    return table


def run(args: argparse.Namespace) -> int:
    """Check the policy; print the verdicts and metrics (text or JSON); return 0 or 1."""
    from gangviz.experiments.numbers import number
    from gangviz.factory import resolve
    from gangviz.userpolicy.errors import RULES
    from gangviz.workloads.source import load_source

    try:
        choice = resolve(load_source("downey", jobs=1, procs=8), args.policy)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    entry = choice.entry
    assert entry is not None
    from gangviz.userpolicy.space import RESERVATION_RULE

    verdicts: dict[str, list[str]] = {rule: [] for rule in (*RULES, RESERVATION_RULE, "runs without error")}
    runs = []
    for label, source in _sources():
        rule, message = check_run(source, args.policy)
        runs.append({"workload": label, "rule": rule, "message": message})
        if rule is not None and rule.startswith(RESERVATION_RULE):
            rule = RESERVATION_RULE
        if rule in verdicts:
            verdicts[rule].append(f"{label}: {message}")
    passed = not any(verdicts.values())
    metrics = _metrics(args.policy, entry.family) if passed else {}
    if args.json:
        doc = {"policy": entry.title, "file": entry.origin, "passed": passed,
               "rules": {r: {"holds": not v, "violations": v} for r, v in verdicts.items()},
               "runs": runs, "metrics": metrics}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0 if passed else 1
    print(f"policy {entry.title} ({entry.origin}): {len(runs)} runs")
    for rule, bad in verdicts.items():
        print(f"  {'ok  ' if not bad else 'FAIL'}  {rule}" + (f": {bad[0]}" if bad else ""))
        for more in bad[1:3]:
            print(f"          {more}")
    skipped = [r for r in runs if r["rule"] == "skipped"]
    if skipped:
        print(f"  skipped {len(skipped)} runs the policy refused (e.g. {skipped[0]['workload']}: "
              f"{skipped[0]['message']})")
    if metrics:
        keys = list(next(iter(metrics.values())))
        w = METRIC_WORKLOAD
        print(f"\nmetrics on downey --jobs {w['jobs']} --procs {w['procs']} --load {w['load']}:")
        width = max(len(k) for k in metrics)
        print(f"  {'policy':<{width}}  " + "  ".join(f"{k:>8}" for k in keys))
        for label, m in metrics.items():
            print(f"  {label:<{width}}  " + "  ".join(f"{number(m[k]) if m[k] is not None else '-':>8}"
                                                       for k in keys))
    print("\npassed: every rule holds" if passed else "\nFAILED: the policy breaks a rule")
    return 0 if passed else 1
