"""Policies on a linear array without buddy rounding.

* **repack** (Zhou99 §4, Fig. 5): WLV allocation for any job size (the
  least-loaded run of consecutive non-zero WLV entries, re-packed into one slot), and Property 2
  applied after every decision. Works on a ring too.
* **random** (Zhou99 §2, Fig. 1): the first slot (lowest) with at least p idle processors takes the
  job on p of them drawn at random (seeded); otherwise a new slot. Empty slots are removed; no
  re-packing (the trap of Fig. 1).
* **firstfit** (Zhou99 §2): the first slot with p consecutive idle processors takes the job in its
  leftmost such run; otherwise a new slot. Empty slots are removed; no re-packing.
"""

from __future__ import annotations

import numpy as np

from gangviz.core import registry
from gangviz.core.allocation import best_window, place_wlv
from gangviz.core.changes import JobPlaced, SlotAdded, cols_label
from gangviz.core.matrix import IDLE, JobCols, OusterhoutMatrix
from gangviz.core.repack import eliminate_slots
from gangviz.policies.slots import place_waiting
from gangviz.sim.policy import Host, Policy

#: the parameters' defaults, declared once in the registry
_DEFAULT = {**registry.REGISTRY["repack"].defaults(), **registry.REGISTRY["random"].defaults()}


class Repack(Policy):
    """WLV allocation with re-packing on every arrival and termination."""


    def __init__(self, window: str = _DEFAULT["window"], cuts: str = _DEFAULT["cuts"]) -> None:
        """``window``: ``"least-loaded"`` (the paper's choice, [Zhou99 §4]) or ``"leftmost"``
        (the other subset of Fig. 5); ``cuts``: ``"alternating"`` (Fig. 4, each needed region
        swapped once) or ``"pairwise"`` (Fig. 3, the proof of Property 1 step by step). Raises
        ``ValueError`` for any other value."""
        if window not in ("least-loaded", "leftmost"):
            raise ValueError(f"window must be 'least-loaded' or 'leftmost', got {window!r}")
        if cuts not in ("alternating", "pairwise"):
            raise ValueError(f"cuts must be 'alternating' or 'pairwise', got {cuts!r}")
        self.window = window
        self.cuts = cuts

    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        pairwise = self.cuts == "pairwise"
        for job in list(sim.waiting):
            place_wlv(sim.matrix, job, sim.jobs[job].spec.size, sim.current_changes,
                      leftmost=self.window == "leftmost", pairwise=pairwise)
        eliminate_slots(sim.matrix, sim.current_changes, pairwise)

    def check_initial(self, matrix: OusterhoutMatrix) -> None:
        """Raise ``ValueError`` unless every job of a starting matrix holds consecutive
        processors (around the end on a ring): re-packing moves a job between the legal cuts
        either side of it [Zhou99 §3], and a job scattered over the array has none."""
        n = matrix.processors
        for job in matrix.jobs():
            cols = {int(c) for c in matrix.job_cols(job)}
            ends = sum((c + 1) % n not in cols if matrix.ring else c + 1 not in cols for c in cols)
            if ends > 1:
                name = matrix.names.get(job, str(job))
                raise ValueError(f"{self.name}: job {name} on {cols_label(cols)} does not hold consecutive "
                                 "processors; redraw the starting matrix or use a policy that places jobs "
                                 "on any processors (random)")


class _FirstSlot(Policy):
    """A policy on a linear array that places each waiting job with :meth:`place` and never
    re-packs (:func:`~gangviz.policies.slots.place_waiting`)."""

    #: Why the policy refuses a ring (the message of ``check_machine``).
    ring_refusal = ""

    def check_machine(self, processors: int, ring: bool) -> None:
        if ring:
            raise ValueError(self.ring_refusal)

    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        place_waiting(sim, completed, self.place)

    def place(self, sim: Host, job: int, size: int) -> None:
        """Place ``job`` (of ``size`` processors), adding a slot if none has room."""
        raise NotImplementedError


class RandomAllocation(_FirstSlot):
    """Random processors in the first slot with room; no re-packing."""

    ring_refusal = "random allocation ignores the array's shape; use ring=False"

    def __init__(self, seed: int = _DEFAULT["seed"]) -> None:
        self.rng = np.random.default_rng(seed)

    def place(self, sim: Host, job: int, size: int) -> None:
        m = sim.matrix
        row = next((r for r in range(m.n_rows) if m.processors - m.busy_in_row(r) >= size), None)
        reason = "random idle processors of the first slot with room"
        if row is None:
            sim.emit(SlotAdded(m.n_rows, f"no slot has {size} idle processors"))
            row = m.n_rows - 1
            reason = "random processors of the new slot"
        idle = np.flatnonzero(m.cells[row] == IDLE)
        cols: JobCols = tuple(sorted(self.rng.choice(idle, size=size, replace=False).tolist()))
        if cols == tuple(range(cols[0], cols[0] + size)):
            cols = range(cols[0], cols[0] + size)
        sim.emit(JobPlaced(job, row, cols, reason))


class FirstFit(_FirstSlot):
    """Leftmost run of idle processors in the first slot that has one; no re-packing."""

    ring_refusal = "first fit is defined on a linear array; use ring=False"

    def place(self, sim: Host, job: int, size: int) -> None:
        m = sim.matrix
        for row in range(m.n_rows):
            free = (m.cells[row] == IDLE).astype(np.int64)
            start = _first_run(free, size)
            if start is not None:
                sim.emit(JobPlaced(job, row, range(start, start + size), "first fit"))
                return
        sim.emit(SlotAdded(m.n_rows, f"no slot has {size} consecutive idle processors"))
        sim.emit(JobPlaced(job, m.n_rows - 1, range(0, size), "first fit in the new slot"))


def _first_run(free: np.ndarray, size: int) -> int | None:
    """Return the start of the leftmost run of ``size`` ones in ``free``, or ``None``."""
    if size > len(free):
        return None
    windows = np.convolve(free, np.ones(size, dtype=np.int64), mode="valid")
    hits = np.flatnonzero(windows == size)
    return int(hits[0]) if len(hits) else None


__all__ = ["Repack", "RandomAllocation", "FirstFit", "best_window"]
