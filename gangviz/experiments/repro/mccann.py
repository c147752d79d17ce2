"""``gangviz repro mccann``: McCann & Zahorjan, memory-constrained scheduling (§4.2, §5).

Reproduces Table 1 (exactly), the overhead curves of Fig. 9 (against J), Fig. 10 (against N) and
Fig. 11 (against k), and the relative response times of Fig. 13-18 (static and dynamic jobs,
relative to OPT-EPOCH(1)), then states each finding of the paper's text and whether it holds.
Source: [McCann94]; the choices behind the experiments are in
:mod:`gangviz.experiments.repro.mccann_runs`.

Every point is one task of :func:`gangviz.experiments.runner.map_runs` (local processes with
``--workers``, a Dask cluster with ``--scheduler``); trial r of (N, J, load) uses
``run_seed(seed, (stream, N, J, load in per mille), r)`` (:mod:`gangviz.experiments.seeds`;
stream 0 draws the minima of the overhead and load-imbalance trials, stream 1 seeds the
response-time simulations), so every figure that shares (N, J, load) shares its minima.

``--spread`` picks the reading of §4.3 for HEURISTIC(k)'s free nodes (equal shares by default,
see :func:`gangviz.epoch.epochs.heuristic_epoch_epochs`); it changes the widths, hence the
static-workload response times of Fig. 15, but never the overheads. The load-imbalance table
printed before Fig. 13 shows why the static differences stay far below the paper's "as high as
90%" (:mod:`gangviz.epoch.speedup` gives the bound).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gangviz.epoch.partitions import count_valid_partitions
from gangviz.experiments.argtypes import int_list, positive_int
from gangviz.experiments.options import add_seed
from gangviz.experiments.progress import ProgressBar
from gangviz.experiments.repro import FINDING_FAILED, RAN, REFERENCES, add_where, verdict, where
from gangviz.experiments.repro.mccann_runs import (
    BASELINE,
    OVERHEAD_POLICIES,
    RESPONSE_POLICIES,
    k_policy,
    run_task,
)
from gangviz.experiments.runner import map_runs
from gangviz.experiments.seeds import run_seed

TARGETS = {"mccann": "McCann & Zahorjan: Table 1, overhead (Fig. 9-11), response time "
                     "(Fig. 13-18) and the paper's findings"}

TABLE_1 = [8, 128, 2144, 21527, 144055, 692693, 2560378]
K_PANELS = ((7, 1.0), (8, 1.0), (15, 2.0), (16, 2.0))  # Fig. 11, 15 and 18: (J, load factor)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options that size the work."""
    p.add_argument("--reps", type=positive_int, default=200,
                   help="Monte-Carlo trials per overhead point (default 200)")
    p.add_argument("--jobs", type=int_list, default=None,
                   help="J values of Fig. 9 (default 2..32; 4..32 at load 200%%)")
    p.add_argument("--nodes", type=int_list, default=None,
                   help="N values of Fig. 10 (default 32,48,...,256)")
    p.add_argument("--max-k", type=int, default=6, choices=range(1, 9), metavar="K",
                   help="largest inequity k of Fig. 11, 15, 18 (1..8, default 6)")
    p.add_argument("--departures", type=positive_int, default=1000,
                   help="measured departures per response-time run (default 1000)")
    p.add_argument("--warmup", type=int, default=100,
                   help="departures discarded first (default 100)")
    p.add_argument("--rt-reps", type=positive_int, default=2,
                   help="replications per response-time point (default 2)")
    p.add_argument("--rt-jobs", type=int_list, default=[4, 6, 7, 8, 12, 15, 16],
                   help="J values of Fig. 13/16 (default 4,6,7,8,12,15,16)")
    p.add_argument("--rt-nodes", type=int_list, default=[64, 96, 128, 160, 192, 256],
                   help="N values of Fig. 14/17 (default 64,96,128,160,192,256)")
    p.add_argument("--spread", choices=("shares", "level"), default="shares",
                   help="how HEURISTIC(k) and HYBRID(k) hand out an epoch's free nodes (§4.3): "
                        "equal shares with the excess to the narrowest (default) or levelling "
                        "the widths")
    p.add_argument("--skip-response", action="store_true", help="only Table 1 and overhead")
    add_where(p)
    add_seed(p, 0, "base seed")


#: One run of the reproduction: ``(kind, key, args)`` for
#: :func:`~gangviz.experiments.repro.mccann_runs.run_task`; ``key`` names the point in the results.
_Task = tuple[str, tuple[Any, ...], tuple[Any, ...]]


