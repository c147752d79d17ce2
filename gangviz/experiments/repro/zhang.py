"""``gangviz repro zhang-table1``: Zhang, Franke, Moreira, Sivasubramaniam, Table 1 (§5.6).

The nine workloads of [Zhang01 §2.2] (service times x 1.0 .. 1.8, workload
model :mod:`gangviz.workloads.ibm`) run under GS, MGS, BGS and MBGS with MPL 5, a 200 s
slice, no context-switch overhead, and free, unlimited migration (the best case of Table 1);
estimates follow the Phi model with Phi = 0.2. For each workload the table shows utilisation rho
(eq. 1) and mean bounded slowdown s, averaged over the replications, and the percentage
improvement in s from migration, as in the paper. Then each finding of §5.6 is checked:

1. MGS beats GS on slowdown at every workload.
2. MBGS beats BGS on slowdown at every workload.
3. The gain from migration is largest at mid-to-high utilisation. The paper (§5.6): "the
   improvement is larger for mid-to-high utilizations between 70 and 90%. Improvements for low
   utilization are less because the system is not fully stressed [...] At very high loads, the
   matrix is already very full and migration accomplishes less than at mid-range
   utilizations"; its Table 1 peaks at workload 6 (rho 0.86-0.89) for both pairs, while the text
   puts the best BGS gain "at a utilization of 94%", hence the band [0.70, 0.95] of offered
   load. For both pairs, the mean gain over the workloads in the band must exceed the mean gain
   over those below it and the mean gain over those above it (the three sentences; it holds on
   the paper's own Table 1, where the band is workloads 3-7). A comparison of band means rather
   than the position of the single largest gain, because one workload's gain is noisy.
4. GS saturates well below BGS: the highest utilisation GS reaches over the nine workloads is
   at least ``--margin`` (default 0.03) below BGS's (the paper, §5.6: "the maximum utilization
   with gang-scheduling increases from 85% without migration to 94% with migration. Maximum
   utilization for backfilling gang-scheduling increases from 95% to 97%"; Table 1: 0.86
   against 0.96).
5. The gain from migration is smaller for BGS than for GS ("improvements for backfilling
   gang-scheduling are not as impressive as for gang-scheduling"): the mean BGS->MBGS gain over
   the nine workloads is below the mean GS->MGS gain.
6. GS saturates near rho 0.86 (its highest utilisation within ``SATURATION_TOLERANCE`` = 0.03
   of 0.86) and BGS goes past 0.94 (Table 1: 0.86 and 0.96).

Then the table is printed again beside the paper's Table 1 (:data:`PAPER_TABLE1`), with each
cell's gap: utilisation as ours minus the paper's, slowdown as ours over the paper's.

Time model: the policies decide at every arrival and departure (``--decide event``, the
default, as the paper's simulator does, §4.2); ``--decide boundary`` runs the older model, where
they decide only at slice boundaries.

Every policy and every workload of one replication runs on the same sample (common random
numbers: one seed per replication, ``run_seed(seed, (), replication)`` of
:mod:`gangviz.experiments.seeds`, service times scaled by the multiplier), so the pairs differ
only by policy. With ``--reps`` > 1 the table holds means over the replications, each finding
is also checked on every replication alone ("holds in k of R"), and the gains get a 95%
confidence half-width from the paired per-replication gains.

A single sample's offered load scatters widely around the nominal 0.55 x multiplier (see
:mod:`gangviz.workloads.ibm`); by default (``--calibrate``) each sample's arrival times
are scaled so that it offers exactly the paper's loads 0.55 .. 0.99; ``--no-calibrate`` keeps the
raw samples. The ``load`` column is the mean offered load of the samples.

Runs have the paper's 10,000 jobs by default; the 36 runs of one replication go to all local
cores (``--workers``) or to a Dask cluster (``--scheduler``) through
:func:`gangviz.experiments.runner.map_runs`. Shorter runs cannot show findings 3 and 4: with 1500
jobs the arrivals span about 4,500 slices while the longest jobs run 500, so the drain at the
end dominates eq. 1 (rho 0.50 at an offered 0.55), no policy is driven into saturation, and
the gain from migration keeps growing up to the highest load.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gangviz.experiments.argtypes import (
    non_negative_int,
    non_negative_seconds,
    positive_int,
    unit_fraction,
)
from gangviz.experiments.numbers import mean_ci, plural
from gangviz.experiments.options import add_json, add_out, add_seed
from gangviz.experiments.progress import ProgressBar, compile_fast_loop
from gangviz.experiments.repro import FINDING_FAILED, RAN, REFERENCES, add_where, verdict, where
from gangviz.experiments.runner import map_runs
from gangviz.experiments.seeds import run_seed
from gangviz.metrics.ibm import ibm_metrics, run_with_capacity
from gangviz.policies.ibm.gs import BGS, GS, MBGS, MGS
from gangviz.workloads.ibm import (
    BASELINE_RHO,
    MULTIPLIERS,
    PROCESSORS,
    SLICE_SECONDS,
    offered_load,
    zhang_workload,
)

TARGETS = {"zhang-table1": "Zhang et al. Table 1: GS, MGS, BGS, MBGS on nine workloads (MPL 5; free, unlimited "
                           "migration unless --migration-cost or --q) and the paper's findings"}

POLICIES = {"GS": GS, "MGS": MGS, "BGS": BGS, "MBGS": MBGS}
MPL = 5
MID_HIGH = (0.70, 0.95)
#: Where the paper's GS and BGS saturate (Table 1) and how close "near" is.
GS_SATURATION = 0.86
BGS_PAST = 0.94
SATURATION_TOLERANCE = 0.03

#: Table 1 of the paper (§5.6): per workload, (rho, s) of BGS, MBGS, GS, MGS.
PAPER_TABLE1 = (
    ((0.55, 2.5), (0.55, 2.1), (0.55, 3.9), (0.55, 2.6)),
    ((0.61, 3.2), (0.61, 2.5), (0.61, 7.0), (0.61, 4.0)),
    ((0.66, 3.8), (0.66, 2.9), (0.66, 18.8), (0.66, 6.9)),
    ((0.72, 6.5), (0.72, 3.7), (0.72, 44.8), (0.72, 13.5)),
    ((0.77, 8.0), (0.77, 5.1), (0.78, 125.6), (0.77, 29.4)),
    ((0.83, 11.9), (0.83, 7.6), (0.83, 405.6), (0.83, 54.4)),
    ((0.89, 22.4), (0.88, 11.0), (0.86, 1738.0), (0.88, 134.2)),
    ((0.94, 34.9), (0.94, 20.9), (0.86, 4147.7), (0.94, 399.3)),
    ((0.96, 67.9), (0.98, 56.8), (0.86, 5941.5), (0.97, 1609.9)),
)
TABLE_ORDER = ("BGS", "MBGS", "GS", "MGS")

#: the runs: ``{(policy, workload index): [metrics of each replication, in order]}``
Results = dict[tuple[str, int], list[dict[str, Any]]]
#: a table of :func:`summarize`: ``{(policy, workload index): (rho, bounded slowdown)}``
Summary = dict[tuple[str, int], tuple[float, float]]


def paper_table() -> Summary:
    """Return the paper's Table 1 as a :func:`summarize` table ``{(policy, workload): (rho, s)}``."""
    return {(p, w): cell for w, row in enumerate(PAPER_TABLE1) for p, cell in zip(TABLE_ORDER, row)}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--jobs``, ``--reps``, ``--workers``, ``--scheduler``, ``--decide``, ``--seed``,
    ``--calibrate``, ``--migration-cost``, ``--q``, ``--margin``, ``--engine`` and ``--json``."""
    p.add_argument("--jobs", type=positive_int, default=10_000,
                   help="jobs per workload (default: the paper's 10,000; 1500 runs in 1.5 minutes but is too "
                        "short to show saturation)")
    p.add_argument("--reps", type=positive_int, default=1, help="replications (seeds) per cell (default 1)")
    add_where(p)
    p.add_argument("--decide", choices=("event", "boundary"), default="event",
                   help="when the policies decide: at every arrival and departure (default, as in the "
                        "paper) or only at slice boundaries")
    add_seed(p, 1, "base seed")
    p.add_argument("--calibrate", action=argparse.BooleanOptionalAction, default=True,
                   help="scale each sample's arrival times so it offers exactly 0.55 x multiplier "
                        "(default on; --no-calibrate keeps the raw samples)")
    p.add_argument("--migration-cost", type=non_negative_seconds, default=0.0, metavar="SECONDS",
                   help="C, the cost of one migration in seconds, charged to the delayed jobs "
                        "(Table 1: 0; Fig. 15: 10)")
    p.add_argument("--q", type=non_negative_int, default=None,
                   help="most tasks migrated per time slice (Table 1: unlimited; Fig. 15: 64)")
    p.add_argument("--margin", type=unit_fraction, default=0.03,
                   help="how far below BGS's utilisation GS must saturate (default 0.03)")
    p.add_argument("--engine", choices=("compiled", "python"), default="compiled",
                   help="the compiled headless loop (default; decisions at events) or the reference engine "
                        "the GUI steps; both give the same numbers, the reference one 30-60 times slower")
    add_json(p, "print every run's metrics as one JSON document on stdout instead of the text")
    add_out(p, "also write that JSON document to FILE")


def run_cell(policy: str, multiplier: float, n_jobs: int, seed: int, calibrate: bool = False,
             migration_cost: float = 0.0, q: int | None = None, decide: str = "event",
             engine: str = "compiled") -> dict[str, Any]:
    """Return the §2.3 metrics of one policy on one workload and seed (plus bookkeeping:
    ``migrated_tasks``, ``migration_overhead`` in node-seconds, ``offered`` load of the sample,
    ``seed``). ``migration_cost`` (seconds) and ``q`` apply to MGS and MBGS only; ``decide`` is
    the time model (``"event"`` or ``"boundary"``); ``engine`` ``"compiled"`` runs the compiled
    loop of :mod:`gangviz.fast.gang` when it covers the run (decisions at events), which gives the
    same figures as the reference engine (``"python"``)."""
    from gangviz.factory import build
    from gangviz.fast.gang import covers, ibm_metrics_compiled
    from gangviz.workloads.source import Source

    w = zhang_workload(n_jobs, multiplier, seed=seed, calibrate=calibrate)
    params: dict[str, Any] = {"mpl": MPL, "decide": decide}
    if policy in ("MGS", "MBGS"):
        params.update(q=q, migration_cost=migration_cost / SLICE_SECONDS)
    if engine == "compiled" and covers(policy, params):
        out, run = ibm_metrics_compiled(w.jobs, policy, params, PROCESSORS, time_unit=SLICE_SECONDS)
        migrated, overhead = run.migrated_tasks, run.migration_overhead
    else:
        source = Source("model", f"zhang workload x{multiplier}, seed {seed}", PROCESSORS, w.jobs)
        sim = build(source, policy, params=params, record=False, watch=False)
        pol = sim.policy
        cap = run_with_capacity(sim)
        out = ibm_metrics(sim.records(), PROCESSORS, time_unit=SLICE_SECONDS, capacity=cap)
        migrated, overhead = pol.migrated_tasks, pol.migration_overhead
    out["migrated_tasks"] = migrated
    out["migration_overhead"] = overhead * SLICE_SECONDS
    out["offered"] = offered_load(w.jobs)
    out["seed"] = seed
    return out


def _star(args: tuple[Any, ...]) -> dict[str, Any]:
    return run_cell(*args)


def simulate(n_jobs: int, reps: int, workers: int, seed: int = 1, calibrate: bool = False,
             migration_cost: float = 0.0, q: int | None = None, decide: str = "event",
             scheduler: str | None = None, progress: Callable[[int, int], None] | None = None,
             engine: str = "compiled") -> Results:
    """Run every cell on ``workers`` local processes (or the Dask ``scheduler``); return
    ``{(policy, workload index): [metrics per replication, in replication order]}``.
    ``progress(done, total)``, if given, is called as runs finish; ``engine`` as in
    :func:`run_cell`.

    Raises ``ValueError`` for a negative seed, and what :func:`map_runs` raises.
    """
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    keys, tasks = [], []
    for wi, mult in enumerate(MULTIPLIERS):
        for r in range(reps):
            for name in POLICIES:
                keys.append((name, wi))
                tasks.append((name, mult, n_jobs, run_seed(seed, (), r), calibrate, migration_cost, q, decide, engine))
    if engine == "compiled" and decide == "event" and not scheduler:
        from gangviz.fast.gang import warm_up

        compile_fast_loop(warm=warm_up)  # once here, so that the workers load it from the cache
    # Biggest workloads first, so the pool's tail is short.
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i][1])
    outs: dict[int, dict[str, Any]] = {}
    for k, out in map_runs(_star, [tasks[i] for i in order], workers=workers, scheduler=scheduler,
                           progress=progress):
        outs[order[k]] = out
    results: Results = {}
    for i in range(len(tasks)):
        results.setdefault(keys[i], []).append(outs[i])
    return results


def summarize(results: Results, rep: int | None = None) -> Summary:
    """Return ``{(policy, workload): (mean rho, mean slowdown)}`` over all replications, or of
    replication ``rep`` alone."""
    def pick(v: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return v if rep is None else v[rep:rep + 1]
    return {k: (float(np.mean([m["utilization"] for m in pick(v)])), float(np.mean([m["bounded_slowdown"] for m in pick(v)])))
            for k, v in results.items()}


def offered_loads(results: Results) -> list[float]:
    """Return the mean offered load of the samples of each workload (nominal if not recorded)."""
    n = len(MULTIPLIERS)
    return [float(np.mean([m.get("offered", BASELINE_RHO * MULTIPLIERS[w]) for m in results[("GS", w)]]))
            for w in range(n)]


#: Two-sided 95% quantiles of Student's t by degrees of freedom (larger df: the next lower key).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
         10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000, 120: 1.980}


def t975(df: int) -> float:
    """Return the two-sided 95% quantile of Student's t with ``df`` >= 1 degrees of freedom
    (rounded down to the nearest tabulated df, so never too small). Raises ``ValueError`` for df < 1."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    return _T975[max(k for k in _T975 if k <= df)]


