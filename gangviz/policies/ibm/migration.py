"""Migration in the gang-scheduling matrix: MGS and MBGS (Zhang01 §5.4, §5.5).

Moving job A from its row r to a row p that has at least |A| idle processors can be done two
ways (§5.4):

* **Option 1**: the jobs S(A) of row p that overlap A's processors migrate to other idle
  processors of p, then A runs in p on its own processors. Overhead (eq. 4):
  ``C/2 * |A| + C * sum(|J| for J in S(A))``; the migrated tasks are those of S(A).
* **Option 2**: A migrates to idle processors of p; the other jobs of p stay put. Overhead
  (eq. 5): ``C * |A| + C/2 * sum(|J| for J in S(A))``; the migrated tasks are A's.

Constraints, all enforced here (§5.4): the row needs enough idle processors; the number of
migrated tasks in one scheduling decision (one slice boundary, so one time slice) never exceeds
Q; every job keeps running in at least one row; a job is migrated at most once per scheduling
matrix (no ping-pong); a job to be migrated holds a single row (its columns change, and all its
rows must share its columns). CollapseMatrix-2 picks the cheaper option; FillMatrix-2 only uses
option 1, whose migrated jobs must hold no other row.

Tie-breaks (documented choices): between options of equal overhead (always, when C = 0) the one
migrating fewer tasks wins, then option 2 (it disturbs no other job). Migrated jobs take the
leftmost idle processors available to them; the jobs of S(A) move in job-id order after a dry
run has checked that every one of them finds room.

Who pays, and how much (§5.4, Fig. 13): "during the migration process, nodes participating in
the migration cannot make progress in executing a job". Checkpoint and restart take C/2 each and
restart follows checkpoint, so

* option 1: A waits C/2 (the checkpoint of the jobs on its processors in row p) and each job
  J of S(A) loses C (its own checkpoint and restart): eq. 4 is ``C/2 |A| + C sum |J|``;
* option 2: A loses C (its checkpoint and restart) and each job J of S(A) waits C/2 (the
  checkpoint of A on the processors J runs on in row p): eq. 5 is ``C |A| + C/2 sum |J|``.

With ``MigrationBudget.charge`` set (the default) each of these jobs is charged its delay, in
slices, through :meth:`gangviz.sim.engine.Simulation.charge`: it needs that much more service,
so it finishes that much later (more when the extra service spills into another of its slices).
The charge is paid in the job's next slices of service, after the context switch; a delay longer
than the useful part of a slice carries over into the following ones. The sum of the charges
times the jobs' sizes is exactly eq. 4 or 5. FillMatrix-2 replicates A by option 1 and charges
the same way (the replica in row p cannot start before the checkpoint of S(A) ends).

The overhead is also recorded: each ``JobMigrated`` record carries a ``cost`` in processor-slices
(option 1: C |J| of the moved job J; option 2: the whole of eq. 5), and the policy sums eq. 4 or
5 of every migration in :attr:`gangviz.policies.ibm.gs.IBMGang.migration_overhead`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gangviz.core.changes import JobMigrated, JobReplicated, JobShifted, cost_label
from gangviz.core.matrix import IDLE, JobCols, OusterhoutMatrix, col_index
from gangviz.policies.ibm.phases import (
    MoveGuard,
    as_cols,
    compaction_moves,
    fill_passes,
    free_count,
)
from gangviz.sim.policy import Host

__all__ = ["option1_cost", "option2_cost", "MigrationBudget", "collapse_with_migration", "fill_with_migration"]


def option1_cost(c: float, size_a: int, sizes_s: list[int]) -> float:
    """Return eq. 4: ``C/2 |A| + C sum |J|`` (processor x time wasted by option 1)."""
    return c / 2 * size_a + c * sum(sizes_s)


def option2_cost(c: float, size_a: int, sizes_s: list[int]) -> float:
    """Return eq. 5: ``C |A| + C/2 sum |J|`` (processor x time wasted by option 2)."""
    return c * size_a + c / 2 * sum(sizes_s)


@dataclass
class MigrationBudget:
    """What one scheduling decision may still migrate.

    ``q`` is the most tasks that may migrate (``None``: unlimited); ``cost`` is C in slices;
    ``charge`` makes the delayed jobs pay their share of the overhead in service (see the module
    docstring); ``used`` counts tasks migrated so far in this decision; ``moved`` holds the jobs
    already migrated in it; ``delays`` the slices charged to each job in it.
    """

    q: int | None
    cost: float
    charge: bool = True
    used: int = 0
    moved: set[int] = field(default_factory=set)
    overhead: float = 0.0
    delays: dict[int, float] = field(default_factory=dict)

    def delay(self, sim: Host, job: int, slices: float) -> None:
        """Charge ``job`` ``slices`` of lost service (when ``charge`` is set) and note it."""
        if self.charge and slices:
            sim.charge(job, slices)
            self.delays[job] = self.delays.get(job, 0.0) + slices

    def allows(self, tasks: int) -> bool:
        """Return whether ``tasks`` more migrated tasks stay within Q."""
        return self.q is None or self.used + tasks <= self.q


def _overlap(m: OusterhoutMatrix, row: int, cols: JobCols) -> list[int]:
    """Return S(A): the jobs of ``row`` on any of ``cols`` (by id)."""
    ids = m.cells[row, col_index(cols)]
    return sorted(set(ids[ids != IDLE].tolist()))


def _plan_option1(m: OusterhoutMatrix, row: int, a_cols: JobCols,
                  others: list[int]) -> list[tuple[int, JobCols]] | None:
    """Dry run of option 1: new columns for each job of ``others`` in ``row`` outside ``a_cols``,
    taken one job at a time (id order) from what is idle then; ``None`` if one finds no room."""
    occupied = m.cells[row].copy()
    banned = set(a_cols)
    plan: list[tuple[int, JobCols]] = []
    for job in others:
        cols = m.job_cols(job)
        occupied[col_index(cols)] = IDLE
        idle = [c for c in np.flatnonzero(occupied == IDLE).tolist() if c not in banned]
        size = len(cols)
        if len(idle) < size:
            return None
        new = idle[:size]
        occupied[new] = job
        plan.append((job, as_cols(new)))
    return plan


def _movable(m: OusterhoutMatrix, job: int, budget: MigrationBudget) -> bool:
    return job not in budget.moved and len(m.job_rows(job)) == 1


def try_option1(sim: Host, a: int, row: int, budget: MigrationBudget, *, replicate: bool, label: str,
                dry: bool = False) -> tuple[float, int] | None:
    """Move (or, with ``replicate``, replicate) job ``a`` into ``row`` by option 1.

    Returns ``None`` when it is not possible, else ``(cost, tasks)``; with ``dry`` nothing is
    emitted.
    """
    m = sim.matrix
    cols = m.job_cols(a)
    size = len(cols)
    if free_count(m, row) < size:
        return None
    others = _overlap(m, row, cols)
    if not others or a in others:
        return None
    if not all(_movable(m, j, budget) for j in others):
        return None
    tasks = sum(len(m.job_cols(j)) for j in others)
    if not budget.allows(tasks):
        return None
    plan = _plan_option1(m, row, cols, others)
    if plan is None:
        return None
    cost = option1_cost(budget.cost, size, [len(m.job_cols(j)) for j in others])
    if dry:
        return cost, tasks
    c = budget.cost
    for job, new in plan:
        sim.emit(JobMigrated(job, row, m.job_cols(job), row, new, c * len(new),
                             f"{label}, option 1: makes room for {m.name(a)}"
                             + (f"; it loses {c:g} slice{'' if c == 1 else 's'}" if budget.charge and c else "")))
        budget.moved.add(job)
    for job in others:
        budget.delay(sim, job, c)
    budget.delay(sim, a, c / 2)
    budget.used += tasks
    budget.overhead += cost
    if replicate:
        sim.emit(JobReplicated(a, (row,), cols, f"{label}: replicated after migrating the jobs on its processors"))
    else:
        src = m.home_row(a)
        sim.emit(JobShifted(a, src, row, f"{label}, option 1: overhead {cost:g} (eq. 4)"
                            + (f"; it loses {c / 2:g} slice{'' if c / 2 == 1 else 's'}" if budget.charge and c else "")))
    return cost, tasks


def try_option2(sim: Host, a: int, row: int, budget: MigrationBudget, *, label: str,
                dry: bool = False) -> tuple[float, int] | None:
    """Migrate job ``a`` (one row only) to the leftmost idle processors of ``row``.

    Returns ``None`` when it is not possible, else ``(cost, tasks)``.
    """
    m = sim.matrix
    cols = m.job_cols(a)
    size = len(cols)
    if not _movable(m, a, budget) or free_count(m, row) < size or not budget.allows(size):
        return None
    idle = np.flatnonzero(m.cells[row] == IDLE)[:size].tolist()
    new = as_cols(idle)
    others = [j for j in _overlap(m, row, cols) if j != a]
    cost = option2_cost(budget.cost, size, [len(m.job_cols(j)) for j in others])
    if dry:
        return cost, size
    src = m.home_row(a)
    c = budget.cost
    lose = ""
    if budget.charge and c:
        half = f"{c / 2:g} slice{'' if c / 2 == 1 else 's'}"  # every quantity with its unit
        lose = f"; it loses {c:g} slice{'' if c == 1 else 's'}" + (f", {', '.join(m.name(j) for j in others)} {half}"
                                              + (" each" if len(others) > 1 else "") if others else "")
    sim.emit(JobMigrated(a, src, cols, row, new, cost, f"{label}, option 2: overhead {cost_label(cost)} (eq. 5){lose}"))
    budget.moved.add(a)
    budget.delay(sim, a, c)
    for job in others:
        budget.delay(sim, job, c / 2)
    budget.used += size
    budget.overhead += cost
    return cost, size


def collapse_with_migration(sim: Host, budget: MigrationBudget, guard: MoveGuard | None = None) -> int:
    """CollapseMatrix-2 (Zhang01 §5.4): CompactMatrix where a move may migrate.

    Rows are visited as in CompactMatrix (least to more populated). A job moves by a plain shift
    when its processors are idle in the target row (no cost); otherwise by the cheaper feasible
    migration option. ``guard`` adds the reservation check of MBGS. Returns
    the jobs moved.
    """
    m = sim.matrix
    moved = 0
    for job, i, j in compaction_moves(m):
        if guard is not None and not guard.allows(job, i, j):
            continue
        if m.is_idle(j, m.job_cols(job)):
            sim.emit(JobShifted(job, i, j, "CollapseMatrix-2: its processors are idle there"))
            if guard is not None:
                guard.moved(job, i, j)
            moved += 1
            continue
        best = None
        for opt in (2, 1):
            if opt == 1:
                r = try_option1(sim, job, j, budget, replicate=False, label="CollapseMatrix-2", dry=True)
            else:
                r = try_option2(sim, job, j, budget, label="CollapseMatrix-2", dry=True)
            if r is not None and (best is None or (r[0], r[1]) < (best[1][0], best[1][1])):
                best = (opt, r)
        if best is None:
            continue
        if best[0] == 1:
            try_option1(sim, job, j, budget, replicate=False, label="CollapseMatrix-2")
        else:
            try_option2(sim, job, j, budget, label="CollapseMatrix-2")
        if guard is not None:
            guard.moved(job, i, j)
        moved += 1
    return moved


def fill_with_migration(sim: Host, budget: MigrationBudget) -> int:
    """FillMatrix-2 (Zhang01 §5.4): FillMatrix where a replica may first migrate, by option 1, the
    jobs (holding no other row) that sit on the job's processors in the target row. Returns the
    replicas added."""
    m = sim.matrix

    def fill(job: int) -> bool:
        have = set(m.job_rows(job))
        return any(row not in have
                   and try_option1(sim, job, row, budget, replicate=True, label="FillMatrix-2") is not None
                   for row in range(m.n_rows))

    return fill_passes(sim, fill)
