"""The experiments of §5 [McCann94 §5]: overhead (Fig. 9-11) and response time
(Fig. 13-18), as plain data for :mod:`gangviz.experiments.repro.mccann` to print and check.

Choices: every policy of a trial sees the same minima (common random numbers); each function
takes one integer seed per trial (``seeds``), which the caller derives from the configuration
and the trial number (:mod:`gangviz.experiments.seeds`), so results do not depend on execution
order, worker count or machine. "BUDDY" means BUDDY* (which is BUDDY when J is a power of two, §5). In the k sweeps the
k = 0 point of HEURISTIC(k) and HYBRID(k) is EQUI-EPOCH and BUDDY* (the equal-allocation
policies; the paper compares EQUI-EPOCH with HEURISTIC(1) there, §5.1). Relative response time
is the ratio of mean response times (pooled over replications) to OPT-EPOCH(1)'s.
HEURISTIC(k) and HYBRID(k) hand out an epoch's free nodes in equal shares unless ``spread`` says
"level" (§4.3, :func:`gangviz.epoch.epochs.heuristic_epoch_epochs`); overheads do not depend on
that rule.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from gangviz.epoch.policies import make_policy
from gangviz.epoch.speedup import static_factor
from gangviz.epoch.workload import draw_mins
from gangviz.factory import epoch_model

OVERHEAD_POLICIES = ("BUDDY*", "HYBRID(1)", "EQUI-EPOCH", "OPT-EPOCH(1)", "HEURISTIC(1)")
RESPONSE_POLICIES = ("BUDDY*", "HYBRID(1)", "EQUI-EPOCH", "OPT-EPOCH(1)", "HEURISTIC(1)")
BASELINE = "OPT-EPOCH(1)"


def k_policy(family: str, k: int) -> str:
    """Return the policy name for ``family`` at inequity k (k = 0 maps to the equal policy)."""
    if k == 0:
        return {"HEURISTIC": "EQUI-EPOCH", "HYBRID": "BUDDY*", "OPT-EPOCH": "OPT-EPOCH(0)"}[family]
    return f"{family}({k})"


def mean_overhead(nodes: int, jobs: int, load: float, policies: Sequence[str],
                  seeds: Sequence[int]) -> dict[str, float | None]:
    """Return the mean normalised overhead of each policy over one set of random minima per
    seed of ``seeds`` (one trial each).

    A policy that does not apply to (N, J) (Table 2) maps to None.
    """
    objs = [make_policy(p) for p in policies]
    totals = {p: 0.0 for p in policies}
    reps = len(seeds)
    for trial_seed in seeds:
        mins = draw_mins(random.Random(trial_seed), nodes, jobs, load)
        for name, pol in zip(policies, objs):
            if pol.applies(nodes, jobs):
                totals[name] += float(pol(nodes, mins).normalized_overhead)
    return {p: (totals[p] / reps if make_policy(p).applies(nodes, jobs) else None)
            for p in policies}


def mean_static_factor(nodes: int, jobs: int, load: float, policies: Sequence[str],
                       seeds: Sequence[int], spread: str = "shares") -> dict[str, float | None]:
    """Return each policy's mean S_static / S_dynamic over the jobs of one set of random minima
    per seed of ``seeds``.

    The factor of a job is :func:`gangviz.epoch.speedup.static_factor` of its width, weighted by
    its piece's duration (its share of the quantum's running time), so 1 means no load
    imbalance. A policy that does not apply to (N, J) maps to None. Raises ``ValueError`` for an
    unknown policy or ``spread``.
    """
    objs = [make_policy(p, spread) for p in policies]
    sums = {p: [0.0, 0.0] for p in policies}
    for trial_seed in seeds:
        mins = draw_mins(random.Random(trial_seed), nodes, jobs, load)
        for name, pol in zip(policies, objs):
            if pol.applies(nodes, jobs):
                for piece in pol(nodes, mins).pieces:
                    d = float(piece.duration)
                    sums[name][0] += d * static_factor(piece.width, nodes)
                    sums[name][1] += d
    return {p: (sums[p][0] / sums[p][1] if sums[p][1] else None) for p in policies}


def mean_response(nodes: int, jobs: int, load: float, policy: str, static: bool,
                  departures: int, warmup: int, seeds: Sequence[int],
                  quantum: float = 10.0, spread: str = "shares") -> float | None:
    """Return the mean response time of jobs departing after ``warmup``, pooled over one
    simulation per seed of ``seeds``.

    None when the policy does not apply to (N, J). Raises ``ValueError`` for an unknown policy
    or ``spread``.
    """
    pol = make_policy(policy, spread)
    if not pol.applies(nodes, jobs):
        return None
    total, count = 0.0, 0
    for trial_seed in seeds:
        sim = epoch_model(nodes, jobs, pol, static=static, quantum=quantum, load=load,
                          seed=trial_seed, departures=warmup + departures)
        sim.run()
        rt = sim.response_times()[warmup:]
        total += sum(rt)
        count += len(rt)
    return total / count


def run_task(task: tuple[Any, ...]) -> tuple[Any, ...]:
    """Run one ``(kind, key, args)`` task; return ``(key, result)``. ``kind`` "overhead" calls
    :func:`mean_overhead`, "factor" :func:`mean_static_factor`, anything else
    :func:`mean_response`, each with ``*args``."""
    kind, key, args = task
    if kind == "overhead":
        return key, mean_overhead(*args)
    if kind == "factor":
        return key, mean_static_factor(*args)
    return key, mean_response(*args)
