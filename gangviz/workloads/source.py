"""One entry point to load whatever a user names: a scenario, an SWF trace or a synthetic model."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO, TypedDict

from gangviz.core.jobs import JobColumns, JobSpec
from gangviz.core.limits import (
    check_count,
    check_jobs,
    check_memory,
    check_processors,
    check_slice_seconds,
)
from gangviz.resources import scenario_path
from gangviz.workloads.files import sniff

if TYPE_CHECKING:  # pragma: no cover  (annotations only: a trace run needs no engine)
    from gangviz.core.jobs import ScriptEvent
    from gangviz.core.matrix import OusterhoutMatrix
    from gangviz.workloads.scenario_types import Scenario
    from gangviz.workloads.swf import TraceColumns

#: what a :class:`Source` was read from: a scenario file, an SWF trace or a synthetic model (a
#: saved session names one of these and loads it through :func:`load_source`)
SourceKind = Literal["scenario", "swf", "model"]
MODELS = ("downey",)


class ModelDefaults(TypedDict):
    """The options of a synthetic model: how many jobs, the offered load, the random seed."""

    jobs: int
    load: float
    seed: int


#: what a model runs when ``jobs``, ``load`` or ``seed`` is not given
MODEL_DEFAULTS: ModelDefaults = {"jobs": 200, "load": 0.5, "seed": 1}


@dataclass
class Source:
    """What a simulation needs, whatever the input was: the one type every consumer (commands,
    factory, window, API, experiments) reads, every field always present, so none probes it.

    A :class:`~gangviz.workloads.scenario_types.Scenario` becomes one through
    :func:`scenario_source`; a run that never builds job objects (a trace read as columns) gives
    its job count in ``count``.
    """

    kind: SourceKind
    title: str
    processors: int
    jobs: Sequence[JobSpec]
    matrix: OusterhoutMatrix | None = None
    script: list[ScriptEvent] = field(default_factory=list)
    policy: str | None = None
    ring: bool = False
    explanation: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    expect: dict[str, Any] = field(default_factory=dict)
    #: "matrix", "multisite" or "epoch" (scenario files may be any; traces and models are "matrix").
    model: str = "matrix"
    #: the loaded :class:`~gangviz.workloads.scenario.Scenario` when ``kind == "scenario"``; build
    #: its simulation with :func:`gangviz.factory.build`.
    scenario: Scenario | None = None
    #: seconds per time unit of ``jobs`` (an SWF trace's slice length; 1 otherwise) and the
    #: first submit time in seconds, to write per-job times back in the trace's own clock
    slice_seconds: float = 1.0
    submit_offset: float = 0.0
    #: the first processor that is padding (``None``: none is). A trace whose header gives its
    #: machine (``MaxProcs``) run on more processors with ``--procs`` (a buddy policy needs a
    #: power of two: Atlas's 9,216 on 16,384) has processors ``absent_from ..`` that do not
    #: exist; the buddy policies never allocate them, the window draws them as absent and the
    #: utilisation leaves them out.
    absent_from: int | None = None
    #: the number of jobs when ``jobs`` is not built (a trace run from its columns); ``None``:
    #: count ``jobs`` (:attr:`job_count`)
    count: int | None = None
    #: how to load this source again: ``(name, options)`` for :func:`load_source` (a trace's
    #: absolute path, or a model with its drawn options), so a worker process reloads a big
    #: workload rather than receive its jobs pickled; ``None`` for a scenario or a source made
    #: in code
    origin: tuple[str, dict[str, Any]] | None = None
    #: the file read (a trace or a scenario file), for the provenance of what ran on it
    #: (``None``: a built-in scenario or a model); ``seed``: a model's random seed
    path: Path | None = None
    seed: int | None = None

    @property
    def job_count(self) -> int:
        """Return the number of jobs: ``count`` when given, else the scenario's gangs or epoch
        jobs for those families, else ``len(jobs)``."""
        if self.count is not None:
            return self.count
        if self.scenario is not None and self.model == "multisite":
            return len(self.scenario.gangs)
        if self.scenario is not None and self.model == "epoch":
            return len(self.scenario.workload)
        return len(self.jobs)

    def policy_params(self, policy: str) -> dict[str, Any]:
        """Return the parameters the source gives for ``policy`` (scenario ``[params.NAME]``)."""
        value = self.params.get(policy.lower(), {})
        return dict(value) if isinstance(value, dict) else {}


def _refuse_window_files(name: str) -> None:
    """Raise ``ValueError`` when ``name`` is a lecture playlist or a saved session: files only
    the window opens, which would otherwise be read as a scenario with unknown keys."""
    from gangviz.session import is_session_file
    from gangviz.workloads.playlist import playlist_path

    if playlist_path(name) is not None:
        raise ValueError(f"{name}: a lecture playlist, not a workload: open it in the window "
                         f"with 'gangviz open {name}'")
    if is_session_file(name):
        raise ValueError(f"{name}: a saved session, not a workload: open it in the window "
                         f"with 'gangviz open {name}'")


def model_options(name: str, *, procs: int | None, slice_seconds: float | None, jobs: int | None,
                  load: float | None, seed: int | None) -> tuple[int, int, float, int, str]:
    """Check the options of synthetic model ``name`` (``None``: :data:`MODEL_DEFAULTS`'s);
    return ``(processors, jobs, load, seed, title)``. Raises ``ValueError`` (a
    :class:`~gangviz.core.limits.LimitError` over a limit) naming the option at fault."""
    if slice_seconds is not None:
        raise ValueError(f"{name}: --slice applies to SWF traces; a model counts in slices")
    jobs = MODEL_DEFAULTS["jobs"] if jobs is None else jobs
    load = MODEL_DEFAULTS["load"] if load is None else load
    seed = MODEL_DEFAULTS["seed"] if seed is None else seed
    check_jobs(jobs, "--jobs")
    seed = check_count(seed, "seed", 2**64 - 1, "--seed", low=0)  # numpy's seeds are >= 0
    if not (isinstance(load, (int, float)) and math.isfinite(load) and load > 0):
        raise ValueError(f"load must be a finite number > 0, got {load!r} (set by --load)")
    p = 128 if procs is None else procs
    return p, jobs, load, seed, f"{name} model: {jobs} job{'' if jobs == 1 else 's'}, load {load:g}, seed {seed}"


def load_source(
    name: str,
    *,
    procs: int | None = None,
    slice_seconds: float | None = None,
    jobs: int | None = None,
    load: float | None = None,
    seed: int | None = None,
) -> Source:
    """Return the :class:`Source` for ``name``.

    ``name`` is a scenario file, a built-in scenario name, an SWF trace (plain or compressed;
    told from a scenario by its content, whatever its name) or a model name (``downey``).
    Options are checked, never replaced nor ignored: ``procs``/``slice_seconds`` out of range,
    or given to a source that cannot honour them (a scenario fixes its machine; a model counts
    in slices), and ``jobs``/``load``/``seed`` given for a trace or a scenario (which bring
    their own jobs; a model's default to :data:`MODEL_DEFAULTS`) raise ``ValueError`` saying why; a trace without a machine size and no ``procs`` raises
    :class:`NeedsProcessors`; a run over the memory budget raises
    :class:`~gangviz.core.limits.LimitError` with the estimate. A scenario of the ``multisite`` or
    ``epoch`` family has no jobs or matrix here (``source.model`` says so); build its simulation
    with :func:`gangviz.factory.build`. Raises ``ValueError`` (with the reader's
    message) for a malformed file and ``FileNotFoundError`` for a missing one.
    """
    if procs is not None:
        check_processors(procs, "--procs")
    if slice_seconds is not None:
        check_slice_seconds(slice_seconds, "--slice")
    path = Path(name)
    lower = name.lower()
    if not name.strip():
        raise ValueError("no source given: name a scenario, an SWF trace or a model "
                         f"({', '.join(MODELS)})")
    if lower in MODELS:
        p, jobs, load, seed, title = model_options(name, procs=procs, slice_seconds=slice_seconds,
                                                   jobs=jobs, load=load, seed=seed)
        check_memory(p, jobs, what=f"the {name} model")
        return Source("model", title, p, _model_jobs(jobs, load, p, seed), seed=seed,
                      origin=(lower, {"procs": p, "jobs": jobs, "load": load, "seed": seed}))
    given = [k for k, v in (("jobs", jobs), ("load", load), ("seed", seed)) if v is not None]
    if given:
        raise ValueError(f"{name}: --{given[0]} ({given[0]}=) applies to a synthetic model "
                         f"({', '.join(MODELS)}); a trace or a scenario brings its own jobs")
    if path.exists():
        kind = sniff(path)
        if kind != "swf":  # (a trace needs neither check, nor their imports)
            _refuse_window_files(name)
    else:
        if lower.endswith((".swf", ".swf.gz", ".swf.bz2", ".swf.xz", ".toml")):
            raise FileNotFoundError(f"{name}: no such file")
        _refuse_window_files(name)  # a built-in playlist's name
        try:
            path = scenario_path(name)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"{name}: no such file, built-in scenario or model (models: {', '.join(MODELS)})"
            ) from None
        kind = "scenario"
    if kind == "swf":
        cols = _read_trace(path, name, procs, slice_seconds)
        assert cols.processors is not None  # _read_trace refuses a trace without a machine size
        return Source("swf", path.name, cols.processors, cols.workload().jobs, warnings=list(cols.warnings),
                      slice_seconds=cols.slice_seconds, submit_offset=cols.submit_offset,
                      absent_from=_padding_from(cols), path=path,
                      origin=(str(path.resolve()), {"procs": procs, "slice_seconds": slice_seconds}))
    from gangviz.workloads.scenario import load_scenario

    sc = load_scenario(path)
    if procs is not None and procs != sc.processors:
        raise ValueError(f"{name}: --procs {procs} cannot apply: the scenario fixes its machine "
                         f"(processors = {sc.processors}{' per site' if sc.model == 'multisite' else ''} "
                         "in the file); edit the file to change it")
    if slice_seconds is not None:
        raise ValueError(f"{name}: --slice applies to SWF traces; a scenario counts in slices")
    out = scenario_source(sc)
    if Path(name).exists():
        out.path = path
    return out


#: A model of more jobs than this keeps them as columns (:class:`~gangviz.core.jobs.JobColumns`,
#: a spec made when read) rather than a list of specs: ten million jobs in about 160 MB
#: instead of 4 GB.
COLUMNS_FROM = 100_000


def _model_jobs(jobs: int, load: float, procs: int, seed: int) -> Sequence[JobSpec]:
    """The jobs of the model (:func:`~gangviz.workloads.synthetic.uniform_log`): a list of
    specs, or columns from :data:`COLUMNS_FROM` jobs on."""
    from gangviz.workloads.synthetic import uniform_log, uniform_log_columns

    if jobs <= COLUMNS_FROM:
        return uniform_log(jobs, load, procs=procs, seed=seed).jobs
    cols = uniform_log_columns(jobs, load, procs=procs, seed=seed)
    return JobColumns(cols.arrival, cols.size, cols.work)


def source_of(obj: Source | Scenario) -> Source:
    """Return ``obj`` when it is a :class:`Source`, the :func:`scenario_source` of a scenario;
    raise ``TypeError`` for anything else (a caller holding a path loads it with
    :func:`load_source`)."""
    from gangviz.workloads.scenario_types import Scenario

    if isinstance(obj, Source):
        return obj
    if isinstance(obj, Scenario):
        return scenario_source(obj)
    raise TypeError(f"not a source or a scenario: {type(obj).__name__}")


def scenario_source(sc: Scenario) -> Source:
    """Return the :class:`Source` of a loaded scenario (kind ``"scenario"``, its family in
    ``model``, the scenario itself in ``scenario``)."""
    return Source("scenario", sc.title, sc.processors, sc.jobs, sc.matrix, sc.script, sc.policy,
                  sc.ring, sc.explanation, sc.params, expect=sc.expect, model=sc.model, scenario=sc)


def load_trace_columns(name: str, *, procs: int | None = None,
                       slice_seconds: float | None = None) -> TraceColumns | None:
    """Return the jobs of ``name`` as :class:`~gangviz.workloads.swf.TraceColumns` when
    :func:`load_source` would read it as an SWF trace (an existing file whose content is SWF),
    else ``None``; for a caller that needs numbers only, not job objects.

    Checks and errors are those of :func:`load_source` for a trace (``procs``, ``slice_seconds``,
    the reader's messages, :class:`NeedsProcessors`, the memory budget).
    """
    if procs is not None:
        check_processors(procs, "--procs")
    if slice_seconds is not None:
        check_slice_seconds(slice_seconds, "--slice")
    path = Path(name)
    if not name.strip() or name.lower() in MODELS or not path.exists() or sniff(path) != "swf":
        return None
    return _read_trace(path, name, procs, slice_seconds)


def _padding_from(cols: TraceColumns) -> int | None:
    """Return the trace's own machine size when ``--procs`` made the machine larger (the first
    padded processor), else ``None``."""
    from gangviz.workloads.swf import header_int

    real = header_int(cols.header, "MaxProcs") or header_int(cols.header, "MaxNodes")
    if real is not None and cols.processors is not None and 1 <= real < cols.processors:
        return real
    return None


def _read_trace(path: Path, name: str, procs: int | None, slice_seconds: float | None) -> TraceColumns:
    from gangviz.workloads.swf import read_swf_columns

    cols = read_swf_columns(path, procs=procs, slice_seconds=slice_seconds or 1.0)
    if not cols.processors:
        raise NeedsProcessors(f"{name}: the header gives no MaxProcs/MaxNodes; pass --procs")
    check_memory(cols.processors, len(cols), what=f"{path.name}")
    return cols


class NeedsProcessors(ValueError):
    """A trace that gives no machine size: the caller must supply processors (``procs``)."""


def print_warnings(title: str, warnings: list[str], stream: TextIO | None = None) -> None:
    """Write ``warnings`` (each already a summary with its count and first lines, as ``validate``
    shows them) to ``stream`` (default stderr), one ``gangviz: warning:`` line each."""
    import sys

    out = sys.stderr if stream is None else stream
    if warnings:
        out.write(f"gangviz: {len(warnings)} warning{'s' if len(warnings) != 1 else ''} about {title}:\n")
    for message in warnings:
        out.write(f"gangviz: warning: {message}\n")
