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
interrupted row counts as the row that ran last). Progress is then counted in fractions of a
slice: a slice cut after ``f`` slices gives ``max(f - overhead, 0)`` units of service, and a job
finishes exactly when its work runs out (no idle end of slice). Time is no longer an integer,
and watch mode and event jumps agree up to floating-point rounding (they add the same times up
in different pieces).

Stepping: in *watch* mode each :meth:`Simulation.step` runs exactly one slice and then decides;
otherwise the engine jumps arithmetically from one event (arrival, completion, scripted action)
to the next, computing every job's progress over the whole gap at once. Both give identical job
records (a test checks it), because progress is always counted in whole slices and a finish time
is computed from the same integers either way.

History: every step is the list of change records it caused. Stepping back restores the latest
snapshot at or before the target step and replays forward (the engine is deterministic, so the
replay is exact). Snapshots are taken only after enough changes have accumulated to outweigh the
size of a snapshot, so history memory grows with the number of changes, not with the number of
steps times the matrix size.
"""

from __future__ import annotations

import gc
import math
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from gangviz.core.changes import JobRemoved, JobUnreplicated, MatrixChange, RowActivated
from gangviz.core.jobs import JobSpec
from gangviz.core.limits import (CLOCK_LIMIT, ESTIMATE_SLOTS, MAX_JOBS, MAX_SLICES, LimitError, check_jobs,
                                 check_memory, check_processors, check_slices)
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.core.record import Step, ToldStep
from gangviz.core.script import ScriptEvent
from gangviz.sim.policy import Policy


#: Rough memory of one recorded change and of one step (record, narration, sample), in bytes;
#: a snapshot is taken once the records since the last one outweigh SNAPSHOT_SPACING snapshots.
CHANGE_BYTES = 400
STEP_BYTES = 300
#: With 2, snapshots take at most about a third of the history (not a half), and stepping back
#: replays at most twice as many steps as with 1 (a few dozen on a real trace, well under 0.1 s).
SNAPSHOT_SPACING = 2


@dataclass(slots=True)
class JobRecord:
    """What happened to one job: its spec, when it started, when it finished."""

    spec: JobSpec
    start: float | None = None
    finish: float | None = None
    terminated: bool = False

    @property
    def turnaround(self) -> float | None:
        """Return finish - arrival, or ``None`` while the job has not finished."""
        return None if self.finish is None else self.finish - self.spec.arrival


@dataclass(slots=True)
class Sample:
    """The machine at one step, for the live metric panels."""

    time: float
    slots: int
    waiting: int
    running: int
    active_ratio: float
    finished: int
    mean_turnaround: float


_SAMPLE_FIELDS = ("time", "slots", "waiting", "running", "active_ratio", "finished", "mean_turnaround")
_SAMPLE_INTS = (False, True, True, True, False, True, False)


class SampleLog(Sequence):
    """The samples of a run, one per step, kept as packed doubles (56 bytes a step instead of a
    :class:`Sample` object and its floats, about 140).

    Reads like a list of :class:`Sample`: ``len``, indexing and slicing (a slice gives a list)
    and iteration make the records again on access, equal to the ones appended (counts are whole
    numbers far below 2**53, so a double holds them exactly). ``del log[k:]`` drops the tail.
    """

    __slots__ = ("_data",)
    _WIDTH = len(_SAMPLE_FIELDS)

    def __init__(self) -> None:
        self._data = array("d")

    def append(self, sample: Sample) -> None:
        """Add ``sample`` at the end."""
        self._data.extend((sample.time, sample.slots, sample.waiting, sample.running,
                           sample.active_ratio, sample.finished, sample.mean_turnaround))

    def __len__(self) -> int:
        return len(self._data) // self._WIDTH

    def _make(self, i: int) -> Sample:
        w = self._WIDTH
        v = self._data[i * w:(i + 1) * w]
        return Sample(v[0], int(v[1]), int(v[2]), int(v[3]), v[4], int(v[5]), v[6])

    def __getitem__(self, index):  # type: ignore[override]
        n = len(self)
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(n))]
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("sample index out of range")
        return self._make(i)

    def __delitem__(self, index: slice) -> None:
        """Drop ``log[k:]`` (only a tail can be dropped; the history is cut, never holed)."""
        if not isinstance(index, slice) or index.step not in (None, 1) or index.stop not in (None, len(self)):
            raise TypeError("only a tail log[k:] can be deleted")
        start = index.indices(len(self))[0]
        del self._data[start * self._WIDTH:]

    def column(self, field: str) -> np.ndarray:
        """Return one field of every sample as a new float array."""
        return np.frombuffer(self._data, dtype=np.float64)[_SAMPLE_FIELDS.index(field)::self._WIDTH].copy()


@dataclass
class _Mutable:
    """Everything that changes as the simulation runs (saved whole in snapshots)."""

    time: float = 0.0
    decided: bool = False
    next_row: int = 0
    next_arrival: int = 0
    next_script: int = 0
    served: np.ndarray = field(default_factory=lambda: np.zeros(0))  # slices received, by job id
    finish: dict[int, float] = field(default_factory=dict)
    waiting: list[int] = field(default_factory=list)
    lost: dict[int, float] = field(default_factory=dict)
    row_time: float = 0.0
    busy_time: float = 0.0
    max_rows: int = 0
    finished: int = 0
    turnaround_sum: float = 0.0
    #: per job id: time of the first slice it ran (nan before), most rows held at once, slices
    #: run in rows other than its home row (saved in snapshots for the running jobs only)
    first_run: np.ndarray = field(default_factory=lambda: np.zeros(0))
    rows_held: np.ndarray = field(default_factory=lambda: np.zeros(0))
    extra_slices: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unstarted: list[int] = field(default_factory=list)  # placed jobs whose row's turn has not come


class Simulation:
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
    ) -> None:
        processors = check_processors(processors)
        if not 0.0 <= overhead < 1.0:
            raise ValueError(f"overhead must be in [0, 1) of a slice, got {overhead}")
        policy.check_machine(processors, ring)
        if initial is not None:
            policy.check_initial(initial)
        self.policy = policy
        self.processors = processors
        self.overhead = overhead
        self.quantum = 1.0 - overhead
        self.watch = watch
        self.record = record
        #: Decide at every arrival and completion (``True``) or at slice boundaries only.
        self.event_driven = getattr(policy, "decides_at", "boundary") == "event"
        specs = list(jobs)
        plain = self._plain_times(specs)
        if plain is None:
            specs = sorted(specs, key=lambda j: (j.arrival, j.id))
        else:
            specs = plain[0]
        if len(specs) > MAX_JOBS:
            check_jobs(len(specs), "the workload")
        check_memory(processors, len(specs), max(initial.n_rows if initial is not None else 0, ESTIMATE_SLOTS))
        if plain is None:
            for spec in specs:
                self._check_times(spec.name, spec.arrival, spec.work)
        for event in script:
            check_slices(event.at, f"event time of the event at t={event.at!r}", "at")
            for name, _size, work in event.submit:
                self._check_times(name, event.at, work)
        was_enabled = gc.isenabled()
        gc.disable()  # one record per job, none in a cycle: no full collections over a big trace
        try:
            self.jobs: dict[int, JobRecord] = {spec.id: JobRecord(spec) for spec in specs}
        finally:
            if was_enabled:
                gc.enable()
        if len(self.jobs) != len(specs):
            seen: set[int] = set()
            for spec in specs:
                if spec.id in seen:
                    raise ValueError(f"duplicate job id {spec.id}")
                seen.add(spec.id)
        self.matrix = initial.copy() if initial is not None else OusterhoutMatrix(processors, ring)
        if self.matrix.processors != processors:
            raise ValueError("the initial matrix has a different number of processors")
        names = self.matrix.names
        if names:
            for spec in specs:
                names.setdefault(spec.id, spec.name)
        else:
            names.update((spec.id, spec.name) for spec in specs)
        self._by_name = {spec.name: spec.id for spec in specs}
        self._pending = [s for s in specs if s.id not in self.matrix] if initial is not None else specs
        sizes = [s.size for s in self._pending]
        # The base rule (1..processors) is checked in bulk; a policy with its own rule sees every job.
        if (type(policy).check_job is not Policy.check_job
                or (sizes and not (1 <= min(sizes) and max(sizes) <= processors))):
            for spec in self._pending:
                policy.check_job(spec.size, processors)
        self.script: list[ScriptEvent] = sorted(script, key=lambda e: e.at)
        self.steps: list[Step] = []
        self.samples = SampleLog()
        self._s = _Mutable()
        for jid in self.matrix.jobs():
            self.jobs[jid].start = 0.0
            self._s.unstarted.append(jid)
        self._need_arr = np.full(max(self.jobs, default=0) + 1, math.inf)
        self._work_arr = np.full(len(self._need_arr), math.inf)
        self._s.served = np.zeros(len(self._need_arr))
        self._s.first_run = np.full(len(self._need_arr), math.nan)
        self._s.rows_held = np.zeros(len(self._need_arr))
        self._s.extra_slices = np.zeros(len(self._need_arr))
        if plain is None:
            for jid in self.jobs:
                self._remember_need(jid)
        else:
            _, ids, work = plain
            self._need_arr[ids] = self._needed_all(work)
            self._work_arr[ids] = work
        self._activations: dict[tuple, RowActivated] = {}
        self._first_cols: dict[int, Sequence[int]] = {}  # processors held in the first slice run
        self._table_cache: tuple | None = None
        self._gap_memo: tuple | None = None
        self._offsets_memo: tuple | None = None  # event-driven: (table, n, start, finish offsets)
        self._changes: list[MatrixChange] = []
        # the job records each step touched, flat: step k's ids are _journal[_journal_end[k-1]:_journal_end[k]]
        self._journal = array("q")
        self._journal_end = array("q")
        self._journal_now: list[int] = []
        self._snapshots: dict[int, tuple] = {}
        self._changes_since_snapshot = 0
        self._next_id = max(self.jobs, default=-1) + 1
        if record:
            self._snapshots[0] = self._save()

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
        s = self._s
        if not s.decided:
            return False
        if s.next_arrival < len(self._pending) or s.next_script < len(self.script):
            return False
        return math.isinf(self._next_completion_gap())

    def _plain_times(self, specs: list[JobSpec]) -> tuple[list[JobSpec], np.ndarray, np.ndarray] | None:
        """Return ``(specs sorted by (arrival, id), their ids, their work)`` when every arrival and
        work is a plain int or float within the limits :meth:`_check_times` enforces and every id
        is a non-negative int; ``None`` otherwise (then the caller sorts and checks job by job,
        which names the first bad job). Never raises: it only decides whether the bulk path may
        be taken, so a large trace is checked in a few array operations.
        """
        if not specs:
            return None
        arrival = [s.arrival for s in specs]
        work = [s.work for s in specs]
        ids = [s.id for s in specs]
        if not {type(v) for v in arrival} | {type(v) for v in work} <= {float, int}:
            return None
        if {type(i) for i in ids} != {int}:
            return None
        try:
            a = np.array(arrival, dtype=np.float64)
            w = np.array(work, dtype=np.float64)
            i = np.array(ids, dtype=np.int64)
        except OverflowError:
            return None
        with np.errstate(all="ignore"):
            ok = np.isfinite(a) & (a >= 0) & (a <= MAX_SLICES)
            finite_w = np.isfinite(w) & (w > 0) & (w <= MAX_SLICES) & (w / (1.0 - self.overhead) <= MAX_SLICES)
            ok &= finite_w | (w == math.inf)
        if not ok.all() or i.min() < 0:
            return None
        order = np.lexsort((i, a))  # stable, like sorted() on (arrival, id)
        if np.any(order[1:] < order[:-1]):
            specs = [specs[k] for k in order.tolist()]
            i, w = i[order], w[order]
        return specs, i, w

    def _needed_all(self, work: np.ndarray) -> np.ndarray:
        """Return :meth:`_needed` for every entry of ``work`` (no charges yet), with the same
        float operations, so the values are identical."""
        q = self.quantum
        if self.event_driven:  # fractions of a slice count, as in _needed
            with np.errstate(all="ignore"):
                need = work / q
            need[np.isinf(work)] = math.inf
            return need
        with np.errstate(all="ignore"):
            need = np.ceil(work / q)
            down = (need > 1) & ((need - 1) * q >= work)
            up = ~down & (need * q < work)
            need = need - down + up
        need[np.isinf(work)] = math.inf
        return need

    def _check_times(self, name: str, arrival: float, work: float) -> None:
        """Raise :class:`LimitError` unless the job's arrival and work are within the limits
        (endless work is allowed) and its work in slices of service keeps below the clock limit."""
        check_slices(arrival, f"job {name}: arrival", "the workload")
        if not math.isinf(work) or work < 0:
            check_slices(work, f"job {name}: work", "the workload", positive=True)
            if work / (1.0 - self.overhead) > MAX_SLICES:
                raise LimitError(f"job {name}: work {work:g} needs {work / (1.0 - self.overhead):.4g} "
                                 f"slices at overhead {self.overhead:g}, over the limit of "
                                 f"{MAX_SLICES:.4g} slices")

    def emit(self, change: MatrixChange) -> None:
        """Apply ``change`` to the matrix and add it to the current step (for policies)."""
        change.apply(self.matrix)
        self._changes.append(change)

    @property
    def current_changes(self) -> list[MatrixChange]:
        """Return the list that policies pass to the core re-packing functions as ``out``."""
        return self._changes

    def served(self, job: int) -> float:
        """Return the work ``job`` has received so far, in slices of useful service (net of
        service lost to :meth:`charge`)."""
        rec = self.jobs[job]
        if rec.finish is not None:
            return rec.spec.work
        return max(self._served_slices(job) * self.quantum - self._s.lost.get(job, 0.0), 0.0)

    def remaining(self, job: int) -> float:
        """Return the service ``job`` still needs, lost service included (0 once finished; inf
        for endless jobs)."""
        if self.jobs[job].finish is not None:
            return 0.0
        gross = self._served_slices(job) * self.quantum
        return max(self.jobs[job].spec.work + self._s.lost.get(job, 0.0) - gross, 0.0)

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

    def _next_gap(self) -> float:
        """Slices until the next decision point: 0 when one is due now, ``inf`` when done."""
        s = self._s
        if not s.decided or self._script_due(s.time):
            return 0
        if self.watch and self.matrix.n_rows:
            if self.done:
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
            base = max(k for k in self._snapshots if k <= index)
            self._restore(self._snapshots[base], base)
            del self.steps[base:]
            for k in [k for k in self._snapshots if k > base]:
                del self._snapshots[k]
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
        self._check_times(name, self.time, work)
        return self._inject(ScriptEvent(self.time, submit=((name, size, float(work)),), origin="user"))

    # ------------------------------------------------------------------- metrics
    def records(self) -> list[JobRecord]:
        """Return every job record, by job id."""
        return [self.jobs[j] for j in sorted(self.jobs)]

    def run_stats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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

    # ------------------------------------------------------------------ internals
    def _inject(self, event: ScriptEvent) -> Step:
        # A what-if action joins the script, so stepping back and forward replays it.
        self.script.append(event)
        self.script.sort(key=lambda e: e.at)
        step = self.step()
        assert step is not None
        return step

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
        work = self.jobs[job].spec.work
        lost = self._s.lost.get(job)
        return work + lost if lost else work

    def _needed(self, job: int) -> float:
        """Slices of service ``job`` needs in all (inf for endless jobs)."""
        work = self._work(job)
        if math.isinf(work):
            return math.inf
        if self.event_driven:  # fractions of a slice count (see the module docstring)
            return work / self.quantum
        # Arithmetic, not a search: the quotient is off by at most one slice from rounding,
        # so one correction each way suffices (work is below MAX_SLICES, so need is exact).
        need = math.ceil(work / self.quantum)
        if need > 1 and (need - 1) * self.quantum >= work:
            need -= 1
        elif need * self.quantum < work:
            need += 1
        return need

    def _remember_need(self, job: int) -> None:
        if job >= len(self._need_arr):
            grow = max(job + 1, 2 * len(self._need_arr))
            self._need_arr = np.concatenate([self._need_arr, np.full(grow - len(self._need_arr), math.inf)])
            self._work_arr = np.concatenate([self._work_arr, np.full(grow - len(self._work_arr), math.inf)])
            s = self._s
            s.served = _grown(s.served, grow)
            s.first_run = _grown(s.first_run, grow, math.nan)
            s.rows_held = _grown(s.rows_held, grow)
            s.extra_slices = _grown(s.extra_slices, grow)
        self._need_arr[job] = self._needed(job)
        self._work_arr[job] = self._work(job)

    def _table(self) -> tuple:
        """Arrays of the jobs in the matrix, by ascending id: ids, home row, row count, served,
        need; and, for the jobs holding several rows, all their rows flattened with the
        position in the table of the job owning each.

        Cached until the matrix or the progress changes (both only happen in ``_decide`` and
        ``_run_slices``, which drop the cache).
        """
        if self._table_cache is None:
            ids, first, count = self.matrix.placements()
            if self.matrix.extra_per_processor().any():
                multi = np.flatnonzero(count > 1)
                rows_map = self.matrix._rows
                flat = np.fromiter(
                    chain.from_iterable(rows_map[j] for j in ids[multi].tolist()), np.int64, int(count[multi].sum())
                )
                owner = np.repeat(multi, count[multi])
            else:  # no job holds an extra slot (always so under BC and BR)
                multi = flat = owner = _NO_IDS
            self._table_cache = (ids, first, count, self._s.served[ids], self._need_arr[ids], multi, flat, owner)
        return self._table_cache

    @staticmethod
    def _multi_offsets(table: tuple, n: int, start: int) -> tuple[np.ndarray, np.ndarray]:
        """For the jobs holding several rows: every such job's row offsets after ``start`` in
        turn order (ascending within each job, jobs in table order), and where each job's
        offsets begin."""
        count, multi, flat, owner = table[2], table[5], table[6], table[7]
        key = owner * n + (flat - start) % n
        # Each job's rows are a few ascending runs (home row, then its extra rows in order),
        # which a merge sort finds: several times faster than quicksort here.
        offsets = np.sort(key, kind="stable") - owner * n
        begins = np.concatenate(([0], np.cumsum(count[multi])[:-1])).astype(np.int64)
        return offsets, begins

    def _next_completion_gap(self) -> float:
        n = self.matrix.n_rows
        if n == 0 or not self.matrix._rows:
            return math.inf
        start = self._s.next_row % n
        table = self._table()
        memo = self._gap_memo  # done, peek() and step() may all ask with nothing changed in between
        if memo is not None and memo[0] is table and memo[1] == (n, start):
            return memo[2]
        best = self._completion_gap(table, n, start)
        self._gap_memo = (table, (n, start), best)
        return best

    def _completion_gap(self, table: tuple, n: int, start: int) -> float:
        if self.event_driven:
            offsets = self._finish_offsets(table, n, start)
            self._offsets_memo = (table, n, start, offsets)  # _run_for needs them next
            return float(offsets.min()) if len(offsets) else math.inf
        ids, first, count, served, need, multi = table[:6]
        left = need - served
        if not len(multi):
            return float(((left - 1) * n + (first - start) % n + 1).min())
        single = count == 1
        best = math.inf
        if single.any():
            d = (first[single] - start) % n
            best = float(((left[single] - 1) * n + d + 1).min())
        if len(multi):
            offsets, begins = self._multi_offsets(table, n, start)
            left_m = left[multi]
            finite = np.isfinite(left_m)
            if finite.any():
                k = count[multi][finite]
                cycles, idx = np.divmod(left_m[finite].astype(np.int64) - 1, k)
                best = min(best, float((cycles * n + offsets[begins[finite] + idx] + 1).min()))
        return best

    def _finish_offsets(self, table: tuple, n: int, start: int) -> np.ndarray:
        """Event-driven: the time from now until each job of the table finishes, the matrix
        staying as it is and fresh slices starting now with row ``start``.

        A job still needing ``left`` slices of service (a fraction counts) is served in
        ``c = ceil(left)`` more slices; it finishes in the last of them, ``overhead`` plus the
        rest of its work after that slice begins.
        """
        ids, first, count, served, need, multi = table[:6]
        left = need - served
        finite = np.isfinite(left)
        c = np.ones(len(left), dtype=np.int64)
        c[finite] = np.maximum(np.ceil(left[finite] - _EPS), 1).astype(np.int64)
        last = (c - 1) * n + (first - start) % n
        if len(multi):
            offsets, begins = self._multi_offsets(table, n, start)
            cycles, idx = np.divmod(c[multi] - 1, count[multi])
            last[multi] = cycles * n + offsets[begins + idx]
        out = last + self.overhead + (left - (c - 1)) * self.quantum
        out[~finite] = math.inf
        return out

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
        whole = int(math.floor(gap + _EPS))
        frac = gap - whole
        if frac < _EPS:
            frac = 0.0
        full, part = divmod(whole, n)
        cut = (start + whole) % n  # the row of the slice cut short (if frac > 0)
        busy_rows = self.matrix.busy_per_row()
        order = (np.arange(part) + start) % n
        s.busy_time += float(full * busy_rows.sum() + busy_rows[order].sum() + frac * busy_rows[cut])
        s.row_time += n * gap
        if self.matrix._rows:
            table = self._table()
            ids, first, count, served, need, multi = table[:6]
            hits = (full * count + ((first - start) % n < part)).astype(np.float64)
            in_cut = first == cut
            if len(multi):
                offsets, begins = self._multi_offsets(table, n, start)
                early = np.add.reduceat((offsets < part).astype(np.int64), begins)
                hits[multi] = full * count[multi] + early
                flat, owner = table[6], table[7]
                in_cut[np.unique(owner[flat == cut])] = True
            if frac > 0:
                hits[in_cut] += max(frac - self.overhead, 0.0) / self.quantum
            memo = self._offsets_memo
            if memo is not None and memo[0] is table and memo[1] == n and memo[2] == start:
                ends = memo[3]
            else:
                ends = self._finish_offsets(table, n, start)
            done = ends <= gap + _EPS
            s.served[ids] = np.where(done, need, np.minimum(served + hits, need))
            if len(multi) or s.unstarted:  # else no statistic can change
                share = max(frac - self.overhead, 0.0) / self.quantum if frac > 0 else 0.0
                self._note_runs(table, full, part, (first - start) % n, hits, served + hits,
                                (offsets, begins) if len(multi) else None, share)
            for i in np.flatnonzero(done).tolist():
                s.finish[int(ids[i])] = float(s.time + min(float(ends[i]), gap))
        self._table_cache = None
        s.next_row = (start + whole + (1 if frac > 0 else 0)) % n
        s.time = self._snapped(s.time + gap)

    def _snapped(self, t: float) -> float:
        """Return the next arrival or scripted time instead of ``t`` when rounding left ``t``
        a hair before it, so the event is processed at once and not one tiny step later."""
        due = self._arrival_boundary()
        return due if t < due <= t + _EPS * max(1.0, abs(t)) else t

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
        full, part = divmod(m, n)
        busy_rows = self.matrix.busy_per_row()
        order = (np.arange(part) + start) % n
        s.busy_time += float(full * busy_rows.sum() + busy_rows[order].sum())
        s.row_time += n * m
        if self.matrix._rows:
            table = self._table()
            ids, first, count, served, need, multi = table[:6]
            d = (first - start) % n
            hits = full * count + (d < part)
            if len(multi):
                offsets, begins = self._multi_offsets(table, n, start)
                early = np.add.reduceat((offsets < part).astype(np.int64), begins)
                hits[multi] = full * count[multi] + early
            after = served + hits
            done = np.flatnonzero(after >= need).tolist()
            s.served[ids] = np.minimum(after, need)
            if len(multi) or s.unstarted:  # else no statistic can change
                self._note_runs(table, full, part, d, hits, after, (offsets, begins) if len(multi) else None)
            where = {int(i): b for i, b in zip(multi.tolist(), begins.tolist())} if len(multi) and done else {}
            for i in done:
                job = int(ids[i])
                left = int(need[i] - served[i])
                k = int(count[i])
                if k == 1:
                    last = (left - 1) * n + int(d[i])
                else:
                    cycles, idx = divmod(left - 1, k)
                    last = cycles * n + int(offsets[where[i] + idx])
                work = float(self._work_arr[job])
                s.finish[job] = float(s.time + last + self.overhead + (work - (float(need[i]) - 1) * self.quantum))
        self._table_cache = None
        s.next_row = (start + m) % n
        s.time += m

    def _note_runs(self, table: tuple, full: int, part: int, d: np.ndarray, hits: np.ndarray,
                   after: np.ndarray, multi_offsets: tuple | None, cut_share: float = 0.0) -> None:
        """Update the per-job statistics of :meth:`run_stats` for the slices just run: ``full``
        whole turns of the rows and ``part`` more, home rows ``d`` slices after the first; in an
        event-driven run, then a slice cut short (row offset ``part``) that gave ``cut_share``
        of a slice's service."""
        s = self._s
        ids, count, served, need, multi = table[0], table[2], table[3], table[4], table[5]
        new: np.ndarray | tuple = ()
        if s.unstarted:
            want = np.array(s.unstarted, dtype=np.int64)
            pos = np.minimum(np.searchsorted(ids, want), len(ids) - 1)
            present = ids[pos] == want  # a job terminated before its turn has left the matrix
            ran = present & (hits[pos] > 0)
            new = pos[ran]
            s.unstarted = want[present & ~ran].tolist()
        if len(new):
            first = d.astype(np.float64)
            if multi_offsets is not None:
                offsets, begins = multi_offsets
                first[multi] = offsets[begins]  # the earliest of the job's rows in turn order
            s.first_run[ids[new]] = s.time + first[new]
            for job in ids[new].tolist():
                self._first_cols[job] = self.matrix.job_cols(job)
            s.rows_held[ids[new]] = np.maximum(s.rows_held[ids[new]], 1)
        if multi_offsets is not None:  # only jobs in several rows can hold more than one
            mids = ids[multi]
            held = s.rows_held[mids]
            s.rows_held[mids] = np.where(hits[multi] > 0, np.maximum(held, count[multi]), held)
            home_hits = full + (d[multi] < part) + cut_share * (d[multi] == part)
            useful = np.minimum(after[multi], need[multi]) - served[multi]
            s.extra_slices[ids[multi]] += np.maximum(useful - home_hits, 0)

    def _decide(self) -> Step:
        """Process the decision point at the current time and record it as a step."""
        s = self._s
        t = s.time
        self._changes = []
        self._table_cache = None
        self._journal_now: list[int] = []
        m = self.matrix
        narration_extra: list[str] = []
        causes: list[str] = []
        completed = sorted((j for j in s.finish if j in m), key=lambda j: (s.finish[j], j))
        for job in completed:
            self._remove(job, f"completed at t={s.finish[job]:g}")
            rec = self.jobs[job]
            rec.finish = s.finish.pop(job)
            self._journal_now.append(job)
            self._count_finish(rec)
        if completed:
            causes.append("completion")
        arrived: list[int] = []
        while s.next_arrival < len(self._pending) and self._pending[s.next_arrival].arrival <= t:
            arrived.append(self._pending[s.next_arrival].id)
            s.next_arrival += 1
        terminated: list[int] = []
        while self._script_due(t):
            event = self.script[s.next_script]
            s.next_script += 1
            causes.append(event.origin)
            for name in event.terminate:
                job = self._by_name.get(name)
                if job is None:
                    raise ValueError(f"t={event.at:g}: no job named {name!r} to terminate")
                if job in m:
                    self._remove(job, "terminated")
                elif job in s.waiting:
                    s.waiting.remove(job)
                else:
                    state = "has already finished" if self.jobs[job].finish is not None else "has not arrived yet"
                    raise ValueError(f"t={event.at:g}: job {name!r} {state}; only a running or "
                                     "waiting job can be terminated")
                rec = self.jobs[job]
                rec.finish = t
                rec.terminated = True
                self._journal_now.append(job)
                s.finish.pop(job, None)
                self._count_finish(rec)
                terminated.append(job)
            for name, size, work in event.submit:
                if name in self._by_name:
                    raise ValueError(f"t={event.at:g}: a job named {name!r} already exists")
                spec = JobSpec(self._next_id, name, t, int(size), float(work))
                self.policy.check_job(spec.size, self.processors)
                self._next_id += 1
                self.jobs[spec.id] = JobRecord(spec)
                self._journal_now.append(spec.id)
                self._remember_need(spec.id)
                self._by_name[name] = spec.id
                m.names[spec.id] = name
                arrived.append(spec.id)
        if arrived:
            causes.append("arrival")
        s.waiting.extend(arrived)
        if completed or terminated or arrived:
            self.policy.schedule(self, completed + terminated, arrived)
        still: list[int] = []
        for job in s.waiting:
            if job in m:
                self.jobs[job].start = t
                s.unstarted.append(job)
                self._journal_now.append(job)
                s.served[job] = 0
            else:
                still.append(job)
        s.waiting = still
        self._activate()
        s.max_rows = max(s.max_rows, m.n_rows)
        s.decided = True
        cause = sys.intern("+".join(dict.fromkeys(causes)) or "slice")  # one string per kind of cause
        step = Step(len(self.steps), t, cause, self._changes)
        if self.record:
            # the sentences are told from the change records when asked (ToldStep)
            step = ToldStep(len(self.steps), t, cause, self._changes[:], m.names, narration_extra)
            self.steps.append(step)
            self.samples.append(self._sample())
            self._journal.extend(self._journal_now)
            self._journal_end.append(len(self._journal))
            self._changes_since_snapshot += CHANGE_BYTES * len(self._changes) + STEP_BYTES
            if self._changes_since_snapshot >= SNAPSHOT_SPACING * self._snapshot_bytes():
                self._snapshots[len(self.steps)] = self._save()
                self._changes_since_snapshot = 0
        self._changes = []
        self._table_cache = None
        return step

    def _remove(self, job: int, why: str) -> None:
        m = self.matrix
        cols = m.job_cols(job)
        extra = m.replica_rows(job)
        if extra:
            self.emit(JobUnreplicated(job, tuple(reversed(extra)), cols, why))
        self.emit(JobRemoved(job, m.home_row(job), cols, why))

    def _count_finish(self, rec: JobRecord) -> None:
        # A job a script terminates leaves the counts: the samples' mean turnaround is the one
        # the metrics report (zhou_metrics also leaves terminated jobs out).
        if rec.terminated:
            return
        self._s.finished += 1
        self._s.turnaround_sum += rec.finish - rec.spec.arrival  # type: ignore[operator]

    def _activate(self) -> None:
        """Choose the row for the next slice, following the slots added and removed."""
        s = self._s
        m = self.matrix
        for change in self._changes:
            kind = change.kind
            if kind == "slot_added" and change.row <= s.next_row:  # type: ignore[attr-defined]
                s.next_row += 1
            elif kind == "slot_removed" and change.row < s.next_row:  # type: ignore[attr-defined]
                s.next_row -= 1
        n = m.n_rows
        row = s.next_row % n if n else None
        s.next_row = row or 0
        if row != m.active_row:
            # records are frozen, so each (row, prev) pair is made once and shared by every step
            key = (row, m.active_row)
            change = self._activations.get(key)
            if change is None:
                change = self._activations[key] = RowActivated(row, m.active_row)
            self.emit(change)

    def _sample(self) -> Sample:
        s = self._s
        m = self.matrix
        active = m.active_row
        ratio = m.busy_in_row(active) / self.processors if active is not None else 0.0
        mean = s.turnaround_sum / s.finished if s.finished else 0.0
        return Sample(s.time, m.n_rows, len(s.waiting), len(m._rows), ratio, s.finished, mean)

    def _snapshot_bytes(self) -> int:
        """Rough size of a snapshot now: its cells, placements and the jobs in the system."""
        return (
            4 * self.matrix._cells.size
            + 16 * len(self.matrix._rows)
            + 200 * (len(self.matrix._rows) + len(self._s.waiting))
            + 4096
        )

    def _save(self) -> tuple:
        """A snapshot: the engine's own state, the matrix and the policy's state.

        Job records are not copied: what a step changed in them (start, finish, a new job) is
        kept per step in ``_journal`` and undone on restore, so a snapshot's size does not
        grow with the length of the workload. Of the progress only the running jobs' entries
        are kept (the others are 0 or belong to finished jobs, whose records say all).
        """
        s = self._s
        state = _Mutable(**{k: getattr(s, k) for k in vars(s)})
        running = self.matrix.placements()[0]
        state.served = (running, s.served[running])  # type: ignore[assignment]
        # the run statistics of finished jobs are final and the others' are reset on restore
        state.rows_held = (running, s.rows_held[running], s.extra_slices[running])  # type: ignore[assignment]
        state.first_run = state.extra_slices = None  # type: ignore[assignment]
        state.finish = dict(s.finish)
        state.waiting = list(s.waiting)
        state.unstarted = list(s.unstarted)
        state.lost = dict(s.lost)
        return (state, self.matrix.snapshot(), self.policy.get_state(), self._next_id)

    def _restore(self, snap: tuple, base: int) -> None:
        """Return to ``snap``, taken after ``base`` steps, undoing the job-record journal."""
        state, matrix, policy_state, next_id = snap
        cut = self._journal_end[base - 1] if base else 0
        for job in reversed(self._journal[cut:].tolist()):
            rec = self.jobs.get(job)
            if rec is None:
                continue
            if job >= next_id:  # submitted after the snapshot
                del self.jobs[job]
                self._by_name.pop(rec.spec.name, None)
            elif rec.finish is not None:
                rec.finish = None
                rec.terminated = False
            else:
                rec.start = None
        del self._journal[cut:]
        del self._journal_end[base:]
        charged = set(self._s.lost) | set(state.lost)
        first_run, rows_held, extra = self._s.first_run, self._s.rows_held, self._s.extra_slices
        # a slice that ran before the snapshot began before its time; one after, at or after it
        later = ~(first_run < state.time)
        first_run[later] = math.nan
        rows_held[later] = 0
        extra[later] = 0
        running, held, extra_then = state.rows_held
        rows_held[running] = held
        extra[running] = extra_then
        self._s = _Mutable(**{k: getattr(state, k) for k in vars(state)})
        self._s.first_run, self._s.rows_held, self._s.extra_slices = first_run, rows_held, extra
        for job in [j for j in self._first_cols if j >= len(first_run) or math.isnan(first_run[j])]:
            del self._first_cols[job]
        running, progress = state.served
        self._s.served = np.zeros(len(self._need_arr))
        self._s.served[running] = progress
        self._s.finish = dict(state.finish)
        self._s.waiting = list(state.waiting)
        self._s.unstarted = list(state.unstarted)
        self._s.lost = dict(state.lost)
        for job in charged & self.jobs.keys():
            self._remember_need(job)
        self.matrix = OusterhoutMatrix.from_snapshot(matrix, self.matrix.names)
        self.policy.set_state(policy_state)
        self._next_id = next_id
        self._changes_since_snapshot = 0
        self._table_cache = None


#: Tolerance of the event-driven arithmetic, in slices: a job this close to its end is done.
_EPS = 1e-9

#: An empty id array, shared: the table of a matrix where no job holds an extra slot.
_NO_IDS = np.zeros(0, dtype=np.int64)
_NO_IDS.flags.writeable = False


def _grown(values: np.ndarray, size: int, fill: float = 0.0) -> np.ndarray:
    """Return a copy of ``values`` padded with ``fill`` to at least ``size`` entries."""
    out = np.full(max(size, len(values)), fill)
    out[: len(values)] = values
    return out