def _fmt(v: float | None) -> str:
    return "     -" if v is None else f"{v:6.3f}"


def _table(title: str, label: str, rows: Sequence[tuple[object, Mapping[str, float | None]]],
           cols: list[str]) -> None:
    print(f"\n{title}")
    print(f"{label:>10} " + " ".join(f"{c[:14]:>14}" for c in cols))
    for key, values in rows:
        print(f"{key!s:>10} " + " ".join(f"{_fmt(values.get(c)):>14}" for c in cols))


class Findings:
    """Collects (statement, holds, evidence) lines."""

    def __init__(self) -> None:
        self.items: list[tuple[str, bool, str]] = []

    def check(self, text: str, holds: bool, evidence: str) -> None:
        """Record one finding."""
        self.items.append((text, bool(holds), evidence))

    def print(self) -> int:
        """Print all findings; return how many do not hold."""
        print(f"\nFindings of {REFERENCES['mccann94']}")
        for text, ok, evidence in self.items:
            print(f"  {verdict(ok)} {text}\n          {evidence}")
        failed = sum(not ok for _, ok, _ in self.items)
        print(f"\n{len(self.items) - failed} of {len(self.items)} findings hold")
        return failed


def run(target: str, args: argparse.Namespace) -> int:
    """Run the reproduction; print tables and findings; return ``RAN``, or ``FINDING_FAILED``
    when a finding does not hold."""
    if args.warmup < 0:
        raise ValueError(f"--warmup must be >= 0, got {args.warmup}")
    started = time.perf_counter()
    f = Findings()
    _table1(f)
    _overhead(args, f)
    if not args.skip_response:
        _response(args, f)
    failed = f.print()
    print(f"elapsed {time.perf_counter() - started:.1f} s on {where(args)}")
    return FINDING_FAILED if failed else RAN


def _table1(f: Findings) -> None:
    counts = [count_valid_partitions(128, k) for k in range(7)]
    print("Table 1: valid partitions of N = 128 by allowed inequity k")
    print("  k        " + " ".join(f"{k:>9}" for k in range(7)))
    print("  computed " + " ".join(f"{c:>9}" for c in counts))
    print("  paper    " + " ".join(f"{c:>9}" for c in TABLE_1))
    f.check("Table 1: the numbers of valid partitions of N = 128 for k = 0..6 are "
            "8, 128, 2144, 21527, 144055, 692693, 2560378", counts == TABLE_1,
            f"computed {counts}")


