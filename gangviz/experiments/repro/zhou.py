"""``gangviz repro zhou-table1`` and ``zhou-table2``: Tables 1 and 2 of Zhou, Walsh and Brent.

Source: [Zhou00 §4] — the four schemes BC, BR, BRMS, BRMMS on 128 processors;
the uniform-log workload of §4.2 (sizes 1..128, run times 1..120 slots, exponential
inter-arrivals at load rho); Table 1: 20 sets of 200 jobs per load (transient behaviour);
Table 2: 5 runs of 20,000 jobs per load (steady state); metrics of §4.3.

Every scheme runs on the same job sets (common random numbers): set s of load index l uses
``run_seed(seed, (l,), s)``, wherever it runs. The findings checked are the ones the paper's
prose states (§4.3):

1. BR beats BC on t_ta at every load.
2. BRMS has the largest n_l and n_a, and a worse t_sa than BR at rho >= 0.5.
3. BRMMS has the best t_ta, and an n_a no greater than BR's.

A value of ours that differs from the paper's by more than 25% is marked with ``!``; the README
discusses why such differences arise (the paper leaves tie-breaks and the buddy fragment rule
open; 20 sets of 200 jobs are noisy).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from typing import Any

from gangviz.experiments.numbers import plural
from gangviz.experiments.options import add_json, add_out, add_seed
from gangviz.experiments.progress import ProgressBar, compile_fast_loop
from gangviz.experiments.repro import FINDING_FAILED, RAN, REFERENCES, add_where, verdict, where
from gangviz.experiments.runner import RunFailed, map_runs
from gangviz.experiments.seeds import run_seed
from gangviz.resources import PAPERS

TARGETS = {
    "zhou-table1": "Table 1 of Zhou et al.: 20 sets of 200 jobs at rho 0.2, 0.5, 0.7, 0.9",
    "zhou-table2": "Table 2 of Zhou et al.: 5 runs of 20,000 jobs at rho 0.2, 0.5, 0.7, 0.9",
}

SCHEMES = ("BC", "BR", "BRMS", "BRMMS")
#: Schemes from the slowest to simulate to the fastest (measured at rho 0.9, 20,000 jobs).
EXPECTED_COST_RANK = {"BRMS": 0, "BRMMS": 1, "BR": 2, "BC": 3}
LOADS = (0.2, 0.5, 0.7, 0.9)
METRICS = ("r_a", "n_l", "n_a", "t_ta", "t_sa", "t_ma", "t_la")
DEFAULTS = {"zhou-table1": (20, 200), "zhou-table2": (5, 20000)}


def _published() -> dict[str, dict[tuple[str, float], tuple[float, ...]]]:
    """Return the paper's Tables 1 and 2 as shipped in ``resources/papers/zhou00-tables.csv``:
    target -> (scheme, rho) -> the metrics in :data:`METRICS` order (``n_l`` a whole number)."""
    tables: dict[str, dict[tuple[str, float], tuple[float, ...]]] = {}
    lines = (PAPERS / "zhou00-tables.csv").read_text(encoding="utf-8").splitlines()
    for row in csv.DictReader(line for line in lines if not line.startswith("#")):
        values = tuple(float(row[m]) if "." in row[m] else int(row[m]) for m in METRICS)
        tables.setdefault(row["table"], {})[row["scheme"], float(row["rho"])] = values
    return tables


#: The paper's tables, target -> (scheme, rho) -> metrics in METRICS order.
PAPER = _published()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options shared by both targets."""
    parser.add_argument("--sets", type=int, help="job sets per load (default 20 for Table 1, 5 for Table 2)")
    parser.add_argument("--jobs", type=int, help="jobs per set (default 200 for Table 1, 20,000 for Table 2)")
    parser.add_argument("--loads", type=float, nargs="+", default=list(LOADS), help="loads rho to run "
                        "(default 0.2 0.5 0.7 0.9)")
    add_where(parser)
    add_seed(parser, 2001, "seed of the job sets")
    parser.add_argument("--occupy", choices=("size", "block"), default="size",
                        help="buddy fragment rule: a job holds p processors of its block (size) or all of it")
    parser.add_argument("--extra-slots-on", choices=("arrival", "decision"),
                        help="when BRMS and BRMMS hand out extra slots: when a job arrives, or at every "
                             "decision point (default: BRMS on arrivals, BRMMS at every decision point)")
    parser.add_argument("--engine", choices=("compiled", "python"), default="compiled",
                        help="the compiled headless loop (default) or the reference engine the GUI "
                             "steps; both give the same numbers, the reference one 12-50 times slower")
    add_json(parser, "print the averaged table and the findings as one JSON document on stdout")
    add_out(parser, "also write that JSON document to FILE")