def paired_gains(results: Results, a: str, b: str) -> list[tuple[float, float]]:
    """Return, per workload, the mean over replications of the gain of ``b`` over ``a`` (each
    replication pairs the two policies on one sample) and the half-width of its 95% confidence
    interval (Student's t; NaN with one replication)."""
    out = []
    for w in range(len(MULTIPLIERS)):
        g = np.array([gain(x["bounded_slowdown"], y["bounded_slowdown"]) for x, y in zip(results[(a, w)], results[(b, w)])])
        half = t975(len(g) - 1) * g.std(ddof=1) / np.sqrt(len(g)) if len(g) > 1 else float("nan")
        out.append((float(g.mean()), float(half)))
    return out


def gain(before: float, after: float) -> float:
    """Return the percentage improvement of ``after`` over ``before`` (positive = better)."""
    return 100.0 * (before - after) / before


def findings(table: Summary, margin: float = 0.03, loads: list[float] | None = None) -> list[tuple[str, bool]]:
    """Return (sentence, holds) for each finding of §5.6 on a :func:`summarize` table;
    ``loads`` are the offered loads of the nine workloads (default: the nominal 0.55 x
    multiplier)."""
    n = len(MULTIPLIERS)
    if loads is None:
        loads = [BASELINE_RHO * m for m in MULTIPLIERS]
    out = []
    for a, b in (("GS", "MGS"), ("BGS", "MBGS")):
        worse = [w for w in range(n) if not table[(b, w)][1] < table[(a, w)][1]]
        out.append((f"{b} beats {a} on slowdown at every workload"
                    + (f" (not at workload {', '.join(map(str, worse))})" if worse else ""), not worse))
    lo, hi = MID_HIGH
    ok, parts = True, []
    bands = {"low": [w for w in range(n) if loads[w] < lo], "mid": [w for w in range(n) if lo <= loads[w] <= hi],
             "top": [w for w in range(n) if loads[w] > hi]}
    for a, b in (("GS", "MGS"), ("BGS", "MBGS")):
        gains = [gain(table[(a, w)][1], table[(b, w)][1]) for w in range(n)]
        mean = {k: float(np.mean([gains[w] for w in ws])) if ws else math.nan for k, ws in bands.items()}
        holds = bool(bands["mid"]) and all(not mean["mid"] <= mean[k] for k in ("low", "top") if bands[k])
        ok &= holds
        best = int(np.argmax(gains))
        parts.append(f"{a}->{b} mean gain {mean['low']:.1f}% below, {mean['mid']:.1f}% within, "
                     f"{mean['top']:.1f}% above (largest {gains[best]:.1f}% at workload {best}, "
                     f"offered load {loads[best]:.2f})")
    out.append((f"the gain is largest at mid-to-high utilisation (offered load {lo:.2f}..{hi:.2f}): "
                + "; ".join(parts), ok))
    gs_max = max(table[("GS", w)][0] for w in range(n))
    bgs_max = max(table[("BGS", w)][0] for w in range(n))
    out.append((f"GS saturates well below BGS: max utilisation GS {gs_max:.3f} vs BGS {bgs_max:.3f} "
                f"(needs a gap of at least {margin:.2f})", gs_max + margin <= bgs_max))
    g_gs = float(np.mean([gain(table[("GS", w)][1], table[("MGS", w)][1]) for w in range(n)]))
    g_bgs = float(np.mean([gain(table[("BGS", w)][1], table[("MBGS", w)][1]) for w in range(n)]))
    out.append((f"the gain from migration is smaller for BGS than for GS: mean {g_bgs:.1f}% against "
                f"{g_gs:.1f}%", g_bgs < g_gs))
    tol = SATURATION_TOLERANCE
    out.append((f"GS saturates near rho {GS_SATURATION:.2f} (within {tol:.2f}: {gs_max:.3f}) and BGS goes "
                f"past {BGS_PAST:.2f} ({bgs_max:.3f})", abs(gs_max - GS_SATURATION) <= tol and bgs_max > BGS_PAST))
    return out


