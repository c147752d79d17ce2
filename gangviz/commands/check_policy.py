"""``gangviz check-policy TARGET... [--json|--csv]``: run a user's policy (or queue order) over the
built-in scenarios and random workloads, give each rule a verdict, and show its metrics beside
the built-ins of its family (a lecturer's autograder: exit 0 when every rule holds, 1
otherwise).

A target is a policy file (``FILE.py``, ``FILE.py:Class``), a queue order (``FILE.py:function``;
a file that defines functions and no policy class is graded as the orders it defines), or a
folder (every ``.py`` file in it). One target prints its report; several (or a folder) are each
graded in a process of their own with a time and memory limit, as many at once as ``--workers``
(default: all cores), and give one table in the order given: a file that hangs, crashes or runs
out of memory gets its row and never stops the others.

Runs: every built-in scenario of the time-slot family (the papers' figures, from their starting
matrices), then Downey's model on 8, 16, 32 and 128 processors at loads 0.5 and 0.9. The policy
runs in its own process; each run is checked as it goes (:mod:`gangviz.userpolicy.actions`) and
audited after it ends (:mod:`gangviz.userpolicy.audit`: the recorded change log replayed into a
fresh matrix against the family's rules; every job finished with its work served exactly, none
before it arrived). The metrics (Zhou00 §4.3) are of one common workload,
``downey --jobs 300 --procs 32 --load 0.7``: the policy's on the reference engine, the built-ins'
on the fastest engine that covers them (a compiled loop gives the reference engine's figures).

A queue order runs under the built-ins it applies to (a time-slot policy, fcfs, easy,
conservative): each built-in's own rule must still hold (for the backfilling schedulers, no job
starts after the reservation it was given), and its figures are set beside arrival order's.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypedDict

from gangviz.commands.errors import UserError
from gangviz.core import registry
from gangviz.core.registry import ORDER_GRADED, RESERVING_TRAITS
from gangviz.experiments.argtypes import positive_int
from gangviz.experiments.options import add_workers
from gangviz.experiments.runner import cap_workers

#: The random workloads every policy is run on: (processors, load, seed).
WORKLOADS = ((8, 0.5, 1), (8, 0.9, 2), (16, 0.5, 3), (16, 0.9, 4), (32, 0.7, 5), (128, 0.9, 6))
JOBS = 120
#: The built-ins a queue order is graded under (the registry's list).
ORDER_POLICIES = ORDER_GRADED
#: The figure of the leaderboard, by family (the first the run reports).
HEADLINE = ("t_ta", "response")
#: Seconds and MB each target of a class may take (``--time-limit``, ``--memory-limit``).
TIME_LIMIT = 600.0
MEMORY_LIMIT = 4096
#: A policy's mean turnaround this many times first fit's is worth a warning.
SLOW = 1.5


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
    p = sub.add_parser("check-policy", help="check a policy file (or a folder of them) against the rules "
                                            "and compare it with the built-ins")
    p.add_argument("policy", nargs="+",
                   help="the policy: FILE.py, FILE.py:Class or package.module:Class (optionally "
                        ":key=value,...), a queue order FILE.py:function, or a folder of policy files")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON document")
    out.add_argument("--csv", action="store_true", help="print the table as CSV")
    p.add_argument("--time-limit", type=float, default=TIME_LIMIT, metavar="SECONDS",
                   help=f"longest one target of a class may take (default {TIME_LIMIT:g})")
    p.add_argument("--memory-limit", type=int, default=MEMORY_LIMIT, metavar="MB",
                   help=f"most memory one target of a class may take (default {MEMORY_LIMIT})")
    p.add_argument("--seeds", type=positive_int, default=None, metavar="N",
                   help="run the metric table's model on N samples (seeds 0 ... N-1) and print each "
                        "figure's mean with its 95%% interval; * only where the intervals separate")
    add_workers(p)
    p.set_defaults(func=run)


def _sources(space: bool = False) -> list[tuple[str, Any]]:
    from gangviz.resources import list_scenarios
    from gangviz.workloads.source import load_source

    found = []
    if not space:
        for path in list_scenarios():
            src = load_source(str(path))
            if src.model == "matrix":
                found.append((path.stem, src))
    for procs, load, seed in WORKLOADS:
        found.append((f"downey --jobs {JOBS} --procs {procs} --load {load} --seed {seed}",
                      load_source("downey", jobs=JOBS, procs=procs, load=load, seed=seed)))
    return found


def check_run(source: Any, spec: str, order: str | None = None) -> tuple[str | None, str, dict[str, str]]:
    """Run ``spec`` on ``source`` checked (with the queue ``order`` when given) and audit it;
    return ``(rule broken or None, message, warnings)``, the rule ``"runs without error"`` for
    user code that fails, ``"skipped"`` for a refused machine."""
    from gangviz.factory import build
    from gangviz.userpolicy import RuleViolation, UserPolicyError

    sim = None
    try:
        sim = build(source, spec, params={"check": True} if order is None else None, record=True,
                    watch=False, order=order)
        if not registry.family(sim.family).matrix:  # space sharing: its log is audited at the end
            rule, message = _space_verdict(sim, order is not None)
            return rule, message, {}
        sim.run()
    except RuleViolation as exc:
        return exc.rule, f"{exc} ({_hint(exc.rule)})", {}
    except UserPolicyError as exc:
        return "runs without error", str(exc), {}
    except ValueError as exc:
        return "skipped", str(exc), {}
    finally:
        close = getattr(getattr(sim, "policy", None), "close", None)
        if close is not None:
            close()  # the policy's process ends before its run is audited
    return _matrix_verdict(sim, source)


def _hint(rule: str) -> str:
    from gangviz.userpolicy.audit import HINTS

    return HINTS.get(rule, "see the rule in the user-policy guide")


def _matrix_verdict(sim: Any, source: Any) -> tuple[str | None, str, dict[str, str]]:
    from gangviz.userpolicy.audit import audit_matrix_run, served_exactly
    from gangviz.userpolicy.errors import Declared

    policy = sim.policy
    audit = audit_matrix_run(sim, source.matrix, declared=getattr(policy, "declared", Declared()))
    if audit.rule is not None:
        return audit.rule, audit.message, audit.warnings
    bad = served_exactly(sim)
    if bad is not None:
        return bad[0], bad[1], audit.warnings
    return None, "ok", audit.warnings


def _space_verdict(sim: Any, ordered: bool) -> tuple[str | None, str]:
    """The end-of-run checks of a space-sharing run (its own checks ran while it was built);
    under conservative backfilling with a queue order, every job starts no later than the first
    reservation it was given (EASY's one reservation passes to a new head of the order, which
    may delay the old one: that is its rule)."""
    from gangviz.userpolicy.errors import RULES

    events = []
    for rec in sim.result.records:
        name = rec.spec.name
        if rec.finish is None:
            return RULES[6], f"{name} never finished (it waits at the end of the run)"
        if rec.start < rec.spec.arrival:
            return RULES[4], f"{name} started at {rec.start:g} before it arrived at {rec.spec.arrival:g}"
        if ordered and sim.policy.mode == "conservative" and rec.reservation is not None \
                and rec.start > rec.reservation + 1e-9:
            return ("the reservation rule it declares", f"{name} started at {rec.start:g}, after its "
                    f"reservation at {rec.reservation:g}")
        events += [(rec.start, 1, rec.spec.size), (rec.finish, 0, -rec.spec.size)]
    busy = 0
    for t, _, delta in sorted(events):
        busy += delta
        if busy > sim.processors:
            return RULES[8], f"{busy} processors in use at t={t:g} on a machine of {sim.processors}"
    return None, "ok"


def _metrics(spec: str, family: str, order: str | None = None) -> dict[str, dict[str, float]]:
    from gangviz.core.registry import entries
    from gangviz.factory import run
    from gangviz.workloads.source import load_source

    source = load_source("downey", **METRIC_WORKLOAD)
    table = {}
    labels = [spec] + [e.name for e in entries(family=family)] if order is None else [spec]
    for label in labels:
        try:
            table[label] = run(source, label, engine="reference" if label == spec else "auto",
                               order=order if label == spec else None).metrics
        except ValueError:  # a built-in that cannot use this machine
            continue
    if order is not None:
        table[f"{spec} (arrival order)"] = run(source, spec, engine="reference").metrics
    return table


def sampled_metrics(runs: list[tuple[str, str, str | None]], seeds: int) -> Any:
    """Return the :class:`~gangviz.experiments.compare.Sampled` table of ``runs`` (``(label,
    policy, queue order or None)``) on ``seeds`` samples of the metric table's model (seeds
    0 ... ``seeds`` - 1, the workload of :data:`METRIC_WORKLOAD` otherwise): each figure's mean
    and 95% interval, the best marked only where the intervals separate, as ``gangviz compare
    --seeds`` makes it. The first run (the one graded) goes on the reference engine, the others
    on the fastest engine that covers them, as the one-sample table does; a built-in that cannot
    use the machine is left out. Raises ``ValueError`` for fewer than two seeds."""
    from gangviz.experiments.compare import comparison_from_figures, sampled_comparison
    from gangviz.factory import run
    from gangviz.results.figures import ZHOU_KEYS, Figures
    from gangviz.workloads.source import load_source

    if seeds < 2:
        raise ValueError("--seeds needs at least 2 samples for an interval")
    samples = {}
    kept = list(runs)
    graded = runs[0] if runs else None
    for seed in range(seeds):
        w = METRIC_WORKLOAD
        source = load_source("downey", jobs=w["jobs"], procs=w["procs"], load=w["load"], seed=seed)
        table = {}
        for label, spec, order in list(kept):
            # the graded run on the reference engine, the others on the fastest that covers them
            engine = "reference" if (label, spec, order) == graded else "auto"
            try:
                table[label] = run(source, spec, engine=engine, order=order).metrics
            except ValueError:  # a built-in that cannot use this machine (the same for every seed)
                kept.remove((label, spec, order))
        samples[seed] = comparison_from_figures(
            source.title, source.processors,
            {label: Figures({k: table[label].get(k, math.nan) for k in ZHOU_KEYS}, "matrix", "slice") for label, _, _ in kept})
    return sampled_comparison(samples)


def _add_sampled(doc: dict[str, Any], seeds: int | None, spec: str) -> None:
    """Give a graded ``doc`` that passed its sampled tables (``sampled``: one per built-in for
    a queue order, one for a policy and its family's built-ins) and make its ``metrics`` their
    means, when ``seeds`` is given."""
    if not seeds or not doc["passed"]:
        return
    if doc["kind"] == "order":
        groups = {policy: [(policy, policy, spec), (f"{policy} (arrival order)", policy, None)]
                  for policy in ORDER_POLICIES}
    else:
        groups = {spec: [(label, label, None) for label in doc["metrics"]]}
    sampled = {name: sampled_metrics(runs, seeds) for name, runs in groups.items()}
    doc["sampled"] = {name: s.to_dict() for name, s in sampled.items()}
    doc["metrics"] = {label: dict(means) for s in sampled.values() for label, means in s.mean.items()}
    doc["_sampled"] = sampled  # for the printed report; not in the JSON


# ---------------------------------------------------------------------------- one target
def grade_policy(spec: str) -> dict[str, Any]:
    """Grade the policy ``spec``; return the JSON document (``passed``, ``rules`` with their
    violations, ``warnings``, ``runs``, ``metrics``). Raises ``UserError`` for a policy that
    does not load."""
    from gangviz.factory import resolve
    from gangviz.userpolicy.errors import RULES, printable
    from gangviz.userpolicy.space import RESERVATION_RULE
    from gangviz.workloads.source import load_source

    try:
        choice = resolve(load_source("downey", jobs=1, procs=8), spec)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    entry = choice.entry
    assert entry is not None
    space = not entry.kind.matrix  # a space-sharing policy: no scenario with a matrix runs it
    verdicts: dict[str, list[str]] = {rule: [] for rule in (*RULES, RESERVATION_RULE, "runs without error")}
    warnings: dict[str, list[str]] = {}
    runs = []
    for label, source in _sources(space):
        rule, message, warned = check_run(source, spec)
        runs.append({"workload": label, "rule": rule, "message": message, "warnings": warned})
        for key, text in warned.items():
            warnings.setdefault(key, []).append(f"{label}: {text}")
        if rule is not None and rule.startswith(RESERVATION_RULE):
            rule = RESERVATION_RULE
        if rule in verdicts:
            verdicts[rule].append(f"{label}: {message}")
    ran = [r for r in runs if r["rule"] != "skipped"]
    if not ran:
        verdicts["runs without error"].append("the policy refused every machine (its setup raised "
                                              "ValueError), so it never ran; refuse only machines it cannot use")
    passed = not any(verdicts.values())
    metrics = _metrics(spec, entry.family) if passed else {}
    if metrics and not space and "firstfit" in metrics:
        mine, ff = metrics[spec].get("t_ta"), metrics["firstfit"].get("t_ta")
        if mine is not None and ff and mine > SLOW * ff:
            warnings.setdefault("turnaround far above first fit's", []).append(
                f"mean turnaround {mine:.4g} slices, {mine / ff:.2g} times first fit's {ff:.4g}: place each "
                "waiting job in the first slot with room, and delete empty slots")
    if not (space and entry.traits & RESERVING_TRAITS):
        verdicts.pop(RESERVATION_RULE)  # reported only for a policy that declares one
    return {"kind": "policy", "policy": printable(entry.title), "file": entry.origin, "passed": passed,
            "rules": {r: {"holds": not v, "violations": v} for r, v in verdicts.items()},
            "warnings": warnings, "runs": runs, "metrics": metrics}


def grade_order(order: str) -> dict[str, Any]:
    """Grade the queue order ``order`` (``FILE.py:function``) under each built-in of
    :data:`ORDER_POLICIES`: each keeps its own rule, and its figures beside arrival order's."""
    from gangviz.userpolicy.errors import RULES
    from gangviz.userpolicy.space import RESERVATION_RULE

    verdicts: dict[str, list[str]] = {rule: [] for rule in (*RULES, RESERVATION_RULE, "runs without error")}
    runs = []
    metrics: dict[str, dict[str, float]] = {}
    for policy in ORDER_POLICIES:
        space = policy != "gs"
        for label, source in _sources(space):
            rule, message, _ = check_run(source, policy, order=order)
            runs.append({"workload": f"{policy} on {label}", "rule": rule, "message": message})
            if rule is not None and rule.startswith(RESERVATION_RULE):
                rule = RESERVATION_RULE
            if rule in verdicts:
                verdicts[rule].append(f"{policy} on {label}: {message}")
    passed = not any(verdicts.values())
    if passed:
        for policy in ORDER_POLICIES:
            try:
                metrics.update(_metrics(policy, "", order=order))
            except ValueError as exc:
                verdicts["runs without error"].append(str(exc))
        passed = not any(verdicts.values())
    return {"kind": "order", "policy": order, "file": order.rpartition(":")[0], "passed": passed,
            "rules": {r: {"holds": not v, "violations": v} for r, v in verdicts.items()},
            "warnings": {}, "runs": runs, "metrics": metrics}


def _is_order(spec: str) -> bool:
    """Whether ``spec`` names a function of a file (a queue order) rather than a class."""
    import re

    m = re.match(r"^(.*?\.py):([A-Za-z_]\w*)$", spec.strip())
    if m is None or not os.path.isfile(m.group(1)):
        return False
    from gangviz.userpolicy.boundary import fetch_listing
    from gangviz.userpolicy.errors import UserPolicyError

    try:
        found = fetch_listing(m.group(1))
    except UserPolicyError:
        return False
    return m.group(2) in found["functions"] and m.group(2) not in found["classes"]


def _targets(given: list[str]) -> list[str]:
    """The policy files and orders that ``given`` names: a folder's ``.py`` files (sorted), and
    for a file that defines no policy class, each public function in it (a queue order)."""
    from gangviz.userpolicy.boundary import fetch_listing
    from gangviz.userpolicy.errors import UserPolicyError

    out: list[str] = []
    for item in given:
        if os.path.isdir(item):
            files = sorted(str(p) for p in Path(item).glob("*.py") if not p.name.startswith("_"))
        else:
            files = [item]
        for f in files:
            if f.endswith(".py") and os.path.isfile(f):
                try:
                    found = fetch_listing(f)
                except UserPolicyError:
                    out.append(f)  # its row says why it does not load
                    continue
                if not found["classes"] and found["functions"]:
                    out += [f"{f}:{fn}" for fn in found["functions"]]
                    continue
            out.append(f)
    return out


def run(args: argparse.Namespace) -> int:
    """Check the policy (or every target given); print the report or the class's table (text,
    JSON or CSV); return 0 when every target passes, 1 otherwise."""
    given: list[str] = args.policy
    if args.seeds is not None and args.seeds < 2:
        raise UserError("--seeds needs at least 2 samples for an interval")
    if len(given) == 1 and given[0].endswith(".py") and os.path.isfile(given[0]):
        given = _targets(given)  # a file of queue orders: each of its functions
    if len(given) == 1 and not os.path.isdir(given[0]):
        spec = given[0]
        start = time.monotonic()
        doc = grade_order(spec) if _is_order(spec) else grade_policy(spec)
        try:
            _add_sampled(doc, args.seeds, spec)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        sampled = doc.pop("_sampled", None)
        doc["run_time_s"] = round(time.monotonic() - start, 3)
        if args.json:
            json.dump(doc, sys.stdout, indent=1)
            sys.stdout.write("\n")
        elif args.csv:
            _write_csv([_row(spec, doc)])
        else:
            _print_report(doc, sampled)
        return 0 if doc["passed"] else 1
    targets = _targets(given)
    workers, _ = cap_workers(args.workers, len(targets))
    with ThreadPoolExecutor(workers) as pool:  # each target is a process of its own
        rows = list(pool.map(lambda t: _grade_apart(t, args.time_limit, args.memory_limit, args.seeds),
                             targets))
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.csv:
        _write_csv(rows)
    else:
        _print_table(rows)
    return 0 if rows and all(r["passed"] for r in rows) else 1


# ---------------------------------------------------------------------------- a class
def _grade_apart(target: str, seconds: float, megabytes: int, seeds: int | None = None) -> dict[str, Any]:
    """Grade ``target`` in a process of its own (``check-policy TARGET --json``, with
    ``--seeds`` when given: its figure is then a mean over the seeds) within ``seconds`` and
    ``megabytes``; return its table row (a failed row when it hangs, crashes or runs out of
    memory)."""
    from gangviz.userpolicy.errors import printable

    def limit_memory() -> None:
        import resource

        cap = megabytes * 1024 * 1024 * 4  # this process, plus the policy's own process
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    start = time.monotonic()
    cmd = [sys.executable, "-m", "gangviz", "check-policy", target, "--json"]
    if seeds:
        cmd += ["--seeds", str(seeds)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds, env=env,
                              preexec_fn=limit_memory if os.name == "posix" else None, errors="replace")
    except subprocess.TimeoutExpired:
        return _failed_row(target, f"stopped after the time limit of {seconds:g} s (--time-limit)", seconds)
    took = time.monotonic() - start
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        last = [line for line in proc.stderr.splitlines() if line.strip()]
        why = last[-1] if last else f"exit code {proc.returncode}"
        if proc.returncode < 0 or "out of memory" in why or "MemoryError" in why:
            why = f"ended ({why}); the memory limit is {megabytes} MB (--memory-limit)"
        return _failed_row(target, printable(why.removeprefix("gangviz: ")), took)
    return _row(target, doc, took)


def _failed_row(target: str, why: str, took: float) -> dict[str, Any]:
    return {"file": target, "kind": "", "policy": "", "passed": False, "first_violation": why,
            "failed_rules": ["runs without error"], "warnings": [], "run_time_s": round(took, 1),
            "metric": "", "value": None, "best_builtin": "", "best_value": None}


def _row(target: str, doc: dict[str, Any], took: float | None = None) -> dict[str, Any]:
    """One row of the table from a target's JSON document."""
    failed = [r for r, v in doc["rules"].items() if not v["holds"]]
    first = doc["rules"][failed[0]]["violations"][0] if failed else ""
    metric, value, best, best_value = "", None, "", None
    metrics = doc.get("metrics") or {}
    if metrics:
        own = next(iter(metrics))
        metric = next((k for k in HEADLINE if k in metrics[own]), "")
        if metric:
            value = metrics[own][metric]
            others = [(m[metric], label) for label, m in metrics.items()
                      if label != own and m.get(metric) is not None]
            if doc.get("kind") == "order":  # an order's figure under gs, beside gs in arrival order
                others = [(v, label) for v, label in others if label == f"{own} (arrival order)"]
            if others:
                best_value, best = min(others)
    return {"file": target, "kind": doc.get("kind", "policy"), "policy": doc.get("policy", ""),
            "passed": bool(doc["passed"]), "first_violation": first, "failed_rules": failed,
            "warnings": sorted(doc.get("warnings") or {}),
            "run_time_s": round(took if took is not None else doc.get("run_time_s", 0.0), 1),
            "metric": metric, "value": value, "best_builtin": best, "best_value": best_value}


_COLUMNS = ("file", "kind", "policy", "passed", "failed_rules", "first_violation", "warnings", "run_time_s",
            "metric", "value", "best_builtin", "best_value")


def _write_csv(rows: list[dict[str, Any]]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(_COLUMNS)
    for r in rows:
        w.writerow(["; ".join(r[c]) if isinstance(r[c], list) else ("" if r[c] is None else r[c])
                    for c in _COLUMNS])
    sys.stdout.write(buf.getvalue())


def _print_table(rows: list[dict[str, Any]]) -> None:
    from gangviz.experiments.numbers import number
    from gangviz.userpolicy.errors import printable

    if not rows:
        print("no policy file found")
        return
    head = ("file", "result", "time s", "figure", "vs best built-in", "warnings / first violation")
    body = []
    for r in rows:
        value = "-" if r["value"] is None else f"{r['metric']} {number(r['value'])}"
        best = "-" if r["best_value"] is None else f"{printable(r['best_builtin'])} {number(r['best_value'])}"
        note = (", ".join(r["warnings"]) if r["passed"] else f"{', '.join(r['failed_rules'])}: "
                f"{r['first_violation']}")
        body.append((printable(r["file"]), "pass" if r["passed"] else "FAIL", f"{r['run_time_s']:g}", value, best,
                     printable(note)[:160]))
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(len(head) - 1)]
    for line in [head, *body]:
        print("  ".join(f"{x:<{w}}" for x, w in zip(line[:-1], widths, strict=True)) + "  " + line[-1])
    passed = sum(r["passed"] for r in rows)
    print(f"\n{passed} of {len(rows)} passed")


def _print_report(doc: dict[str, Any], sampled: dict[str, Any] | None = None) -> None:
    from gangviz.experiments.numbers import number
    from gangviz.userpolicy.errors import printable

    what = "queue order" if doc["kind"] == "order" else "policy"
    print(f"{what} {printable(doc['policy'])} ({printable(doc['file'])}): {len(doc['runs'])} runs")
    for rule, v in doc["rules"].items():
        bad = v["violations"]
        print(f"  {'ok  ' if not bad else 'FAIL'}  {rule}" + (f": {printable(bad[0])}" if bad else ""))
        for more in bad[1:3]:
            print(f"          {printable(more)}")
    skipped = [r for r in doc["runs"] if r["rule"] == "skipped"]
    if skipped:
        print(f"  skipped {len(skipped)} runs the policy refused (e.g. {skipped[0]['workload']}: "
              f"{printable(skipped[0]['message'])})")
    for key, texts in doc["warnings"].items():
        print(f"  warn  {key}: {printable(texts[0])}" + (f" (and in {len(texts) - 1} more runs)" if len(texts) > 1 else ""))
    metrics = doc["metrics"]
    if sampled:
        w = METRIC_WORKLOAD
        for name, table in sampled.items():
            head = f"under {name}: " if doc["kind"] == "order" else ""
            print(f"\n{head}metrics on downey --jobs {w['jobs']} --procs {w['procs']} --load {w['load']}, "
                  f"{len(table.seeds)} samples:")
            print("\n".join(f"  {printable(line)}" for line in table.to_text().splitlines()))
    elif metrics:
        keys = list(next(iter(metrics.values())))
        w = METRIC_WORKLOAD
        print(f"\nmetrics on downey --jobs {w['jobs']} --procs {w['procs']} --load {w['load']}:")
        width = max(len(printable(k)) for k in metrics)
        print(f"  {'policy':<{width}}  " + "  ".join(f"{k:>8}" for k in keys))
        for label, m in metrics.items():
            print(f"  {printable(label):<{width}}  " + "  ".join(
                f"{number(m[k]) if m.get(k) is not None and not (isinstance(m[k], float) and math.isnan(m[k])) else '-':>8}"
                for k in keys))
    print("\npassed: every rule holds" if doc["passed"] else f"\nFAILED: the {what} breaks a rule")