def _overhead(args: argparse.Namespace, f: Findings) -> None:
    pols = list(OVERHEAD_POLICIES)
    loads = (1.0, 2.0)
    jobs = {1.0: args.jobs or list(range(2, 33)), 2.0: args.jobs or list(range(4, 33))}
    nodes = args.nodes or list(range(32, 257, 16))
    ks = list(range(args.max_k + 1))
    kfams = ("HEURISTIC", "HYBRID", "OPT-EPOCH")
    tasks: list[_Task] = []
    for load in loads:
        tasks += [("overhead", ("J", load, j), (128, j, load, pols, trial_seeds(args, MINIMA, 128, j, load)))
                  for j in jobs[load]]
        tasks += [("overhead", ("N", load, n), (n, 8, load, pols, trial_seeds(args, MINIMA, n, 8, load)))
                  for n in nodes]
    for j, load in K_PANELS:
        names = [k_policy(fam, k) for fam in kfams for k in ks if fam != "OPT-EPOCH" or k <= 1]
        tasks.append(("overhead", ("k", load, j), (128, j, load, names, trial_seeds(args, MINIMA, 128, j, load))))
    res = _run_with_bar("overhead (Fig. 9-11)", tasks, args)

    for load in loads:
        _table(f"Fig. 9: normalised overhead vs J (N = 128, load {load:.0%}, {args.reps} trials)",
               "J", [(j, res[("J", load, j)]) for j in jobs[load]], pols)
    for load in loads:
        _table(f"Fig. 10: normalised overhead vs N (J = 8, load {load:.0%})", "N",
               [(n, res[("N", load, n)]) for n in nodes], pols)
    for j, load in K_PANELS:
        row = res[("k", load, j)]
        table = [(k, {fam: row.get(k_policy(fam, k)) for fam in kfams}) for k in ks]
        _table(f"Fig. 11: normalised overhead vs k (N = 128, J = {j}, load {load:.0%}; "
               f"k = 0 is EQUI-EPOCH / BUDDY* / OPT-EPOCH(0))", "k", table, list(kfams))

    # Fig. 9 findings
    for load in loads:
        js = jobs[load]
        pairs = [(j, j + 1) for j in (3, 7, 15, 31) if j in js and j + 1 in js]
        if pairs:
            bad = all(res[("J", load, a)][p] > res[("J", load, b)][p]
                      for a, b in pairs for p in ("BUDDY*", "EQUI-EPOCH"))
            f.check(f"Fig. 9 (load {load:.0%}): BUDDY and EQUI-EPOCH react badly to J that must "
                    "be broken into many subsets (overhead at J = 2^m - 1 above J = 2^m)", bad,
                    "; ".join(f"J={a}/{b}: BUDDY {res[('J', load, a)]['BUDDY*']:.2f}/"
                              f"{res[('J', load, b)]['BUDDY*']:.2f}, EQUI "
                              f"{res[('J', load, a)]['EQUI-EPOCH']:.2f}/"
                              f"{res[('J', load, b)]['EQUI-EPOCH']:.2f}" for a, b in pairs))
        spread = {p: max(res[("J", load, j)][p] for j in js) - min(res[("J", load, j)][p]
                                                                    for j in js) for p in pols}
        if len(js) > 1:
            f.check(f"Fig. 9 (load {load:.0%}): OPT-EPOCH(1) and HEURISTIC(1) are relatively "
                    "unaffected by J (their range over J is below BUDDY's and EQUI-EPOCH's)",
                    max(spread["OPT-EPOCH(1)"], spread["HEURISTIC(1)"])
                    < min(spread["BUDDY*"], spread["EQUI-EPOCH"]),
                    "range over J: " + ", ".join(f"{p} {v:.2f}" for p, v in spread.items()))
        mean = {p: sum(res[("J", load, j)][p] for j in js) / len(js) for p in pols}
        f.check(f"Fig. 9 (load {load:.0%}): HYBRID(1) falls in between BUDDY and "
                "HEURISTIC-EPOCH(1) (mean over J)",
                min(mean["HEURISTIC(1)"], mean["BUDDY*"]) - 1e-12 <= mean["HYBRID(1)"]
                <= max(mean["HEURISTIC(1)"], mean["BUDDY*"]) + 1e-12,
                "mean over J: " + ", ".join(f"{p} {v:.2f}" for p, v in mean.items()))
    # Fig. 10 findings
    pow2 = [n for n in nodes if n & (n - 1) == 0]
    for load in loads:
        if pow2:
            better = all(res[("N", load, n)]["BUDDY*"] < min(res[("N", load, n)][p] for p in
                         ("EQUI-EPOCH", "OPT-EPOCH(1)", "HEURISTIC(1)")) for n in pow2)
            f.check(f"Fig. 10 (load {load:.0%}): with J = 8 the BUDDY-based policies have the "
                    "lowest overhead wherever they apply (N a power of two)", better,
                    "; ".join(f"N={n}: BUDDY {res[('N', load, n)]['BUDDY*']:.2f} vs "
                              f"OPT-EPOCH(1) {res[('N', load, n)]['OPT-EPOCH(1)']:.2f}"
                              for n in pow2))
    if {144, 160, 176} <= set(nodes):
        e = {n: res[("N", 1.0, n)]["EQUI-EPOCH"] for n in (144, 160, 176)}
        f.check("Fig. 10 (load 100%): EQUI-EPOCH oscillates with the prime factors of N, "
                "with a spike at N = 160", e[160] > max(e[144], e[176]),
                f"EQUI-EPOCH at N = 144, 160, 176: {e[144]:.2f}, {e[160]:.2f}, {e[176]:.2f}")
    # Fig. 11 findings
    for j, load in K_PANELS:
        row = res[("k", load, j)]
        h = [row[k_policy("HEURISTIC", k)] for k in ks]
        mono = all(b <= a * 1.02 + 1e-9 for a, b in zip(h, h[1:]))
        f.check(f"Fig. 11 (J = {j}, load {load:.0%}): increasing the allowed inequity k does "
                "not increase overhead (HEURISTIC(k), 2% tolerance)", mono,
                "HEURISTIC(k) for k = 0..: " + ", ".join(f"{v:.2f}" for v in h))
        if j in (7, 15) and len(h) > 2:
            f.check(f"Fig. 11 (J = {j}): the major advantage of inequity comes at k = 1 (the "
                    "drop from EQUI-EPOCH to HEURISTIC(1) exceeds all later drops)",
                    h[0] - h[1] > h[1] - min(h[1:]),
                    f"k=0 -> 1: {h[0] - h[1]:.2f}; k=1 -> best: {h[1] - min(h[1:]):.2f}")


