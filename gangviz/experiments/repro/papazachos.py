"""``gangviz repro papazachos``: Figs. 2-7 of Papazachos and Karatza, and their findings.

Source: [Papazachos §4.2] (lambda = 2.3, 2.35, 2.4, 2.45; 10 replications of
64,000 completed gangs; overheads 0.05 and 0.1; k = 3) and §4.3 (the findings). The paper's
results survive only as figures whose values are not in the text, so the table shows our
numbers and the check is on the findings the prose states:

1. AFCFSwM has a lower RT than AFCFS everywhere (§4.3, Figs. 2a-b).
2. D_RT grows with lambda (§4.3, Figs. 3a-b: "generally increases with increasing load").
3. Without migration RT is worse for sigma = 3 than for sigma = 4, and worse for sigma = 4 than
   for the uniform distribution (§4.3, Figs. 2a-b).

Also reported, not required: D_RT higher for sigma = 3 than sigma = 4 (Fig. 3a), WRT above RT
(Figs. 4a-b), D_SLD larger for the normal than for the uniform sizes (Figs. 6a-b).

The two policies of one cell share seeds (common random numbers); replication r of cell
(distribution d, load l) uses ``run_sequence(seed, (d, l), r)``, that is
``SeedSequence(seed, spawn_key=(d, l, r))`` (:mod:`gangviz.experiments.seeds`), wherever it
runs: every run is a task of :func:`gangviz.experiments.runner.map_runs` (local processes with
``--workers``, a Dask cluster with ``--scheduler``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from gangviz.experiments.argtypes import positive_int
from gangviz.experiments.numbers import plural
from gangviz.experiments.options import add_seed
from gangviz.experiments.progress import ProgressBar, compile_fast_loop
from gangviz.experiments.repro import FINDING_FAILED, RAN, REFERENCES, add_where, verdict, where
from gangviz.experiments.runner import map_runs
from gangviz.metrics.multisite import Metrics, mean_metrics, relative_decrease
from gangviz.multisite.batch import RunSpec, run_spec
from gangviz.multisite.config import MultiSiteConfig

#: the results: ``{(size distribution, lambda): {policy: mean Metrics}}``
Table = dict[tuple[str, float], dict[str, Metrics]]
#: ``progress(done, total)``, called as runs finish
Progress = Callable[[int, int], None]

TARGETS = {"papazachos": "multi-site gang scheduling with migration (Papazachos & Karatza, Figs. 2-7)"}

LAMBDAS = (2.3, 2.35, 2.4, 2.45)
DISTRIBUTIONS = (("normal sigma=3", "normal", 3.0), ("normal sigma=4", "normal", 4.0),
                 ("uniform", "uniform", 3.0))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--reps``, ``--jobs``, ``--workers`` or ``--scheduler``, and ``--seed``."""
    parser.add_argument("--reps", type=positive_int, default=10,
                        help="replications per cell (default: the paper's 10)")
    parser.add_argument("--jobs", type=positive_int, default=64000,
                        help="completed gangs per replication (default: the paper's 64,000)")
    add_where(parser)
    add_seed(parser, 1, "base seed")


def run_specs(specs: Sequence[RunSpec], workers: int = 1, scheduler: Any = None,
              progress: Progress | None = None) -> list[Metrics]:
    """Run every spec through :func:`map_runs` (taking results as they complete); return their
    metrics in spec order, the same for any ``workers`` or ``scheduler``.

    Raises what :func:`map_runs` raises: ``ValueError`` for ``workers`` < 1 or an unreachable
    scheduler, :class:`~gangviz.experiments.runner.RunError` for a run that failed.
    """
    out: dict[int, Metrics] = {}
    for index, metrics in map_runs(run_spec, specs, workers=workers, scheduler=scheduler,
                                   progress=progress):
        out[index] = metrics
    return [out[i] for i in range(len(specs))]  # every index came back, or map_runs raised


def simulate(reps: int, jobs: int, workers: int, seed: int = 1, progress: Progress | None = None,
             scheduler: Any = None) -> Table:
    """Run every cell; return ``{(dist_name, lam): {"AFCFS": Metrics, "AFCFSwM": Metrics}}``;
    ``progress(done, total)`` is called as runs finish.

    Raises ValueError for a negative ``seed`` or a non-positive ``reps``, ``jobs``, ``workers``,
    and what :func:`run_specs` raises.
    """
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    specs: list[RunSpec] = []
    keys: list[tuple[str, float, str]] = []
    for d, (name, dist, sigma) in enumerate(DISTRIBUTIONS):
        for li, lam in enumerate(LAMBDAS):
            for migrate in (False, True):
                cfg = MultiSiteConfig(arrival_rate=lam, size_dist=dist, sigma=sigma, migrate=migrate)
                for r in range(reps):
                    specs.append(RunSpec(cfg, (seed, d, li, r), jobs))
                    keys.append((name, lam, cfg.policy))
    if not scheduler:
        from gangviz.multisite.compiled import warm_up

        compile_fast_loop(warm=warm_up)  # once here, so that the workers load it from the cache
    results = run_specs(specs, workers, scheduler, progress)
    grouped: dict[tuple[str, float], dict[str, list[Metrics]]] = {}
    for (name, lam, pol), m in zip(keys, results):
        grouped.setdefault((name, lam), {}).setdefault(pol, []).append(m)
    return {cell: {pol: mean_metrics(ms) for pol, ms in v.items()} for cell, v in grouped.items()}


