"""One headless run of a source under a policy, on the engine that suits it: :func:`run_headless`.

A run that asks for no step can often skip the job objects; which way it goes is chosen here,
not by the command that prints it:

* a space-sharing policy on an SWF trace runs on the trace's columns
  (:func:`gangviz.spacesharing.backfill.simulate_backfill_columns`) [Zhang01 §2.3];
* a gang policy the compiled loop covers [Zhang01 §2-§4], on a synthetic model or an SWF trace,
  runs on the model's draws or the trace's columns a stretch at a time cut where the machine is
  empty (:func:`gangviz.fast.gang_chunks.run_gang_chunks`) and is measured a block at a time:
  ten million jobs in well under a gigabyte (with a per-job file, one stretch that keeps where
  every job ran, :func:`gangviz.fast.gang.run_gang`);
* every other run goes through :func:`gangviz.factory.run` (a compiled loop when one covers it,
  else the reference engine, or the backfilling simulator).

Each gives one :class:`HeadlessRun`: its figures, its provenance and its per-job table, the same
figure for figure and byte for byte whichever way it ran (property tests compare them). A
multi-site or epoch scenario runs on its reference engine with every step kept, and its
:class:`HeadlessRun` also holds the end state and what it met of the scenario's ``[expect]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.factory.finished import FinishedRun
    from gangviz.results.figures import Figures
    from gangviz.spacesharing.policy import SpaceSharingPolicy
    from gangviz.workloads.source import Source, SourceKind
    from gangviz.workloads.swf import TraceColumns

__all__ = ["HeadlessRun", "family_run", "run_headless", "trace_run"]

#: jobs measured at once on the gang columns path (:func:`gangviz.metrics.reduce.core_figures`)
BLOCK = 1 << 16
#: jobs run at once before the gang loop looks for an empty machine to stop at (``None``: the
#: loop's own :data:`gangviz.fast.gang_chunks.STRETCH`; tests make both tiny)
STRETCH: int | None = None


@dataclass
class HeadlessRun:
    """A finished headless run, as :func:`run_headless` gives it.

    ``spec`` is the policy as the provenance names it, ``name`` the policy's name in the summary
    document, ``record`` its provenance (:func:`gangviz.results.provenance.policy_record`),
    ``kind`` the family's title (``time slots``, ``space sharing``; a multi-site or epoch run:
    its model), ``machine`` the machine object of the documents, ``steps`` whether the steps
    are to be shown, ``finished`` the :class:`~gangviz.factory.run.FinishedRun` when the run
    went through the factory (``None`` on a columns path: no job object, no step). A
    multi-site or epoch run has ``end``, its end state (:func:`gangviz.factory.end_state`), and
    ``expected``, what it missed of the scenario's ``[expect]`` (``None``: not compared, as
    under another policy than the scenario's)."""

    source: Source
    spec: str
    name: str
    record: dict[str, Any]
    parameters: dict[str, Any]
    engine: str
    kind: str
    machine: dict[str, Any]
    figures: Figures
    steps: bool = False
    finished: FinishedRun | None = None
    writer: Callable[[str], object] = field(default=lambda path: None, repr=False)
    end: dict[str, Any] | None = None
    expected: list[str] | None = None

    def document(self) -> dict[str, Any]:
        """Return the run's summary document (schema 1, without steps)."""
        from gangviz.results.summary import run_document

        if self.end is not None:
            return self._family_document()
        return run_document(self.source, self.machine, self.name, self.parameters, self.engine,
                            self.figures, self.record)

    def _family_document(self) -> dict[str, Any]:
        """The summary document of a multi-site or epoch run."""
        from gangviz.results.summary import base_document, policy_object

        figs = self.figures
        doc = base_document("run", self.source, self.machine, figs.clock)
        doc.update({"model": self.source.model, "policy": policy_object(self.name, self.source.model, {}),
                    "engine": self.engine, "metrics": figs.json_values(), "units": figs.units,
                    "definitions": figs.definitions, "end": self.end,
                    "expect_met": not self.expected if self.expected is not None else None})
        return doc

    def header(self) -> str:
        """Return the header line of the run's text."""
        from gangviz.results.summary import header_line

        return header_line(self.source.title, self.record["name"], self.kind, self.machine,
                           self.source.job_count)

    def provenance(self) -> list[str]:
        """Return the provenance lines printed under the header."""
        from gangviz.results.provenance import provenance_lines

        return provenance_lines(self.source, {self.spec: self.record}, self.figures)

    def save_jobs(self, path: str) -> None:
        """Write the run's per-job table to ``path`` (.csv, .swf or .parquet) and its sidecar."""
        self.writer(path)