def run_one(task: tuple[Any, ...]) -> dict[str, float]:
    """Run one scheme on one job set; ``task`` = (scheme, load, jobs, seed, occupy[,
    extra_slots_on[, engine]]): ``extra_slots_on`` ``None`` or absent for the scheme's own
    default; ``engine`` ``"compiled"`` (the default: the compiled loop of :mod:`gangviz.fast.buddy`,
    through :func:`gangviz.factory.run`) or ``"python"`` (the reference engine; both give the
    same metrics)."""
    from gangviz.factory import run
    from gangviz.workloads.source import Source
    from gangviz.workloads.synthetic import uniform_log

    scheme, load, jobs, seed, occupy, *rest = task
    extra_slots_on = rest[0] if rest and scheme in ("BRMS", "BRMMS") else None
    engine = rest[1] if len(rest) > 1 else "compiled"
    workload = uniform_log(jobs, load, procs=128, seed=seed)
    params = {"occupy": occupy}
    if extra_slots_on is not None:
        params["extra_slots_on"] = extra_slots_on
    source = Source("model", f"downey {jobs} jobs, load {load}, seed {seed}", 128, workload.jobs)
    return run(source, scheme, params=params,
               engine="reference" if engine == "python" else "compiled").metrics


def run_tasks(tasks: list[tuple[Any, ...]], workers: int = 1, scheduler: str | None = None,
              progress: Any = None
              ) -> tuple[dict[int, dict[str, float]], dict[int, str]]:
    """Run :func:`run_one` on every task through :func:`map_runs`, taking results as they
    complete; return ``(results, failures)``: task index -> metrics for the runs that finished,
    task index -> one-line message for the ones that failed (every index is in one of the two).
    Raises ``ValueError`` for ``workers`` < 1 or an unreachable scheduler."""
    results: dict[int, dict[str, float]] = {}
    failures: dict[int, str] = {}
    for index, result in map_runs(run_one, tasks, workers=workers, scheduler=scheduler,
                                  errors="return", progress=progress):
        if isinstance(result, RunFailed):
            failures[index] = result.message
        else:
            results[index] = result
    return results, failures


def _check_args(args: argparse.Namespace, sets: int, jobs: int) -> None:
    if sets < 1:
        raise ValueError(f"--sets must be >= 1, got {sets}")
    if jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {jobs}")
    if args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    for load in args.loads:
        if not 0 < load < 1.5:
            raise ValueError(f"--loads must lie in (0, 1.5), got {load}")


def findings(table: dict[tuple[str, float], dict[str, float]], loads: list[float]) -> list[tuple[str, bool]]:
    """Return ``(finding, holds)`` for the three findings of Zhou00 §4.3 over ``loads``."""
    out = []
    out.append(("BR beats BC on t_ta at every load",
                all(table["BR", r]["t_ta"] < table["BC", r]["t_ta"] for r in loads)))
    out.append(("BRMS has the largest n_l and n_a at every load",
                all(table["BRMS", r][k] >= max(table[s, r][k] for s in SCHEMES) for r in loads for k in ("n_l", "n_a"))))
    high = [r for r in loads if r >= 0.5]
    out.append(("BRMS has a worse t_sa than BR at rho >= 0.5",
                bool(high) and all(table["BRMS", r]["t_sa"] > table["BR", r]["t_sa"] for r in high)))
    out.append(("BRMMS has the best t_ta at every load",
                all(table["BRMMS", r]["t_ta"] <= min(table[s, r]["t_ta"] for s in SCHEMES) for r in loads)))
    out.append(("BRMMS has an n_a no greater than BR's at every load",
                all(table["BRMMS", r]["n_a"] <= table["BR", r]["n_a"] for r in loads)))
    return out


def _fmt(v: float) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "-"
    return f"{v:.2f}" if abs(v) < 1000 else f"{v:.0f}"


