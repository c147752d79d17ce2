"""``gangviz run SOURCE --policy NAME [--json]``: run a scenario or a workload headless.

SOURCE is a scenario (``.toml`` path or built-in name), an SWF trace (``.swf``/``.swf.gz``), or
a synthetic model name (``downey``) with its options.

In the JSON, each change of a step keeps the engine's 0-based fields (``job`` is the job's id,
``row``/``src_row``/``dst_row``/``row_a``/``row_b`` and ``rows`` index the matrix's slots from
the top, ``cols``/``src_cols``/``dst_cols`` and ``lo``..``hi`` its processors) and adds
``labels``, the same things as the window names them: ``J4``, ``S2``, ``P1..P4`` (1-based).

The simulators are imported when the run needs them: a space-sharing run never loads the gang
engine and its policies.
"""

from __future__ import annotations

import argparse
import sys

from gangviz.commands.errors import UserError
from gangviz.commands.options import add_source_options
from gangviz.experiments.options import add_json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``run`` sub-command."""
    p = sub.add_parser("run", help="run a scenario or workload headless and print the result")
    p.add_argument("source", help="scenario (.toml or built-in name), SWF trace, or model name 'downey'")
    p.add_argument("--policy", help="policy name, optionally with parameters as NAME:key=value,... "
                                    "(default: the scenario's, else repack)")
    add_json(p)
    p.add_argument("--steps", action=argparse.BooleanOptionalAction, default=None,
                   help="include every step (default: on for scenarios, off for workloads)")
    add_source_options(p)
    p.add_argument("--jobs-out", metavar="FILE",
                   help="also write one row per job to FILE: .csv (Batsim layout), .swf or .parquet")
    p.add_argument("--force", action="store_true", help="overwrite an existing --jobs-out file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; print text or JSON; return 0."""
    from gangviz.factory.policy import make, resolve
    from gangviz.workloads.source import load_source, print_warnings

    if args.jobs_out:
        from gangviz.outputs import check_output
        from gangviz.results.jobs import check_format

        check_format(args.jobs_out)
        check_output(args.jobs_out, force=args.force)
    done = _trace_columns_run(args)
    if done is None:
        from gangviz.commands.run_model import run_model_columns

        done = run_model_columns(args)
    if done is not None:
        return done
    source = load_source(args.source, procs=args.procs, slice_seconds=args.slice, jobs=args.jobs,
                         load=args.load, seed=args.seed)
    print_warnings(source.title, source.warnings)
    if source.model != "matrix":
        from gangviz.commands.run_family import run_family

        if args.jobs_out:
            article = "an" if source.model[:1] in "aeiou" else "a"
            raise UserError(f"--jobs-out needs a time-slot workload, not {article} {source.model} scenario")
        return run_family(source, args.policy, as_json=args.json)
    steps = args.steps if args.steps is not None else source.kind == "scenario"
    try:
        choice = resolve(source, args.policy)
        policy = make("matrix", choice)
        if getattr(policy, "family", None) == "space-sharing":
            from gangviz.commands.run_space_sharing import print_run

            policy.check_source(source)
            return print_run(source, policy, as_json=args.json, steps=steps, jobs_out=args.jobs_out)
        return _run_time_slot(args, source, choice.spec, steps)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _run_time_slot(args: argparse.Namespace, source, spec: str, steps: bool) -> int:
    """Run a time-slot policy on ``source`` (the compiled loop when it covers the run and
    neither steps nor per-job rows are asked for); print text or JSON; return 0."""
    from gangviz.experiments.numbers import number, plural
    from gangviz.experiments.progress import run_with_progress
    from gangviz.factory import run
    from gangviz.metrics import json_ready

    done = run(source, spec, ring=True if args.ring else None, record=steps, jobs=bool(args.jobs_out),
               finish=lambda sim: run_with_progress(sim, len(source.jobs)))
    sim, policy = done.simulation, done.policy
    if args.jobs_out:
        from gangviz.results.jobs import save_simulation_jobs

        save_simulation_jobs(sim, source, args.jobs_out, label=spec)
    metrics = json_ready(done.metrics)
    final = done.final_matrix()
    if args.json:
        import json

        names = {jid: rec.spec.name for jid, rec in sim.jobs.items() if rec.spec.name} if steps else {}
        doc = {
            "policy": policy.name,
            "processors": source.processors,
            "final_matrix": final,
            "steps": [_labelled(s.to_dict(), names) for s in sim.steps] if steps else [],
            "metrics": metrics,
        }
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"{source.title} — policy {policy.name}, {plural(source.processors, 'processor')}")
    if steps:
        for s in sim.steps:
            for line in s.narration:
                if not line.startswith("Slot ") or "runs its time slice" not in line:
                    print(f"  t={s.time:g}: {line}")
    print("final matrix (top slot first):")
    for row in final or ["(no slots)"]:
        print(f"  {row}")
    print("metrics: " + ", ".join(f"{k}={number(v)}" for k, v in metrics.items() if v is not None))
    return 0


