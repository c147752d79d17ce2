"""The clock of a matrix simulation: when the next decision point comes and what happens
to the jobs' progress until then (the time model is in :mod:`gangviz.sim.engine`).

:class:`SliceClock` is the part of :class:`~gangviz.sim.engine.Simulation` that moves time: it
keeps the per-job progress arrays and the cached :class:`~gangviz.sim.slices.Table`, works out
the gap to the next arrival, scripted action or completion, and runs the slices in between with
the arithmetic of :mod:`gangviz.sim.slices`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from gangviz.core.jobs import JobSpec, ScriptEvent
from gangviz.core.limits import CLOCK_LIMIT, LimitError
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.core.record import Step
from gangviz.sim import slices
from gangviz.sim.slices import EPS, FloatArray, IntArray, Table
from gangviz.sim.state import JobTable, RunState


class _GapMemo(NamedTuple):
    """The last completion gap worked out, for the table and turn it was worked out on."""

    table: Table
    n: int
    start: int
    gap: float
    ends: FloatArray | None  # event-driven: every job's finish offset from now


class SliceClock:
    """Time and progress of a matrix simulation (the base of
    :class:`~gangviz.sim.engine.Simulation`, which sets every attribute below)."""

    matrix: OusterhoutMatrix
    jobs: JobTable
    script: list[ScriptEvent]
    watch: bool
    #: keep the run statistics (busy processor-slices, first runs, rows held)
    stats: bool
    event_driven: bool
    #: event-driven slice model: a departure cuts the slice (else it is decided at the slice's
    #: end), and the interrupted row runs again after a cut (else the next one does)
    cut_at_departure: bool
    resume_cut: bool
    quantum: float
    _rates: slices.Rates
    _s: RunState
    _pending: Sequence[JobSpec]
    _need_arr: FloatArray
    _work_arr: FloatArray
    _table_cache: Table | None
    _gap_memo: _GapMemo | None
    _first_cols: dict[int, Sequence[int]]

    def _init_progress(self, plain_ids: IntArray | None, plain_work: FloatArray | None) -> None:
        """Make the per-id arrays: slices each job needs, its work, and the run statistics. The
        jobs of a starting matrix have started at 0 and wait for their row's turn."""
        for jid in self.matrix.jobs():
            self.jobs.start[jid] = 0.0
            self._s.unstarted.append(jid)
        size = max(self.jobs.end, 1)
        self._need_arr = np.full(size, math.inf)
        self._work_arr = np.full(size, math.inf)
        s = self._s
        s.served = np.zeros(size)
        s.first_run = np.full(size, math.nan)
        s.rows_held = np.zeros(size)
        s.extra_slices = np.zeros(size)
        if plain_ids is None:
            for jid in self.jobs:
                self._remember_need(jid)
        else:
            assert plain_work is not None
            work = plain_work
            step = 1 << 20  # a block at a time: the arithmetic's temporaries stay small
            for lo in range(0, len(work), step):
                ids = plain_ids[lo:lo + step]
                self._need_arr[ids] = slices.needed_all(work[lo:lo + step], self.quantum, self.event_driven)
            self._work_arr[plain_ids] = work

    def _is_done(self) -> bool:
        """Whether nothing more can happen (all finite work done, script exhausted)."""
        s = self._s
        if not s.decided:
            return False
        if s.next_arrival < len(self._pending) or s.next_script < len(self.script):
            return False
        return math.isinf(self._next_completion_gap())

    def _next_gap(self) -> float:
        """Slices until the next decision point: 0 when one is due now, ``inf`` when done."""
        s = self._s
        if not s.decided or self._script_due(s.time):
            return 0
        if self.watch and self.matrix.n_rows:
            if self._is_done():
                return math.inf
            return min(1.0, self._next_event_gap()) if self.event_driven else 1
        # With nothing left to arrive, the next event is the next completion, if any: the
        # gap is infinite exactly when the simulation is done.
        return self._next_event_gap()

    def _step_by(self, gap: float) -> Step | None:
        """Run ``gap`` slices (from :meth:`_next_gap`) and decide; ``None`` if done."""
        if math.isinf(gap):
            return None
        if gap:
            if self._s.time + gap > CLOCK_LIMIT:
                raise LimitError(f"the simulated clock would pass {CLOCK_LIMIT:.4g} slices (2**44) "
                                 f"at t={self._s.time:g}, where times lose their fraction of a slice; "
                                 "the run is refused rather than answered wrongly")
            if self.event_driven:
                self._run_for(float(gap))
            else:
                self._run_slices(int(gap))
        return self._decide()

    def _script_due(self, t: float) -> bool:
        s = self._s
        return s.next_script < len(self.script) and self.script[s.next_script].at <= t

    def _arrival_boundary(self) -> float:
        """Time of the next decision caused by an arrival or a scripted action: the slice
        boundary at or after it, or (event-driven) the time itself."""
        s = self._s
        t = math.inf
        if s.next_arrival < len(self._pending):
            t = self._pending[s.next_arrival].arrival
        if s.next_script < len(self.script):
            t = min(t, self.script[s.next_script].at)
        return t if self.event_driven or math.isinf(t) else math.ceil(t)

    def _work(self, job: int) -> float:
        """Service ``job`` needs in all: its work plus what :meth:`charge` took."""
        work = self.jobs.spec(job).work
        lost = self._s.lost.get(job)
        return work + lost if lost else work

    def _remember_need(self, job: int) -> None:
        if job >= len(self._need_arr):
            grow = max(job + 1, 2 * len(self._need_arr))
            self._need_arr = np.concatenate([self._need_arr, np.full(grow - len(self._need_arr), math.inf)])
            self._work_arr = np.concatenate([self._work_arr, np.full(grow - len(self._work_arr), math.inf)])
            s = self._s
            s.served = slices.grown(s.served, grow)
            s.first_run = slices.grown(s.first_run, grow, math.nan)
            s.rows_held = slices.grown(s.rows_held, grow)
            s.extra_slices = slices.grown(s.extra_slices, grow)
        work = self._work(job)
        self._need_arr[job] = slices.needed(work, self.quantum, self.event_driven)
        self._work_arr[job] = work

    def _table(self) -> Table:
        """The :class:`~gangviz.sim.slices.Table` of the jobs in the matrix.

        Cached until the matrix or the progress changes (both only happen in ``_decide`` and
        the slice runs, which drop the cache, and in :meth:`charge`).
        """
        if self._table_cache is None:
            self._table_cache = slices.build_table(self.matrix, self._s.served, self._need_arr)
        return self._table_cache

    def _next_completion_gap(self) -> float:
        n = self.matrix.n_rows
        if n == 0 or not self.matrix.n_jobs:
            return math.inf
        start = self._s.next_row % n
        table = self._table()
        memo = self._gap_memo  # done, peek() and step() may all ask with nothing changed in between
        if memo is not None and memo.table is table and memo.n == n and memo.start == start:
            return memo.gap
        ends = None
        if self.event_driven:
            ends = slices.finish_offsets(table, n, start, self._rates)  # _run_for needs them next
            best = float(ends.min()) if len(ends) else math.inf
            if not self.cut_at_departure:
                best = slices.slice_end(best)
        else:
            best = slices.boundary_gap(table, n, start)
        self._gap_memo = _GapMemo(table, n, start, best, ends)
        return best

    def _next_event_gap(self) -> float:
        s = self._s
        gap = self._arrival_boundary() - s.time
        return min(gap, self._next_completion_gap())

    def _run_slices(self, m: int) -> None:
        """Run ``m`` whole slices with the matrix as it is."""
        s = self._s
        n = self.matrix.n_rows
        if n == 0:
            s.time += m
            return
        start = s.next_row % n
        if self.stats:
            slices.count_busy(s, self.matrix.busy_per_row(), n, start, m, 0.0, m)
        if self.matrix.n_jobs:
            slices.run_slices(s, self._table(), n, m, self._work_arr, self._rates, self.matrix.job_cols,
                              self._first_cols)
        self._table_cache = None
        s.next_row = (start + m) % n
        s.time += m

    def _run_for(self, gap: float) -> None:
        """Event-driven: run the matrix as it is for ``gap`` (a fraction of a slice counts):
        ``floor(gap)`` whole slices and, if ``gap`` is not whole, one slice cut short."""
        s = self._s
        n = self.matrix.n_rows
        if n == 0:
            s.time = self._snapped(s.time + gap)
            return
        start = s.next_row % n
        # A gap a rounding error away from whole slices is whole: otherwise a hair of a cut
        # slice would pass the turn to the next row.
        whole = int(math.floor(gap + EPS))
        frac = gap - whole
        if frac < EPS:
            frac = 0.0
        if self.stats:
            slices.count_busy(s, self.matrix.busy_per_row(), n, start, whole, frac, gap)
        if self.matrix.n_jobs:
            table = self._table()
            memo = self._gap_memo
            if memo is not None and memo.table is table and memo.n == n and memo.start == start \
                    and memo.ends is not None:
                ends = memo.ends
            else:
                ends = slices.finish_offsets(table, n, start, self._rates)
            slices.run_for(s, table, n, gap, whole, frac, self._rates, ends, self.matrix.job_cols,
                           self._first_cols)
        self._table_cache = None
        s.next_row = (start + whole + (1 if frac > 0 and not self.resume_cut else 0)) % n
        s.time = self._snapped(s.time + gap)

    def _snapped(self, t: float) -> float:
        """Return the next arrival or scripted time instead of ``t`` when rounding left ``t``
        a hair before it, so the event is processed at once and not one tiny step later."""
        due = self._arrival_boundary()
        return due if t < due <= t + EPS * max(1.0, abs(t)) else t

    def _decide(self) -> Step:  # pragma: no cover - the engine's
        """Process the decision point at the current time (see the engine)."""
        raise NotImplementedError
