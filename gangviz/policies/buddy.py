"""The four buddy-based allocation schemes of 001_c175c8c1780c2fd0.txt §4.1.

A job of size p takes a whole aligned block of n processors, n the power of two with
n/2 < p <= n (001 §1; the n - p extra processors are internal fragmentation). All four need a
power-of-two number of processors.

* **BC** (conventional buddy): slots allocate independently; the first slot (lowest) with a free
  block takes the job, in its leftmost free block; a job runs in one slot; a slot is removed only
  when it is empty. No re-packing, no load balancing.
* **BR**: the WLT chooses the least-loaded free block (000 §4, 001 §3) and re-packs it into one
  slot; whenever the WLT root is non-zero a slot is eliminated (Property 2). One slot per job.
* **BRMS**: BR, and jobs also run in extra slots whenever their block's WLT node is non-zero; an
  extra slot is kept until the job completes.
* **BRMMS**: as BRMS, but extra slots are given up when a new arrival would otherwise need a new
  slot (the replicas overlapping the block it will take are released), or when releasing them
  lets a slot be deleted (every processor has an idle or replica cell: all replicas are released
  and Property 2 applied). So its number of slots never exceeds what BR would need.

Order at each decision point (a documented choice; the paper gives none): completed jobs have
left; waiting jobs are placed in arrival order; then slots are eliminated while Property 2
holds; then (BRMS, BRMMS) jobs take extra slots. Placing before eliminating never needs more
slots than the other order.
"""

from __future__ import annotations

import numpy as np

from gangviz.core.allocation import best_block, place_buddy, require_power_of_two
from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.core.matrix import IDLE
from gangviz.core.repack import eliminate_slots
from gangviz.core.wlt import next_power_of_two
from gangviz.policies.slots import (
    relaxed_tree,
    release_replicas,
    remove_empty_slots,
    replica_cells,
    replicate_where_free,
)
from gangviz.sim.engine import Simulation
from gangviz.sim.policy import Policy


class _Buddy(Policy):
    """Shared parameters: ``occupy`` is ``"block"`` (a job holds its whole buddy block) or
    ``"size"`` (it holds the first p processors of the block; smaller buddies may use the rest)."""

    def __init__(self, occupy: str = "size") -> None:
        if occupy not in ("block", "size"):
            raise ValueError(f"occupy must be 'block' or 'size', got {occupy!r}")
        self.occupy = occupy

    def check_machine(self, processors: int, ring: bool) -> None:
        require_power_of_two(processors)
        if ring:
            raise ValueError(f"{self.name} works on a linear array; ring=True is not allowed")


class BC(_Buddy):
    """Conventional buddy: first slot with a free block, leftmost block; no re-packing."""

    name = "BC"
    paper = "001_c175c8c1780c2fd0.txt §4.1 (first scheme)"

    def schedule(self, sim: Simulation, completed: list[int], arrived: list[int]) -> None:
        m = sim.matrix
        if completed:
            remove_empty_slots(sim)
        for job in list(sim.waiting):
            size = sim.jobs[job].spec.size
            block = next_power_of_two(size)
            width = block if self.occupy == "block" else size
            hit = _first_free_block(m.cells, block)
            if hit is not None:
                row, lo = hit
                sim.emit(JobPlaced(job, row, range(lo, lo + width), f"first slot with a free {block}-block"))
            else:
                sim.emit(SlotAdded(m.n_rows, f"no slot has a free {block}-processor block"))
                sim.emit(JobPlaced(job, m.n_rows - 1, range(0, width), "leftmost block of the new slot"))


def _first_free_block(cells: np.ndarray, block: int) -> tuple[int, int] | None:
    """Return ``(row, first column)`` of the leftmost free aligned block in the lowest slot."""
    rows, procs = cells.shape
    if rows == 0:
        return None
    free = np.all(cells.reshape(rows, procs // block, block) == IDLE, axis=2)
    flat = int(np.argmax(free))
    if not free.flat[flat]:
        return None
    row, index = divmod(flat, procs // block)
    return row, index * block


class BR(_Buddy):
    """Buddy with re-packing and the workload tree; one slot per job."""

    name = "BR"
    paper = "001_c175c8c1780c2fd0.txt §4.1 (second scheme), §3; 000_fc8d6d1d4cf9d1e1.txt §4"

    def schedule(self, sim: Simulation, completed: list[int], arrived: list[int]) -> None:
        for job in list(sim.waiting):
            place_buddy(sim.matrix, job, sim.jobs[job].spec.size, sim.current_changes, self.occupy)
        eliminate_slots(sim.matrix, sim.current_changes)


class BRMS(_Buddy):
    """BR plus multi-slot running; extra slots are kept to completion."""

    name = "BRMS"
    paper = "001_c175c8c1780c2fd0.txt §4.1 (third scheme), §3"

    def schedule(self, sim: Simulation, completed: list[int], arrived: list[int]) -> None:
        for job in list(sim.waiting):
            place_buddy(sim.matrix, job, sim.jobs[job].spec.size, sim.current_changes, self.occupy)
        eliminate_slots(sim.matrix, sim.current_changes)
        replicate_where_free(sim)


class BRMMS(_Buddy):
    """Multi-slot running that gives extra slots back to avoid or delete slots."""

    name = "BRMMS"
    paper = "001_c175c8c1780c2fd0.txt §4.1 (fourth scheme)"

    def schedule(self, sim: Simulation, completed: list[int], arrived: list[int]) -> None:
        m = sim.matrix
        for job in list(sim.waiting):
            size = sim.jobs[job].spec.size
            block = next_power_of_two(size)
            if m.n_rows and best_block(m, block) is None:
                relaxed = relaxed_tree(m).level_for_block(block)
                if relaxed.max(initial=0) > 0:
                    lo = int(np.argmax(relaxed)) * block
                    release_replicas(sim, lo, lo + block, f"{m.name(job)} would otherwise need a new slot")
            place_buddy(m, job, size, sim.current_changes, self.occupy)
        if m.n_rows and int(m.wlv.min()) == 0 and int((m.wlv + replica_cells(m)).min()) >= 1:
            release_replicas(sim, 0, m.processors, "giving up extra slots lets a slot be deleted")
        eliminate_slots(m, sim.current_changes)
        replicate_where_free(sim)