def run_headless(name: str, policy: str | None = None, *, procs: int | None = None,
                 slice_seconds: float | None = None, jobs: int | None = None,
                 load: float | None = None, seed: int | None = None, ring: bool = False,
                 order: str | None = None, steps: bool | None = None, as_json: bool = False,
                 jobs_out: str | None = None, force: bool = False, tau: float = 10.0,
                 params: dict[str, Any] | None = None) -> HeadlessRun:
    """Run the source ``name`` (scenario, SWF trace or model, with the source options
    ``procs``..``seed``) under ``policy`` (``None``: the source's) to its end and return the
    :class:`HeadlessRun` (for a multi-site or epoch scenario, that of :func:`family_run`).

    ``ring`` runs on a ring; ``order`` is a queue order; ``steps`` keeps every step (default: for
    a scenario outside ``as_json``); ``jobs_out`` writes the per-job table there (over an existing
    file only with ``force``); ``tau`` is the bounded slowdown's threshold in seconds; ``params``
    are the run options of a user's policy (``check``, ``decision_limit``). Warnings of the
    input are printed on stderr, as is the compile of a compiled loop.

    Raises ``ValueError`` (or ``OSError``) for a bad source, policy, parameter or output file.
    """
    if jobs_out:
        from gangviz.outputs import check_output
        from gangviz.results.jobs import check_format

        check_format(jobs_out)
        check_output(jobs_out, force=force)
    done = _space_sharing_columns(name, policy, procs=procs, slice_seconds=slice_seconds, steps=steps,
                                  order=order, jobs_out=jobs_out, tau=tau)
    if done is None:
        done = _gang_columns(name, policy, procs=procs, slice_seconds=slice_seconds, jobs=jobs,
                             load=load, seed=seed, steps=steps, ring=ring, order=order,
                             params=params, jobs_out=jobs_out, tau=tau)
    if done is not None:
        return done
    return _general(name, policy, procs=procs, slice_seconds=slice_seconds, jobs=jobs, load=load,
                    seed=seed, ring=ring, order=order, steps=steps, as_json=as_json,
                    jobs_out=jobs_out, tau=tau, params=params or {})


def _general(name: str, policy: str | None, *, procs: int | None, slice_seconds: float | None,
             jobs: int | None, load: float | None, seed: int | None, ring: bool, order: str | None,
             steps: bool | None, as_json: bool, jobs_out: str | None, tau: float,
             params: dict[str, Any]) -> HeadlessRun:
    """The run of :func:`run_headless` through :func:`gangviz.factory.run`, on job objects."""
    from gangviz.factory.checks import check_source
    from gangviz.factory.policy import resolve
    from gangviz.workloads.source import load_source, print_warnings

    source = load_source(name, procs=procs, slice_seconds=slice_seconds, jobs=jobs, load=load, seed=seed)
    print_warnings(source.title, source.warnings)
    if source.model != "matrix":
        if jobs_out:
            article = "an" if source.model[:1] in "aeiou" else "a"
            raise ValueError(f"--jobs-out needs a time-slot workload, not {article} {source.model} scenario")
        return family_run(source, policy)
    # the narration of a scenario is printed unless --no-steps; JSON is a summary unless --steps
    record_steps = steps if steps is not None else (source.kind == "scenario" and not as_json)
    check_source(source)  # the file's own policy and [params], with its file and line
    choice = resolve(source, policy)
    user = choice.entry is not None and "user" in choice.entry.traits
    if params and not user:  # never ignored: they belong to a policy from a file
        raise ValueError(f"--no-check and --decision-limit apply to a user's policy (a .py file), "
                         f"not to the built-in {choice.spec}")
    return _factory_run(source, choice.spec, record_steps, ring=ring, order=order, procs=procs,
                        slice_seconds=slice_seconds, jobs_out=jobs_out, tau=tau,
                        params=params if user else None)


def family_run(source: Source, policy: str | None = None) -> HeadlessRun:
    """Run the multi-site or epoch scenario of ``source`` to its end under ``policy`` (default:
    the scenario's) on its reference engine, keeping every step, and return the
    :class:`HeadlessRun`. Raises ``ValueError`` for a policy of another family."""
    from gangviz.factory import check_expect, end_state, policy_name, run
    from gangviz.results.figures import family_figures
    from gangviz.results.summary import machine

    name = policy_name(source, policy)
    done = run(source, name, record=True)
    sim = done.simulation
    own = name == policy_name(source)
    problems = check_expect(source, sim) if own else []
    return HeadlessRun(source, name, name, {}, {}, "reference", source.model, machine(source),
                       family_figures(sim), True, done, end=end_state(sim),
                       expected=problems if own and source.expect else None)


