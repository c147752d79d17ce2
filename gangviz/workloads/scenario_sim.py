"""Build the right simulation for any scenario, and compare its end with the scenario's ``[expect]``.

The window and the command line share these functions, so a scenario behaves the same in both:

* ``model = "matrix"``: :class:`gangviz.sim.engine.Simulation` under a matrix policy
  (:func:`gangviz.policies.make_policy`), starting from the scenario's matrix and script.
* ``model = "multisite"``: :class:`gangviz.multisite.simulation.MultiSiteSimulation` under AFCFS or
  AFCFSwM (Papazachos09 §3), fed the scenario's gangs instead of a random stream.
* ``model = "epoch"``: :class:`gangviz.epoch.sim.EpochSimulation` (McCann94 §5.2)
  with the scenario's job sequence; it stops when the sequence is used up.

``[expect]`` keys (all optional), checked by :func:`check_expect`:

* matrix: ``final_matrix`` (rows, top slot first, as :meth:`OusterhoutMatrix.to_rows` prints them);
* multisite: ``completed`` (gang labels in completion order), ``local_migrations`` and
  ``grid_migrations`` (numbers of migrated tasks);
* epoch: ``schedule`` (the last quantum's pieces as :func:`piece_text` prints them, in the
  policy's order), ``epochs`` (job labels per epoch), ``departed`` (labels in departure order);
* any model: ``narration_contains`` (phrases that must each appear in some step's narration) and
  ``steps`` (the number of steps of the whole run).
"""

from __future__ import annotations

from typing import Any

from gangviz.workloads.scenario import MULTISITE_POLICIES, Scenario, ScriptedEpochJob, ScriptedGang

DEFAULT_POLICY = {"matrix": "repack", "multisite": "AFCFSwM", "epoch": "OPT-EPOCH(1)"}


class ScriptedGangStream:
    """The :class:`~gangviz.multisite.workload.GangStream` interface over a fixed list of gangs."""

    def __init__(self, gangs: list[ScriptedGang]) -> None:
        self.arrival = [g.at for g in gangs]
        self.size = [g.size for g in gangs]
        self.service = [g.service for g in gangs]
        self.site = [g.site for g in gangs]

    def ensure(self, i: int) -> None:
        """Check that gang ``i`` exists; raise ``IndexError`` past the end of the script."""
        if i >= len(self.arrival):
            raise IndexError(f"the scenario lists {len(self.arrival)} gangs; gang {i} does not exist")


class ScriptedEpochWorkload:
    """The :class:`~gangviz.epoch.workload.ClosedWorkload` interface over a fixed job sequence.

    Job ``index`` gets id ``index + 1`` (labelled ``J<index+1>``, as the paper numbers jobs).
    """

    def __init__(self, jobs: list[ScriptedEpochJob]) -> None:
        self.jobs = list(jobs)

    def job(self, index: int):
        """Return job ``index`` as an :class:`~gangviz.epoch.workload.EpochJobSpec`; raise
        ``IndexError`` past the end of the sequence."""
        from gangviz.epoch.workload import EpochJobSpec

        if index >= len(self.jobs):
            raise IndexError(f"the scenario lists {len(self.jobs)} jobs; job {index + 1} does not exist")
        j = self.jobs[index]
        return EpochJobSpec(index + 1, j.min_nodes, j.work, j.beta, "scripted")


def _scenario(obj) -> Scenario:
    sc = getattr(obj, "scenario", obj)
    if not isinstance(sc, Scenario):
        raise TypeError(f"expected a Scenario or a Source loaded from a scenario, got {type(obj).__name__}")
    return sc


def policy_name(scenario, policy: str | None = None) -> str:
    """Return the policy a run of ``scenario`` (a Scenario or Source) uses: ``policy``, else the
    scenario's own, else the family's default (repack, AFCFSwM, OPT-EPOCH(1))."""
    model = getattr(scenario, "model", "matrix")
    return policy or getattr(scenario, "policy", None) or DEFAULT_POLICY[model]


def simulation_for(scenario, policy: str | None = None, *, params: dict | None = None,
                   watch: bool | None = None, record: bool = True):
    """Return a fresh simulation of ``scenario`` (a :class:`Scenario`, or a
    :class:`~gangviz.workloads.source.Source` of any kind) under ``policy``.

    ``params`` add to (and override) the scenario's ``[params.POLICY]`` for matrix policies;
    ``watch`` (matrix family, default on for scenarios) steps slice by slice; ``record`` keeps
    the matrix engine's history. Raises ``ValueError`` for an unknown policy, bad parameters, or a
    policy of another family (e.g. ``"repack"`` for an epoch scenario).
    """
    model = getattr(scenario, "model", "matrix")
    name = policy_name(scenario, policy)
    if model == "matrix":
        return _matrix(scenario, name, params, watch, record)
    sc = _scenario(scenario)
    if params:
        raise ValueError(f"a {model} scenario takes its parameters from the file, not from params")
    if model == "multisite":
        return _multisite(sc, name)
    return _epoch(sc, name)