def findings(table: Table) -> list[tuple[str, bool, bool]]:
    """Return ``[(statement, holds, required)]`` for the paper's findings over ``table``."""
    out: list[tuple[str, bool, bool]] = []
    names = [n for n, _, _ in DISTRIBUTIONS]
    lower = all(table[(n, l)]["AFCFSwM"].rt < table[(n, l)]["AFCFS"].rt for n in names for l in LAMBDAS)
    out.append(("AFCFSwM has a lower RT than AFCFS everywhere", lower, True))
    for n in names:
        d = [relative_decrease(table[(n, l)]["AFCFS"], table[(n, l)]["AFCFSwM"])["D_RT"] for l in LAMBDAS]
        out.append((f"D_RT grows with lambda ({n}: " + ", ".join(f"{x:.1f}" for x in d) + ")",
                    all(a < b for a, b in zip(d, d[1:])), True))
    rt = {n: [table[(n, l)]["AFCFS"].rt for l in LAMBDAS] for n in names}
    out.append(("AFCFS: RT(sigma=3) > RT(sigma=4) at every lambda",
                all(a > b for a, b in zip(rt[names[0]], rt[names[1]])), True))
    out.append(("AFCFS: RT(sigma=4) > RT(uniform) at every lambda",
                all(a > b for a, b in zip(rt[names[1]], rt[names[2]])), True))

    def dec(n: str, l: float, key: str) -> float:
        return relative_decrease(table[(n, l)]["AFCFS"], table[(n, l)]["AFCFSwM"])[key]

    out.append(("D_RT(sigma=3) > D_RT(sigma=4) at every lambda",
                all(dec(names[0], l, "D_RT") > dec(names[1], l, "D_RT") for l in LAMBDAS), False))
    out.append(("WRT > RT for both policies everywhere",
                all(table[c][p].wrt > table[c][p].rt for c in table for p in table[c]), False))
    out.append(("D_SLD larger for normal sizes than for uniform sizes at every lambda",
                all(min(dec(names[0], l, "D_SLD"), dec(names[1], l, "D_SLD")) > dec(names[2], l, "D_SLD")
                    for l in LAMBDAS), False))
    return out


def format_table(table: Table) -> str:
    """Return the results as text, one block per size distribution."""
    lines = []
    for name, _, _ in DISTRIBUTIONS:
        lines.append(f"gang sizes: {name}")
        lines.append(f"  {'lambda':>6} | {'RT AFCFS':>9} {'RT wM':>7} {'D_RT%':>6} | {'WRT AFCFS':>9} "
                     f"{'WRT wM':>7} {'D_WRT%':>6} | {'SLD AFCFS':>9} {'SLD wM':>7} {'D_SLD%':>6} | "
                     f"{'WSLD AFCFS':>10} {'WSLD wM':>7} {'D_WSLD%':>7}")
        for lam in LAMBDAS:
            a: Metrics = table[(name, lam)]["AFCFS"]
            m: Metrics = table[(name, lam)]["AFCFSwM"]
            d = relative_decrease(a, m)
            lines.append(f"  {lam:>6.2f} | {a.rt:>9.3f} {m.rt:>7.3f} {d['D_RT']:>6.1f} | {a.wrt:>9.3f} "
                         f"{m.wrt:>7.3f} {d['D_WRT']:>6.1f} | {a.sld:>9.2f} {m.sld:>7.2f} "
                         f"{d['D_SLD']:>6.1f} | {a.wsld:>10.2f} {m.wsld:>7.2f} {d['D_WSLD']:>7.1f}")
        lines.append("")
    lines.append("paper: Figs. 2-7 are plots whose values are not in the text; only the findings "
                 "of §4.3 can be compared.")
    return "\n".join(lines)


def run(target: str, args: argparse.Namespace) -> int:
    """Run the reproduction, print the table and the findings; return ``RAN`` if every
    required finding holds, else ``FINDING_FAILED``."""
    t0 = time.perf_counter()
    runs = 2 * len(DISTRIBUTIONS) * len(LAMBDAS) * args.reps
    print(f"papazachos: {plural(runs, 'run')} of {plural(args.jobs, 'gang')} on {where(args)}",
          file=sys.stderr)
    bar = ProgressBar(runs)
    try:
        table = simulate(args.reps, args.jobs, args.workers, args.seed,
                         progress=lambda done, _total: bar.update(done), scheduler=args.scheduler)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    gangs = runs * args.jobs
    print(f"{TARGETS[target]}\n{plural(args.reps, 'replication')} x {plural(args.jobs, 'gang')} "
          f"per cell, {where(args)}, seed {args.seed}\n")
    print(format_table(table))
    print(f"\nFindings of {REFERENCES['papazachos']} §4.3:")
    ok = True
    for text, holds, required in findings(table):
        print(f"  {verdict(holds)} {text}{'' if required else ' (also reported)'}")
        ok &= holds or not required
    print(f"\n{gangs:,} gangs in {elapsed:.1f} s ({gangs / elapsed:,.0f} gangs/s)")
    return RAN if ok else FINDING_FAILED
