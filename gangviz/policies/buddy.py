"""The four buddy-based allocation schemes of Zhou00 §4.1.

A job of size p takes a whole aligned block of n processors, n the power of two with
n/2 < p <= n (Zhou00 §1; the n - p extra processors are internal fragmentation). All four need a
power-of-two number of processors.

* **BC** (conventional buddy): slots allocate independently; the first slot (lowest) with a free
  block takes the job, in its leftmost free block; a job runs in one slot; a slot is removed only
  when it is empty. No re-packing, no load balancing.
* **BR**: the WLT chooses the least-loaded free block (Zhou99 §4, Zhou00 §3) and re-packs it into one
  slot; whenever the WLT root is non-zero a slot is eliminated (Property 2). One slot per job.
* **BRMS**: BR, and jobs also run in extra slots when their block's WLT node is non-zero; an
  extra slot is kept until the job completes. Extra slots are handed out when a job arrives,
  as §4.3 explains BRMS's low processor active ratio: when a job running in multiple slots
  finishes, "the processors on which it was running will be idle in those time slots until a
  change in workload condition occurs such as a new job arriving to fill the freed resources,
  or some slots becoming totally empty which can be eliminated". This reading matches both of
  the paper's tables better than handing them out at every decision point: Table 1's n_l (31
  and 42 slots at rho 0.7 and 0.9 against the paper's 30 and 43; 37.5 and 48 otherwise), and
  Table 2 at rho 0.7 and 0.9 on every metric but one (t_ta 606 and 4,012 against the paper's
  441 and 3,837, where the other reading gives 899 and 4,606; n_a 112 and 664 against 23 and
  203, otherwise 178 and 849). ``extra_slots_on="decision"`` hands them out at every
  decision point, completions included, as Zhou00 §2, Fig. 1(b) illustrates multi-slot running:
  once J' and J'' terminate, "jobs J_1 and J_2 in slot S_1 and job J_7 on S_3 can occupy the
  freed resources in S_2".
* **BRMMS**: as BRMS, but extra slots are given up when a new arrival would otherwise need a new
  slot (the replicas overlapping the block it will take are released), or when releasing them
  lets a slot be deleted (every processor has an idle or replica cell: all replicas are released
  and Property 2 applied). So its number of slots never exceeds what BR would need. The paper
  says nothing of when BRMMS hands out extra slots, and its Table 2 numbers favour Fig. 1(b)'s
  reading, every decision point: over Table 2's 5 sets of 20,000 jobs, t_ta 92 and 956 at rho
  0.7 and 0.9 against the paper's 95 and 716, where arrivals only give 101 and 1,149 (n_a 6.2
  and 77 against 5.4 and 40; 6.4 and 88). ``extra_slots_on="arrival"`` gives the other.

Order at each decision point (a documented choice; the paper gives none): completed jobs have
left; waiting jobs are placed in arrival order; then slots are eliminated while Property 2
holds; then (BRMS, BRMMS) jobs take extra slots. Placing before eliminating never needs more
slots than the other order.
"""

from __future__ import annotations

import numpy as np

from gangviz.core import registry
from gangviz.core.allocation import best_block, place_buddy, require_power_of_two
from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.core.repack import eliminate_slots
from gangviz.core.wlt import next_power_of_two
from gangviz.policies.slots import (
    place_waiting,
    relaxed_level,
    release_replicas,
    replicate_where_free,
)
from gangviz.sim.policy import Host, Policy

#: the parameters' defaults, declared once in the registry (BRMS takes them all)
_DEFAULT = registry.REGISTRY["brms"].defaults()


class _Buddy(Policy):
    """Shared parameters: ``occupy`` is ``"block"`` (a job holds its whole buddy block) or
    ``"size"`` (it holds the first p processors of the block; smaller buddies may use the rest)."""

    def __init__(self, occupy: str = _DEFAULT["occupy"]) -> None:
        if occupy not in ("block", "size"):
            raise ValueError(f"occupy must be 'block' or 'size', got {occupy!r}")
        self.occupy = occupy
        #: the machine's real size when the processors from it on are padding (a trace run on
        #: the next power of two): no job is ever placed there; ``None``: every processor is real
        self.usable: int | None = None

    def check_job(self, size: int, processors: int) -> None:
        """Raise ``ValueError`` if a job of ``size`` processors can never run here (on a padded
        machine: if it would hold a padded processor)."""
        super().check_job(size, processors)
        if self.usable is not None and self.width(size) > self.usable:
            raise ValueError(f"a job of {size} processors holds {self.width(size)} under occupy="
                             f"{self.occupy!r}, more than the {self.usable} real processors")

    def width(self, size: int) -> int:
        """Return the processors a job of ``size`` holds: its whole block or its size."""
        block = next_power_of_two(size)
        return block if self.occupy == "block" else size

    def check_machine(self, processors: int, ring: bool) -> None:
        require_power_of_two(processors)
        if ring:
            raise ValueError(f"{self.name} works on a linear array; ring=True is not allowed")

    def place_and_repack(self, sim: Host) -> None:
        """Place every waiting job in a buddy block chosen by the workload tree, then eliminate
        every slot re-packing can empty [Zhou00 §4.1]."""
        for job in list(sim.waiting):
            place_buddy(sim.matrix, job, sim.jobs[job].spec.size, sim.current_changes, self.occupy,
                        self.usable)
        eliminate_slots(sim.matrix, sim.current_changes)

    def check_initial(self, matrix: OusterhoutMatrix) -> None:
        """Raise ``ValueError`` unless every job of a starting matrix lies inside an aligned
        buddy block of its own size (the power of two n with n/2 < p <= n, starting at a multiple
        of n, Zhou00 §1): a job drawn there (say 3 processors on P6..P8) is where a buddy scheme
        could have put it; one straddling two blocks is not, and the WLT would misjudge it."""
        for job in matrix.jobs():
            cols = list(matrix.job_cols(job))
            lo, hi = min(cols), max(cols) + 1
            block = 1 << (len(cols) - 1).bit_length()
            if cols != list(range(lo, hi)) or lo // block != (hi - 1) // block:
                name = matrix.names.get(job, str(job))
                raise ValueError(
                    f"{self.name}: job {name} on P{lo + 1}..P{hi} is not inside an aligned buddy block of "
                    f"{block} processors (P{lo // block * block + 1}..P{lo // block * block + block}); "
                    f"redraw the starting matrix or use a policy without buddy blocks")


