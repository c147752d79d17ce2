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
from gangviz.experiments.compare import parse_policy_spec
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.source import load_source


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``run`` sub-command."""
    p = sub.add_parser("run", help="run a scenario or workload headless and print the result")
    p.add_argument("source", help="scenario (.toml or built-in name), SWF trace, or model name 'downey'")
    p.add_argument("--policy", help="policy name, optionally with parameters as NAME:key=value,... "
                                    "(default: the scenario's, else repack)")
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


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; print text or JSON; return 0."""
    source = load_source(args.source, procs=args.procs, slice_seconds=args.slice, jobs=args.jobs,
                         load=args.load, seed=args.seed)
    if source.model != "matrix":
        from gangviz.workloads.scenario_run import run_family

        return run_family(source, args.policy, as_json=args.json)
    steps = args.steps if args.steps is not None else source.kind == "scenario"
    try:
        policy_name, params = parse_policy_spec(args.policy or source.policy or "repack")
        policy = make_policy(policy_name, **{**source.policy_params(policy_name), **params})
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