def _trace_columns_run(args: argparse.Namespace) -> int | None:
    """Run a space-sharing policy on an SWF trace when nothing per job is asked for (no steps,
    JSON or per-job file): the run then needs the trace's numbers only, so no job object is made.
    Returns the exit status, or ``None`` when the run is not of that kind (or its policy spec is
    bad: the general path reports that in its own order)."""
    from gangviz.factory.policy import parse_policy_spec
    from gangviz.spacesharing.policy import is_space_sharing, make_space_sharing

    if args.json or args.steps or args.jobs_out or args.policy is None or not is_space_sharing(args.policy):
        return None
    try:
        name, given = parse_policy_spec(args.policy)
        policy = make_space_sharing(name, **given)
    except ValueError:
        return None
    from gangviz.workloads.source import load_trace_columns, print_warnings

    columns = load_trace_columns(args.source, procs=args.procs, slice_seconds=args.slice)
    if columns is None:
        return None
    from pathlib import Path

    from gangviz.commands.run_space_sharing import print_trace_run

    title = Path(args.source).name
    print_warnings(title, columns.warnings)
    try:
        return print_trace_run(title, columns, policy)
    except ValueError as exc:
        raise UserError(str(exc)) from None


_ROW_KEYS = ("row", "src_row", "dst_row", "row_a", "row_b", "prev")
_COL_KEYS = ("cols", "src_cols", "dst_cols")


def _labelled(step: dict, names: dict[int, str]) -> dict:
    """Return ``step`` (a :meth:`Step.to_dict`) with ``labels`` added to every change: the job,
    slots and processors as the window names them (J4, S2, P1..P4)."""
    for change in step["changes"]:
        labels = {}
        if isinstance(change.get("job"), int):
            labels["job"] = names.get(change["job"], f"J{change['job'] + 1}")
        for key in ("moved_a", "moved_b"):
            if key in change:
                labels[key] = [names.get(j, f"J{j + 1}") for j in change[key]]
        for key in _ROW_KEYS:
            if isinstance(change.get(key), int):
                labels[key] = f"S{change[key] + 1}"
        if "rows" in change:
            labels["rows"] = [f"S{r + 1}" for r in change["rows"]]
        for key in _COL_KEYS:
            if change.get(key):
                labels[key] = _procs(change[key])
        if isinstance(change.get("lo"), int) and isinstance(change.get("hi"), int):
            labels["cols"] = _procs(list(range(change["lo"], change["hi"])))
        change["labels"] = labels
    return step


def _procs(cols: list[int]) -> str:
    """Return ``P1..P4`` for consecutive columns 0..3, else ``P1, P3``."""
    if cols == list(range(cols[0], cols[0] + len(cols))):
        return f"P{cols[0] + 1}" if len(cols) == 1 else f"P{cols[0] + 1}..P{cols[-1] + 1}"
    return ", ".join(f"P{c + 1}" for c in cols)