def _factory_run(source: Source, spec: str, steps: bool, *, ring: bool, order: str | None,
                 procs: int | None, slice_seconds: float | None, jobs_out: str | None, tau: float,
                 params: dict[str, Any] | None) -> HeadlessRun:
    """Run a time-slot or space-sharing policy on ``source`` with :func:`gangviz.factory.run`
    (a compiled loop when it covers the run and no step is asked for)."""
    from gangviz.experiments.progress import RunTicker, announce_compiled
    from gangviz.factory import run
    from gangviz.results.figures import run_figures
    from gangviz.results.provenance import policy_record
    from gangviz.results.run_jobs import save_run_jobs
    from gangviz.results.summary import machine

    on_ring = True if ring else None
    if not steps and not order:
        announce_compiled(source, [spec], ring=on_ring, jobs=bool(jobs_out))
    ticker = RunTicker(len(source.jobs))
    try:
        done = run(source, spec, ring=on_ring, record=steps, jobs=bool(jobs_out), tick=ticker,
                   params=params, order=order)
    finally:
        ticker.close()
    label = done.policy.label() if done.kind.labelled else done.label

    def writer(path: str) -> object:
        return save_run_jobs(done, source, path, label=label, order=order, tau=tau)

    if jobs_out:
        writer(jobs_out)
    figures = run_figures(done, tau)
    record = policy_record(source, spec, done.family, dict(done.parameters), done.engine, order)
    return HeadlessRun(source, spec, record["name"], record, done.parameters, done.engine,
                       done.kind.title, machine(source, procs, slice_seconds), figures, steps,
                       done, writer)


def _space_sharing_columns(name: str, spec: str | None, *, procs: int | None,
                           slice_seconds: float | None, steps: bool | None, order: str | None,
                           jobs_out: str | None, tau: float) -> HeadlessRun | None:
    """Run a space-sharing policy on an SWF trace read as columns, when no step is asked for: the
    run then needs the trace's numbers only, so no job object is made. Returns ``None`` when the
    run is not of that kind (or its policy spec is bad: the general path reports that in its
    own order). Raises ``ValueError`` for a job larger than the machine."""
    from gangviz.core import registry
    from gangviz.policies import build as build_policy

    if steps or spec is None or order:
        return None
    try:
        entry, given = registry.parse(spec)
        if not registry.family(entry.family).backfills:
            return None
        policy = build_policy(entry, given)
    except ValueError:
        return None
    from gangviz.workloads.source import load_trace_columns, print_warnings

    columns = load_trace_columns(name, procs=procs, slice_seconds=slice_seconds)
    if columns is None:
        return None
    title = Path(name).name
    print_warnings(title, columns.warnings)
    return trace_run(title, columns, policy, procs=procs, slice_seconds=slice_seconds,
                     parameters=given, jobs_out=jobs_out, path=name, spec=spec, gamma=tau)


def trace_run(title: str, columns: TraceColumns, policy: SpaceSharingPolicy, *,
              procs: int | None = None, slice_seconds: float | None = None,
              parameters: dict[str, Any] | None = None, jobs_out: str | None = None,
              path: str | None = None, spec: str | None = None, gamma: float = 10.0) -> HeadlessRun:
    """Run the space-sharing ``policy`` on the jobs of a trace as columns (a
    :class:`~gangviz.workloads.swf.TraceColumns` titled ``title``) and return the
    :class:`HeadlessRun`, writing ``jobs_out`` when given. ``procs``/``slice_seconds`` are the
    options as given, ``path`` the trace's file and ``spec`` the policy as given (for the
    provenance), ``gamma`` the bounded slowdown's threshold in seconds.

    Raises ``ValueError`` for a job larger than the machine.
    """
    import numpy as np

    from gangviz.results.figures import columns_figures
    from gangviz.results.jobs import save_columns_jobs, write_sidecar
    from gangviz.results.provenance import policy_record
    from gangviz.results.summary import machine
    from gangviz.spacesharing.backfill import simulate_backfill_columns
    from gangviz.workloads.source import Source

    c = columns
    processors = c.processors
    assert processors is not None  # load_trace_columns refuses a trace without a machine size
    res = simulate_backfill_columns(c.arrival, c.size, c.work, c.estimate, processors, mode=policy.mode,
                                    estimates=policy.estimates, kill_at_estimate=policy.kill)
    source = Source("swf", title, processors, [], slice_seconds=c.slice_seconds, count=len(c),
                    warnings=list(c.warnings), path=Path(path) if path else None)
    label = spec or policy.label()
    record = policy_record(source, label, "space-sharing", dict(parameters or {}), "backfill")

    # as arrays once, for the figures and the per-job file
    start, finish, ran = (np.asarray(x, dtype=np.float64) for x in (res.start, res.finish, res.runs))

    def writer(out: str) -> object:
        save_columns_jobs(title, c, start, finish, out, label=policy.label(), executed=ran, tau=gamma)
        return write_sidecar(out, source, record, gamma)

    if jobs_out:
        writer(jobs_out)
    figures = columns_figures(c.arrival, start, finish, c.work, c.size, processors,
                              slice_seconds=c.slice_seconds, clock="s", capacity=res.capacity,
                              executed=ran, gamma=gamma)
    return HeadlessRun(source, label, policy.label(), record, dict(parameters or {}), "backfill",
                       "space sharing", machine(source, procs, slice_seconds), figures, writer=writer)


