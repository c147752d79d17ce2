"""The simulation engine: exact gang time-slicing of an Ousterhout matrix.

A small discrete-event kernel in the manner of SimPy (``step``, ``peek``, resumable ``run``;
no global state, so many simulations live side by side).

Time model (Zhou00 §4.2 measures everything in time slots):

* Time is counted in slices; slice boundaries lie at the integers. The rows of the matrix take
  turns, one slice each, round robin S1, S2, ..., Sn, S1, ... A job progresses only in slices
  in which a row holding it runs, so a job in k of n rows runs k/n of the time.
* Scheduling decisions are made at slice boundaries. **A job arriving between two boundaries
  waits for the next boundary** (an arrival at 3.4 is placed at 4; one at exactly 3 is placed at
  3): the processors context-switch together only at boundaries, so nothing can start mid-slice.
* A job finishes inside the slice in which its work runs out; its finish time is exact
  (``boundary + overhead + remaining work``), but its processors sit idle until the next boundary,
  where the completion is processed and the policy reacts.
* ``overhead`` is the context-switch cost as a fraction of a slice (Zhang01 §2: the first part of
  every slice does no useful work), so each slice gives ``1 - overhead`` units of service.
* A policy may :meth:`Simulation.charge` a running job service it loses (a migration's
  checkpoint/restart, Zhang01 §5.4); the job then needs its work plus the charges, and its finish is
  computed from that total as above.
* With no slot at all (an empty machine) no slice runs: the clock jumps to the next arrival and
  the time counts as zero slots, so the paper's n_a drops below 1 at low load.
* After a decision the next row to run is the one after the row that ran last; slots inserted or
  removed below it shift it, and a removed slot hands its turn to the slot that takes its index.

Event-driven decisions (the IBM study's simulator, Zhang01 §4.2: "every job
arrival or departure constitutes a scheduling event"): a policy whose ``decides_at`` is
``"event"`` is asked at the exact time of every arrival and completion instead of at the next
slice boundary. Rows still take turns one slice at a time, but the slice in progress when an
event happens is cut short there (eq. 3's slices of length ``T_ij <= T``): the new matrix runs
from the event on, starting a fresh slice with the row after the one that was interrupted (the
interrupted row counts as the row that ran last). Two choices of the policy change this (the IBM
gang policies' ``after_cut`` and ``cut_at_departure``): ``after_cut == "same"`` starts the fresh
slice with the interrupted row itself, and ``cut_at_departure == False`` lets a slice in which a
job ends run to its end, its processors idle for the rest of it, the departure decided at the
slice's end (an arrival before then still cuts the slice). Progress is then counted in fractions of a
slice: a slice cut after ``f`` slices gives ``max(f - overhead, 0)`` units of service, and a job
finishes exactly when its work runs out (no idle end of slice). Time is no longer an integer,
and watch mode and event jumps agree up to floating-point rounding (they add the same times up
in different pieces).

Stepping: in *watch* mode each :meth:`Simulation.step` runs exactly one slice and then decides;
otherwise the engine jumps arithmetically from one event (arrival, completion, scripted action)
to the next, computing every job's progress over the whole gap at once. Both give identical job
records (a test checks it), because progress is always counted in whole slices and a finish time
is computed from the same integers either way.

History: every step is the list of change records it caused; stepping back restores a snapshot
and replays forward (:mod:`gangviz.sim.history`). The slice arithmetic lives in
:mod:`gangviz.sim.slices`, the workload checks in :mod:`gangviz.sim.intake`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from gangviz.core.changes import MatrixChange
from gangviz.core.jobs import JobColumns, JobSpec, ScriptEvent
from gangviz.core.limits import check_processors
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.core.record import Change, Step, ToldStep
from gangviz.sim import slices
from gangviz.sim.decide import DecisionPoint
from gangviz.sim.history import (
    CHANGE_BYTES,
    STEP_BYTES,
    History,
    Snapshot,
    restored_state,
    save_state,
    snapshot_bytes,
    undo_records,
)
from gangviz.sim.intake import check_times, load_workload, queue_workload
from gangviz.sim.policy import Policy
from gangviz.sim.protocol import AppliedHistory, FamilyNeutral, JobStatus, OwnPolicy
from gangviz.sim.slices import FloatArray
from gangviz.sim.state import JobRecord, RunState, Sample, SampleLog

__all__ = ["Simulation", "JobRecord", "Sample", "SampleLog", "ScriptEvent", "Step", "CHANGE_BYTES",
           "STEP_BYTES"]


class Simulation(FamilyNeutral, OwnPolicy, AppliedHistory, DecisionPoint):
    """One simulated machine under one policy.

    Args:
        jobs: the workload, any order (sorted by arrival, then id, internally). Ids must be unique.
        policy: the :class:`~gangviz.sim.policy.Policy` deciding placements.
        processors: number of processors N.
        ring: processors form a ring instead of a linear array.
        overhead: context-switch cost as a fraction of a slice, in ``[0, 1)``.
        initial: a matrix already holding some of ``jobs`` (a scenario's starting picture).
        script: scripted actions (scenario events).
        watch: step one slice at a time (see the module docstring).
        record: keep steps, narration and snapshots (turn off for fast headless runs).
        stats: keep the run statistics (processor-slices busy, each job's first slice, rows
            held: :meth:`run_stats`, :attr:`busy_time`); a copy of a run that only needs its
            decisions (a policy's own process simulating ahead) turns them off.

    Raises ``ValueError`` for a parameter out of range or a job the policy can never run.
    """

    family = "matrix"

    def __init__(
        self,
        jobs: Iterable[JobSpec],
        policy: Policy,
        processors: int,
        *,
        ring: bool = False,
        overhead: float = 0.0,
        initial: OusterhoutMatrix | None = None,
        script: Sequence[ScriptEvent] = (),
        watch: bool = False,
        record: bool = True,
        order: Callable[[JobSpec], Any] | None = None,
        stats: bool = True,
    ) -> None:
        processors = check_processors(processors)
        if not 0.0 <= overhead < 1.0:
            raise ValueError(f"overhead must be in [0, 1) of a slice, got {overhead}")
        policy.check_machine(processors, ring)
        if initial is not None:
            policy.check_initial(initial)
        self.policy: Policy = policy
        self.processors = processors
        self.overhead = overhead
        self.quantum = 1.0 - overhead
        self._rates = slices.Rates(overhead, self.quantum)
        self.watch = watch
        self.record = record
        self.stats = stats
        #: The waiting queue's sort key (a job's spec -> a key; ties keep arrival order), or
        #: ``None`` for arrival order.
        self.order = order
        #: Decide at every arrival and completion (``True``) or at slice boundaries only.
        self.event_driven = policy.decides_at == "event"
        #: Event-driven slice model (the IBM gang policies' ``cut_at_departure``, ``after_cut``).
        self.cut_at_departure = bool(getattr(policy, "cut_at_departure", True))
        self.resume_cut = getattr(policy, "after_cut", "next") == "same"
        load = load_workload(jobs if isinstance(jobs, JobColumns) else list(jobs), processors, overhead, initial, script)
        self.jobs = load.jobs
        self.matrix = initial.copy() if initial is not None else OusterhoutMatrix(processors, ring)
        if self.matrix.processors != processors:
            raise ValueError("the initial matrix has a different number of processors")
        self._pending = queue_workload(load.specs, self.matrix, initial is not None, policy)
        self._names_index = None  # ids by name, made when a script or the user first names a job
        self.script = sorted(script, key=lambda e: e.at)
        self.steps: list[Step] = []
        self.samples = SampleLog()
        self._s = RunState()
        self._init_progress(load.ids, load.work)
        self._activations = {}
        self._first_cols = {}  # processors held in the first slice run
        self._table_cache = None
        self._gap_memo = None
        self._changes = []
        self._touched = []  # the job records the current step touched
        self._history = History()
        self._next_id = self.jobs.end
        if record:
            self._history.keep(0, self._save())

    # ---------------------------------------------------------------- public API
    @property
    def time(self) -> float:
        """Return the current simulated time (a slice boundary)."""
        return self._s.time

    @property
    def waiting(self) -> list[int]:
        """Return the ids of jobs that arrived but are not placed, FCFS order."""
        return list(self._s.waiting)

    @property
    def done(self) -> bool:
        """Return whether nothing more can happen (all finite work done, script exhausted)."""
        return self._is_done()

    # --- the rest of the Simulation protocol (gangviz.sim.protocol); the history keeps no
    # future here: going back drops the later steps, the deterministic run recomputes them


    @property
    def paper(self) -> str:
        """Return the paper section the policy follows (its ``paper``)."""
        return self.policy.paper

    def snapshot(self) -> OusterhoutMatrix:
        """Return the matrix as it stands (live: ``copy()`` it to keep it)."""
        return self.matrix

    def emit(self, change: MatrixChange) -> None:
        """Apply ``change`` to the matrix and add it to the current step (for policies)."""
        self._emit(change)

    @property
    def current_changes(self) -> list[MatrixChange]:
        """Return the list that policies pass to the core re-packing functions as ``out``."""
        return self._changes

    def served(self, job: int) -> float:
        """Return the work ``job`` has received so far, in slices of useful service (net of
        service lost to :meth:`charge`)."""
        spec = self.jobs.spec(job)  # KeyError: no such job
        if not math.isnan(self.jobs.finish[job]):
            return spec.work
        return max(self._served_slices(job) * self.quantum - self._s.lost.get(job, 0.0), 0.0)

    def remaining(self, job: int) -> float:
        """Return the service ``job`` still needs, lost service included (0 once finished; inf
        for endless jobs)."""
        spec = self.jobs.spec(job)  # KeyError: no such job
        if not math.isnan(self.jobs.finish[job]):
            return 0.0
        gross = self._served_slices(job) * self.quantum
        return max(spec.work + self._s.lost.get(job, 0.0) - gross, 0.0)

    def job_status(self, job: int) -> JobStatus | None:
        """Return where ``job`` stands now (:class:`~gangviz.sim.protocol.JobStatus`), or
        ``None`` for an id this simulation does not know."""
        rec = self.jobs.get(job)
        if rec is None:
            return None
        return JobStatus(rec.spec, rec.start, rec.finish, rec.terminated, self.remaining(job))

    def _served_slices(self, job: int) -> float:
        served = self._s.served
        return float(served[job]) if job < len(served) else 0.0

    def charge(self, job: int, slices: float) -> None:
        """Make the running ``job`` lose ``slices`` of service (for policies: e.g. the
        checkpoint/restart time of a migration, Zhang01 §5.4): it needs that
        much more service before it finishes, so its finish moves by at least ``slices``.

        Raises ``ValueError`` if ``job`` is not in the matrix or ``slices`` is negative.
        """
        if not slices >= 0:
            raise ValueError(f"a charge must be >= 0 slices, got {slices}")
        if job not in self.matrix:
            raise ValueError(f"job {job} is not running; only running jobs can be charged")
        if slices:
            self._s.lost[job] = self._s.lost.get(job, 0.0) + slices
            self._remember_need(job)
            self._table_cache = None

    def peek(self) -> float:
        """Return the time of the next step (``inf`` when the simulation is done)."""
        return self._s.time + self._next_gap()

    def step(self) -> Step | None:
        """Advance to the next decision point and return its :class:`Step` (``None`` if done)."""
        return self._step_by(self._next_gap())

    def run(self, until: float | None = None, max_steps: int | None = None) -> None:
        """Step until the simulation is done, the next step lies beyond ``until``, or
        ``max_steps`` steps were taken. Resumable: call again to continue."""
        taken = 0
        while max_steps is None or taken < max_steps:
            gap = self._next_gap()  # once per step: peek() and step() would each work it out
            if math.isinf(gap) or (until is not None and self._s.time + gap > until):
                break
            if self._step_by(gap) is None:
                break
            taken += 1

    def step_back(self) -> Step | None:
        """Undo the last step; return it (``None`` at the start).

        Raises ``RuntimeError`` if the simulation does not record its history.
        """
        if not self.record:
            raise RuntimeError("this simulation keeps no history (record=False)")
        if not self.steps:
            return None
        last = self.steps[-1]
        self.go_to(len(self.steps) - 1)
        return last

    def go_to(self, index: int) -> None:
        """Put the simulation in the state after ``index`` steps (back or forward).

        Raises ``RuntimeError`` without history, ``ValueError`` for a negative index.
        """
        if not self.record:
            raise RuntimeError("this simulation keeps no history (record=False)")
        if index < 0:
            raise ValueError(f"step index must be >= 0, got {index}")
        if index < len(self.steps):
            base = self._history.base(index)
            self._restore(base)
            del self.steps[base:]
            del self.samples[base:]
        while len(self.steps) < index:
            if self.step() is None:
                break

    def terminate_now(self, job: int) -> Step:
        """What-if: terminate ``job`` at the current time; return the step it makes.

        Raises ``ValueError`` if the job is not running or waiting.
        """
        rec = self.jobs.get(job)
        if rec is None or rec.finish is not None or (job not in self.matrix and job not in self._s.waiting):
            raise ValueError(f"job {job} is not in the system")
        return self._inject(ScriptEvent(self.time, terminate=(rec.spec.name,), origin="user"))

    def submit_now(self, size: int, work: float, name: str | None = None) -> Step:
        """What-if: submit a job of ``size`` processors and ``work`` slices now; return the step.

        Raises ``ValueError`` for a size the policy cannot run or non-positive work.
        """
        self.policy.check_job(size, self.processors)
        if not work > 0:
            raise ValueError(f"work must be > 0 slices, got {work}")
        name = name or f"U{self._next_id}"
        check_times(name, self.time, work, self.overhead)
        return self._inject(ScriptEvent(self.time, submit=((name, size, float(work)),), origin="user"))

    # ------------------------------------------------------------------- metrics
    def records(self) -> list[JobRecord]:
        """Return every job record, by job id (views of :attr:`jobs`: they follow later steps)."""
        jobs = self.jobs
        return [jobs[j] for j in sorted(jobs)]

    def run_stats(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Return three arrays indexed by job id: the time of the first slice each job ran
        (``nan`` while it has not run; a job can be placed some slices before its row's turn),
        the most rows it held at once in a slice it ran (1 for a job never replicated, 0
        before it ran), and the slices it ran in rows other than its home row (its extra
        slots, [Zhou00 §3]). Copies; ids beyond the workload's are absent."""
        s = self._s
        return s.first_run.copy(), s.rows_held.copy(), s.extra_slices.copy()

    def first_columns(self, job: int) -> Sequence[int] | None:
        """Return the processors (matrix columns) ``job`` held in the first slice it ran, or
        ``None`` while it has not run."""
        return self._first_cols.get(job)

    @property
    def max_slots(self) -> int:
        """Return the largest number of slots seen so far (the paper's n_l)."""
        return self._s.max_rows

    @property
    def slot_time(self) -> float:
        """Return the integral of the number of slots over time so far."""
        return self._s.row_time

    @property
    def busy_time(self) -> float:
        """Return processor-slices allocated in the running slot so far."""
        return self._s.busy_time

    # ------------------------------------------------------------ internals
    def _inject(self, event: ScriptEvent) -> Step:
        # A what-if action joins the script, so stepping back and forward replays it.
        self.script.append(event)
        self.script.sort(key=lambda e: e.at)
        step = self.step()
        assert step is not None
        return step

    def _decide(self) -> Step:
        """Process the decision point at the current time and record it as a step: remove the
        completed jobs, take arrivals and scripted actions, let the policy react, start what it
        placed and choose the next row."""
        s = self._s
        t = s.time
        self._changes = []
        self._table_cache = None
        self._touched = []
        causes: list[str] = []
        completed = self._complete()
        if completed:
            causes.append("completion")
        arrived = self._arrivals(t)
        terminated = self._run_script(t, arrived, causes)
        if arrived:
            causes.append("arrival")
        s.waiting.extend(arrived)
        if completed or terminated or arrived:
            if self.order is not None and len(s.waiting) > 1:
                order, spec = self.order, self.jobs.spec
                s.waiting.sort(key=lambda j: order(spec(j)))
            self.policy.schedule(self, completed + terminated, arrived)
        self._start_placed(t)
        self._activate()
        s.max_rows = max(s.max_rows, self.matrix.n_rows)
        s.decided = True
        cause = sys.intern("+".join(dict.fromkeys(causes)) or "slice")  # one string per kind of cause
        step = Step(len(self.steps), t, cause, cast("list[Change]", self._changes))
        if self.record:
            step = self._record_step(t, cause)
        self._changes = []
        self._table_cache = None
        return step

    def _record_step(self, t: float, cause: str) -> Step:
        """Keep the step that just ended, its sample and its journal; snapshot when due."""
        # the sentences are told from the change records when asked (ToldStep)
        step = ToldStep(len(self.steps), t, cause, cast("list[Change]", self._changes[:]), self.matrix.names, [])
        self.steps.append(step)
        self.samples.append(self._sample())
        history = self._history
        history.note_step(self._touched, len(self._changes))
        if history.snapshot_due(self._snapshot_bytes()):
            history.keep(len(self.steps), self._save())
        return step

    def _snapshot_bytes(self) -> int:
        """Rough size of a snapshot now: its cells, placements and the jobs in the system."""
        m = self.matrix
        return snapshot_bytes(m.n_rows * m.processors, m.n_jobs, len(self._s.waiting))

    def _save(self) -> Snapshot:
        """A snapshot of the engine's state, the matrix and the policy's state."""
        return save_state(self._s, self.matrix.placements()[0], self.matrix.snapshot(), self.policy.get_state(),
                          self._next_id)

    def _restore(self, base: int) -> None:
        """Return to the snapshot taken after ``base`` steps, undoing the job-record journal."""
        snap = self._history.snapshots[base]
        undo_records(self.jobs, self._names_index, self._history.cut(base), snap.next_id)
        charged = set(self._s.lost) | set(snap.state.lost)
        self._s = restored_state(self._s, snap, len(self._need_arr))
        first_run = self._s.first_run
        for job in [j for j in self._first_cols if j >= len(first_run) or math.isnan(first_run[j])]:
            del self._first_cols[job]
        for job in charged & self.jobs.keys():
            self._remember_need(job)
        self.matrix = OusterhoutMatrix.from_snapshot(snap.matrix, self.matrix.names)
        self.policy.set_state(snap.policy)
        self._next_id = snap.next_id
        self._table_cache = None
