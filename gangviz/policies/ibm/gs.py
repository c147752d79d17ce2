"""Gang scheduling of the IBM study: GS, BGS, MGS and MBGS (Zhang01 §4-§5).

One policy class, :class:`IBMGang`, runs the phase order of the paper at every scheduling event
(an arrival or a departure, §4.2); the four named policies only fix its two switches:

=======  =========  ==========  =============================================================
policy   backfill   migration   phases
=======  =========  ==========  =============================================================
GS       no         no          CleanMatrix, CompactMatrix, Schedule, FillMatrix (§5.1)
BGS      yes        no          the same, Schedule backfills with reservations (§5.2)
MGS      no         yes         ClearMatrix, CollapseMatrix-1, Schedule-1, CollapseMatrix-2,
                                Schedule-2, FillMatrix-1, FillMatrix-2 (§5.4)
MBGS     yes        yes         the seven steps with BGS's Schedule and reservation checks (§5.5)
=======  =========  ==========  =============================================================

Rules common to all four:

* Every job has a home row (the matrix's first row of the job). CleanMatrix removes every other
  instance, so compaction, scheduling and migration see one row per job.
* The multiprogramming level ``mpl`` bounds the number of rows. Schedule puts a job in the
  best-fit row (fewest idle processors that still hold it); only when no row can take it and
  there are fewer than ``mpl`` rows does a new row appear. Otherwise the job waits in the queue.
* GS's Schedule is FCFS and stops at the first job that does not fit (§5.1). BGS's Schedule
  goes through the whole queue: a job starts now in the best-fit row among those where it
  violates no reservation; a job that cannot start gets a reservation in the row where it can
  start earliest (ties: lower row) (§5.2, :mod:`gangviz.policies.ibm.bgs`).
* Rows emptied by compaction are removed before scheduling, so no time slice is spent on an
  empty row.
* Context-switch overhead and the slice length belong to the engine
  (``Simulation(overhead=...)``; one engine time unit is one slice, 200 s in the paper).

Time model (``decide``): by default the phases run at every arrival and departure, at the
exact time of the event (§4.2: "every job arrival or departure constitutes a scheduling
event"), while the rows still rotate one 200 s slice at a time; the slice in progress at an
event is cut short there and a fresh slice starts with the next row (eq. 3's slices of length
``T_ij <= T``; see :mod:`gangviz.sim.engine`). ``decide="boundary"`` (``gs:decide=boundary``)
keeps the older model, where the phases run only at slice boundaries: an arrival waits for the
next boundary and a finished job's processors idle until it.

Differences from the paper's simulator (documented, reported):

* Which row runs after an event is not said in the paper; by default it is the row after the
  one whose slice the event cut short (so a burst of events cannot keep one row running);
  ``after_cut="same"`` runs the interrupted row again from a fresh slice.
* Eq. 3's w_k, the unused end of the slice in which a job ends, is 0 by default, because a
  departure is a scheduling event that cuts the slice there; ``cut_at_departure=False`` lets
  the slice run to its end with the departed job's processors idle (counted as lost capacity
  while jobs wait) and decides the departure at the slice's end.
* Q bounds the tasks migrated per scheduling decision. §5.4 bounds them "in any time slice";
  with decisions at events, two events inside one slice may each migrate up to Q tasks (Table
  1's Q is unlimited, so it is unaffected; with ``decide="boundary"`` a decision is a slice).
* The engine charges the context-switch overhead in every slice, also when the same row runs
  again (a one-row matrix); eq. 3 charges it to the jobs switched in.
* Migration overhead (eqs. 4, 5) is paid by the jobs the paper delays (option 1: A C/2, each
  job it displaces C; option 2: A C, each job on its old processors in the target row C/2), as
  service they must make up (``Simulation.charge``), and summed in
  :attr:`IBMGang.migration_overhead`. ``charge_migration=False`` only records it, as a what-if.
* A job whose run time exceeds its estimate is not killed: the engine runs every job for its
  full work. Workloads built here keep work <= estimate (the Phi model, or traces clipped with
  :func:`gangviz.workloads.ibm.clip_to_estimates`).
"""