def run(target: str, args: argparse.Namespace) -> int:
    """Run ``target``, print our table beside the paper's and the findings; return 0 if all hold."""
    default_sets, default_jobs = DEFAULTS[target]
    sets = default_sets if args.sets is None else args.sets
    jobs = default_jobs if args.jobs is None else args.jobs
    _check_args(args, sets, jobs)
    loads = [float(x) for x in args.loads]
    tasks = []
    for li, load in enumerate(loads):
        for s in range(sets):
            seed = run_seed(args.seed, (li,), s)
            for scheme in SCHEMES:
                tasks.append((scheme, load, jobs, seed, args.occupy, args.extra_slots_on, args.engine))
    # Longest runs first, so the workers finish together: the cost grows with the load, and at
    # high load BRMS (dozens of extra slots per job) takes several times longer than the rest.
    tasks.sort(key=lambda t: (-t[1], EXPECTED_COST_RANK[t[0]]))
    print(f"{target}: {len(SCHEMES)} schemes x {plural(len(loads), 'load')} x "
          f"{plural(sets, 'set')} of {plural(jobs, 'job')} on 128 processors "
          f"({plural(len(tasks), 'run')} on {where(args)})", file=sys.stderr)
    if args.engine == "compiled" and not args.scheduler:
        compile_fast_loop()  # once here, so that the workers load it and the runs' time is theirs
    started = time.perf_counter()
    bar = ProgressBar(len(tasks))
    try:
        results, failures = run_tasks(tasks, args.workers, args.scheduler,
                                      progress=lambda done, _total: bar.update(done))
    finally:
        bar.close()
    for index, message in sorted(failures.items()):
        print(f"run {tasks[index][:2]} failed: {message}", file=sys.stderr)
    failed = len(failures)
    elapsed = time.perf_counter() - started
    table: dict[tuple[str, float], dict[str, float]] = {}
    for scheme in SCHEMES:
        for load in loads:
            rows = [results[i] for i, t in enumerate(tasks) if i in results and t[0] == scheme and t[1] == load]
            table[scheme, load] = {k: _mean([r[k] for r in rows]) for k in METRICS}
    verdicts = [] if failed else findings(table, loads)
    if args.json or args.out:
        from gangviz.policies.buddy import BRMMS, BRMS

        readings = {"BRMS": args.extra_slots_on or BRMS.default_extra_slots_on,
                    "BRMMS": args.extra_slots_on or BRMMS.default_extra_slots_on}
        doc = {"target": target, "sets": sets, "jobs": jobs, "seed": args.seed, "occupy": args.occupy,
               "engine": args.engine,
               "extra_slots_on": readings, "seconds": elapsed, "failed_runs": failed,
               "table": [{"scheme": s, "rho": r, **table[s, r]} for s in SCHEMES for r in loads],
               "findings": [{"finding": text, "holds": holds} for text, holds in verdicts]}
    if args.json:
        json.dump(doc, sys.stdout, indent=1)
        print()
    if args.out:
        from gangviz.outputs import write_text_atomically

        write_text_atomically(args.out, json.dumps(doc, indent=1) + "\n")
    if not args.json:
        _print_table(target, table, loads)
        if failed:
            print(f"{plural(failed, 'run')} failed; the findings are not checked.")
        else:
            print(f"\nFindings of {REFERENCES['zhou00']} §4.3:")
            for text, holds in verdicts:
                print(f"  {verdict(holds)} {text}")
        print(f"\n{len(tasks)} runs in {elapsed:.1f} s")
    if failed:
        return 1
    return RAN if all(holds for _, holds in verdicts) else FINDING_FAILED


def _mean(values: list[float]) -> float:
    values = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    return sum(values) / len(values) if values else math.nan


def _print_table(target: str, table: dict[Any, dict[str, float]], loads: list[float]) -> None:
    paper = PAPER[target]
    print(f"{'scheme':7} {'rho':>4} | " + " ".join(f"{m:>17}" for m in METRICS))
    print(f"{'':7} {'':>4} | " + " ".join(f"{'ours / paper':>17}" for _ in METRICS))
    for load in loads:
        for scheme in SCHEMES:
            ours = table[scheme, load]
            ref = paper.get((scheme, round(load, 2)))
            cells = []
            for k, metric in enumerate(METRICS):
                mine = ours[metric]
                if ref is None:
                    cells.append(f"{_fmt(mine):>17}")
                    continue
                theirs = ref[k]
                off = theirs and not math.isnan(mine) and abs(mine - theirs) / abs(theirs) > 0.25
                cells.append(f"{_fmt(mine) + ' / ' + _fmt(theirs) + ('!' if off else ' '):>17}")
            print(f"{scheme:7} {load:4.2f} | " + " ".join(cells))
    print("  (! marks a value more than 25% away from the paper's; see the README)")
