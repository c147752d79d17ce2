"""What to draw at one instant of an animated change (Qt-free geometry, numpy only).

DESIGN.md, "The vocabulary" table ("drawn as") and the issue's animation list: shifts slide
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
from dataclasses import dataclass, field

import numpy as np

from gangviz.core.matrix import IDLE

#: fraction of a slot deletion spent flashing before the row collapses
FLASH_PART = 0.45


@dataclass(slots=True)
class Mover:
    """A job's cells drawn off the grid: from ``(row0, cols0)`` to ``(row1, cols1)`` at ``t``.

    ``alpha`` is the opacity; ``ghost`` draws a dashed, translucent copy; ``badge`` is a short
    text drawn beside the block (the migration cost).
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


def replica_mask(state) -> np.ndarray:
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


def _hide(cells: np.ndarray, row: int, cols) -> None:
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


def build_scene(state, change=None, t: float = 1.0) -> Scene:
    """Return the :class:`Scene` of ``state`` while ``change`` is at progress ``t``.

    With ``change=None`` the scene is ``state`` at rest. Raises nothing for an unknown change
    kind: it is drawn as a jump (the state at rest), which every kind falls back to.
    """
    cells = np.array(state.cells, dtype=np.int32, copy=True)
    n = cells.shape[0]
    heights = np.ones(n, dtype=np.float64)
    active = None if state.active_row is None else float(state.active_row)
    replica = replica_mask(state)
    scene = Scene(cells, heights, active, replica=replica)
    if change is None:
        return scene
    e = ease(t)
    kind = change.kind
    if kind == "job_placed":
        scene.movers.append(Mover(change.job, change.row, list(change.cols), change.row,
                                  list(change.cols), e, alpha=e))
    elif kind == "job_removed":
        _hide(cells, change.row, change.cols)
        scene.movers.append(Mover(change.job, change.row, list(change.cols), change.row,
                                  list(change.cols), 0.0, alpha=1 - e))
    elif kind == "job_shifted":
        cols = list(state.job_cols(change.job))
        _hide(cells, change.src_row, cols)
        scene.movers.append(Mover(change.job, change.src_row, cols, change.dst_row, cols, e,
                                  replica=bool(replica[change.src_row, cols[0]])))
    elif kind == "region_swapped":
        p = cells.shape[1]
        cols = [c % p for c in range(change.lo, change.hi)]
        for src, dst in ((change.row_a, change.row_b), (change.row_b, change.row_a)):
            for job, run in _runs(state.cells[src], cols):
                scene.movers.append(Mover(job, src, run, dst, run, e,
                                          replica=bool(replica[src, run[0]])))
        for r in (change.row_a, change.row_b):
            _hide(cells, r, cols)
    elif kind == "job_migrated":
        _hide(cells, change.src_row, change.src_cols)
        badge = f"cost {change.cost:g}" if change.cost else ""
        scene.movers.append(Mover(change.job, change.src_row, list(change.src_cols),
                                  change.dst_row, list(change.dst_cols), e, badge=badge))
    elif kind == "job_replicated":  # every new extra slot: a ghost copy glides up from home
        cols = list(change.cols)
        for row in change.rows:
            home = state.home_row(change.job) if change.job in state else row
            scene.movers.append(Mover(change.job, home, cols, row, cols, e,
                                      alpha=0.35 + 0.5 * e, ghost=True))
    elif kind == "job_unreplicated":
        cols = list(change.cols)
        for row in change.rows:
            _hide(cells, row, cols)
            scene.movers.append(Mover(change.job, row, cols, row, cols, 0.0, alpha=1 - e, ghost=True))
    elif kind == "slot_added":
        scene.cells = np.insert(cells, change.row, IDLE, axis=0)
        scene.replica = np.insert(replica, change.row, False, axis=0)
        scene.heights = np.insert(heights, change.row, e)
        if active is not None and active >= change.row:
            scene.active = active + 1
    elif kind == "slot_removed":
        if t < FLASH_PART:
            scene.flash = (change.row, math.sin(math.pi * t / FLASH_PART * 2) ** 2)
        else:
            heights[change.row] = 1 - ease((t - FLASH_PART) / (1 - FLASH_PART))
    elif kind == "row_activated":
        if change.row is None:
            scene.active = None if e > 0.5 else active
        elif change.prev is None or active is None:
            scene.active = float(change.row) if e > 0.5 else active
        else:
            scene.active = change.prev + (change.row - change.prev) * e
    return scene


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
