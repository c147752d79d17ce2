"""``gangviz compare WORKLOAD --policy A --policy B ... [--json | --csv]``.

Runs each policy, time-slot or space-sharing, on the same workload (scenario, SWF trace or
synthetic model), each exactly as ``gangviz run`` runs it (:func:`gangviz.factory.run`: the
compiled loop when one covers it, the backfilling simulator for space sharing), ``--workers``
policies at once, and prints the figures of every policy with units
(:mod:`gangviz.results.figures`: the core of the IBM study for all, then each family's own),
the best value of each row marked among the policies that have the figure. A policy may carry
parameters: ``--policy random:seed=3``; ``--order my.py:function`` orders the waiting queue of
every policy, ``--order easy=my.py:function`` that of one, and two or more ``--order
easy=...`` run easy once under each order, side by side (``easy=arrival``: its arrival order),
each labelled by its order (``easy · order shortest.py:sjf``).

``--window`` opens the compare window (:mod:`gangviz.gui.compare.window`) on the same workload and
policies instead of printing; with ``--screenshot out.png`` (or ``.svg``) it renders the window
offscreen at shared time ``--at`` (default: half-way through the longest run), saves it and
exits. Qt is imported only then, so the command stays usable without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gangviz.commands.errors import UserError, check_screenshot
from gangviz.commands.options import add_bsld_threshold, add_source_options, window_size
from gangviz.experiments.argtypes import number, positive_int
from gangviz.experiments.compare import (
    PADDING,
    PolicyRun,
    check_distinct,
    comparison_of_policy_runs,
    labelled_runs,
    machine_text,
    run_policies,
    sampled_comparison,
)
from gangviz.experiments.options import add_json, add_workers
from gangviz.experiments.progress import announce_compiled
from gangviz.outputs import check_output
from gangviz.results.jobs import check_format, path_for
from gangviz.results.provenance import provenance_lines
from gangviz.results.summary import compare_document, header_line, machine
from gangviz.workloads.source import Source, load_source, print_warnings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compare`` sub-command."""
    p = sub.add_parser("compare", help="run several policies on one workload and compare their metrics")
    p.add_argument("workload", nargs="?",
                   help="scenario (.toml or built-in name), SWF trace, or model name 'downey'")
    p.add_argument("--replay", metavar="COMPARE.json",
                   help="run again the comparison a 'gangviz compare --json' document records "
                        "(its workload, options, policies and orders), printed as asked")
    p.add_argument("--policy", action="append", default=[], metavar="NAME[:k=v,...]",
                   help="a policy to compare (give 2 or more), e.g. --policy bc --policy brmms")
    fmt = p.add_mutually_exclusive_group()
    add_json(fmt)
    fmt.add_argument("--csv", action="store_true", help="print the table as CSV")
    add_source_options(p)
    p.add_argument("--order", action="append", default=[], metavar="[POLICY=]FILE.py:FUNCTION",
                   help="order the waiting queue by a function of one job: of every policy "
                        "(my.py:shortest_first), or of one (easy=my.py:shortest_first); repeatable: "
                        "two or more orders of one policy (--order easy=arrival --order "
                        "easy=my.py:shortest_first) run it once under each, side by side, labelled "
                        "'easy · arrival order' and 'easy · order my.py:shortest_first'")
    p.add_argument("--padding", choices=PADDING, default=None,
                   help="a trace run on more processors than its header's (--procs above MaxProcs), "
                        "compared with a buddy scheme (which leaves the added ones absent) and "
                        "another policy: 'used' gives every policy every processor, 'absent' "
                        "gives every policy the trace's own machine")
    add_bsld_threshold(p)
    p.add_argument("--seeds", type=positive_int, default=None, metavar="N",
                   help="on a synthetic model: run N samples (seeds --seed, --seed + 1, ...) and "
                        "print each figure's mean with its 95%% interval; * only where the "
                        "intervals separate")
    add_workers(p)
    p.add_argument("--jobs-out", metavar="FILE",
                   help="also write one row per job for each policy, to FILE with the policy added "
                   "to its name (jobs.csv -> jobs-bc.csv); .csv (Batsim layout), .swf or .parquet")
    gui = p.add_argument_group("window")
    gui.add_argument("--window", action="store_true",
                     help="open the compare window: one pane per policy on a shared clock")
    gui.add_argument("--screenshot", metavar="OUT.png",
                     help="with --window: render the window offscreen to OUT (.png or .svg) and exit")
    gui.add_argument("--presentation", action="store_true",
                     help="with --window: presentation mode (full screen, large text, F11 leaves); "
                          "with --screenshot drawn at --size")
    gui.add_argument("--size", type=window_size, default=None, metavar="WxH",
                     help="with --screenshot: the window's size (default 1680x1050)")
    gui.add_argument("--at", type=number, default=None, metavar="T",
                     help="with --window: the shared time shown first (with --screenshot default: half-way)")
    gui.add_argument("--force", action="store_true", help="overwrite an existing --screenshot or --jobs-out file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compare the policies of ``args``; print a table, JSON or CSV (or open the window); return 0."""
    _check_window_options(args)
    if args.replay:
        _replayed(args)
    if args.workload is None:
        raise UserError("compare needs a workload (a scenario, an SWF trace or 'downey') or --replay")
    if args.window:
        return _window(args)
    check_distinct(args.policy)
    runs = labelled_runs(args.policy, args.order)
    if len(runs) < 2:
        raise UserError("compare needs at least two --policy options, e.g. --policy bc --policy brmms "
                        "(or one policy with two --order POLICY=FILE.py:FUNCTION)")
    if args.jobs_out:
        _check_jobs_out(args.jobs_out, list(runs), args.force)
    if args.seeds is not None:
        return _sampled(args, runs)
    source = load_source(args.workload, procs=args.procs, slice_seconds=args.slice, jobs=args.jobs,
                         load=args.load, seed=args.seed)
    print_warnings(source.title, source.warnings)
    jobs_out = None
    if args.jobs_out:
        jobs_out = {label: str(path_for(args.jobs_out, label)) for label in runs}
    ring = True if args.ring else None
    if source.model != "matrix":
        raise UserError(f"{source.title}: compare runs time-slot and space-sharing policies; "
                        f"run a {source.model} scenario with 'gangviz run'")
    announce_compiled(source, args.policy, ring=ring, jobs=bool(jobs_out))
    load = (args.workload, args.procs, args.slice, args.jobs, args.load, args.seed)
    done = run_policies(source, args.policy, load=load, ring=ring, workers=args.workers,
                        jobs_out=jobs_out, runs=runs, padding=args.padding,
                        gamma=args.bsld_threshold)
    _print(args, source, done)
    return 0


def _check_window_options(args: argparse.Namespace) -> None:
    """Raise :class:`UserError` for a window option without the window, or a screenshot file
    that cannot be written."""
    if args.screenshot and not args.window:
        raise UserError("--screenshot needs --window")
    if (args.at is not None or args.presentation) and not args.window:
        raise UserError("--at sets the time the compare window shows: it needs --window" if args.at is not None
                        else "--presentation is a mode of the compare window: it needs --window")
    if args.size and not args.screenshot:
        raise UserError("--size needs --window --screenshot")
    check_screenshot(args.screenshot, args.force)


def _sampled(args: argparse.Namespace, runs: dict[str, tuple[str, str | None]]) -> int:
    """Compare the policies on ``args.seeds`` samples of a synthetic model and print each
    figure's mean and 95% interval (:func:`sampled_comparison`); return 0."""
    from gangviz.workloads.source import MODEL_DEFAULTS, MODELS

    if args.workload.lower() not in MODELS:
        raise UserError(f"--seeds samples a synthetic model ({', '.join(MODELS)}); "
                        f"{args.workload} brings its own jobs")
    if args.seeds < 2:
        raise UserError("--seeds needs at least 2 samples for an interval")
    if args.jobs_out or args.csv:
        raise UserError("--seeds prints the means and intervals; --jobs-out and --csv take one sample")
    first = MODEL_DEFAULTS["seed"] if args.seed is None else args.seed
    samples = {}
    for seed in range(first, first + args.seeds):
        source = load_source(args.workload, procs=args.procs, jobs=args.jobs, load=args.load, seed=seed)
        done = run_policies(source, args.policy, ring=True if args.ring else None, runs=runs,
                            workers=args.workers, gamma=args.bsld_threshold,
                            load=(args.workload, args.procs, None, args.jobs, args.load, seed))
        samples[seed] = comparison_of_policy_runs(source.title, done)
    result = sampled_comparison(samples)
    if args.json:
        sys.stdout.write(json.dumps({"command": "compare", "workload": args.workload,
                                     "policies": list(runs), **result.to_dict()}, indent=1) + "\n")
        return 0
    print(f"{args.workload} model — policies {', '.join(runs)}, {len(samples)} samples")
    print(result.to_text())
    return 0


def _print(args: argparse.Namespace, source: Any, runs: dict[str, PolicyRun]) -> None:
    """Print the comparison of ``runs`` as ``args`` ask: JSON, CSV, or the header, the machine
    line and the table."""
    result = comparison_of_policy_runs(source.title, runs)
    mach = machine(source, args.procs, args.slice)
    if args.padding is not None:
        mach["padding"] = args.padding
    if args.padding == "absent" and source.absent_from is not None:
        mach.update(processors=source.absent_from, processors_from="trace header")
    if args.json:
        doc = compare_document(source, mach, runs, result)
        doc["replay"] = replay_record(args)
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    elif args.csv:
        sys.stdout.write(result.to_csv())
    else:
        families = ", ".join(sorted({r.family for r in runs.values()}))
        print(header_line(source.title, ", ".join(runs), families, mach, source.job_count))
        print(machine_text({label: r.machine for label, r in runs.items()}))
        print("\n".join(provenance_lines(source, {label: r.record for label, r in runs.items()},
                                          next(iter(runs.values())).figures)))
        print(result.to_text())


#: the options of a comparison its JSON records to replay it
REPLAYED = ("procs", "slice", "jobs", "load", "seed", "padding", "ring", "bsld_threshold")


def replay_record(args: argparse.Namespace) -> dict[str, Any]:
    """Return the ``replay`` member of a comparison's document: the workload as given, the
    options that load it and choose the machine, the policies and their queue orders."""
    return {"workload": args.workload, "options": {k: getattr(args, k) for k in REPLAYED},
            "policies": list(args.policy), "orders": list(args.order)}


def _replayed(args: argparse.Namespace) -> None:
    """Fill ``args`` from the document ``args.replay`` names (:func:`replay_record`), checking
    that its source is the file recorded. Raises :class:`UserError` for a document that is not
    a comparison's, a workload given as well, or a source whose hash differs."""
    from pathlib import Path

    from gangviz.results.provenance import file_sha256

    if args.workload is not None or args.policy or args.order:
        raise UserError("--replay takes the workload, the policies and the orders from the document; "
                        "give none of them")
    try:
        doc = json.loads(Path(args.replay).read_text(encoding="utf-8"))
        rec = doc["replay"]
        workload, options, policies, orders = (rec["workload"], rec["options"], rec["policies"],
                                               rec["orders"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{args.replay}: not the JSON of 'gangviz compare --json' ({exc})") from None
    recorded = doc.get("source", {}).get("sha256")
    if recorded and Path(workload).exists() and file_sha256(workload) != recorded:
        raise UserError(f"{args.replay}: {workload} has changed since the comparison ran "
                        f"(sha256 {recorded[:12]} recorded)")
    args.workload, args.policy, args.order = workload, list(policies), list(orders)
    for k in REPLAYED:
        if k in options:
            setattr(args, k, options[k])


def _check_jobs_out(jobs_out: str, specs: list[str], force: bool) -> None:
    """Raise ``ValueError`` unless every policy's per-job file (``jobs_out`` with the policy
    added) is a known format, its own file, and writable (:func:`check_output`)."""
    check_format(jobs_out)
    files = [path_for(jobs_out, label) for label in specs]
    for label, path in zip(specs, files):
        if files.count(path) > 1:
            raise ValueError(f"--policy {label!r} would write the same per-job file {path} as another "
                             "policy: their names differ only in characters a file name replaces")
        check_output(path, force=force)


def _window(args: argparse.Namespace) -> int:
    """Open (or render with ``--screenshot``) the compare window; return the exit code."""
    if args.at is not None and (args.at != args.at or args.at < 0):
        raise UserError(f"--at must be a time >= 0, got {args.at}")
    check_distinct(args.policy)
    runs = labelled_runs(args.policy, args.order)  # refuses orders that name no policy compared
    options = {"procs": args.procs, "slice_seconds": args.slice, "jobs": args.jobs, "load": args.load,
               "seed": args.seed}
    if not args.screenshot:
        from gangviz.display_check import problem

        reason = problem()  # before any worker starts: a window that cannot open runs nothing
        if reason:
            raise UserError(reason)
    from gangviz.gui.compare import ahead  # (no Qt)

    # the runs' workers load the workload meanwhile, and their runs start before the window is built
    source = ahead.load_started(args.workload, options, args.policy, args.order, args.padding,
                                args.bsld_threshold, ring=args.ring)
    try:
        return _show(args, source, len(runs))
    finally:
        ahead.discard_waiting()  # the runs started for a window that did not open (or take them)


def _show(args: argparse.Namespace, source: Source, runs: int) -> int:
    """Open the compare window of ``args`` on ``source`` (or render it with ``--screenshot``,
    ``runs`` the number of runs compared); return the exit code."""
    try:
        from gangviz.gui.compare import window as compare_window
    except ImportError as exc:
        raise UserError(f"--window needs the GUI (PySide6, pyqtgraph): {exc}") from None
    if args.screenshot:
        if runs < 2:
            raise UserError("--screenshot needs at least two --policy options (or one policy with two "
                            "--order POLICY=FILE.py:FUNCTION)")
        size = args.size or compare_window.SCREENSHOT_SIZE
        out = compare_window.screenshot(source, args.policy, args.screenshot, at=args.at, size=size,
                                        presentation=args.presentation, padding=args.padding,
                                        orders=args.order, bsld_threshold=args.bsld_threshold)
        print(out)
        return 0
    from gangviz.gui.kit.qapp import application, exec_until_signal

    app = application()
    win = compare_window.CompareWindow(source, args.policy, start=args.at or 0.0, padding=args.padding,
                                       orders=args.order, bsld_threshold=args.bsld_threshold)
    win.show()
    if args.presentation:
        win.toggle_presentation()
    code = exec_until_signal(app)
    win.close()  # ends the runs' worker processes too, however the loop ended (Ctrl-C, SIGTERM)
    return code