from __future__ import annotations

from typing import Any

from gangviz.core import registry
from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.policies.ibm.bgs import Planner, Reservation, job_estimate, predicted_end
from gangviz.policies.ibm.migration import (
    MigrationBudget,
    collapse_with_migration,
    fill_with_migration,
)
from gangviz.policies.ibm.phases import (
    best_fit_row,
    clean_matrix,
    compact_matrix,
    fill_matrix,
    free_cols,
    remove_empty_rows,
)
from gangviz.sim.policy import Host, Policy

__all__ = ["IBMGang", "GS", "BGS", "MGS", "MBGS"]

PAPER = "Zhang01"
#: every parameter's default, declared once in the registry (MBGS takes them all)
_DEFAULT = registry.REGISTRY["mbgs"].defaults()


class IBMGang(Policy):
    """Gang scheduling with home rows, MPL, optional backfilling and optional migration.

    Args:
        mpl: maximum number of rows (multiprogramming level), >= 1.
        backfill: BGS-style Schedule with per-row reservations (estimate x MPL).
        migrate: the seven-step order of §5.4 with migration options 1 and 2.
        q: most tasks migrated per scheduling decision (§5.4 bounds it per time slice; a
            decision is made at each scheduling event); ``None`` = unlimited.
        migration_cost: C, the cost of migrating one job, in slices (10 s of a 200 s slice is
            0.05).
        charge_migration: make the delayed jobs pay the migration overhead in service (the
            paper, §5.4); ``False`` records it without slowing anyone down.
        decide: ``"event"`` (default: the phases run at every arrival and departure, §4.2) or
            ``"boundary"`` (only at slice boundaries, the older model).
        cut_at_departure: with decisions at events, a departure cuts the slice short (default);
            ``False``: the slice runs to its end, the departed job's processors idle for the
            rest of it (eq. 3's w_k), and the departure is decided at the slice's end (an
            arrival before it still cuts the slice and decides both).
        after_cut: the row that runs after an event cut a slice short: ``"next"`` (default, the
            row after the interrupted one) or ``"same"`` (the interrupted row, from a fresh
            slice).

    Raises ``ValueError`` for an out-of-range parameter.
    """

    name = "ibm-gang"
    paper = f"{PAPER} §4-§5"

    def __init__(self, mpl: int = _DEFAULT["mpl"], *, backfill: bool = False, migrate: bool = False,
                 q: int | None = _DEFAULT["q"], migration_cost: float = _DEFAULT["migration_cost"],
                 charge_migration: bool = _DEFAULT["charge_migration"], decide: str = _DEFAULT["decide"],
                 cut_at_departure: bool = _DEFAULT["cut_at_departure"],
                 after_cut: str = _DEFAULT["after_cut"]) -> None:
        if decide not in ("event", "boundary"):
            raise ValueError(f"decide must be 'event' or 'boundary', got {decide!r}")
        if after_cut not in ("next", "same"):
            raise ValueError(f"after_cut must be 'next' or 'same', got {after_cut!r}")
        if isinstance(mpl, bool) or not isinstance(mpl, int) or mpl < 1:
            raise ValueError(f"mpl must be a whole number >= 1, got {mpl!r}")
        if q is not None and (isinstance(q, bool) or not isinstance(q, int) or q < 0):
            raise ValueError(f"q must be a whole number >= 0 or None (unlimited), got {q!r}")
        if not (isinstance(migration_cost, (int, float)) and migration_cost >= 0):
            raise ValueError(f"migration_cost must be >= 0 slices, got {migration_cost!r}")
        self.mpl = mpl
        self.decides_at = decide
        #: The slice model of decisions at events (read by the engine): whether a departure
        #: cuts the slice short, and which row runs after a cut ("next" or the "same" row again).
        self.cut_at_departure = bool(cut_at_departure)
        self.after_cut = after_cut
        self.backfill = bool(backfill)
        self.migrate = bool(migrate)
        self.q = q
        self.migration_cost = float(migration_cost)
        self.charge_migration = bool(charge_migration)
        #: Reservations of waiting jobs made at the last decision (job -> Reservation).
        self.reservations: dict[int, Reservation] = {}
        #: Sum of the migration overheads of eqs. 4 and 5, processor-slices.
        self.migration_overhead = 0.0
        #: Tasks migrated so far (all decisions).
        self.migrated_tasks = 0
        #: Slices of service each job lost to migrations so far (job -> slices; only charged
        #: jobs). Sum of size x delay over the jobs = :attr:`migration_overhead` when charging.
        self.migration_delay: dict[int, float] = {}
        self._ends: dict[int, float] = {}

    # ------------------------------------------------------------------ engine hooks
    def schedule(self, sim: Host, completed: list[int], arrived: list[int]) -> None:
        """Run the phases of §4.2 (GS, BGS) or §5.4 (MGS, MBGS) at one scheduling event."""
        m = sim.matrix
        for job in completed:
            self._ends.pop(job, None)
        allowed = self._compact_allowed(sim) if self.backfill else None
        clean_matrix(sim)
        compact_matrix(sim, allowed, "CollapseMatrix-1" if self.migrate else "CompactMatrix")
        remove_empty_rows(sim)
        self._schedule(sim)
        if self.migrate:
            budget = MigrationBudget(self.q, self.migration_cost, self.charge_migration)
            allowed = self._compact_allowed(sim) if self.backfill else None
            collapse_with_migration(sim, budget, allowed)
            remove_empty_rows(sim, "it is empty after CollapseMatrix-2")
            self._schedule(sim)
            fill_matrix(sim, "FillMatrix-1")
            fill_with_migration(sim, budget)
            self.migration_overhead += budget.overhead
            self.migrated_tasks += budget.used
            for job, d in budget.delays.items():
                self.migration_delay[job] = self.migration_delay.get(job, 0.0) + d
        else:
            fill_matrix(sim)
        assert m.n_rows <= self.mpl

    # ------------------------------------------------------------------ estimates
    def _end(self, sim: Host, job: int) -> float:
        """Predicted end of a job in the matrix: start + MPL x estimate (§5.2)."""
        rec = sim.jobs[job]
        start = sim.time if rec.start is None else rec.start
        return predicted_end(start, job_estimate(rec.spec), self.mpl, sim.time)

    def planner(self, sim: Host, with_reservations: bool = True) -> Planner:
        """Return the per-row profiles of the jobs in their home rows (plus the current
        reservations of still-waiting jobs whose row exists)."""
        m = sim.matrix
        jobs = m.jobs()
        plan = Planner.from_bookings(m.processors, m.n_rows, sim.time, [m.home_row(j) for j in jobs],
                                     [self._end(sim, j) for j in jobs], [len(m.job_cols(j)) for j in jobs])
        if with_reservations:
            waiting = set(sim.waiting)
            for res in self.reservations.values():
                if res.job in waiting and res.row < m.n_rows:
                    plan.add(res.row, res.start, res.end, res.size)
        return plan

    def _compact_allowed(self, sim: Host) -> _ReservationGuard:
        """Return the CompactMatrix guard of BGS: a move must not violate a reservation of the
        destination row (§5.2)."""
        return _ReservationGuard(self, sim, self.planner(sim))

    # ------------------------------------------------------------------ Schedule
    def _place(self, sim: Host, job: int, row: int, why: str) -> None:
        size = sim.jobs[job].spec.size
        cols = free_cols(sim.matrix, row, size)
        assert cols is not None
        sim.emit(JobPlaced(job, row, cols, why))

    def _new_row(self, sim: Host, job: int) -> int:
        m = sim.matrix
        sim.emit(SlotAdded(m.n_rows, f"no row can take {m.name(job)} and there are fewer than MPL={self.mpl} rows"))
        return m.n_rows - 1

    def _schedule(self, sim: Host) -> None:
        if self.backfill:
            self._schedule_backfill(sim)
        else:
            self._schedule_fcfs(sim)

    def _schedule_fcfs(self, sim: Host) -> None:
        """GS Schedule (§5.1): FCFS, best fit, stop at the first job that does not fit."""
        m = sim.matrix
        for job in sim.waiting:
            if job in m:
                continue
            size = sim.jobs[job].spec.size
            row = best_fit_row(m, size)
            why = "Schedule: best fit (fewest idle processors that hold it)"
            if row is None:
                if m.n_rows >= self.mpl:
                    break
                row = self._new_row(sim, job)
                why = "Schedule: a new row"
            self._place(sim, job, row, why)

    def _schedule_backfill(self, sim: Host) -> None:
        """BGS Schedule (§5.2): start what violates no reservation, reserve the rest."""
        m = sim.matrix
        plan = self.planner(sim, with_reservations=False)
        self.reservations = {}
        now = sim.time
        for job in sim.waiting:
            if job in m:
                continue
            spec = sim.jobs[job].spec
            size = spec.size
            dur = predicted_end(now, job_estimate(spec), self.mpl, now) - now
            rows = [r for r in range(m.n_rows) if plan.fits_now(r, dur, size)]
            row = min(rows, key=lambda r: (plan.free_now(r), r)) if rows else None
            if row is not None:
                self._place(sim, job, row, "Schedule: best fit violating no reservation")
                plan.add(row, now, now + dur, size)
                continue
            if m.n_rows < self.mpl:
                row = self._new_row(sim, job)
                plan.add_row()
                self._place(sim, job, row, "Schedule: a new row")
                plan.add(row, now, now + dur, size)
                continue
            best_t, best_r = float("inf"), -1
            for r in range(m.n_rows):
                t = plan.earliest(r, dur, size, not_after=best_t)
                if t < best_t:
                    best_t, best_r = t, r
            self.reservations[job] = Reservation(job, best_r, best_t, best_t + dur, size)
            plan.add(best_r, best_t, best_t + dur, size)

    def reservation_violations(self, sim: Host) -> list[str]:
        """Return how the current bookings (home rows + reservations) exceed P, row by row."""
        return self.planner(sim).violations()