def format_paper_gaps(table: Summary) -> str:
    """Return our table beside the paper's Table 1: per workload and policy, our rho and s, the
    paper's, and the gaps (rho: ours minus the paper's; s: ours over the paper's)."""
    paper = paper_table()
    head = f"{'wl':>2} " + " | ".join(f"{p:^32}" for p in TABLE_ORDER)
    sub = "   " + " | ".join(f"{'rho':>5} {'paper':>5} {'s':>6} {'paper':>6} {'x':>6}" for _ in TABLE_ORDER)
    lines = [head, sub, "-" * len(sub)]
    for w in range(len(MULTIPLIERS)):
        cells = []
        for p in TABLE_ORDER:
            (r, sd), (pr, ps) = table[(p, w)], paper[(p, w)]
            cells.append(f"{r:>5.2f} {pr:>5.2f} {sd:>6.1f} {ps:>6.1f} {sd / ps:>6.3g}")
        lines.append(f"{w:>2} " + " | ".join(cells))
    return "\n".join(lines)


def paper_gap_summary(table: Summary) -> list[str]:
    """Return one line per policy: how far our slowdowns and utilisations are from Table 1's
    (the range of ours/paper for s over the nine workloads, the largest |rho gap|)."""
    paper = paper_table()
    out = []
    for p in TABLE_ORDER:
        ratios = [table[(p, w)][1] / paper[(p, w)][1] for w in range(len(MULTIPLIERS))]
        rho = max(abs(table[(p, w)][0] - paper[(p, w)][0]) for w in range(len(MULTIPLIERS)))
        geo = float(np.exp(np.mean(np.log(ratios))))
        out.append(f"{p:>4}: s is {min(ratios):.3g}x to {max(ratios):.3g}x the paper's (geometric mean "
                   f"{geo:.3g}x); rho within {rho:.2f} of the paper's")
    return out


