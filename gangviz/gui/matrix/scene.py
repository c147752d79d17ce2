"""What to draw at one instant of an animated change (Qt-free geometry, numpy only).

How each change record is drawn (docs/architecture.md follows one to a pixel): shifts slide
vertically, region swaps slide past each other, migrations travel to their new place, a deleted
slot flashes and collapses, a new slot grows, arrivals fade in, departures fade out, replication
shows a ghost copy. Every animation is an interpolation between the matrix before a change and
the matrix after it, so :func:`build_scene` only needs the state before the change, the change
and the progress ``t`` in [0, 1].

A :class:`Scene` says which cells to draw in place (``cells``, with the cells of moving jobs
blanked), how tall each row is (``heights``: 1, or less while a slot grows or collapses), which
row flashes, where the running-slot highlight is, and the :class:`Mover` blocks to draw on top.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gangviz.core.changes import (
    JobMigrated,
    JobPlaced,
    JobRemoved,
    JobReplicated,
    JobShifted,
    JobUnreplicated,
    RegionSwapped,
    RowActivated,
    SlotAdded,
    SlotRemoved,
    cost_label,
)
from gangviz.core.matrix import IDLE
from gangviz.core.record import Change

#: fraction of a slot deletion spent flashing before the row collapses
FLASH_PART = 0.45


@dataclass(slots=True)
class Mover:
    """A job's cells drawn off the grid: from ``(row0, cols0)`` to ``(row1, cols1)`` at ``t``.

    ``alpha`` is the opacity; ``ghost`` draws a dashed, translucent copy; ``badge`` is a short
    text drawn beside the block (the migration cost); ``kind`` is the kind of change that moves
    it (its style: :mod:`gangviz.gui.matrix.style`).
    """

    job: int
    row0: float
    cols0: list[int]
    row1: float
    cols1: list[int]
    t: float = 0.0
    alpha: float = 1.0
    ghost: bool = False
    replica: bool = False
    badge: str = ""
    kind: str = ""

    def row(self) -> float:
        """Return the interpolated row position."""
        return self.row0 + (self.row1 - self.row0) * self.t

    def col(self, i: int) -> float:
        """Return the interpolated column of the ``i``-th cell."""
        return self.cols0[i] + (self.cols1[i] - self.cols0[i]) * self.t


@dataclass(slots=True)
class Scene:
    """One frame's worth of matrix picture (see the module docstring)."""

    cells: np.ndarray
    heights: np.ndarray
    active: float | None
    flash: tuple[int, float] | None = None
    movers: list[Mover] = field(default_factory=list)
    replica: np.ndarray | None = None  # bool mask: the cell holds a job outside its home row


def ease(t: float) -> float:
    """Return the smooth-step easing of ``t`` (clamped to [0, 1])."""
    t = min(max(t, 0.0), 1.0)
    return t * t * (3 - 2 * t)


def replica_mask(state: Any) -> np.ndarray:
    """Return a bool mask of the cells that hold a job outside its home row."""
    cells = state.cells
    mask = np.zeros(cells.shape, dtype=bool)
    extra = getattr(state, "extra_per_processor", None)
    if extra is not None and not extra().any():
        return mask  # no job runs in an extra row (the usual case; saves a walk over every job)
    for job in state.jobs():
        rows = state.job_rows(job)
        if len(rows) > 1:
            cols = list(state.job_cols(job))
            for r in rows[1:]:
                mask[r, cols] = True
    return mask


def _hide(cells: np.ndarray, row: int, cols: Iterable[int]) -> None:
    cells[row, list(cols)] = IDLE


def _runs(row_cells: np.ndarray, cols: list[int]) -> list[tuple[int, list[int]]]:
    """Split ``cols`` of one row into (job, columns) runs of the same busy job."""
    out: list[tuple[int, list[int]]] = []
    for c in cols:
        j = int(row_cells[c])
        if j == IDLE:
            continue
        if out and out[-1][0] == j and out[-1][1][-1] == c - 1:
            out[-1][1].append(c)
        else:
            out.append((j, [c]))
    return out


def build_scene(state: Any, change: Change | None = None, t: float = 1.0) -> Scene:
    """Return the :class:`Scene` of ``state`` while ``change`` is at progress ``t``.

    With ``change=None`` the scene is ``state`` at rest. Raises nothing for a change with no
    animation of its own: it is drawn as a jump (the state at rest), which every change falls
    back to. The animation is chosen by the change's class (:data:`_ANIMATIONS`).
    """
    cells = np.array(state.cells, dtype=np.int32, copy=True)
    heights = np.ones(cells.shape[0], dtype=np.float64)
    active = None if state.active_row is None else float(state.active_row)
    scene = Scene(cells, heights, active, replica=replica_mask(state))
    if change is not None:
        animate = _ANIMATIONS.get(type(change))
        if animate is not None:
            animate(scene, state, change, t)
    return scene


def _placed(scene: Scene, state: Any, c: JobPlaced, t: float) -> None:
    e = ease(t)
    scene.movers.append(Mover(c.job, c.row, list(c.cols), c.row, list(c.cols), e, alpha=e, kind=c.kind))