class _ReservationGuard:
    """Compaction guard: a job may move into a row only if, with its predicted run added, no
    booking of that row (running jobs and reservations) exceeds P."""

    def __init__(self, policy: IBMGang, sim: Host, plan: Planner) -> None:
        self.policy, self.sim, self.plan = policy, sim, plan

    def _booking(self, job: int) -> tuple[float, int]:
        return self.policy._end(self.sim, job), len(self.sim.matrix.job_cols(job))

    def allows(self, job: int, src: int, dst: int) -> bool:
        """Return whether ``job``'s predicted run fits in ``dst`` beside its reservations."""
        end, size = self._booking(job)
        return self.plan.fits_now(dst, end - self.sim.time, size)

    def moved(self, job: int, src: int, dst: int) -> None:
        """Move ``job``'s booking from ``src`` to ``dst``."""
        end, size = self._booking(job)
        self.plan.remove(src, self.sim.time, end, size)
        self.plan.add(dst, self.sim.time, end, size)


class _Switched(IBMGang):
    """An IBM policy whose backfilling and migration are its registry entry's ``backfill`` and
    ``migrate`` traits; it takes the parameters its entry declares, by keyword.

    Raises TypeError for a parameter the entry does not declare (``GS(q=2)``: plain gang
    scheduling has no migration interval), as a constructor with those keywords would."""

    def __init__(self, mpl: int = _DEFAULT["mpl"], **params: Any) -> None:
        entry = registry.entry_for_target(f"{type(self).__module__}:{type(self).__qualname__}")
        traits = entry.traits if entry is not None else frozenset()
        if entry is not None:
            undeclared = sorted(set(params) - set(entry.defaults()))
            if undeclared:
                raise TypeError(f"{type(self).__name__} takes no parameter {', '.join(undeclared)}")
        super().__init__(mpl, backfill="backfill" in traits, migrate="migrate" in traits, **params)


class GS(_Switched):
    """Plain gang scheduling (Zhang01 §5.1)."""


class BGS(_Switched):
    """Backfilling gang scheduling (Zhang01 §5.2)."""


class MGS(_Switched):
    """Migration gang scheduling (Zhang01 §5.4)."""


class MBGS(_Switched):
    """Migration backfilling gang scheduling (Zhang01 §5.5)."""