def format_table(table: Summary, loads: list[float] | None = None) -> str:
    """Return Table 1's layout: per workload, rho and s of BGS, MBGS, GS, MGS and the gains;
    ``loads`` as in :func:`findings`."""
    if loads is None:
        loads = [BASELINE_RHO * m for m in MULTIPLIERS]
    head = (f"{'wl':>2} {'load':>5} | {'BGS rho':>7} {'s':>7} {'MBGS rho':>8} {'s':>7} {'%better':>7} | "
            f"{'GS rho':>6} {'s':>8} {'MGS rho':>7} {'s':>7} {'%better':>7}")
    lines = [head, "-" * len(head)]
    for w in range(len(MULTIPLIERS)):
        b, mb, g, mg = (table[(p, w)] for p in ("BGS", "MBGS", "GS", "MGS"))
        lines.append(f"{w:>2} {loads[w]:>5.2f} | {b[0]:>7.2f} {b[1]:>7.1f} {mb[0]:>8.2f} {mb[1]:>7.1f} "
                     f"{gain(b[1], mb[1]):>6.1f}% | {g[0]:>6.2f} {g[1]:>8.1f} {mg[0]:>7.2f} {mg[1]:>7.1f} "
                     f"{gain(g[1], mg[1]):>6.1f}%")
    return "\n".join(lines)