def _gang_columns(name: str, spec: str | None, *, procs: int | None, slice_seconds: float | None,
                  jobs: int | None, load: float | None, seed: int | None, steps: bool | None,
                  ring: bool, order: str | None, params: dict[str, Any] | None,
                  jobs_out: str | None, tau: float) -> HeadlessRun | None:
    """Run a gang policy the compiled loop covers on a synthetic model's draws or an SWF trace's
    columns (job i: id i, in arrival order; no job object), when no step, ring, queue order or
    user's option is asked for (nor a per-job file of a model). Returns ``None`` when the run
    is not of this kind or an option or the input is bad (the general path then runs it, and
    reports the fault in its own words and order). Raises ``ValueError`` when the loop refuses
    a job."""
    from gangviz.workloads.source import MODELS, Source

    if (steps or ring or order or spec is None or params
            or (jobs_out and name.lower() in MODELS)):
        return None
    try:
        if name.lower() in MODELS:
            found = _model_columns(name, spec, procs=procs, slice_seconds=slice_seconds, jobs=jobs,
                                   load=load, seed=seed)
        elif jobs is not None or load is not None or seed is not None:
            return None  # the general path says why they do not apply
        else:
            found = _trace_columns(name, spec, procs=procs, slice_seconds=slice_seconds)
    except ValueError:
        return None
    if found is None:
        return None
    source, cols, policy, typed, title, parameters = found
    from gangviz.experiments.progress import announce_compiled
    from gangviz.results.provenance import policy_record
    from gangviz.results.summary import machine

    if source.kind == "swf":
        from gangviz.workloads.source import print_warnings

        print_warnings(source.title, cols.warnings)
    announce_compiled(Source(source.kind, source.title, source.processors, []), [spec],
                      jobs=bool(jobs_out))
    figures, run = _gang_figures(source, cols, policy, typed, tau, placement=bool(jobs_out))
    record = policy_record(source, spec, "matrix", parameters, "compiled:gang")

    def writer(out: str) -> object:
        return _save_gang_columns_jobs(source, cols, run, out, spec, parameters, tau)

    if jobs_out:
        writer(jobs_out)
    return HeadlessRun(source, spec, title, record, parameters, "compiled:gang", "time slots",
                       machine(source, procs, slice_seconds), figures, writer=writer)


def _save_gang_columns_jobs(source: Source, cols: Any, run: Any, path: str, spec: str,
                            parameters: dict[str, Any], tau: float) -> object:
    """Write the per-job file of ``run`` (the loop's run of the trace's columns ``cols``, with
    its placement) to ``path`` and its sidecar: the file and sidecar the general path writes."""
    from gangviz.results.compiled_jobs import save_compiled_columns_jobs
    from gangviz.results.jobs import write_sidecar
    from gangviz.results.provenance import policy_record

    save_compiled_columns_jobs(source.title, cols, run, path, label=spec, tau=tau)
    return write_sidecar(path, source, policy_record(source, spec, "matrix", parameters, "compiled:gang"), tau)


def _gang_policy(kind: SourceKind, spec: str) -> tuple[str, dict[str, Any], str, dict[str, Any]] | None:
    """Return ``(registry name, typed parameters, the policy's own name, parameters as given)``
    of ``spec`` when the compiled gang loop covers it, else ``None``; raises ``ValueError`` for
    a bad spec."""
    from gangviz.factory.policy import make, resolve, typed_params
    from gangviz.fast.gang import covers
    from gangviz.workloads.source import Source

    choice = resolve(Source(kind, "", 1, []), spec)
    if choice.entry is None or "compiled" not in choice.entry.loops:
        return None
    typed = typed_params(choice)
    if not covers(choice.entry.name, typed):
        return None
    return choice.entry.name, typed, make("matrix", choice).name, dict(choice.params)


