"""History of a recording matrix simulation: snapshots and the job-record journal.

Stepping back restores the latest snapshot at or before the target step and replays forward
(the engine is deterministic, so the replay is exact). Snapshots are taken only after enough
changes have accumulated to outweigh the size of a snapshot, so history memory grows with the
number of changes, not with the number of steps times the matrix size.

Why not undo the change records (:func:`gangviz.core.record.undo`, as the other families do)?
The records say everything about the matrix but nothing about the engine's own state: each
job's progress in slices, its pending finish time, the policy's memory (reservations, the
re-pack counters). Those are not records, so they could not be inverted; a snapshot of them plus
a replay is exact, and the journal below undoes what steps did to the job records.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from gangviz.core.matrix import MatrixSnapshot
from gangviz.sim.state import JobTable, RunState

#: Rough memory of one recorded change and of one step (record, narration, sample), in bytes;
#: a snapshot is taken once the records since the last one outweigh SNAPSHOT_SPACING snapshots.
CHANGE_BYTES = 400
STEP_BYTES = 300
#: With 2, snapshots take at most about a third of the history (not a half), and stepping back
#: replays at most twice as many steps as with 1 (a few dozen on a real trace, well under 0.1 s).
SNAPSHOT_SPACING = 2

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
_EMPTY: FloatArray = np.zeros(0)
_EMPTY.flags.writeable = False


class Snapshot(NamedTuple):
    """The state after some step: the engine's own (with the per-job arrays left empty), the
    running jobs' progress and run statistics, the matrix, the policy's state, the next free id."""

    state: RunState
    running: IntArray
    served: FloatArray
    rows_held: FloatArray
    extra_slices: FloatArray
    matrix: MatrixSnapshot
    policy: Any
    next_id: int


def snapshot_bytes(cells: int, jobs: int, waiting: int) -> int:
    """Rough size of a snapshot of a matrix of ``cells`` cells holding ``jobs`` jobs, with
    ``waiting`` jobs queued."""
    return 4 * cells + 16 * jobs + 200 * (jobs + waiting) + 4096


def save_state(s: RunState, running: IntArray, matrix: MatrixSnapshot, policy: Any, next_id: int) -> Snapshot:
    """Return a :class:`Snapshot` of ``s`` (``running``: the ids of the jobs in the matrix).

    Job records are not copied: what a step changed in them (start, finish, a new job) is kept
    per step in the :class:`History` journal and undone on restore, so a snapshot's size does
    not grow with the length of the workload. Of the progress only the running jobs' entries are
    kept (the others are 0 or belong to finished jobs, whose records say all).
    """
    state = RunState(**{k: getattr(s, k) for k in vars(s)})
    state.served = state.first_run = state.rows_held = state.extra_slices = _EMPTY
    state.finish = dict(s.finish)
    state.waiting = list(s.waiting)
    state.unstarted = list(s.unstarted)
    state.lost = dict(s.lost)
    return Snapshot(state, running, s.served[running], s.rows_held[running], s.extra_slices[running],
                    matrix, policy, next_id)


def restored_state(now: RunState, snap: Snapshot, size: int) -> RunState:
    """Return the run state of ``snap``, reusing the per-job statistic arrays of ``now`` (those
    of finished jobs are final; the others are reset); ``size`` is the length of the id arrays."""
    first_run, rows_held, extra = now.first_run, now.rows_held, now.extra_slices
    # a slice that ran before the snapshot began before its time; one after, at or after it
    later = ~(first_run < snap.state.time)
    first_run[later] = math.nan
    rows_held[later] = 0
    extra[later] = 0
    rows_held[snap.running] = snap.rows_held
    extra[snap.running] = snap.extra_slices
    s = RunState(**{k: getattr(snap.state, k) for k in vars(snap.state)})
    s.first_run, s.rows_held, s.extra_slices = first_run, rows_held, extra
    s.served = np.zeros(size)
    s.served[snap.running] = snap.served
    s.finish = dict(snap.state.finish)
    s.waiting = list(snap.state.waiting)
    s.unstarted = list(snap.state.unstarted)
    s.lost = dict(snap.state.lost)
    return s


def undo_records(jobs: JobTable, by_name: dict[str, int] | None, touched: Sequence[int],
                 next_id: int) -> None:
    """Undo, latest first, what steps did to the job records ``touched`` (from
    :meth:`History.cut`): a job submitted at or after id ``next_id`` goes (from ``by_name`` too,
    unless it is ``None``), a finish is cleared, else a start."""
    for job in reversed(touched):
        if job not in jobs:
            continue
        if job >= next_id:  # submitted after the snapshot
            if by_name is not None:
                by_name.pop(jobs.spec(job).name, None)
            jobs.remove(job)
        elif not math.isnan(jobs.finish[job]):
            jobs.finish[job] = math.nan
            jobs.terminated[job] = False
        else:
            jobs.start[job] = math.nan


class History:
    """The snapshots of a recording simulation, by step count, and the journal of the job
    records each step touched (flat: step k's ids are ``journal[end[k-1]:end[k]]``)."""

    __slots__ = ("snapshots", "journal", "end", "since")

    def __init__(self) -> None:
        self.snapshots: dict[int, Snapshot] = {}
        self.journal = array("q")
        self.end = array("q")
        self.since = 0  # bytes of history recorded since the last snapshot

    def note_step(self, touched: list[int], changes: int) -> None:
        """Add a step that touched the job records ``touched`` and made ``changes`` records."""
        self.journal.extend(touched)
        self.end.append(len(self.journal))
        self.since += CHANGE_BYTES * changes + STEP_BYTES

    def snapshot_due(self, size: int) -> bool:
        """Return whether enough was recorded to take a snapshot of ``size`` bytes now."""
        return self.since >= SNAPSHOT_SPACING * size

    def keep(self, steps: int, snap: Snapshot) -> None:
        """Keep ``snap`` as the state after ``steps`` steps."""
        self.snapshots[steps] = snap
        self.since = 0

    def base(self, index: int) -> int:
        """Return the step count of the latest snapshot at or before step ``index``."""
        return max(k for k in self.snapshots if k <= index)

    def cut(self, base: int) -> list[int]:
        """Forget everything after ``base`` steps (journal and later snapshots); return the
        job ids the forgotten steps touched, in the order they did."""
        at = self.end[base - 1] if base else 0
        touched = self.journal[at:].tolist()
        del self.journal[at:]
        del self.end[base:]
        for k in [k for k in self.snapshots if k > base]:
            del self.snapshots[k]
        self.since = 0
        return touched

