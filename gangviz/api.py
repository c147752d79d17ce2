"""The notebook API: run a policy on a workload and get its metrics and per-job table back.

>>> import gangviz
>>> r = gangviz.simulate("resources/workloads/downey-200-load0.5-seed1.swf", "bc")  # doctest: +SKIP
>>> r.metrics["t_ta"], r.jobs["wait"].mean()  # doctest: +SKIP
>>> runs = gangviz.compare("downey", ["bc", "br", "brms"], jobs=100)  # doctest: +SKIP

:func:`simulate` and :func:`compare` load a source the way the command line does
(:func:`gangviz.workloads.source.load_source`: an SWF trace, a scenario file or built-in name, or
a synthetic model such as ``"downey"``) and build the simulations with
:func:`gangviz.factory.build`, as ``gangviz run`` and ``gangviz compare`` do, so the numbers are
the same as the command line's. Nothing here imports Qt.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gangviz.api_checks import check_compare, check_path, check_simulate, check_table
from gangviz.factory import build
from gangviz.metrics.zhou import zhou_metrics
from gangviz.results.jobs import jobs_of_backfill, jobs_of_simulation, save_simulation_jobs
from gangviz.workloads.source import Source, load_source

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from gangviz.core.record import Step
    from gangviz.sim.engine import Simulation

__all__ = ["Result", "simulate", "compare", "to_pandas"]


@dataclass(frozen=True)
class Result:
    """One finished run.

    Attributes:
        policy: the policy as asked for (``"bc"``, ``"random:seed=3"``).
        title: the workload's title (a trace's file name, a scenario's title).
        processors: the machine size.
        metrics: the paper's metrics [Zhou00 §4.3]: ``r_a``, ``n_l``, ``n_a`` and the mean
            turnarounds ``t_ta``, ``t_sa``, ``t_ma``, ``t_la`` in slices (``nan`` for a class
            with no completed job).
        jobs: one row per job, a numpy structured array with the fields of
            :data:`gangviz.results.jobs.JOB_DTYPE` (``job_id``, ``arrival``, ``start``,
            ``finish``, ``wait``, ``turnaround``, ``bounded_slowdown``, ``size``, ``work``, ...),
            times in ``time_unit``.
        time_unit: ``"s"`` for SWF traces (seconds from the first submit), else ``"slice"``.
        steps: the change records of every step when run with ``record=True``, else empty.
        simulation: the finished :class:`~gangviz.sim.engine.Simulation`, for anything else.
    """

    policy: str
    title: str
    processors: int
    metrics: dict[str, float]
    jobs: np.ndarray = field(repr=False)
    time_unit: str
    steps: list[Step] = field(default_factory=list, repr=False)
    simulation: Simulation | None = field(default=None, repr=False, compare=False)
    source: Source | None = field(default=None, repr=False, compare=False)

    def to_pandas(self) -> pandas.DataFrame:
        """Return :attr:`jobs` as a pandas DataFrame; raises ``ImportError`` without pandas."""
        return to_pandas(self.jobs)

    def write_jobs(self, path: str | os.PathLike) -> Path:
        """Write :attr:`jobs` to ``path`` as ``gangviz run --jobs-out`` does (``.csv`` in
        Batsim's layout, ``.swf`` or ``.parquet``); return the path. Raises ``ValueError`` for
        another extension."""
        check_path("path", path)
        if self.simulation is None or self.source is None:
            raise ValueError("this result has no simulation to write the jobs of")
        return save_simulation_jobs(self.simulation, self.source, path, label=self.policy)


def to_pandas(table: np.ndarray) -> pandas.DataFrame:
    """Return a per-job table as a pandas DataFrame, one column per field.

    Raises ``ImportError`` with the install hint when pandas is not installed.
    """
    check_table(table)
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("to_pandas needs pandas: pip install pandas") from None
    return pd.DataFrame({name: table[name] for name in table.dtype.names})


def _source(source: str | os.PathLike | Source, options: Mapping[str, Any]) -> Source:
    unknown = set(options) - {"procs", "slice_seconds", "jobs", "load", "seed"}
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(sorted(unknown))}; the options are procs, "
                        "slice_seconds, jobs, load, seed, ring, record, params")
    if isinstance(source, Source):
        if options:
            raise TypeError("options that load a source (procs, jobs, ...) need a file or model name")
        src = source
    else:
        src = load_source(os.fspath(source), **options)
        for text in src.warnings:  # what `gangviz run` prints on stderr (skipped jobs, ...)
            warnings.warn(f"{src.title}: {text}", UserWarning, stacklevel=3)
    if src.model != "matrix":
        article = "an" if src.model[:1] in "aeiou" else "a"
        raise ValueError(f"{src.title}: {article} {src.model} scenario is not a time-slot workload; "
                         "run it with 'gangviz run' or open it in the window")
    return src


def simulate(source: str | os.PathLike | Source, policy: str | None = None, *, ring: bool | None = None,
             record: bool = False, params: Mapping[str, Any] | None = None, **options: Any) -> Result:
    """Run ``policy`` on ``source`` to the end and return its :class:`Result`.

    ``source`` is an SWF trace path, a scenario (``.toml`` path or built-in name), a model name
    (``"downey"``) or a loaded :class:`~gangviz.workloads.source.Source`. ``policy`` is a
    name or ``"name:key=value,..."`` (default: the scenario's, else ``repack``); ``params``
    are further policy parameters. ``options`` load the source as the command line's flags do:
    ``procs`` (machine size, overriding a trace's header), ``slice_seconds`` (seconds per slice
    of a trace), and for a model ``jobs``, ``load``, ``seed``. ``ring`` makes the processors a
    ring; ``record=True`` keeps every step's change records in :attr:`Result.steps`.

    Raises ``FileNotFoundError`` for a missing source, ``ValueError`` for a malformed file, an
    unknown policy or parameter, a machine the policy cannot use (buddy policies need a power
    of two: pass ``procs=128`` for the 100-processor KTH trace) or a non-time-slot scenario,
    and ``TypeError`` for an unknown option. What the reader noticed in a file (skipped or
    repeated jobs, ...) comes as a ``UserWarning`` per line, as ``gangviz run`` prints it.
    Every argument is checked first (:func:`gangviz.api_checks.check_simulate`): a wrong type
    raises ``TypeError``, a value not allowed ``ValueError``, each naming the argument.
    """
    check_simulate(source, policy, ring, record, params, options)
    src = _source(source, options)
    spec = policy or src.policy or "repack"
    return _results(src, [spec], ring=ring, record=record, params=params)[spec]


def compare(source: str | os.PathLike | Source, policies: Sequence[str], *, ring: bool | None = None,
            record: bool = False, params: Mapping[str, Any] | None = None,
            **options: Any) -> dict[str, Result]:
    """Run every policy of ``policies`` on the same jobs of ``source``; return
    ``{policy: Result}`` in the order given.

    Arguments as :func:`simulate`; raises as it does, and ``ValueError`` for no policy or one
    given twice. The table of ``gangviz compare`` is
    ``{p: r.metrics for p, r in compare(...).items()}`` for time-slot policies; with a
    space-sharing policy (``fcfs``, ``easy``, ``conservative``) among them the command line
    shows the IBM figures instead (:func:`gangviz.metrics.ibm.ibm_metrics`), while
    :attr:`Result.metrics` keeps these for every policy, a backfilling run counting as one row.
    ``policies`` may be any iterable of names (read once); arguments are checked first
    (:func:`gangviz.api_checks.check_compare`).
    """
    specs = check_compare(source, policies, ring, record, params, options)
    return _results(_source(source, options), specs, ring=ring, record=record, params=params)


def _results(src: Source, specs: list[str], *, ring: bool | None, record: bool,
             params: Mapping[str, Any] | None) -> dict[str, Result]:
    if len(set(specs)) != len(specs):
        raise ValueError("each policy may be given once")
    sims = {spec: build(src, spec, params=params, record=record, watch=False, ring=ring) for spec in specs}
    unit = "s" if src.kind == "swf" else "slice"
    out = {}
    for spec, sim in sims.items():
        sim.run()
        if getattr(sim, "family", None) == "space-sharing":
            # a backfilling run (fcfs, easy, conservative) is one row of the machine: its
            # metrics and per-job rows come from its records, as 'gangviz run' and sweeps do
            from gangviz.metrics.zhou import zhou_metrics_of_result

            metrics = zhou_metrics_of_result(sim.result, sim.processors)
            table = jobs_of_backfill(sim.result.records, time_scale=src.slice_seconds)
            steps: list = []
        else:
            metrics = zhou_metrics(sim)
            table = jobs_of_simulation(sim, time_scale=src.slice_seconds)
            steps = list(sim.steps) if record else []
        out[spec] = Result(spec, src.title, src.processors, metrics, table, unit, steps, sim, src)
    return out