def _matrix(source, name: str, params: dict | None, watch: bool | None, record: bool):
    from gangviz.policies import make_policy
    from gangviz.sim.engine import Simulation

    given = getattr(source, "params", {}) or {}
    merged = dict(given.get(name.lower(), {})) if isinstance(given.get(name.lower(), {}), dict) else {}
    merged.update(params or {})
    pol = make_policy(name, **merged)
    if getattr(pol, "family", None) == "space-sharing":
        from gangviz.spacesharing.simulation import SpaceSharingSimulation

        pol.check_source(source)
        return SpaceSharingSimulation(source.jobs, source.processors, pol,
                                      time_unit=getattr(source, "slice_seconds", 1.0))
    kind = getattr(source, "kind", "scenario")
    if watch is None:
        watch = kind == "scenario"
    return Simulation(source.jobs, pol, source.processors, ring=source.ring, initial=source.matrix,
                      script=source.script, watch=watch, record=record)


def _multisite(sc: Scenario, name: str):
    from gangviz.multisite.config import MultiSiteConfig
    from gangviz.multisite.simulation import MultiSiteSimulation

    migrate = MULTISITE_POLICIES.get(name.lower())
    if migrate is None:
        raise ValueError(f"policy {name!r} is not a multisite policy; use AFCFS or AFCFSwM")
    cfg = MultiSiteConfig(sites=sc.sites, procs=sc.processors, migrate=migrate, **sc.params)
    return MultiSiteSimulation(cfg, max_gangs=len(sc.gangs), stream=ScriptedGangStream(sc.gangs))


def _epoch(sc: Scenario, name: str):
    from gangviz.epoch.sim import EpochSimulation

    return EpochSimulation(sc.processors, sc.in_system, name, static=sc.static, quantum=sc.quantum,
                           workload=ScriptedEpochWorkload(sc.workload),
                           departures=len(sc.workload) - sc.in_system)


def run_to_end(sim) -> None:
    """Run ``sim`` (any family) until it has no step left."""
    while sim.step() is not None:
        pass


def piece_text(piece, names: dict[int, str] | None = None) -> str:
    """Return an epoch piece as ``"J8 P1..P8 0..1/4"`` (nodes 1-based, times in quanta)."""
    label = (names or {}).get(piece.job, f"J{piece.job}")
    nodes = f"P{piece.node + 1}" if piece.width == 1 else f"P{piece.node + 1}..P{piece.node + piece.width}"
    return f"{label} {nodes} {piece.start}..{piece.end}"


def family_of(sim) -> str:
    """Return ``"matrix"``, ``"multisite"``, ``"epoch"`` or ``"space-sharing"`` for a simulation object."""
    if getattr(sim, "family", None) == "space-sharing":
        return "space-sharing"
    if hasattr(sim, "matrix") and hasattr(sim, "jobs") and hasattr(sim.matrix, "to_rows"):
        return "matrix"
    if hasattr(sim, "queue_state"):
        return "multisite"
    if hasattr(sim, "schedule"):
        return "epoch"
    raise TypeError(f"not a gangviz simulation: {type(sim).__name__}")


def end_state(sim) -> dict[str, Any]:
    """Return the comparable end state of ``sim`` (the ``[expect]`` keys of its family, plus
    ``steps``)."""
    family = family_of(sim)
    steps = len(sim.steps)
    if family == "space-sharing":
        return {"started": [sim.names[r.spec.id] for r in sorted(
            (r for r in sim.result.records if r.start is not None and r.start <= sim.time),
            key=lambda r: (r.start, r.spec.arrival, r.spec.id))], "steps": steps}
    if family == "matrix":
        return {"final_matrix": sim.matrix.to_rows(), "steps": steps}
    if family == "multisite":
        from gangviz.multisite.changes import TaskMigrated

        moves = [c for s in sim.steps[:sim.cursor] for c in s.changes if isinstance(c, TaskMigrated)]
        return {"completed": [f"G{g}" for g in sim.state.completed],
                "local_migrations": sum(not c.is_grid for c in moves),
                "grid_migrations": sum(c.is_grid for c in moves), "steps": steps}
    sched = sim.schedule
    return {"schedule": [piece_text(p) for p in sched.pieces] if sched else [],
            "epochs": [[f"J{j}" for j in e] for e in sched.epochs] if sched else [],
            "departed": [f"J{f.id}" for f in sim.state.finished], "steps": steps}


def check_expect(scenario, sim) -> list[str]:
    """Return the differences between ``sim``'s end and ``scenario``'s ``[expect]`` (empty when
    every expectation holds). An expectation key the family does not know is reported too."""
    expect = getattr(_scenario(scenario), "expect", {}) or {}
    state = end_state(sim)
    problems = []
    for key, want in expect.items():
        if key == "narration_contains":
            lines = [line for s in sim.steps for line in s.narration]
            for phrase in ([want] if isinstance(want, str) else want):
                if not any(phrase in line for line in lines):
                    problems.append(f"no narration line contains {phrase!r}")
        elif key not in state:
            problems.append(f"unknown [expect] key {key!r} for this model "
                            f"(known: narration_contains, {', '.join(sorted(state))})")
        elif state[key] != want:
            problems.append(f"{key}: expected {want!r}, got {state[key]!r}")
    return problems
