"""The jobs a multi-site or epoch run has finished, in completion order, and their figures of the
table (:mod:`gangviz.metrics.table`) as those families report them.

Both models sum in the order their jobs complete [Papazachos09 §4.2, McCann94 §5.2]: a
simulation of either gives its finished jobs as :data:`Completion` rows
(:meth:`Completed.completions`), :func:`columns` turns them into the columns the reductions read
and :func:`running` reduces them (:func:`gangviz.metrics.reduce.ordered_figures`). A gang's start
is its finish less its execution time: it waits until all its tasks run, migration overheads
included [Papazachos09 §3.3]. An epoch job runs on a varying number of nodes from its arrival on
and has no execution time of its own (``nan``): the family reports no figure that needs one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

from gangviz.metrics.reduce import GAMMA, last, ordered_figures

if TYPE_CHECKING:  # pragma: no cover  (the shape is for annotations: a run loads no engine module)
    from gangviz.sim.protocol import Simulation

__all__ = ["Completion", "Completed", "columns", "running", "finals", "applied_changes"]


#: One finished job: ``(arrival, finish, execution, size)``, the time it executed (``nan``:
#: none of its own) and its size (processors, or an epoch job's minimum nodes); a plain tuple,
#: since a run gives one per job whenever its figures are asked for.
Completion: TypeAlias = tuple[float, float, float, int]


if TYPE_CHECKING:  # pragma: no cover
    class Completed(Simulation, Protocol):
        """What the figures read of a multi-site or epoch simulation besides the shape every
        simulation has (its time, its applied steps, its processors): its finished jobs."""

        def completions(self) -> Sequence[Completion]:
            """Return the jobs finished at the current step, in completion order."""
            ...


def columns(rows: Iterable[Completion]) -> dict[str, npt.NDArray[Any]]:
    """Return the job columns of ``rows`` the table's reductions read: ``arrival``, ``finish``,
    ``work`` and ``ran`` (the execution time), ``start`` (finish - execution) and ``size``."""
    done = list(rows)
    arrival, finish, execution, size = (np.array([r[i] for r in done], dtype=np.float64)
                                        for i in range(4))
    return {"arrival": arrival, "finish": finish, "work": execution, "ran": execution,
            "start": finish - execution, "size": size}


def running(family: str, rows: Iterable[Completion], processors: int,
            gamma: float = GAMMA) -> dict[str, npt.NDArray[Any]]:
    """Return ``family``'s figures of the table that reduce per-job values, as running values
    after each of ``rows`` (:func:`gangviz.metrics.reduce.ordered_figures`)."""
    return ordered_figures(family, columns(rows), processors, gamma)


def finals(family: str, rows: Iterable[Completion], processors: int,
           gamma: float = GAMMA) -> dict[str, Any]:
    """Return ``family``'s figures of the table that reduce per-job values, of ``rows``: a mean
    of no job is ``nan``, a count 0."""
    return last(running(family, rows, processors, gamma))


def applied_changes(sim: Simulation, kind: str) -> list[tuple[int, float, Any]]:
    """Return ``(step, time, change)`` of each change record of ``kind`` in the applied steps
    of ``sim``, in order (``step``: the step's index)."""
    out: list[tuple[int, float, Any]] = []
    for i in range(sim.position):
        step = sim.step_at(i)
        for change in step.changes:
            if change.kind == kind:
                out.append((i, step.time, change))
    return out