#: The seed streams of :func:`trial_seeds`: minima of the overhead trials, response simulations.
MINIMA, RESPONSE = 0, 1


def trial_seeds(args: argparse.Namespace, stream: int, nodes: int, jobs: int, load: float) -> list[int]:
    """Return the seed of each trial of (N, J, load) in ``stream``: ``args.reps`` of them for
    :data:`MINIMA`, ``args.rt_reps`` for :data:`RESPONSE` (:func:`run_seed` with cell
    ``(stream, N, J, load in per mille)``). Raises ``ValueError`` for a negative ``--seed``."""
    reps = args.reps if stream == MINIMA else args.rt_reps
    cell = (stream, nodes, jobs, round(load * 1000))
    return [run_seed(args.seed, cell, r) for r in range(reps)]


def run_points(tasks: list[_Task], workers: int = 1, scheduler: Any = None,
               progress: Callable[[int, int], None] | None = None) -> dict[tuple[Any, ...], Any]:
    """Return ``{key: result}`` of ``(kind, key, args)`` tasks run by :func:`map_runs`
    (:func:`gangviz.experiments.repro.mccann_runs.run_task` each, taken as they complete); raises what
    :func:`map_runs` raises, :class:`~gangviz.experiments.runner.RunError` for a failed run."""
    return dict(result for _, result in map_runs(run_task, tasks, workers=workers,
                                                  scheduler=scheduler, progress=progress))


def _run_with_bar(what: str, tasks: list[_Task],
                  args: argparse.Namespace) -> dict[tuple[Any, ...], Any]:
    """Return :func:`run_points` of ``tasks``, with a progress bar on stderr."""
    print(f"mccann: {what}, {len(tasks)} runs on {where(args)}", file=sys.stderr)
    bar = ProgressBar(len(tasks))
    try:
        return run_points(tasks, args.workers, args.scheduler, lambda done, _total: bar.update(done))
    finally:
        bar.close()


def _k_name(family: str, k: int, jobs: int) -> str:
    """Return the policy to run for (family, k); HYBRID(k) is BUDDY* when J is a power of two."""
    if family == "HYBRID" and jobs & (jobs - 1) == 0:
        return "BUDDY*"
    return k_policy(family, k)


