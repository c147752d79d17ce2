"""One run of an experiment: a picklable task description in, a dict of metrics out.

:func:`run_task` is a pure function of its :class:`RunTask`: it builds the workload from the
description (a synthetic model with its parameters and the task's seed, an SWF trace, or a
scenario), runs the time-slot engine (``gangviz.sim.engine``, or for the buddy schemes and for
GS/BGS/MGS/MBGS the compiled loops of ``gangviz.fast``, which give the same results) to the end without recording
history, and returns :func:`gangviz.metrics.zhou_metrics` (Zhou00 §4.3). A
space-sharing policy (``fcfs``, ``easy``, ``conservative``) runs on its own simulator and gets the
same metrics (:func:`gangviz.metrics.zhou.zhou_metrics_of_result`: one row, so ``n_l`` = 1).
Nothing depends on the process it runs in, so it can run in a process pool or on a Dask worker.

Workloads (``RunTask.workload``):

* ``"downey"``: :func:`gangviz.workloads.synthetic.uniform_log` (Zhou00 §4.2) with parameters
  ``jobs`` (default 200), ``load`` (0.5), ``procs`` (128), ``max_work`` (120); the seed is the
  task's seed.
* anything else goes through :func:`gangviz.workloads.source.load_source` (an SWF trace path or
  a scenario path / built-in name) with parameters ``procs`` and ``slice`` (seconds per slice of
  a trace). A trace is fixed, so its replications differ only in a randomised policy's seed.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gangviz.experiments.seeds import policy_seed

#: Metric names returned by :func:`run_task`, in table order.
METRICS: tuple[str, ...] = ("r_a", "n_l", "n_a", "t_ta", "t_sa", "t_ma", "t_la")

#: Parameters each synthetic model takes, with their defaults.
MODEL_PARAMS: dict[str, dict[str, Any]] = {
    "downey": {"jobs": 200, "load": 0.5, "procs": 128, "max_work": 120},
}

#: Parameters of a trace or scenario workload.
SOURCE_PARAMS: dict[str, Any] = {"procs": None, "slice": None}


@dataclass(frozen=True)
class RunTask:
    """What one run needs, and nothing else: picklable, hashable, comparable.

    ``workload_params`` and ``policy_params`` are tuples of ``(name, value)`` pairs (sorted by
    name) so that the task is hashable. ``cell`` (per-axis grid indices) and ``replication`` only
    label the run; the result depends on ``seed``, not on them.
    """

    workload: str
    policy: str
    seed: int
    workload_params: tuple[tuple[str, Any], ...] = ()
    policy_params: tuple[tuple[str, Any], ...] = ()
    replication: int = 0
    cell: tuple[int, ...] = ()
    ring: bool = False
    labels: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    @staticmethod
    def make(workload: str, policy: str, seed: int, *, workload_params: dict | None = None,
             policy_params: dict | None = None, **kw) -> "RunTask":
        """Return a task built from plain dicts of parameters (sorted into tuples)."""
        return RunTask(workload, policy, seed, tuple(sorted((workload_params or {}).items())),
                       tuple(sorted((policy_params or {}).items())), **kw)


def takes_seed(policy: str) -> bool:
    """Return True if the factory of ``policy`` accepts a ``seed`` parameter."""
    from gangviz.policies import POLICIES

    factory = POLICIES.get(policy.lower())
    if factory is None:
        return False
    try:
        return "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def build_jobs(workload: str, params: dict[str, Any], seed: int):
    """Return the :class:`~gangviz.workloads.source.Source` of a workload description.

    Raises ``ValueError`` for an unknown parameter or a bad value, ``FileNotFoundError`` for a
    missing trace or scenario.
    """
    from gangviz.workloads.source import Source

    name = workload.lower()
    if name in MODEL_PARAMS:
        unknown = set(params) - set(MODEL_PARAMS[name])
        if unknown:
            raise ValueError(f"model {workload} takes {', '.join(MODEL_PARAMS[name])}; "
                             f"not {', '.join(sorted(unknown))}")
        p = {**MODEL_PARAMS[name], **params}
        from gangviz.workloads.synthetic import uniform_log

        wl = uniform_log(p["jobs"], p["load"], procs=p["procs"], max_work=p["max_work"], seed=seed)
        return Source("model", f"{workload} {p}", wl.processors, wl.jobs)
    unknown = set(params) - set(SOURCE_PARAMS)
    if unknown:
        raise ValueError(f"{workload} takes {', '.join(SOURCE_PARAMS)}; not {', '.join(sorted(unknown))}")
    return _cached_source(workload, params.get("procs"), params.get("slice"))


@lru_cache(maxsize=4)
def _cached_source(workload: str, procs, slice_seconds):
    # A trace is read once per worker process, not once per run; Simulation copies nothing it
    # mutates from the job specs (they are frozen), so sharing the Source between runs is safe.
    from gangviz.workloads.source import load_source

    return load_source(workload, procs=procs, slice_seconds=slice_seconds)


def run_task(task: RunTask, engine: str = "auto") -> dict[str, float]:
    """Run ``task`` to the end and return its metrics (keys :data:`METRICS`; ``nan`` if undefined).

    A randomised policy (one whose factory takes ``seed``) gets :func:`policy_seed` of the task's
    seed unless ``policy_params`` fixes it. ``engine="auto"`` runs a buddy scheme on the
    compiled loop of :mod:`gangviz.fast.buddy`, and GS, BGS, MGS or MBGS deciding at events on
    that of :mod:`gangviz.fast.gang`, when the run is one it covers (no scenario matrix or
    script, a linear array, finite work), which gives the same metrics as the reference engine
    12-50 times faster; ``"python"`` always uses the reference engine.
    Raises ``ValueError`` for a bad workload or policy description and ``FileNotFoundError``
    for a missing file.
    """
    from gangviz.metrics.zhou import zhou_metrics

    if engine not in ("auto", "python"):
        raise ValueError(f"engine must be 'auto' or 'python', got {engine!r}")
    source, params, policy = _task_policy(task)
    if getattr(policy, "family", None) == "space-sharing":
        _res, metrics = _run_space_sharing(policy, source)
    elif engine == "auto" and _compiled_covers(task, source, params):
        from gangviz.fast.buddy import zhou_metrics_compiled

        metrics = zhou_metrics_compiled(source.jobs, task.policy.upper(), source.processors,
                                        params.get("occupy", "size"), params.get("extra_slots_on"))
    elif engine == "auto" and _gang_covers(task, source, params):
        from gangviz.fast.gang import zhou_metrics_compiled as gang_metrics

        metrics = gang_metrics(source.jobs, task.policy, params, source.processors)
    else:
        metrics = zhou_metrics(_engine_run(task, source, policy))
    return _as_floats(metrics)


def run_task_jobs(task: RunTask) -> tuple[dict[str, float], Any]:
    """Run ``task`` on the reference engine and return ``(metrics, per-job table)``.

    The metrics are :func:`run_task`'s; the table is
    :func:`gangviz.results.jobs.jobs_of_simulation`'s, times in the workload's clock (seconds
    for a trace). The compiled loop keeps no per-job record, so this is the reference engine
    even for the buddy schemes. A space-sharing policy runs on its own simulator as in
    :func:`run_task`, its table from :func:`gangviz.results.jobs.jobs_of_backfill`. Raises as
    :func:`run_task` does.
    """
    from gangviz.metrics.zhou import zhou_metrics
    from gangviz.results.jobs import jobs_of_backfill, jobs_of_simulation

    source, _params, policy = _task_policy(task)
    if getattr(policy, "family", None) == "space-sharing":
        res, metrics = _run_space_sharing(policy, source)
        return _as_floats(metrics), jobs_of_backfill(res.records, time_scale=source.slice_seconds)
    sim = _engine_run(task, source, policy)
    return _as_floats(zhou_metrics(sim)), jobs_of_simulation(sim, time_scale=source.slice_seconds)


#: Policies the compiled loop runs, and the parameters it takes.
COMPILED_POLICIES = ("bc", "br", "brms", "brmms")
COMPILED_PARAMS = {"occupy", "extra_slots_on"}


def _task_policy(task: RunTask):
    """Return ``(source, params, policy)`` of ``task``: its workload, the policy's parameters
    (the source's, then the task's, then a seed derived from the task's when the policy takes
    one) and the policy built from them."""
    from gangviz.policies import make_policy

    source = build_jobs(task.workload, dict(task.workload_params), task.seed)
    params = {**source.policy_params(task.policy), **dict(task.policy_params)}
    if "seed" not in params and takes_seed(task.policy):
        params["seed"] = policy_seed(task.seed)
    return source, params, make_policy(task.policy, **params)


def _run_space_sharing(policy, source):
    """Run a space-sharing ``policy`` on ``source`` with the backfilling simulator; return
    ``(result, metrics of Zhou00 §4.3)``. Raises ``ValueError`` for a source it cannot run."""
    from gangviz.metrics.zhou import zhou_metrics_of_result
    from gangviz.spacesharing.backfill import simulate_backfill

    policy.check_source(source)
    res = simulate_backfill(source.jobs, source.processors, mode=policy.mode,
                            estimates=policy.estimates, kill_at_estimate=policy.kill)
    return res, zhou_metrics_of_result(res, source.processors)


def _engine_run(task: RunTask, source, policy):
    """Return the reference engine's simulation of ``task`` run to its end, recording nothing."""
    from gangviz.sim.engine import Simulation

    sim = Simulation(source.jobs, policy, source.processors, ring=task.ring or source.ring,
                     initial=source.matrix.copy() if source.matrix is not None else None,
                     script=source.script, record=False)
    sim.run()
    return sim


def _as_floats(metrics) -> dict[str, float]:
    """Return the sweep's columns of ``metrics`` as floats (``nan`` for a missing one)."""
    return {k: float(metrics[k]) if metrics[k] is not None else math.nan for k in METRICS}


def _compiled_covers(task: RunTask, source, params: dict[str, Any]) -> bool:
    """Whether the compiled loop runs ``task`` exactly as the reference engine would."""
    procs = source.processors
    return (task.policy.lower() in COMPILED_POLICIES and set(params) <= COMPILED_PARAMS
            and source.matrix is None and not source.script and not (task.ring or source.ring)
            and procs >= 1 and not procs & (procs - 1)
            and all(1 <= j.size <= procs and math.isfinite(j.work) for j in source.jobs))


def _gang_covers(task: RunTask, source, params: dict[str, Any]) -> bool:
    """Whether the compiled GS/BGS/MGS/MBGS loop runs ``task`` exactly as the reference engine would."""
    from gangviz.fast.gang import covers

    procs = source.processors
    return (covers(task.policy, params, ring=task.ring or source.ring, initial=source.matrix,
                   script=source.script, jobs=source.jobs)
            and all(1 <= j.size <= procs for j in source.jobs))
