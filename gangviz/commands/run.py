"""``gangviz run SOURCE --policy NAME [--json]``: run a scenario or a workload headless.

SOURCE is a scenario (``.toml`` path or built-in name), an SWF trace (``.swf``/``.swf.gz``), or
a synthetic model name (``downey``) with its options.

In the JSON, each change of a step keeps the engine's 0-based fields (``job`` is the job's id,
``row``/``src_row``/``dst_row``/``row_a``/``row_b`` and ``rows`` index the matrix's slots from
0 for S1, the slot the window draws at the bottom, upwards; ``cols``/``src_cols``/``dst_cols``
and ``lo``..``hi`` index its processors from 0 for P1) and adds
``labels``, the same things as the window names them: ``J4``, ``S2``, ``P1..P4`` (1-based).

The simulators are imported when the run needs them: a space-sharing run never loads the gang
engine and its policies.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from gangviz.commands.options import (
    add_bsld_threshold,
    add_source_options,
    add_user_policy_options,
    user_policy_params,
)
from gangviz.experiments.options import add_json

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.experiments.headless import HeadlessRun


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
    """Run the simulation described by ``args`` (:func:`gangviz.experiments.headless.run_headless`
    chooses the engine); print text or JSON; return 0."""
    from gangviz.experiments.headless import run_headless

    done = run_headless(args.source, args.policy, procs=args.procs, slice_seconds=args.slice,
                        jobs=args.jobs, load=args.load, seed=args.seed, ring=bool(args.ring),
                        order=args.order, steps=args.steps, as_json=args.json,
                        jobs_out=args.jobs_out, force=args.force, tau=args.bsld_threshold,
                        params=user_policy_params(args))
    if done.end is not None:  # a multi-site or epoch run: its own output
        from gangviz.commands.run_family import print_family_run

        print_family_run(done, as_json=args.json, steps=args.steps)
    else:
        _print(done, as_json=args.json)
    return 0


def _print(done: HeadlessRun, *, as_json: bool) -> None:
    """Print the run ``done``: the header, the steps when kept and the figures, or the summary
    document (with the steps and the final matrix when kept)."""
    figures, source = done.figures, done.source
    finished = done.finished
    sim = finished.simulation if finished is not None and done.steps else None
    matrix = finished is not None and finished.kind.matrix
    if as_json:
        import json

        doc = done.document()
        if sim is not None:
            assert finished is not None
            if matrix:
                names = {jid: rec.spec.name for jid, rec in sim.jobs.items() if rec.spec.name}
                doc["final_matrix"] = finished.final_matrix()
                doc["steps"] = [_labelled(s.to_dict(), names) for s in sim.steps]
            else:
                unit = source.slice_seconds if figures.clock == "s" else 1.0
                doc["steps"] = [{"time": s.time * unit, "narration": line}
                                for s in sim.steps for line in s.narration]
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")  # one write, however long
        return
    print(done.header())
    print("\n".join(done.provenance()))
    from gangviz.inputs import printable  # a job's name from a file may hold control characters

    if sim is not None:
        from gangviz.timefmt import format_time

        per = source.slice_seconds if figures.clock == "s" else None
        for s in sim.steps:
            for line in s.narration:
                if not line.startswith("Slot ") or "runs its time slice" not in line:
                    print(f"  t={format_time(s.time, per)}: {printable(line)}")
    final = finished.final_matrix() if matrix and finished is not None else None
    if final is not None and done.steps:
        print("final matrix (top slot first):")
        for row in final or ["(no slots)"]:
            print(f"  {printable(row)}")
    print(figures.text())


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