def _removed(scene: Scene, state: Any, c: JobRemoved, t: float) -> None:
    _hide(scene.cells, c.row, c.cols)
    scene.movers.append(Mover(c.job, c.row, list(c.cols), c.row, list(c.cols), 0.0, alpha=1 - ease(t),
                              kind=c.kind))


def _shifted(scene: Scene, state: Any, c: JobShifted, t: float) -> None:
    cols = list(state.job_cols(c.job))
    _hide(scene.cells, c.src_row, cols)
    replica = scene.replica is not None and bool(scene.replica[c.src_row, cols[0]])
    scene.movers.append(Mover(c.job, c.src_row, cols, c.dst_row, cols, ease(t), replica=replica, kind=c.kind))


def _swapped(scene: Scene, state: Any, c: RegionSwapped, t: float) -> None:
    e = ease(t)
    p = scene.cells.shape[1]
    cols = [col % p for col in range(c.lo, c.hi)]
    replica = scene.replica
    for src, dst in ((c.row_a, c.row_b), (c.row_b, c.row_a)):
        for job, run in _runs(state.cells[src], cols):
            scene.movers.append(Mover(job, src, run, dst, run, e,
                                      replica=replica is not None and bool(replica[src, run[0]]),
                                      kind=c.kind))
    for r in (c.row_a, c.row_b):
        _hide(scene.cells, r, cols)


def _migrated(scene: Scene, state: Any, c: JobMigrated, t: float) -> None:
    _hide(scene.cells, c.src_row, c.src_cols)
    badge = f"cost {cost_label(c.cost)}" if c.cost else ""
    scene.movers.append(Mover(c.job, c.src_row, list(c.src_cols), c.dst_row, list(c.dst_cols), ease(t),
                              badge=badge, kind=c.kind))


def _replicated(scene: Scene, state: Any, c: JobReplicated, t: float) -> None:
    """Every new extra slot: a ghost copy glides up from home."""
    e = ease(t)
    cols = list(c.cols)
    for row in c.rows:
        home = state.home_row(c.job) if c.job in state else row
        scene.movers.append(Mover(c.job, home, cols, row, cols, e, alpha=0.35 + 0.5 * e, ghost=True,
                                  kind=c.kind))


def _unreplicated(scene: Scene, state: Any, c: JobUnreplicated, t: float) -> None:
    cols = list(c.cols)
    for row in c.rows:
        _hide(scene.cells, row, cols)
        scene.movers.append(Mover(c.job, row, cols, row, cols, 0.0, alpha=1 - ease(t), ghost=True,
                                  kind=c.kind))


def _slot_added(scene: Scene, state: Any, c: SlotAdded, t: float) -> None:
    scene.cells = np.insert(scene.cells, c.row, IDLE, axis=0)
    if scene.replica is not None:
        scene.replica = np.insert(scene.replica, c.row, False, axis=0)
    scene.heights = np.insert(scene.heights, c.row, ease(t))
    if scene.active is not None and scene.active >= c.row:
        scene.active = scene.active + 1


def _slot_removed(scene: Scene, state: Any, c: SlotRemoved, t: float) -> None:
    if t < FLASH_PART:
        scene.flash = (c.row, math.sin(math.pi * t / FLASH_PART * 2) ** 2)
    else:
        scene.heights[c.row] = 1 - ease((t - FLASH_PART) / (1 - FLASH_PART))


def _row_activated(scene: Scene, state: Any, c: RowActivated, t: float) -> None:
    e = ease(t)
    active = scene.active
    if c.row is None:
        scene.active = None if e > 0.5 else active
    elif c.prev is None or active is None:
        scene.active = float(c.row) if e > 0.5 else active
    else:
        scene.active = c.prev + (c.row - c.prev) * e


#: How each kind of change animates, by its class: ``animate(scene, state before, change, t)``
#: edits the scene of the state at rest.
_ANIMATIONS: dict[type[Change], Callable[[Scene, Any, Any, float], None]] = {
    JobPlaced: _placed, JobRemoved: _removed, JobShifted: _shifted, RegionSwapped: _swapped,
    JobMigrated: _migrated, JobReplicated: _replicated, JobUnreplicated: _unreplicated,
    SlotAdded: _slot_added, SlotRemoved: _slot_removed, RowActivated: _row_activated,
}


def compose(scene: Scene) -> np.ndarray:
    """Return the job-id grid a scene shows when every block snaps to its nearest place.

    Rows thinner than half a slot are dropped; a moving block counts where its interpolated
    row and columns round to, and only while it is at least half opaque. At ``t`` = 0 this is
    the matrix before the change and at ``t`` = 1 the matrix after it (a property test checks
    both), which is what makes the animation an interpolation between the two.
    """
    cells = scene.cells.copy()
    keep = scene.heights >= 0.5
    for mv in scene.movers:
        if mv.alpha < 0.5:
            continue
        row = int(round(mv.row()))
        for i in range(len(mv.cols0)):
            cells[row, int(round(mv.col(i))) % cells.shape[1]] = mv.job
    return cells[keep]
