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

from typing import Any

from gangviz.core.registry import SPACE_SHARING


def run_to_end(sim) -> None:
    """Run ``sim`` (any family) until it has no step left."""
    while sim.step() is not None:
        pass


def piece_text(piece, names: dict[int, str] | None = None) -> str:
    """Return an epoch piece as ``"J8 P1..P8 0..1/4"`` (nodes 1-based, times in quanta)."""
    label = (names or {}).get(piece.job, f"J{piece.job}")
    nodes = f"P{piece.node + 1}" if piece.width == 1 else f"P{piece.node + 1}..P{piece.node + piece.width}"
    return f"{label} {nodes} {piece.start}..{piece.end}"


def end_state(sim) -> dict[str, Any]:
    """Return the comparable end state of ``sim`` (the ``[expect]`` keys of its family, plus
    ``steps``). Raises ``ValueError`` for an object of no known family."""
    family = sim.family
    steps = len(sim.steps)
    if family == SPACE_SHARING:
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
    if family == "epoch":
        sched = sim.schedule
        return {"schedule": [piece_text(p) for p in sched.pieces] if sched else [],
                "epochs": [[f"J{j}" for j in e] for e in sched.epochs] if sched else [],
                "departed": [f"J{f.id}" for f in sim.state.finished], "steps": steps}
    raise ValueError(f"not a simulation of a known family: {family!r}")


def check_expect(scenario, sim) -> list[str]:
    """Return the differences between ``sim``'s end and ``scenario``'s ``[expect]`` (a Scenario
    or a Source loaded from one; empty when every expectation holds). An expectation key the
    family does not know is reported too."""
    from gangviz.workloads.source import source_of

    expect = source_of(scenario).expect
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
