"""The notebook API: run a policy on a workload and get its metrics and per-job table back.

>>> import gangviz
>>> r = gangviz.simulate("resources/workloads/downey-200-load0.5-seed1.swf", "bc")  # doctest: +SKIP
>>> r.metrics["t_ta"], r.jobs["wait"].mean()  # doctest: +SKIP
>>> runs = gangviz.compare("downey", ["bc", "br", "brms"], jobs=100)  # doctest: +SKIP

:func:`simulate` and :func:`compare` load a source the way the command line does
(:func:`gangviz.workloads.source.load_source`: an SWF trace, a scenario file or built-in name, or
a synthetic model such as ``"downey"``) and run each policy with :func:`gangviz.factory.run`,
which picks the loop ``gangviz run`` picks for the same arguments (a compiled loop when one
covers the run), so the figures and the time they take are the command line's.
``gangviz.to_pandas(gangviz.compare(...))`` is the figures of a comparison as a DataFrame.
Nothing here imports Qt.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gangviz.api_checks import (
    check_bsld_threshold,
    check_compare,
    check_path,
    check_simulate,
    check_table,
)
from gangviz.metrics.ibm import executed_by_id
from gangviz.results.jobs import jobs_of_backfill, jobs_of_simulation, save_simulation_jobs
from gangviz.results.run_jobs import jobs_of_run
from gangviz.workloads.source import Source, load_source

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from gangviz.core.record import Step

__all__ = ["Result", "simulate", "compare", "to_pandas"]


@dataclass(frozen=True)
class Result:
    """One finished run.

    Attributes:
        policy: the policy as asked for (``"bc"``, ``"random:seed=3"``).
        title: the workload's title (a trace's file name, a scenario's title).
        processors: the machine size.
        metrics: the run's figures, the same as ``gangviz run`` prints (names, values, and
            units in :attr:`units`): the core of the IBM study for every policy (``wait``,
            ``response``, ``bounded_slowdown``, ``utilization``, ``loss_of_capacity``,
            ``makespan``, ``throughput``, each also ``_small``/``_large``) and the time-slot
            family's own [Zhou00 §4.3] (``r_a``, ``n_l``, ``n_a``, ``t_ta`` ...); times in
            seconds on a trace, in slices otherwise; ``nan`` when undefined
            (:mod:`gangviz.results.figures`).
        units: figure -> unit.
        time_unit: ``"s"`` for SWF traces (seconds from the first submit), else ``"slice"``.
        engine: which loop ran: ``"compiled:gang"``, ``"compiled:buddy"``, ``"backfill"`` or
            ``"reference"``, chosen as the command line chooses it (:func:`gangviz.factory.run`).
        steps: the change records of every step when run with ``record=True``, else empty.
        simulation: the finished step-able simulation (``None`` after a compiled or
            backfilling run), for anything else.
        machine: the machine the run used: ``processors`` that exist for it and ``absent``,
            processors added to reach a power of two that it left alone (a buddy scheme on a
            padded trace); every run of one :func:`compare` has the same ``processors``.
        record: what ran (:func:`gangviz.results.provenance.policy_record`): the policy's
            name, every parameter with the value used, the engine, the machine and the queue
            order, as ``gangviz run --json`` records them.
        bsld_threshold: the bounded slowdown's threshold Γ the figures and :attr:`jobs` use,
            in :attr:`time_unit` (``gangviz run --bsld-threshold``; default 10).

    :attr:`jobs` is the per-job table (made when first asked for).
    """

    policy: str
    title: str
    processors: int
    metrics: dict[str, float]
    units: dict[str, str] = field(repr=False)
    time_unit: str
    engine: str
    steps: list[Step] = field(default_factory=list, repr=False)
    simulation: Any = field(default=None, repr=False, compare=False)
    source: Source | None = field(default=None, repr=False, compare=False)
    run: Any = field(default=None, repr=False, compare=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    machine: dict[str, int] = field(default_factory=dict, compare=False)
    record: dict[str, Any] = field(default_factory=dict, compare=False)
    bsld_threshold: float = 10.0

    @property
    def jobs(self) -> np.ndarray:
        """One row per job, a numpy structured array with the fields of
        :data:`gangviz.results.jobs.JOB_DTYPE` (``job_id``, ``arrival``, ``start``, ``finish``,
        ``wait``, ``response``, ``bounded_slowdown``, ``size``, ``work``, ...), times in
        :attr:`time_unit`: what ``gangviz run --jobs-out`` writes. A run on a compiled loop is
        run again once, keeping where each job ran, when the table is first asked for (as
        ``--jobs-out`` runs it: :func:`gangviz.results.compiled_jobs.jobs_of_compiled`)."""
        if "jobs" not in self._cache:
            self._cache["jobs"] = _table(self)
        table: np.ndarray = self._cache["jobs"]
        return table

    def to_pandas(self) -> pandas.DataFrame:
        """Return :attr:`jobs` as a pandas DataFrame; raises ``ImportError`` without pandas."""
        return to_pandas(self.jobs)

    def write_jobs(self, path: str | os.PathLike[str]) -> Path:
        """Write :attr:`jobs` to ``path`` as ``gangviz run --jobs-out`` does (``.csv`` in
        Batsim's layout, ``.swf`` or ``.parquet``), and beside it the provenance sidecar
        ``path`` + ``.json`` (:attr:`record`, the source, gangviz's version:
        :func:`gangviz.results.jobs.write_sidecar`); return the path. Raises ``ValueError``
        for another extension."""
        check_path("path", path)
        if self.source is None:
            raise ValueError("this result has no source to write the jobs of")
        from gangviz.results.jobs import save_backfill_jobs, write_sidecar

        done, tau = self.run, self.bsld_threshold
        res = done.backfill if done is not None else None
        if res is not None:
            out = save_backfill_jobs(res.records, self.source, path, label=self.policy,
                                     executed=executed_by_id(res), tau=tau)
        elif self.simulation is not None:
            out = save_simulation_jobs(self.simulation, self.source, path, label=self.policy, tau=tau)
        else:
            from gangviz.results.compiled_jobs import save_compiled_jobs

            out = save_compiled_jobs(_jobs_run(self), self.source, path, label=self.policy, tau=tau)
        write_sidecar(out, self.source, self.record, tau)
        return out


def _jobs_run(result: Result) -> Any:
    """The finished run of a time-slot result that gives its per-job table: the result's own,
    or (a compiled loop's run, which kept no placement) the same run again, once, keeping it."""
    from gangviz.results.compiled_jobs import has_job_stats

    if result.run is not None and (result.simulation is not None or has_job_stats(result.run)):
        return result.run
    if "jobs_run" not in result._cache:
        from gangviz.factory import run

        source = result.source
        if source is None:  # every Result of simulate() and compare() has its source
            raise ValueError("this result has no source to run again")
        result._cache["jobs_run"] = run(source, result.policy, params=result.run.parameters,
                                        jobs=True, ring=source.ring or None)
    return result._cache["jobs_run"]


def _table(result: Result) -> np.ndarray:
    scale = result.source.slice_seconds if result.source is not None else 1.0
    done = result.run
    res = done.backfill if done is not None else None
    if res is not None:
        return jobs_of_backfill(res.records, time_scale=scale, executed=executed_by_id(res),
                                processors=done.source.processors, tau=result.bsld_threshold)
    if result.simulation is not None:
        return jobs_of_simulation(result.simulation, time_scale=scale, tau=result.bsld_threshold)
    return jobs_of_run(_jobs_run(result), time_scale=scale, tau=result.bsld_threshold)


def to_pandas(table: Any) -> pandas.DataFrame:
    """Return a per-job table (:attr:`Result.jobs`) as a pandas DataFrame, one column per
    field; or, given the ``{policy: Result}`` of :func:`compare`, their figures, one row per
    policy and one column per figure (a figure a policy's family lacks is ``nan``).

    Raises ``ImportError`` with the install hint when pandas is not installed.
    """
    check_table(table)
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("to_pandas needs pandas: pip install pandas") from None
    if isinstance(table, Mapping):
        keys: list[str] = []
        for r in table.values():
            keys += [k for k in r.metrics if k not in keys]
        return pd.DataFrame([[r.metrics.get(k, float("nan")) for k in keys] for r in table.values()],
                            index=pd.Index(list(table), name="policy"), columns=keys)
    return pd.DataFrame({name: table[name] for name in table.dtype.names})


def _source(source: str | os.PathLike[str] | Source, options: Mapping[str, Any]) -> Source:
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


def simulate(source: str | os.PathLike[str] | Source, policy: str | None = None, *, ring: bool | None = None,
             record: bool = False, params: Mapping[str, Any] | None = None, order: str | None = None,
             bsld_threshold: float = 10.0, **options: Any) -> Result:
    """Run ``policy`` on ``source`` to the end and return its :class:`Result`.

    ``source`` is an SWF trace path, a scenario (``.toml`` path or built-in name), a model name
    (``"downey"``) or a loaded :class:`~gangviz.workloads.source.Source`. ``policy`` is a
    name or ``"name:key=value,..."`` (default: the scenario's, else ``repack``); ``params``
    are further policy parameters. ``options`` load the source as the command line's flags do:
    ``procs`` (machine size, overriding a trace's header), ``slice_seconds`` (seconds per slice
    of a trace), and for a model ``jobs``, ``load``, ``seed``. ``ring`` makes the processors a
    ring; ``record=True`` keeps every step's change records in :attr:`Result.steps`. ``order``
    (``"file.py:function"`` or ``"module:function"``) orders the waiting queue of a built-in
    time-slot or space-sharing policy by that function of one job (smallest first).
    ``bsld_threshold`` is the bounded slowdown's threshold Γ [Zhang01 §2.3] in the source's
    clock (seconds on a trace, slices otherwise), as ``--bsld-threshold``; the result keeps it
    (:attr:`Result.bsld_threshold`).

    Raises ``FileNotFoundError`` for a missing source, ``ValueError`` for a malformed file, an
    unknown policy or parameter, a machine the policy cannot use (buddy policies need a power
    of two: pass ``procs=128`` for the 100-processor KTH trace) or a non-time-slot scenario,
    and ``TypeError`` for an unknown option. What the reader noticed in a file (skipped or
    repeated jobs, ...) comes as a ``UserWarning`` per line, as ``gangviz run`` prints it.
    Every argument is checked first (:func:`gangviz.api_checks.check_simulate`): a wrong type
    raises ``TypeError``, a value not allowed ``ValueError``, each naming the argument.
    """
    check_simulate(source, policy, ring, record, params, options)
    gamma = check_bsld_threshold(bsld_threshold)
    if order is not None and not isinstance(order, str):
        raise TypeError(f"order must be 'file.py:function' text or None, got {type(order).__name__}")
    src = _source(source, options)
    spec = policy or src.policy or "repack"
    return _results(src, [spec], ring=ring, record=record, params=params, orders={spec: order},
                    gamma=gamma)[spec]


def compare(source: str | os.PathLike[str] | Source, policies: Sequence[str], *, ring: bool | None = None,
            record: bool = False, params: Mapping[str, Any] | None = None,
            order: str | Mapping[str, str] | None = None, padding: str | None = None,
            bsld_threshold: float = 10.0, **options: Any) -> dict[str, Result]:
    """Run every policy of ``policies`` on the same jobs of ``source``; return
    ``{policy: Result}`` in the order given.

    Arguments as :func:`simulate`; raises as it does, and ``ValueError`` for no policy or one
    given twice. The table of ``gangviz compare`` is
    ``{p: r.metrics for p, r in compare(...).items()}``, whatever families are mixed
    (``to_pandas`` of the returned dict makes it a DataFrame). ``policies`` may be any
    iterable of names (read once); arguments are checked first
    (:func:`gangviz.api_checks.check_compare`). ``order`` is one queue order for every policy
    (``"file.py:function"``) or ``{policy: order}`` for some; ``ValueError`` names a policy
    of that mapping that is not compared. Every policy runs on the same processors
    (:attr:`Result.machine`): on a trace padded to a power of two (``procs`` above its header's)
    a buddy scheme and another policy need ``padding`` (``"used"`` or ``"absent"``,
    :func:`gangviz.experiments.compare.machine_sources`), else ``ValueError`` says why.
    ``bsld_threshold`` (Γ) is the same for every policy, as in :func:`simulate`.
    """
    from gangviz.experiments.compare import assign_orders, machine_sources

    specs = check_compare(source, policies, ring, record, params, options)
    gamma = check_bsld_threshold(bsld_threshold)
    if order is not None and not isinstance(order, (str, Mapping)):
        raise TypeError(f"order must be 'file.py:function', a mapping of policy to order, or None, "
                        f"got {type(order).__name__}")
    orders = assign_orders(specs, order, "order")
    src = _source(source, options)
    return _results(src, specs, ring=ring, record=record, params=params, orders=orders,
                    sources=machine_sources(src, specs, padding), gamma=gamma)


def _results(src: Source, specs: list[str], *, ring: bool | None, record: bool,
             params: Mapping[str, Any] | None,
             orders: Mapping[str, str | None] | None = None,
             sources: Mapping[str, Source] | None = None, gamma: float = 10.0) -> dict[str, Result]:
    """Run every spec with :func:`gangviz.factory.run`, as ``gangviz run`` and ``gangviz
    compare`` do, each on its own of ``sources`` when given, and give each its figures
    (:func:`gangviz.results.figures.run_figures`, the bounded slowdown with threshold
    ``gamma``)."""
    from gangviz.factory import run
    from gangviz.results.figures import clock_of, run_figures
    from gangviz.results.provenance import policy_record, run_machine

    if len(set(specs)) != len(specs):
        raise ValueError("each policy may be given once")
    unit = "s" if clock_of(src) == "s" else "slice"
    out = {}
    for spec in specs:
        own = (sources or {}).get(spec, src)
        done = run(own, spec, params=params, record=record, ring=ring, order=(orders or {}).get(spec))
        figs = run_figures(done, gamma)
        sim = done.simulation
        steps = list(sim.steps) if record and sim is not None and done.kind.matrix else []
        mach = run_machine(own, spec)
        rec = policy_record(own, spec, done.family, dict(done.parameters), done.engine,
                            (orders or {}).get(spec))
        out[spec] = Result(spec, src.title, own.processors, dict(figs.values), figs.units, unit,
                           done.engine, steps, sim, own, done, machine=mach, record=rec,
                           bsld_threshold=gamma)
    return out
