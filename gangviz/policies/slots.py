"""Shared moves of the time-slot policies: removing empty slots, placing without re-packing,
releasing and adding replicas."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gangviz.core.changes import JobReplicated, JobUnreplicated, SlotRemoved
from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.core.repack import ring_gather
from gangviz.sim.policy import Host


def remove_empty_slots(sim: Host, why: str = "it is empty") -> int:
    """Remove every empty slot, top first; return how many were removed."""
    m = sim.matrix
    empty = np.flatnonzero(m.busy_per_row() == 0).tolist()
    for row in reversed(empty):
        sim.emit(SlotRemoved(row, why))
    return len(empty)


def place_waiting(sim: Host, completed: list[int],
                  place: Callable[[Host, int, int], None]) -> None:
    """The decision of a policy that never re-packs [Zhou99 §2]: after a completion every empty
    slot is removed (:func:`remove_empty_slots`), then ``place(sim, job, size)`` is called for
    each waiting job in queue order."""
    if completed:
        remove_empty_slots(sim)
    for job in list(sim.waiting):
        place(sim, job, sim.jobs[job].spec.size)


def relaxed_level(m: OusterhoutMatrix, block: int) -> np.ndarray:
    """Return the WLT level of ``block``-processor nodes as if every replica cell were idle
    (what releasing all extra slots would give): a node holds the sum of its leaves when every
    leaf is non-zero, else 0. Needs a power-of-two number of processors, as buddy schemes do.
    """
    leaves = (m.wlv + m.extra_per_processor()).reshape(-1, block)
    return np.where(leaves.min(axis=1) > 0, leaves.sum(axis=1), 0)


def release_replicas(sim: Host, lo: int, hi: int, why: str) -> int:
    """Release every extra slot whose job's buddy block overlaps ``[lo, hi)``; return how many.

    Jobs are visited in id order, each giving up all its extra slots, top first.
    """
    m = sim.matrix
    ids, first, count = m.placements()
    multi = count > 1
    if not multi.any():
        return 0
    _, j_lo, j_hi = m.spans()
    start, size = buddy_blocks(j_lo[multi], j_hi[multi])
    overlap = (start < hi) & (start + size > lo)
    released = 0
    for job in ids[multi][overlap].tolist():
        extra = m.replica_rows(job)
        cols = m.job_cols(job)
        sim.emit(JobUnreplicated(job, tuple(reversed(extra)), cols, why))
        released += len(extra)
    return released


def buddy_blocks(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(start, size)`` of the smallest aligned buddy block covering each span
    ``[lo[i], hi[i])`` of columns. Jobs placed by the buddy schemes start their block; a job
    drawn elsewhere by a scenario (say on P6..P8) belongs to the smallest aligned block that
    covers it (P5..P8).

    An aligned block of 2**k processors holds both ends exactly when they agree above bit k,
    so k is the bit length of ``lo ^ (hi - 1)`` (``frexp`` gives it exactly below 2**53).
    """
    depth = np.frexp((lo ^ (hi - 1)).astype(np.float64))[1].astype(np.int64)
    return lo >> depth << depth, np.left_shift(1, depth)


def replicate_where_free(sim: Host) -> int:
    """Let jobs run in extra slots wherever their buddy block's WLT node is non-zero.

    Zhou00 §3: "the rightmost node at the third level ... is nonzero and job
    J_2 is currently running within the associated subset of processors. It can then be
    allocated an additional time slot". Jobs are served in id (arrival) order, each taking every
    extra slot its block offers before the next job is considered. Returns the replicas added.
    """
    m = sim.matrix
    added = 0
    wlv = m.wlv
    if m.n_rows == 0 or int(wlv.max()) == 0:  # no WLT node at all is non-zero
        return 0
    # A block's WLT node is non-zero exactly when every processor of the block has an idle
    # slot, which a running count of the WLV's zeros answers for all jobs at once. Taking
    # extra slots only fills idle cells (re-packing inside a block keeps the WLV), so a node
    # that is zero now stays zero during this pass: the jobs to visit are found up front.
    ids, lo, hi = m.spans()
    start, size = buddy_blocks(lo, hi)
    zeros = np.concatenate(([0], np.cumsum(wlv == 0)))
    node_free = zeros[start + size] == zeros[start]
    why = "its buddy block's WLT node is non-zero"
    cells = m.cells  # a view: extra slots and re-packing change it in place; no slot comes or goes
    for i in np.flatnonzero(node_free).tolist():
        job = int(ids[i])
        cols = m.job_cols(job)
        b_lo = int(start[i])
        b_hi = b_lo + int(size[i])
        if int(wlv[b_lo:b_hi].min()) == 0:
            continue  # an earlier job of this pass took the block's last idle slots
        # Slots already idle on the whole block are the ones gather would pick first, highest
        # first, without any swap; taking them in one go spares a scan per replica.
        open_rows = np.flatnonzero(cells[:, b_lo] == IDLE)
        free = open_rows[(cells[open_rows, b_lo:b_hi] == IDLE).all(axis=1)].tolist()
        if free:
            sim.emit(JobReplicated(job, tuple(reversed(free)), cols, why))
            added += len(free)
        # Now no slot is idle on the whole block, and none becomes so but the one each gather
        # returns (every swap hands the partner row busy cells of the block), which the job
        # then takes: so every further extra slot needs a gather, and no scan is needed.
        while int(wlv[b_lo:b_hi].min()) > 0:
            row = ring_gather(m, b_lo, b_hi, sim.current_changes, "Property 1 within the job's buddy block")
            if row is None:  # on a ring the block's fragments cannot be combined: no more replicas
                break
            sim.emit(JobReplicated(job, (row,), cols, why))
            added += 1
    return added
