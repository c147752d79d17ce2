"""The actions a user's time-slot policy takes, each applied as the built-ins' change records.

Every action is checked against the rules of the time-slot family (Zhou99 §3: a process never
leaves its processor in a re-pack; a gang runs in one slot; Ousterhout's matrix holds one
process per processor and slot) before it is applied through ``sim.emit`` with the same records
the built-in policies emit (:mod:`gangviz.core.changes`), so the window animates and narrates
it and stepping back undoes it. A broken rule raises
:class:`~gangviz.userpolicy.errors.RuleViolation` naming the time, the job, the rule and the
line of the user's file that asked for it; with checking off (``--no-check``) only what the
matrix itself cannot hold is refused.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from gangviz.core.changes import JobMigrated, JobPlaced, JobShifted, SlotAdded, SlotRemoved
from gangviz.core.matrix import slot_label
from gangviz.core.params import quote
from gangviz.userpolicy.errors import RULES, Declared, RuleViolation, caller_line, printable

__all__ = ["MatrixActions"]

ONE_PROCESS, GANG, REPACK, BUDDY, ARRIVAL, WORK, DEADLOCK, ARGUMENT, CAPACITY, _LOGGED = RULES


class MatrixActions:
    """What a time-slot policy may do at a decision point (every method returns ``None``
    unless it says otherwise).

    ``reason`` (optional, every method) is the policy's own words for the narration.
    """

    def __init__(self, sim: Any, *, origin: str | None, check: bool, declared: Declared) -> None:
        self._sim = sim
        self._origin = origin
        self._check = check
        self._declared = declared
        #: ``file:line`` to report instead of the caller's (an action recorded in the policy's
        #: own process, checked again here; escaped when reported)
        self._where: str | None = None

    # ------------------------------------------------------------------ slots
    def open_slot(self, reason: str = "") -> int:
        """Add an empty slot on top of the matrix; return its index."""
        row = self._sim.matrix.n_rows
        self._sim.emit(SlotAdded(row, reason or "opened by the policy"))
        return int(row)

    def delete_slot(self, slot: int, reason: str = "") -> None:
        """Remove slot ``slot``, which must be empty (its jobs would lose their work)."""
        m = self._sim.matrix
        slot = self._slot(slot, "job")
        busy = m.row_jobs(slot)
        if busy:
            self._fail(busy[0], WORK, f"{slot_label(slot)} is deleted while it still holds jobs")
        self._sim.emit(SlotRemoved(slot, reason or "deleted by the policy"))

    # ------------------------------------------------------------------ jobs
    def place(self, job: int, slot: int, processors: Sequence[int] | range, reason: str = "") -> None:
        """Start waiting ``job`` on ``processors`` (exactly its size, all idle) in ``slot``."""
        sim = self._sim
        m = sim.matrix
        job = self._job(job)
        record = sim.jobs[job]
        if job in m or record.start is not None or not self._arrived(job, record.spec):
            self._fail(job, ARRIVAL, "it is not waiting (it has not arrived, or it already runs)")
        cols = self._cols(job, processors)
        slot = self._slot(slot, job)
        size = record.spec.size
        if self._check and len(cols) != size:
            self._fail(job, GANG, f"{size} processes placed on {len(cols)} processors", slot, cols)
        self._idle(job, slot, cols)
        if self._check and self._declared.buddy:
            self._aligned(job, slot, cols)
        sim.emit(JobPlaced(job, slot, _as_cols(cols), reason or "placed by the policy"))

    def shift(self, job: int, slot: int, reason: str = "") -> None:
        """Move running ``job`` to slot ``slot`` on the same processors (a legal shift, Zhou99
        §3)."""
        m = self._sim.matrix
        job = self._job(job)
        if job not in m:
            self._fail(job, ARGUMENT, "it is not running, so it cannot be shifted")
        slot = self._slot(slot, job)
        home = m.home_row(job)
        if slot == home:
            return
        self._idle(job, slot, list(m.job_cols(job)))
        self._sim.emit(JobShifted(job, home, slot, reason or "a legal shift"))

    def migrate(self, job: int, slot: int, processors: Sequence[int] | range, reason: str = "") -> None:
        """Move running ``job`` to other ``processors`` (and ``slot``): allowed only for a
        policy that declares ``migrates = True``."""
        m = self._sim.matrix
        job = self._job(job)
        if job not in m:
            self._fail(job, ARGUMENT, "it is not running, so it cannot migrate")
        if self._check and not self._declared.migrates:
            self._fail(job, REPACK, "the policy migrates a job but does not declare migrates = True")
        cols = self._cols(job, processors)
        slot = self._slot(slot, job)
        if self._check and len(cols) != self._sim.jobs[job].spec.size:
            self._fail(job, GANG, f"{self._sim.jobs[job].spec.size} processes moved to {len(cols)} processors",
                       slot, cols)
        if m.replica_rows(job):
            self._fail(job, GANG, "a job running in extra slots cannot migrate")
        home = m.home_row(job)
        old = list(m.job_cols(job))
        busy = [p for p in cols if m.cells[slot, p] != -1 and not (slot == home and p in old)]
        if busy:
            self._fail(job, ONE_PROCESS, f"processor P{busy[0] + 1} of {slot_label(slot)} is busy", slot, cols)
        self._sim.emit(JobMigrated(job, home, _as_cols(old), slot, _as_cols(cols), 0.0,
                                   reason or "migrated by the policy"))

    # ------------------------------------------------------------------ checks
    def _index(self, value: Any, what: str, job: int | str) -> int:
        """``value`` as a whole number (an int, a numpy integer, anything ``operator.index``
        takes); a bool, a float, NaN or anything else is a bad argument named ``what``."""
        if type(value) is int:
            return value
        if not isinstance(value, bool) and type(value).__name__ != "bool_":
            try:
                return operator.index(value)
            except Exception:
                pass
        kind = "NaN" if isinstance(value, float) and math.isnan(value) else f"{type(value).__name__} {quote(value)}"
        return int(self._fail(job, ARGUMENT, f"{what} must be a whole number (an int or a numpy integer), "
                                             f"got {kind}"))

    def _job(self, job: Any) -> int:
        """The id ``job`` names, which must be a job of the run."""
        found = job if type(job) is int else self._index(job, "the job", quote(job))
        if found not in self._sim.jobs:
            self._fail(str(found), ARGUMENT, f"no job {found}")
        return found

    def _cols(self, job: int, processors: Sequence[int] | range) -> list[int]:
        n = self._sim.matrix.processors
        if type(processors) is range and processors.step == 1 and 0 <= processors.start < processors.stop <= n:
            return list(processors)
        if isinstance(processors, (str, bytes)) or not hasattr(processors, "__iter__"):
            self._fail(job, ARGUMENT, "processors must be a list of processor numbers, got "
                       f"{quote(processors)}")
        try:
            given = list(processors)
        except Exception:
            self._fail(job, ARGUMENT, f"processors must be a list of processor numbers, got {quote(processors)}")
        cols = [p if type(p) is int else self._index(p, "a processor", job) for p in given]
        bad = [p for p in cols if not 0 <= p < n]
        if bad:
            self._fail(job, ARGUMENT, f"processor {bad[0]} is not in 0..{n - 1}")
        if len(set(cols)) != len(cols):
            self._fail(job, ONE_PROCESS, "two processes of the job on one processor")
        if not cols:
            self._fail(job, GANG, "no processor given")
        return sorted(cols)

    def _arrived(self, job: int, spec: Any) -> bool:
        sim = self._sim
        return bool(spec.arrival <= sim.time and job in sim.waiting)

    def _slot(self, slot: Any, job: int | str) -> int:
        n = self._sim.matrix.n_rows
        row: int = slot if type(slot) is int else self._index(slot, "the slot", job)
        if not 0 <= row < n:
            self._fail(job, ARGUMENT, f"no slot {row}: the matrix has {n} slots"
                       + (f" (0..{n - 1})" if n else ""))
        return row

    def _idle(self, job: int, slot: int, cols: list[int]) -> None:
        row = self._sim.matrix.cells[slot]
        taken = row[cols[0]:cols[-1] + 1] if cols[-1] - cols[0] + 1 == len(cols) else row[cols]
        if np.maximum.reduce(taken) != -1:  # the ufunc itself: ndarray.max adds a Python call
            busy = [p for p in cols if row[p] != -1]
            other = self._sim.matrix.name(int(row[busy[0]]))
            self._fail(job, ONE_PROCESS, f"P{busy[0] + 1} of {slot_label(slot)} already runs {other}",
                       slot, cols)

    def _aligned(self, job: int, slot: int, cols: list[int]) -> None:
        size = len(cols)
        block = 1 << (size - 1).bit_length()
        first = cols[0]
        if first % block or cols[-1] >= first + block or cols != list(range(first, first + size)):
            self._fail(job, BUDDY, f"P{first + 1}..P{cols[-1] + 1} is not the start of an aligned "
                       f"block of {block}", slot, cols)

    def _fail(self, job: int | str, rule: str, detail: str, slot: int | None = None,
              cols: Sequence[int] = ()) -> Any:
        """Raise the :class:`RuleViolation`; ``slot`` and ``cols`` are the cells asked for."""
        sim = self._sim
        name = sim.matrix.name(job) if isinstance(job, int) and job in sim.jobs else str(job)
        where = printable(self._where) if self._where else caller_line(self._origin)
        raise RuleViolation(sim.time, name, rule, detail, where, slot=slot,
                            processors=tuple(int(c) for c in cols))


def _as_cols(cols: list[int]) -> tuple[int, ...] | range:
    """A contiguous run as a ``range`` (the records' compact form), else a tuple."""
    if cols == list(range(cols[0], cols[0] + len(cols))):
        return range(cols[0], cols[0] + len(cols))
    return tuple(cols)
