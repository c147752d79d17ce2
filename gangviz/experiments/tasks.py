"""One run of an experiment: a picklable task description in, a dict of metrics out.

:func:`run_task` is a pure function of its :class:`RunTask`: it builds the workload from the
description (a synthetic model with its parameters and the task's seed, an SWF trace, or a
scenario), runs it to the end with :func:`gangviz.factory.run` (the reference engine, or a
compiled loop when one covers the run, which gives the same results) without recording history,
and returns :func:`gangviz.metrics.zhou.zhou_metrics` (Zhou00 §4.3). A space-sharing policy
(``fcfs``, ``easy``, ``conservative``) runs on its own simulator and gets the same metrics
(:func:`gangviz.metrics.zhou.zhou_metrics_of_result`: one row, so ``n_l`` = 1).
Nothing depends on the process it runs in, so it can run in a process pool or on a Dask worker.

Workloads (``RunTask.workload``):

* ``"downey"``: :func:`gangviz.workloads.synthetic.uniform_log` (Zhou00 §4.2) with parameters
  ``jobs`` (default 200), ``load`` (0.5), ``procs`` (128), ``max_work`` (120); the seed is the
  task's seed.
* ``"zhang"``: :func:`gangviz.workloads.ibm.zhang_source` (Zhang01 §2.2; 320 nodes, 200 s
  slices) with parameters ``jobs`` (default 1000), ``multiplier`` (1.0, the service-time factor
  of the nine workloads), ``calibrate`` (true: the sample offers exactly 0.55 x multiplier) and
  the unpublished choices of :class:`gangviz.workloads.ibm.ZhangChoices` (``pow2_share``,
  ``interarrival_cv``, ``service_cv``, ``median_run_time``, ``service_growth``,
  ``service_skew``); the seed is
  the task's seed.
* anything else goes through :func:`gangviz.workloads.source.load_source` (an SWF trace path or
  a scenario path / built-in name) with parameters ``procs`` and ``slice`` (seconds per slice of
  a trace). A trace is fixed, so its replications differ only in a randomised policy's seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gangviz.experiments.seeds import policy_seed
from gangviz.results.figures import CORE_KEYS

if TYPE_CHECKING:  # pragma: no cover  (annotations only: a worker imports what its task needs)
    from gangviz.factory.run import FinishedRun
    from gangviz.workloads.source import Source

#: Metric names returned by :func:`run_task`, in table order: Zhou00 §4.3's (a space-sharing
#: run counts as one row of the machine), then the core every run reports
#: (:data:`gangviz.results.figures.CORE_KEYS`, named and measured as ``gangviz run`` does).
METRICS: tuple[str, ...] = ("r_a", "n_l", "n_a", "t_ta", "t_sa", "t_ma", "t_la") + CORE_KEYS

def _zhang_choices() -> dict[str, Any]:
    from gangviz.workloads.ibm import CHOICE_NAMES, ZhangChoices

    d = ZhangChoices()
    return {k: getattr(d, k) for k in CHOICE_NAMES}


#: Parameters each synthetic model takes, with their defaults.
MODEL_PARAMS: dict[str, dict[str, Any]] = {
    "downey": {"jobs": 200, "load": 0.5, "procs": 128, "max_work": 120},
    "zhang": {"jobs": 1000, "multiplier": 1.0, "calibrate": True, **_zhang_choices()},
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
    #: a queue order (``file.py:function``, an absolute path) for the policy, or ``None``
    order: str | None = None

    @staticmethod
    def make(workload: str, policy: str, seed: int, *,
             workload_params: dict[str, Any] | None = None,
             policy_params: dict[str, Any] | None = None, **kw: Any) -> RunTask:
        """Return a task built from plain dicts of parameters (sorted into tuples)."""
        return RunTask(workload, policy, seed, tuple(sorted((workload_params or {}).items())),
                       tuple(sorted((policy_params or {}).items())), **kw)


def takes_seed(policy: str) -> bool:
    """Return True if ``policy`` declares a ``seed`` parameter in the registry."""
    from gangviz.core.registry import lookup

    try:
        return "seed" in lookup(policy)[0].declared
    except ValueError:
        return False


def build_jobs(workload: str, params: dict[str, Any], seed: int) -> Source:
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
        if name == "zhang":
            from gangviz.workloads.ibm import CHOICE_NAMES, ZhangChoices, zhang_source

            choices = ZhangChoices(**{k: float(p[k]) for k in CHOICE_NAMES})
            source = zhang_source(int(p["jobs"]), float(p["multiplier"]), seed=seed, calibrate=bool(p["calibrate"]),
                                  choices=choices)
            source.seed = seed  # what a per-job file's sidecar states
            return source
        from gangviz.workloads.synthetic import uniform_log

        wl = uniform_log(p["jobs"], p["load"], procs=p["procs"], max_work=p["max_work"], seed=seed)
        assert wl.processors is not None  # a model always gives its machine size
        return Source("model", f"{workload} {p}", wl.processors, wl.jobs, seed=seed)
    unknown = set(params) - set(SOURCE_PARAMS)
    if unknown:
        raise ValueError(f"{workload} takes {', '.join(SOURCE_PARAMS)}; not {', '.join(sorted(unknown))}")
    return _cached_source(workload, params.get("procs"), params.get("slice"))


@lru_cache(maxsize=4)
def _cached_source(workload: str, procs: int | None, slice_seconds: float | None) -> Source:
    # A trace is read once per worker process, not once per run; Simulation copies nothing it
    # mutates from the job specs (they are frozen), so sharing the Source between runs is safe.
    from gangviz.workloads.source import load_source

    return load_source(workload, procs=procs, slice_seconds=slice_seconds)


def run_task(task: RunTask, engine: str = "auto") -> dict[str, float]:
    """Run ``task`` to the end and return its metrics (keys :data:`METRICS`; ``nan`` if undefined).

    A randomised policy (one whose factory takes ``seed``) gets :func:`policy_seed` of the task's
    seed unless the source or ``policy_params`` fixes it. ``engine="auto"`` lets
    :func:`gangviz.factory.run` take a compiled loop when one covers the run (e.g. a buddy
    scheme on a linear power-of-two machine without scenario matrix or script), which gives the
    same metrics as the reference engine 12-50 times faster; ``"python"`` always uses the
    reference engine. Raises ``ValueError`` for a bad workload or policy description and
    ``FileNotFoundError`` for a missing file.
    """
    if engine not in ("auto", "python"):
        raise ValueError(f"engine must be 'auto' or 'python', got {engine!r}")
    done = _run(task, engine="reference" if engine == "python" else "auto")
    return _as_floats(_figures(done))


def run_task_jobs(task: RunTask) -> tuple[dict[str, float], Any, dict[str, Any]]:
    """Run ``task`` and return ``(metrics, per-job table, sidecar)``.

    The metrics are :func:`run_task`'s; the table is
    :func:`gangviz.results.run_jobs.jobs_of_run`'s, times in the workload's clock (seconds for a
    trace): from a compiled loop's placement when one covers the run, else from the reference
    engine; a space-sharing policy runs on its own simulator as in :func:`run_task`. The
    sidecar is what the table's provenance file says
    (:func:`gangviz.results.jobs.sidecar_document`: the policy with every parameter, the
    engine, the machine, the queue order, the source). Raises as :func:`run_task` does.
    """
    from gangviz.results.jobs import sidecar_document
    from gangviz.results.provenance import policy_record
    from gangviz.results.run_jobs import jobs_of_run

    done = _run(task, jobs=True)
    table = jobs_of_run(done, time_scale=done.source.slice_seconds)
    record = policy_record(done.source, done.label, done.family, dict(done.parameters), done.engine,
                           task.order)
    return _as_floats(_figures(done)), table, sidecar_document(done.source, record)


def _figures(done: Any) -> dict[str, float]:
    """The sweep's figures of a finished run: Zhou00 §4.3's in the run's slices, then the core
    of :func:`gangviz.results.figures.run_figures`."""
    from gangviz.results.figures import run_figures

    core = run_figures(done).values
    return {**done.metrics, **{k: core[k] for k in CORE_KEYS}}


def _run(task: RunTask, **options: Any) -> FinishedRun:
    """Return :func:`gangviz.factory.run` of ``task``: its workload, its policy with the task's
    parameters over the source's, and a seed derived from the task's when the policy takes one
    and nothing else fixes it."""
    from gangviz.factory import run

    source = build_jobs(task.workload, dict(task.workload_params), task.seed)
    defaults = {"seed": policy_seed(task.seed)} if takes_seed(task.policy) else {}
    return run(source, task.policy, params=dict(task.policy_params), defaults=defaults,
               ring=True if task.ring else None, order=task.order, **options)


def _as_floats(metrics: Mapping[str, Any]) -> dict[str, float]:
    """Return the sweep's columns of ``metrics`` as floats (``nan`` for a missing one)."""
    return {k: float(metrics[k]) if metrics[k] is not None else math.nan for k in METRICS}
