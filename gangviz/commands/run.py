"""``gangviz run SOURCE --policy NAME [--json]``: run a scenario or a workload headless.

SOURCE is a scenario (``.toml`` path or built-in name), an SWF trace (``.swf``/``.swf.gz``), or
a synthetic model name (``downey``) with its options.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from gangviz.cli import UserError
from gangviz.metrics import zhou_metrics
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.source import load_source


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``run`` sub-command."""
    p = sub.add_parser("run", help="run a scenario or workload headless and print the result")
    p.add_argument("source", help="scenario (.toml or built-in name), SWF trace, or model name 'downey'")
    p.add_argument("--policy", help="policy name (default: the scenario's, else repack)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--steps", action=argparse.BooleanOptionalAction, default=None,
                   help="include every step (default: on for scenarios, off for workloads)")
    p.add_argument("--procs", type=int, help="processors (overrides the trace header)")
    p.add_argument("--slice", type=float, default=None, help="seconds per slice for SWF traces")
    p.add_argument("--jobs", type=int, default=200, help="jobs of a synthetic model (default 200)")
    p.add_argument("--load", type=float, default=0.5, help="offered load of a synthetic model")
    p.add_argument("--seed", type=int, default=1, help="seed of a synthetic model")
    p.add_argument("--ring", action="store_true", help="processors form a ring")
    p.set_defaults(func=run)


def _space_sharing(source, policy, args: argparse.Namespace, steps: bool) -> int:
    """Run a space-sharing policy (``fcfs``, ``easy``, ``conservative``); print text or JSON.

    Times are printed in seconds (job times times the trace's slice length); the metrics are
    those of :func:`gangviz.metrics_ibm.ibm_metrics`. Raises ``ValueError`` for a job larger than
    the machine (the caller turns it into a message).
    """
    from gangviz.spacesharing.runs import run_space_sharing

    unit = source.slice_seconds
    narration = []
    if steps:
        from gangviz.spacesharing.simulation import SpaceSharingSimulation

        sim = SpaceSharingSimulation(source.jobs, source.processors, policy, time_unit=unit)
        sim.run()
        res, metrics = sim.result, sim.ibm_metrics()
        narration = [(s.time * unit, line) for s in sim.steps for line in s.narration]
    else:
        res, metrics = run_space_sharing(source.jobs, source.processors, policy, time_unit=unit)
    clean = _nan_to_none(metrics)
    if args.json:
        jobs = [{"id": r.spec.id, "name": r.spec.name, "arrival": r.spec.arrival * unit,
                 "size": r.spec.size, "start": r.start * unit, "finish": r.finish * unit,
                 "reservation": None if r.reservation is None or not math.isfinite(r.reservation)
                 else r.reservation * unit} for r in res.records]
        doc = {"policy": policy.label(), "family": "space-sharing", "processors": source.processors,
               "jobs": jobs, "steps": [{"time": t, "narration": line} for t, line in narration],
               "metrics": clean}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"{source.title} — policy {policy.label()} (space sharing), {source.processors} processors, "
          f"{len(res.records)} jobs")
    for t, line in narration:
        print(f"  t={t:g} s: {line}")
    print("metrics (seconds): " + ", ".join(f"{k}={v:.4g}" for k, v in clean.items()
                                            if isinstance(v, float) and not k.startswith("std")))
    return 0


def _nan_to_none(d):
    if isinstance(d, dict):
        return {k: _nan_to_none(v) for k, v in d.items()}
    return None if isinstance(d, float) and math.isnan(d) else d


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; print text or JSON; return 0."""
    source = load_source(args.source, procs=args.procs, slice_seconds=args.slice, jobs=args.jobs,
                         load=args.load, seed=args.seed)
    if source.model != "matrix":
        from gangviz.workloads.scenario_run import run_family

        return run_family(source, args.policy, as_json=args.json)
    policy_name = args.policy or source.policy or "repack"
    steps = args.steps if args.steps is not None else source.kind == "scenario"
    try:
        from gangviz.experiments.compare import parse_policy_spec

        name, given = parse_policy_spec(policy_name)
        policy = make_policy(name, **{**source.policy_params(name), **given})
        if getattr(policy, "family", None) == "space-sharing":
            policy.check_source(source)
            return _space_sharing(source, policy, args, steps)
        sim = Simulation(source.jobs, policy, source.processors, ring=args.ring or source.ring,
                         initial=source.matrix, script=source.script, record=steps)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    sim.run()
    metrics = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in zhou_metrics(sim).items()}
    if args.json:
        doc = {
            "policy": policy.name,
            "processors": source.processors,
            "final_matrix": sim.matrix.to_rows(),
            "steps": [s.to_dict() for s in sim.steps] if steps else [],
            "metrics": metrics,
        }
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"{source.title} — policy {policy.name}, {source.processors} processors")
    if steps:
        for s in sim.steps:
            for line in s.narration:
                if not line.startswith("Slot ") or "runs its time slice" not in line:
                    print(f"  t={s.time:g}: {line}")
    print("final matrix (top slot first):")
    for row in sim.matrix.to_rows() or ["(no slots)"]:
        print(f"  {row}")
    print("metrics: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                  for k, v in metrics.items() if v is not None))
    return 0