def _model_columns(name: str, spec: str, *, procs: int | None, slice_seconds: float | None,
                   jobs: int | None, load: float | None, seed: int | None) -> tuple[Any, ...] | None:
    """The model's run as :func:`_gang_columns` takes it, or ``None``."""
    from types import SimpleNamespace

    from gangviz.core.limits import BYTES_PER_COLUMN_JOB, check_memory
    from gangviz.workloads.source import Source, model_options
    from gangviz.workloads.synthetic import uniform_log_columns

    procs, count, load, seed, title = model_options(name, procs=procs, slice_seconds=slice_seconds,
                                                    jobs=jobs, load=load, seed=seed)
    # a job costs columns only here; over the budget even so, the general path says so
    check_memory(procs, count, what=f"the {name} model", per_job=BYTES_PER_COLUMN_JOB)
    policy = _gang_policy("model", spec)
    if policy is None:
        return None
    c = uniform_log_columns(count, load, procs=procs, seed=seed)  # job i: id i, in arrival order
    cols = SimpleNamespace(arrival=c.arrival, size=c.size, work=c.work, estimate=None, warnings=[])
    source = Source("model", title, procs, [], slice_seconds=1.0, count=count, seed=seed)
    return (source, cols, *policy)


def _trace_columns(name: str, spec: str, *, procs: int | None,
                   slice_seconds: float | None) -> tuple[Any, ...] | None:
    """The trace's run as :func:`_gang_columns` takes it, or ``None`` (not a trace; a job the
    compiled loop does not cover, which the general path runs on the reference engine)."""
    import numpy as np

    from gangviz.workloads.source import Source, load_trace_columns

    policy = _gang_policy("swf", spec)
    if policy is None:
        return None
    c = load_trace_columns(name, procs=procs, slice_seconds=slice_seconds)
    if c is None or not len(c) or np.any(c.arrival[1:] < c.arrival[:-1]):
        return None
    if not (np.all(np.isfinite(c.work)) and np.all((c.size >= 1) & (c.size <= c.processors))):
        return None
    assert c.processors is not None  # load_trace_columns refuses a trace without a machine size
    source = Source("swf", Path(name).name, c.processors, [], slice_seconds=c.slice_seconds,
                    count=len(c), warnings=list(c.warnings), path=Path(name))
    return (source, c, *policy)


def _gang_figures(source: Source, cols: Any, policy: str, params: dict[str, Any], gamma: float = 10.0, *,
                  placement: bool = False) -> tuple[Figures, Any]:
    """Run the jobs of ``cols`` (job i: id i, arrivals in order) and return the run's
    :class:`~gangviz.results.figures.Figures` (core and Zhou00 §4.3), as
    :func:`gangviz.results.figures.run_figures` gives them for the whole run, and the run.
    With ``placement`` the run is one stretch that keeps where every job ran
    (:func:`gangviz.fast.gang.run_gang`, for a per-job file), with the same figures."""
    import numpy as np

    from gangviz.fast.gang_chunks import run_gang_chunks, zhou_metrics_of_columns
    from gangviz.results.figures import clock_of, columns_figures, zhou_own

    procs, clock = source.processors, clock_of(source)
    seconds = float(source.slice_seconds or 1.0)
    run: Any
    if placement:
        from gangviz.fast.gang import JobArrays, run_gang

        estimate = np.full(len(cols.arrival), np.nan) if cols.estimate is None else cols.estimate
        jobs = JobArrays(np.arange(len(cols.arrival)), cols.arrival, cols.size, cols.work, estimate)
        run = run_gang(jobs, policy, params, procs, placement=True)
    else:
        run = run_gang_chunks(cols.arrival, cols.size, cols.work, policy, params, procs, stretch=STRETCH,
                              starts=True, estimate=cols.estimate)
    zhou = zhou_metrics_of_columns(cols.arrival, cols.size, cols.work, run.finish, procs, run.time,
                                   run.max_rows, run.slot_time, block=BLOCK)
    return columns_figures(cols.arrival, run.start, run.finish, cols.work, cols.size, procs,
                           slice_seconds=seconds, clock=clock, capacity=run.capacity(), family="matrix",
                           own=zhou_own(zhou, clock, seconds), block=BLOCK, gamma=gamma), run
