"""The phases of a decision point of a matrix simulation, short of the policy's own move.

At a decision point :class:`~gangviz.sim.engine.Simulation` removes the jobs whose work ran
out (:meth:`DecisionPoint._complete`), takes the arrivals and the scripted actions due
(:meth:`~DecisionPoint._arrivals`, :meth:`~DecisionPoint._run_script`), lets the policy react,
starts what it placed (:meth:`~DecisionPoint._start_placed`) and chooses the row of the next
slice (:meth:`~DecisionPoint._activate`).
"""

from __future__ import annotations

from gangviz.core.changes import (
    JobRemoved,
    JobUnreplicated,
    MatrixChange,
    RowActivated,
    SlotAdded,
    SlotRemoved,
)
from gangviz.core.jobs import JobSpec, ScriptEvent
from gangviz.sim.clock import SliceClock
from gangviz.sim.intake import ids_by_name
from gangviz.sim.policy import Policy
from gangviz.sim.state import Sample
from gangviz.timefmt import format_time


class DecisionPoint(SliceClock):
    """The decision-point phases (the base of :class:`~gangviz.sim.engine.Simulation`, which
    sets every attribute below and runs the phases in ``_decide``)."""

    policy: Policy
    processors: int
    _names_index: dict[str, int] | None
    _next_id: int
    _changes: list[MatrixChange]
    _touched: list[int]
    _activations: dict[tuple[int | None, int | None], RowActivated]

    @property
    def real_processors(self) -> int:
        """Return the processors that exist: all of them, or fewer when the policy leaves the
        padding of a larger machine alone (a buddy policy's ``usable``, a trace run on the next
        power of two); the active ratio and the utilisation count only these."""
        usable = getattr(self.policy, "usable", None)
        return self.processors if usable is None else min(int(usable), self.processors)

    @property
    def _by_name(self) -> dict[str, int]:
        """The ids of the jobs by name, made the first time a script or the user names one (a
        large trace never needs it)."""
        if self._names_index is None:
            self._names_index = ids_by_name(self.jobs)
        return self._names_index

    def _emit(self, change: MatrixChange) -> None:
        """Apply ``change`` to the matrix and add it to the current step."""
        change.apply(self.matrix)
        self._changes.append(change)

    def _complete(self) -> list[int]:
        """Remove the jobs whose work ran out, earliest finish first; return their ids."""
        s = self._s
        m = self.matrix
        completed = sorted((j for j in s.finish if j in m), key=lambda j: (s.finish[j], j))
        for job in completed:
            self._remove(job, f"completed at t = {format_time(s.finish[job])}")
            self.jobs.finish[job] = s.finish.pop(job)
            self._touched.append(job)
            self._count_finish(job)
        return completed

    def _arrivals(self, t: float) -> list[int]:
        """Return the ids of the workload's jobs arriving by ``t`` (in order), taking them."""
        s = self._s
        arrived: list[int] = []
        while s.next_arrival < len(self._pending) and self._pending[s.next_arrival].arrival <= t:
            arrived.append(self._pending[s.next_arrival].id)
            s.next_arrival += 1
        return arrived

    def _run_script(self, t: float, arrived: list[int], causes: list[str]) -> list[int]:
        """Carry out the scripted actions due by ``t``: add the submitted jobs to ``arrived``
        and each event's origin to ``causes``; return the ids of the terminated jobs.
        Raises ``ValueError`` for an action that names no suitable job."""
        terminated: list[int] = []
        while self._script_due(t):
            event = self.script[self._s.next_script]
            self._s.next_script += 1
            causes.append(event.origin)
            terminated.extend(self._terminate(event, name, t) for name in event.terminate)
            arrived.extend(self._submit(event, name, size, work, t) for name, size, work in event.submit)
        return terminated

    def _terminate(self, event: ScriptEvent, name: str, t: float) -> int:
        """Terminate the running or waiting job ``name`` at ``t``; return its id."""
        s = self._s
        job = self._by_name.get(name)
        if job is None:
            raise ValueError(f"t={event.at:g}: no job named {name!r} to terminate")
        if job in self.matrix:
            self._remove(job, "terminated")
        elif job in s.waiting:
            s.waiting.remove(job)
        else:
            state = "has already finished" if self.jobs[job].finish is not None else "has not arrived yet"
            raise ValueError(f"t={event.at:g}: job {name!r} {state}; only a running or "
                             "waiting job can be terminated")
        self.jobs.finish[job] = t
        self.jobs.terminated[job] = True
        self._touched.append(job)
        s.finish.pop(job, None)
        self._count_finish(job)
        return job

    def _submit(self, event: ScriptEvent, name: str, size: int, work: float, t: float) -> int:
        """Submit a new job ``name`` at ``t``; return its id."""
        if name in self._by_name:
            raise ValueError(f"t={event.at:g}: a job named {name!r} already exists")
        spec = JobSpec(self._next_id, name, t, int(size), float(work))
        self.policy.check_job(spec.size, self.processors)
        self._next_id += 1
        self.jobs.add(spec)
        self._touched.append(spec.id)
        self._remember_need(spec.id)
        self._by_name[name] = spec.id
        self.matrix.names[spec.id] = name
        return spec.id

    def _start_placed(self, t: float) -> None:
        """Start the waiting jobs the policy placed; the others keep waiting in order."""
        s = self._s
        m = self.matrix
        still: list[int] = []
        for job in s.waiting:
            if job in m:
                self.jobs.start[job] = t
                if self.stats:
                    s.unstarted.append(job)
                self._touched.append(job)
                s.served[job] = 0
            else:
                still.append(job)
        s.waiting = still

    def _remove(self, job: int, why: str) -> None:
        m = self.matrix
        cols = m.job_cols(job)
        extra = m.replica_rows(job)
        if extra:
            self._emit(JobUnreplicated(job, tuple(reversed(extra)), cols, why))
        self._emit(JobRemoved(job, m.home_row(job), cols, why))

    def _count_finish(self, job: int) -> None:
        # A job a script terminates leaves the counts: the samples' mean turnaround is the one
        # the metrics report (zhou_metrics also leaves terminated jobs out).
        jobs = self.jobs
        if jobs.terminated[job]:
            return
        self._s.finished += 1
        self._s.turnaround_sum += float(jobs.finish[job]) - jobs.spec(job).arrival

    def _activate(self) -> None:
        """Choose the row for the next slice, following the slots added and removed."""
        s = self._s
        m = self.matrix
        for change in self._changes:
            match change:
                case SlotAdded(row=r) if r <= s.next_row:
                    s.next_row += 1
                case SlotRemoved(row=r) if r < s.next_row:
                    s.next_row -= 1
        n = m.n_rows
        row = s.next_row % n if n else None
        s.next_row = row or 0
        if row != m.active_row:
            # records are frozen, so each (row, prev) pair is made once and shared by every step
            key = (row, m.active_row)
            activation = self._activations.get(key)
            if activation is None:
                activation = self._activations[key] = RowActivated(row, m.active_row)
            self._emit(activation)

    def _sample(self) -> Sample:
        s = self._s
        m = self.matrix
        active = m.active_row
        ratio = m.busy_in_row(active) / self.real_processors if active is not None else 0.0
        mean = s.turnaround_sum / s.finished if s.finished else 0.0
        return Sample(s.time, m.n_rows, len(s.waiting), m.n_jobs, ratio, s.finished, mean)