class BC(_Buddy):
    """Conventional buddy: first slot with a free block, leftmost block; no re-packing."""


    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        place_waiting(sim, completed, self._place)

    def _place(self, sim: Host, job: int, size: int) -> None:
        m = sim.matrix
        block = next_power_of_two(size)
        width = self.width(size)
        if self.usable is not None and width > self.usable:
            raise ValueError(f"a job of {size} processors holds {width} under occupy="
                             f"{self.occupy!r}, more than the {self.usable} real processors")
        hit = _first_free_block(m, block, self.usable, width)
        if hit is not None:
            row, lo = hit
            sim.emit(JobPlaced(job, row, range(lo, lo + width), f"first slot with a free {block}-block"))
        else:
            sim.emit(SlotAdded(m.n_rows, f"no slot has a free {block}-processor block"))
            sim.emit(JobPlaced(job, m.n_rows - 1, range(0, width), "leftmost block of the new slot"))


def _first_free_block(m: OusterhoutMatrix, block: int, usable: int | None = None,
                      width: int | None = None) -> tuple[int, int] | None:
    """Return ``(row, first column)`` of the leftmost free aligned block in the lowest slot
    (with ``usable``: only blocks whose first ``width`` processors are real)."""
    rows, procs = m.n_rows, m.processors
    if rows == 0:
        return None
    # Only rows with at least ``block`` idle cells can hold a free block; at high load most
    # rows are nearly full, so looking at the others alone spares most of the scan.
    roomy = np.flatnonzero(m.busy_per_row() <= procs - block)
    if len(roomy) == 0:
        return None
    cells = m.cells[roomy]
    free = np.all(cells.reshape(len(roomy), procs // block, block) == IDLE, axis=2)
    if usable is not None and usable < procs:
        free &= (np.arange(procs // block) * block + (block if width is None else width)) <= usable
    flat = int(np.argmax(free))
    if not free.flat[flat]:
        return None
    at, index = divmod(flat, procs // block)
    return int(roomy[at]), index * block


class BR(_Buddy):
    """Buddy with re-packing and the workload tree; one slot per job."""


    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        self.place_and_repack(sim)


class _MultiSlot(_Buddy):
    """Multi-slot running; ``extra_slots_on`` says when jobs take extra slots: ``"arrival"``
    (decision points where a job arrived) or ``"decision"`` (every decision point); ``None``
    takes the scheme's own default."""

    #: When this scheme hands out extra slots unless told otherwise (see the module docstring).
    default_extra_slots_on = "decision"

    def __init__(self, occupy: str = _DEFAULT["occupy"],
                 extra_slots_on: str | None = _DEFAULT["extra_slots_on"]) -> None:
        super().__init__(occupy)
        if extra_slots_on is None:
            extra_slots_on = self.default_extra_slots_on
        if extra_slots_on not in ("arrival", "decision"):
            raise ValueError(f"extra_slots_on must be 'arrival' or 'decision', got {extra_slots_on!r}")
        self.extra_slots_on = extra_slots_on

    def hand_out_extra_slots(self, sim: Host, arrived: list[int]) -> None:
        """Let jobs take the extra slots the WLT offers, if this decision point calls for it."""
        if arrived or self.extra_slots_on == "decision":
            replicate_where_free(sim)


class BRMS(_MultiSlot):
    """BR plus multi-slot running; extra slots are kept to completion."""

    default_extra_slots_on = "arrival"

    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        self.place_and_repack(sim)
        self.hand_out_extra_slots(sim, arrived)


class BRMMS(_MultiSlot):
    """Multi-slot running that gives extra slots back to avoid or delete slots."""


    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        m = sim.matrix
        for job in list(sim.waiting):
            size = sim.jobs[job].spec.size
            block = next_power_of_two(size)
            if m.n_rows and best_block(m, block, self.usable, self.width(size)) is None:
                relaxed = relaxed_level(m, block)
                if self.usable is not None:
                    relaxed = np.where(np.arange(len(relaxed)) * block + self.width(size) <= self.usable,
                                       relaxed, 0)
                if relaxed.max(initial=0) > 0:
                    lo = int(np.argmax(relaxed)) * block
                    release_replicas(sim, lo, lo + block, f"{m.name(job)} would otherwise need a new slot")
            place_buddy(m, job, size, sim.current_changes, self.occupy, self.usable)
        if m.n_rows and int(m.wlv.min()) == 0 and int((m.wlv + m.extra_per_processor()).min()) >= 1:
            release_replicas(sim, 0, m.processors, "giving up extra slots lets a slot be deleted")
        eliminate_slots(m, sim.current_changes)
        self.hand_out_extra_slots(sim, arrived)
