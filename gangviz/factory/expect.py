"""A simulation's end state, and how it compares with a scenario's ``[expect]``.

``[expect]`` keys (all optional), checked by :func:`check_expect`:

* matrix: ``final_matrix`` (rows, top slot first, as :meth:`OusterhoutMatrix.to_rows` prints them);
* multisite: ``completed`` (gang labels in completion order), ``local_migrations`` and
  ``grid_migrations`` (numbers of migrated tasks);
* epoch: ``schedule`` (the last quantum's pieces as :func:`piece_text` prints them, in the
  policy's order), ``epochs`` (job labels per epoch), ``departed`` (labels in departure order);
* space-sharing: ``started`` (job names in start order);
* any model: ``narration_contains`` (phrases that must each appear in some step's narration) and
  ``steps`` (the number of steps of the whole run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from gangviz.core import registry

if TYPE_CHECKING:  # pragma: no cover  (annotations only: each family loads when it runs)
    from gangviz.epoch.model import Piece
    from gangviz.epoch.sim import EpochSimulation
    from gangviz.multisite.simulation import MultiSiteSimulation
    from gangviz.sim.engine import Simulation as MatrixSimulation
    from gangviz.sim.protocol import Simulation
    from gangviz.spacesharing.simulation import SpaceSharingSimulation
    from gangviz.workloads.scenario import Scenario
    from gangviz.workloads.source import Source


def run_to_end(sim: Simulation) -> None:
    """Run ``sim`` (any family) until it has no step left."""
    while sim.step() is not None:
        pass


def piece_text(piece: Piece, names: dict[int, str] | None = None) -> str:
    """Return an epoch piece as ``"J8 P1..P8 0..1/4"`` (nodes 1-based, times in quanta)."""
    label = (names or {}).get(piece.job, f"J{piece.job}")
    nodes = f"P{piece.node + 1}" if piece.width == 1 else f"P{piece.node + 1}..P{piece.node + piece.width}"
    return f"{label} {nodes} {piece.start}..{piece.end}"


def end_state(sim: Simulation) -> dict[str, Any]:
    """Return the comparable end state of ``sim`` (the ``[expect]`` keys of its family, plus
    ``steps``), as its family's ``end_state`` gives it
    (:attr:`gangviz.core.registry.Family.end_state`). Raises ``ValueError`` for an object of no
    known family."""
    try:
        kind = registry.family(sim.family)
    except ValueError:
        raise ValueError(f"not a simulation of a known family: {sim.family!r}") from None
    return {**kind.load("end_state")(sim), "steps": sim.known}


def space_sharing_end(sim: Simulation) -> dict[str, Any]:
    """The space-sharing end state: the jobs' names in start order."""
    ss = cast("SpaceSharingSimulation", sim)
    return {"started": [ss.names[r.spec.id] for r in sorted(
        (r for r in ss.result.records if r.start is not None and r.start <= ss.time),
        key=lambda r: (r.start, r.spec.arrival, r.spec.id))]}


def matrix_end(sim: Simulation) -> dict[str, Any]:
    """The time-slot end state: the matrix's rows, top slot first."""
    return {"final_matrix": cast("MatrixSimulation", sim).matrix.to_rows()}


def multisite_end(sim: Simulation) -> dict[str, Any]:
    """The multi-site end state: the gangs in completion order, the local and grid migrations."""
    from gangviz.multisite.changes import TaskMigrated

    ms = cast("MultiSiteSimulation", sim)
    moves = [c for s in ms.steps[:ms.cursor] for c in s.changes if isinstance(c, TaskMigrated)]
    return {"completed": [f"G{g}" for g in ms.state.completed],
            "local_migrations": sum(not c.is_grid for c in moves),
            "grid_migrations": sum(c.is_grid for c in moves)}


def epoch_end(sim: Simulation) -> dict[str, Any]:
    """The epoch end state: the last quantum's pieces, its epochs and the departed jobs."""
    ep = cast("EpochSimulation", sim)
    sched = ep.schedule
    return {"schedule": [piece_text(p) for p in sched.pieces] if sched else [],
            "epochs": [[f"J{j}" for j in e] for e in sched.epochs] if sched else [],
            "departed": [f"J{f.id}" for f in ep.state.finished]}


def check_expect(scenario: Source | Scenario, sim: Simulation) -> list[str]:
    """Return the differences between ``sim``'s end and ``scenario``'s ``[expect]`` (a Scenario
    or a Source loaded from one; empty when every expectation holds). An expectation key the
    family does not know is reported too."""
    from gangviz.workloads.source import source_of

    expect = source_of(scenario).expect
    state = end_state(sim)
    problems = []
    for key, want in expect.items():
        if key == "narration_contains":
            lines = [line for i in range(sim.known) for line in sim.step_at(i).narration]
            for phrase in ([want] if isinstance(want, str) else want):
                if not any(phrase in line for line in lines):
                    problems.append(f"no narration line contains {phrase!r}")
        elif key not in state:
            problems.append(f"unknown [expect] key {key!r} for this model "
                            f"(known: narration_contains, {', '.join(sorted(state))})")
        elif state[key] != want:
            problems.append(f"{key}: expected {want!r}, got {state[key]!r}")
    return problems
