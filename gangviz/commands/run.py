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
from typing import TYPE_CHECKING, Any

from gangviz.commands.errors import UserError
from gangviz.commands.options import (
    add_bsld_threshold,
    add_source_options,
    add_user_policy_options,
    user_policy_params,
)
from gangviz.core.registry import SPACE_SHARING
from gangviz.experiments.options import add_json

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.factory.run import FinishedRun
    from gangviz.workloads.source import Source


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``run`` sub-command."""
    p = sub.add_parser("run", help="run a scenario or workload headless and print the result")
    p.add_argument("source", help="scenario (.toml or built-in name), SWF trace, or model name 'downey'")
    p.add_argument("--policy", help="policy name, optionally with parameters as NAME:key=value,... "
                                    "(default: the scenario's, else repack)")
    add_json(p)
    p.add_argument("--steps", action=argparse.BooleanOptionalAction, default=None,
                   help="include every step (default: printed for scenarios, off for workloads "
                        "and in --json, which is a summary unless asked)")
    add_source_options(p)
    add_user_policy_options(p)
    add_bsld_threshold(p)
    p.add_argument("--jobs-out", metavar="FILE",
                   help="also write one row per job to FILE: .csv (Batsim layout), .swf or .parquet")
    p.add_argument("--force", action="store_true", help="overwrite an existing --jobs-out file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; print text or JSON; return 0."""
    from gangviz.factory.checks import check_source
    from gangviz.factory.policy import resolve
    from gangviz.workloads.source import load_source, print_warnings

    if args.jobs_out:
        from gangviz.outputs import check_output
        from gangviz.results.jobs import check_format

        check_format(args.jobs_out)
        check_output(args.jobs_out, force=args.force)
    done = _trace_columns_run(args)
    if done is None:
        from gangviz.commands.run_gang_columns import run_gang_columns

        done = run_gang_columns(args)
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
        return run_family(source, args.policy, as_json=args.json, steps=args.steps)
    # the narration of a scenario is printed unless --no-steps; JSON is a summary unless --steps
    steps = args.steps if args.steps is not None else (source.kind == "scenario" and not args.json)
    try:
        check_source(source)  # the file's own policy and [params], with its file and line
        extra = user_policy_params(args)
        choice = resolve(source, args.policy)
        user = choice.entry is not None and "user" in choice.entry.traits
        if extra and not user:  # never ignored: they belong to a policy from a file
            raise UserError(f"--no-check and --decision-limit apply to a user's policy (a .py file), "
                            f"not to the built-in {choice.spec}")
        return _run_source(args, source, choice.spec, steps, extra if user else None)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _run_source(args: argparse.Namespace, source: Source, spec: str, steps: bool,
                params: dict[str, Any] | None = None) -> int:
    """Run a time-slot or space-sharing policy on ``source`` with :func:`gangviz.factory.run`
    (a compiled loop when it covers the run and no step is asked for);
    print the header, the steps when asked and the figures, as text or JSON; return 0.
    ``params`` are the run options a user's policy takes (``--no-check``, ``--decision-limit``)."""
    from gangviz.experiments.progress import RunTicker, announce_compiled
    from gangviz.factory import run
    from gangviz.results.figures import run_figures
    from gangviz.results.provenance import policy_record, provenance_lines
    from gangviz.results.summary import header_line, machine, run_document

    ring = True if args.ring else None
    if not steps and not args.order:
        announce_compiled(source, [spec], ring=ring, jobs=bool(args.jobs_out))
    ticker = RunTicker(len(source.jobs))
    try:
        done = run(source, spec, ring=ring, record=steps, jobs=bool(args.jobs_out), tick=ticker,
                   params=params, order=args.order)
    finally:
        ticker.close()
    if args.jobs_out:
        _save_jobs(done, source, args.jobs_out, args.order, args.bsld_threshold)
    figures = run_figures(done, args.bsld_threshold)
    mach = machine(source, args.procs, args.slice)
    record = policy_record(source, spec, done.family, dict(done.parameters), done.engine, args.order)
    name = record["name"]  # one spelling everywhere: the registry's
    final = done.final_matrix() if done.kind.matrix else None
    sim = done.simulation
    if args.json:
        import json

        doc = run_document(source, mach, name, done.parameters, done.engine, figures, record)
        if steps and sim is not None:
            if done.kind.matrix:
                names = {jid: rec.spec.name for jid, rec in sim.jobs.items() if rec.spec.name}
                doc["final_matrix"] = final
                doc["steps"] = [_labelled(s.to_dict(), names) for s in sim.steps]
            else:
                unit = source.slice_seconds if figures.clock == "s" else 1.0
                doc["steps"] = [{"time": s.time * unit, "narration": line}
                                for s in sim.steps for line in s.narration]
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")  # one write, however long
        return 0
    print(header_line(source.title, name, done.kind.title, mach, source.job_count))
    print("\n".join(provenance_lines(source, {spec: record}, figures)))
    from gangviz.inputs import printable  # a job's name from a file may hold control characters

    if steps and sim is not None:
        from gangviz.timefmt import format_time

        per = source.slice_seconds if figures.clock == "s" else None
        for s in sim.steps:
            for line in s.narration:
                if not line.startswith("Slot ") or "runs its time slice" not in line:
                    print(f"  t={format_time(s.time, per)}: {printable(line)}")
    if final is not None and steps:
        print("final matrix (top slot first):")
        for row in final or ["(no slots)"]:
            print(f"  {printable(row)}")
    print(figures.text())
    return 0


def _save_jobs(done: FinishedRun, source: Source, path: str, order: str | None = None,
               tau: float | None = None) -> None:
    """Write the per-job table of the finished run ``done`` to ``path`` (and its sidecar)."""
    from gangviz.results.run_jobs import save_run_jobs

    save_run_jobs(done, source, path,
                  label=done.policy.label() if done.family == SPACE_SHARING else done.label,
                  order=order, tau=tau)


def _trace_columns_run(args: argparse.Namespace) -> int | None:
    """Run a space-sharing policy on an SWF trace when no step is asked for: the run then needs
    the trace's numbers only, so no job object is made (the summary JSON and a per-job file
    are written from the columns too). Returns the exit status, or ``None`` when the run is not
    of that kind (or its policy spec is bad: the general path reports that in its own order)."""
    from gangviz.core import registry
    from gangviz.policies import build as build_policy

    if args.steps or args.policy is None or args.order:
        return None
    try:
        entry, given = registry.parse(args.policy)
        if entry.family != registry.SPACE_SHARING:
            return None
        policy = build_policy(entry, given)
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
        return print_trace_run(title, columns, policy, procs=args.procs, slice_seconds=args.slice,
                               parameters=given, as_json=args.json, jobs_out=args.jobs_out,
                               path=args.source, spec=args.policy, gamma=args.bsld_threshold)
    except ValueError as exc:
        raise UserError(str(exc)) from None


_ROW_KEYS = ("row", "src_row", "dst_row", "row_a", "row_b", "prev")
_COL_KEYS = ("cols", "src_cols", "dst_cols")


def _labelled(step: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """Return ``step`` (a :meth:`Step.to_dict`) with ``labels`` added to every change: the job,
    slots and processors as the window names them (J4, S2, P1..P4)."""
    for change in step["changes"]:
        labels: dict[str, str | list[str]] = {}
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