def _response(args: argparse.Namespace, f: Findings) -> None:
    pols = list(RESPONSE_POLICIES)
    ks = list(range(args.max_k + 1))
    def common(nodes: int, jobs: int, load: float) -> tuple[Any, ...]:
        return (args.departures, args.warmup, trial_seeds(args, RESPONSE, nodes, jobs, load), 10.0,
                args.spread)

    factor_pols = pols + [k_policy("HEURISTIC", k) for k in ks if k >= 2]
    tasks: list[_Task] = [("factor", ("F", j), (128, j, 1.0, factor_pols, trial_seeds(args, MINIMA, 128, j, 1.0),
                                   args.spread))
             for j in args.rt_jobs]
    for static in (True, False):
        for j in args.rt_jobs:
            tasks += [("rt", ("J", static, j, p), (128, j, 1.0, p, static, *common(128, j, 1.0)))
                      for p in pols]
        for n in args.rt_nodes:
            tasks += [("rt", ("N", static, n, p), (n, 8, 1.0, p, static, *common(n, 8, 1.0)))
                      for p in pols]
        for j, load in K_PANELS:
            names = {BASELINE} | {_k_name(fam, k, j) for fam in ("HEURISTIC", "HYBRID")
                                  for k in ks}
            tasks += [("rt", ("k", static, j, p), (128, j, load, p, static, *common(128, j, load)))
                      for p in sorted(names)]
    res = _run_with_bar("response time (Fig. 13-18)", tasks, args)
    factors = {j: res[("F", j)] for j in args.rt_jobs}
    _table(f"Load imbalance: mean S_static / S_dynamic of the widths each policy gives "
           f"(N = 128, load 100%, {args.reps} random minima, HEURISTIC spread "
           f"'{args.spread}')", "J", [(j, factors[j]) for j in args.rt_jobs], factor_pols)

    def rel(kind: str, static: bool, x: int, p: str) -> float | None:
        v, base = res[(kind, static, x, p)], res[(kind, static, x, BASELINE)]
        return None if v is None else v / base

    def rel_at_128(kind: str, static: bool, x: int, p: str) -> float:
        # on N = 128 (a power of two) every policy applies, so the figure is there
        v = rel(kind, static, x, p)
        assert v is not None
        return v

    summary: dict[bool, list[float]] = {}
    for static in (True, False):
        mode = "static" if static else "dynamic"
        fig = (13, 14, 15) if static else (16, 17, 18)
        _table(f"Fig. {fig[0]}: {mode} jobs, response time relative to OPT-EPOCH(1) vs J "
               f"(N = 128, load 100%)", "J",
               [(j, {p: rel("J", static, j, p) for p in pols}) for j in args.rt_jobs], pols)
        _table(f"Fig. {fig[1]}: {mode} jobs, relative response time vs N (J = 8, load 100%)",
               "N", [(n, {p: rel("N", static, n, p) for p in pols}) for n in args.rt_nodes],
               pols)
        for j, load in K_PANELS:
            _table(f"Fig. {fig[2]}: {mode} jobs, relative response time vs k (J = {j}, load "
                   f"{load:.0%}; k = 0 is EQUI-EPOCH / BUDDY*)", "k",
                   [(k, {fam: rel("k", static, j, _k_name(fam, k, j))
                         for fam in ("HEURISTIC", "HYBRID")}) for k in ks],
                   ["HEURISTIC", "HYBRID"])
        values = [rel(kind, static, x, p) for kind, xs in (("J", args.rt_jobs),
                                                           ("N", args.rt_nodes))
                  for x in xs for p in pols]
        summary[static] = [v for v in values if v is not None]
        equal = {p: [rel_at_128("J", static, j, p) for j in args.rt_jobs] for p in ("EQUI-EPOCH",
                                                                            "BUDDY*")}
        mean = {p: sum(v) / len(v) for p, v in equal.items()}
        if static:
            f.check("Static jobs (Fig. 13-15): the policies that provide equal allocation "
                    "(BUDDY, EQUI-EPOCH) perform substantially better than OPT-EPOCH(1) "
                    "(mean relative response time over J below 1)",
                    all(v < 1 for v in mean.values()),
                    ", ".join(f"{p} {v:.3f}" for p, v in mean.items()))
            for j, load in K_PANELS:
                h = [rel_at_128("k", True, j, k_policy("HEURISTIC", k)) for k in ks]
                grow_ok = h[-1] > h[1]
                f.check(f"Static jobs (Fig. 15, J = {j}, load {load:.0%}): the penalty of "
                        "unequal allocation grows with the allowed inequity k "
                        f"(HEURISTIC({ks[-1]}) slower than HEURISTIC(1))", grow_ok,
                        f"relative response time k = 1 -> {ks[-1]}: {h[1]:.3f} -> {h[-1]:.3f}")
        else:
            f.check("Dynamic jobs (Fig. 16-18): policies that allow unequal allocation are in "
                    "general preferable (EQUI-EPOCH's mean relative response time over J is "
                    "not below OPT-EPOCH(1)'s)", mean["EQUI-EPOCH"] >= 1.0,
                    ", ".join(f"{p} {v:.3f}" for p, v in mean.items()))
            best_k = []
            for j, _load in K_PANELS:
                h = [rel_at_128("k", False, j, k_policy("HEURISTIC", k)) for k in ks]
                best_k.append(min(range(len(h)), key=h.__getitem__))
            f.check("Dynamic jobs (Fig. 18): absolute equality is not required to minimise "
                    "response time (the best k of HEURISTIC(k) is >= 1 in every panel)",
                    all(k >= 1 for k in best_k), f"best k per panel: {best_k}")
    spread_s = max(abs(v - 1) for v in summary[True])
    spread_d = max(abs(v - 1) for v in summary[False])
    within = sum(abs(v - 1) < 0.10 for v in summary[False]) / len(summary[False])
    worst = min(v for row in factors.values() for v in row.values() if v is not None)
    f.check("Static jobs: the distinctions among policies run as high as 90% (largest "
            "|relative response time - 1| of Fig. 13-14 at least 0.5)", spread_s >= 0.5,
            f"largest static |relative - 1|: {spread_s:.3f}; the S_static formula of §5.2 "
            f"keeps every width <= N/2 above 2/3 of S_dynamic, and the policies' mean factor "
            f"is >= {worst:.3f} (table above), so load imbalance cannot cost 90%")
    f.check("The differences among policies are much smaller for dynamic than for static jobs; "
            "almost all dynamic differences are under 10%", spread_d < spread_s and within >= 0.8,
            f"largest |relative - 1|: static {spread_s:.3f}, dynamic {spread_d:.3f}; dynamic "
            f"under 10%: {within:.0%}")
