"""One entry point to load whatever a user names: a scenario, an SWF trace or a synthetic model."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.resources import scenario_path
from gangviz.sim.engine import ScriptEvent

MODELS = ("downey",)


@dataclass
class Source:
    """What a simulation needs, whatever the input was."""

    kind: str  # "scenario", "swf" or "model"
    title: str
    processors: int
    jobs: list[JobSpec]
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
    #: its simulation with :func:`gangviz.workloads.scenario_sim.simulation_for`.
    scenario: Any = None
    #: seconds per time unit of ``jobs`` (an SWF trace's slice length; 1 otherwise).
    slice_seconds: float = 1.0

    def policy_params(self, policy: str) -> dict[str, Any]:
        """Return the parameters the source gives for ``policy`` (scenario ``[params.NAME]``)."""
        value = self.params.get(policy.lower(), {})
        return dict(value) if isinstance(value, dict) else {}


def load_source(
    name: str,
    *,
    procs: int | None = None,
    slice_seconds: float | None = None,
    jobs: int = 200,
    load: float = 0.5,
    seed: int = 1,
) -> Source:
    """Return the :class:`Source` for ``name``.

    ``name`` is a ``.toml`` scenario path, a built-in scenario name, an SWF trace
    (``.swf``/``.swf.gz``) or a model name (``downey``). A scenario of the ``multisite`` or
    ``epoch`` family has no jobs or matrix here (``source.model`` says so); build its simulation
    with :func:`gangviz.workloads.scenario_sim.simulation_for`. Raises ``ValueError`` (with the reader's
    message) for a malformed file and ``FileNotFoundError`` for a missing one.
    """
    path = Path(name)
    lower = name.lower()
    if lower in MODELS:
        from gangviz.workloads.synthetic import uniform_log

        p = procs or 128
        wl = uniform_log(jobs, load, procs=p, seed=seed)
        return Source("model", f"{name} model: {jobs} jobs, load {load:g}, seed {seed}", p, wl.jobs)
    if lower.endswith((".swf", ".swf.gz")):
        from gangviz.workloads.swf import read_swf

        wl = read_swf(path, procs=procs, slice_seconds=slice_seconds or 1.0)
        if not wl.processors:
            raise ValueError(f"{name}: the header gives no MaxProcs/MaxNodes; pass --procs")
        return Source("swf", path.name, wl.processors, wl.jobs, warnings=list(wl.warnings),
                      slice_seconds=float(slice_seconds or 1.0))
    if not lower.endswith(".toml") or not path.exists():
        if not lower.endswith(".toml") or not path.exists():
            try:
                path = scenario_path(name) if not path.exists() else path
            except FileNotFoundError:
                raise FileNotFoundError(
                    f"{name}: no such file, built-in scenario or model (models: {', '.join(MODELS)})"
                ) from None
    from gangviz.workloads.scenario import load_scenario

    sc = load_scenario(path)
    return Source("scenario", sc.title, sc.processors, sc.jobs, sc.matrix, sc.script, sc.policy,
                  sc.ring, sc.explanation, sc.params, expect=sc.expect, model=sc.model, scenario=sc)