def run(target: str, args: argparse.Namespace) -> int:
    """Run the reproduction, print the table and the findings (or, with ``--json``, one JSON
    document); return ``RAN`` if every finding holds, else ``FINDING_FAILED``."""
    t0 = time.perf_counter()
    runs = len(MULTIPLIERS) * args.reps * len(POLICIES)
    print(f"zhang-table1: {plural(runs, 'run')} of {plural(args.jobs, 'job')} on {where(args)}",
          file=sys.stderr)
    bar = ProgressBar(runs)
    try:
        results = simulate(args.jobs, args.reps, args.workers, args.seed, args.calibrate,
                           args.migration_cost, args.q, args.decide, args.scheduler,
                           progress=lambda done, _total: bar.update(done), engine=args.engine)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    table = summarize(results)
    loads = offered_loads(results)
    verdicts = findings(table, args.margin, loads)
    ok = all(holds for _, holds in verdicts)
    if args.json or args.out:
        doc = {"target": target, "jobs": args.jobs, "reps": args.reps, "seed": args.seed,
               "runs": [{"policy": p, "workload": w, "multiplier": MULTIPLIERS[w], "runs": v}
                        for (p, w), v in sorted(results.items())],
               "findings": [{"finding": text, "holds": holds} for text, holds in verdicts]}
        if args.out:
            from gangviz.outputs import write_text_atomically

            write_text_atomically(args.out, json.dumps(doc, indent=1) + "\n")
        if args.json:
            json.dump(doc, sys.stdout, indent=1)
            print()
            return RAN if ok else FINDING_FAILED
    print(f"{TARGETS[target]}\n{plural(args.reps, 'replication')} x {args.jobs:,} jobs per workload, "
          f"{PROCESSORS} nodes, MPL {MPL}, slice {SLICE_SECONDS:g} s, Phi 0.2, "
          f"{'calibrated' if args.calibrate else 'raw'} offered loads, migration cost "
          f"{args.migration_cost:g} s, Q {'unlimited' if args.q is None else args.q}, decisions at "
          f"{'every arrival and departure' if args.decide == 'event' else 'slice boundaries'}\n")
    print(format_table(table, loads))
    if args.reps > 1:
        print("\npaired gains in s over the replications, in % (mean ± 95% CI half-width):")
        for a, b in (("GS", "MGS"), ("BGS", "MBGS")):
            print(f"  {a}->{b}: " + "  ".join(f"{w}: {mean_ci(g, h)}" for w, (g, h) in
                                              enumerate(paired_gains(results, a, b))))
    per_rep = [findings(summarize(results, r), args.margin,
                        [results[("GS", w)][r].get("offered", loads[w]) for w in range(len(MULTIPLIERS))])
               for r in range(args.reps)]
    print(f"\nFindings of {REFERENCES['zhang01']} §5.6:")
    for i, (text, holds) in enumerate(verdicts):
        count = sum(f[i][1] for f in per_rep)
        tail = f" [holds in {count} of {args.reps} replications]" if args.reps > 1 else ""
        print(f"  {verdict(holds)} {text}{tail}")
    print("\nbeside the paper's Table 1 (x = our s / the paper's s):")
    print(format_paper_gaps(table))
    print("\nhow far from the paper:")
    for line in paper_gap_summary(table):
        print("  " + line)
    print(f"\n{plural(len(results) * args.reps, 'run')} in {elapsed:.1f} s")
    return RAN if ok else FINDING_FAILED
