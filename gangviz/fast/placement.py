"""Where a compiled run put its jobs: the Ousterhout matrix at any time, from a compact log.

The compiled loops (:mod:`gangviz.fast.gang_kernel`, :mod:`gangviz.fast.buddy_kernel`) keep no change
records. Asked for it, a loop writes a *placement log* after every decision: the runs of
processors of a row whose job changed since the decision before, ``[row, first, end, job]``
(``job`` -1 for idle), and ``[-1, rows, 0, 0]`` when the number of rows changed, each with the
decision's time. Re-packing (Zhou00 §3) moves a job between rows on its own processors; MGS
migration [Zhang01 §4.2] moves it to other processors, which need not be contiguous; a job
replicated into other rows [Zhang01 §2, Zhou00 §3] holds them too. The log records the cells,
so all of these come out as the policy made them.

:class:`PlacementLog` turns the log back into the matrix at a time ``t``: the state after
every decision at or before ``t`` (the matrix does not change between decisions). It keeps a
copy of the matrix every :data:`CHECKPOINT` entries (made by a compiled loop,
:mod:`gangviz.fast.placement_kernel`, once), so a query replays at most that many entries, in
plain Python, after a binary search by time. A 122,000-job trace logs a few entries per job (tens of
MB); the copies take ``rows x processors`` 32-bit cells each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["PlacementLog", "CHECKPOINT", "replay"]

#: log entries between two copies of the matrix
CHECKPOINT = 4096


def replay(entries: np.ndarray, k0: int, k1: int, matrix: np.ndarray, n: int) -> int:
    """Apply log ``entries[k0:k1]`` to ``matrix`` (``n`` rows in use) in place; return the rows
    in use after them. Plain Python, at most :data:`CHECKPOINT` entries a query: a process that
    only reads a finished run's matrix (the compare window) never imports numba."""
    for r, first, end, job in entries[k0:k1].tolist():
        if r < 0:
            n = first
        else:
            matrix[r, first:end] = job
    return n


@dataclass
class PlacementLog:
    """The placement log of one compiled run (see the module docstring).

    ``time`` (float, non-decreasing) and ``entries`` (``(k, 4)`` int32: row, first processor,
    end, job) are the log; jobs are numbered by the caller's order (-1 idle); ``rows`` is the
    most rows the run had and ``processors`` the machine's width.
    """

    time: np.ndarray
    entries: np.ndarray
    rows: int
    processors: int
    _copies: np.ndarray | None = field(default=None, repr=False)
    _used: np.ndarray | None = field(default=None, repr=False)
    #: the last matrix answered: its entries applied, the matrix and its rows in use
    _last: tuple[int, np.ndarray, int] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of_loop(cls, log_t: np.ndarray, log_e: np.ndarray, rows: int, processors: int,
                jobs: np.ndarray | None = None) -> PlacementLog:
        """Return the log of a loop's ``log_t``/``log_e``, its job numbers mapped through
        ``jobs`` (``jobs[k]`` is the caller's number of the loop's job ``k``) when given."""
        entries = np.asarray(log_e, dtype=np.int32).copy()
        if jobs is not None and len(entries):
            cell = (entries[:, 0] >= 0) & (entries[:, 3] >= 0)
            entries[cell, 3] = np.asarray(jobs)[entries[cell, 3]]
        return cls(np.asarray(log_t, dtype=np.float64), entries, max(int(rows), 1), int(processors))

    @property
    def nbytes(self) -> int:
        """Return the memory the log and its copies of the matrix take, in bytes."""
        copies = 0
        if self._copies is not None and self._used is not None:
            copies = self._copies.nbytes + self._used.nbytes
        return self.time.nbytes + self.entries.nbytes + copies

    def matrix_at(self, t: float) -> np.ndarray:
        """Return the matrix after every decision at or before ``t``: a ``(rows, processors)``
        int32 array of job numbers, -1 where a processor is idle in that row (no row before
        the first job is placed). A time after the last one asked goes on from that matrix
        when no copy lies between them (playing: a few entries a frame)."""
        copies, used = self.copies()
        k = int(np.searchsorted(self.time, t, side="right"))
        i = min(k // CHECKPOINT, len(copies) - 1)
        last = self._last
        if last is not None and i * CHECKPOINT <= last[0] <= k:
            done, matrix, n = last  # replayed further in place: it is this log's own
        else:
            done, matrix, n = i * CHECKPOINT, copies[i].copy(), int(used[i])
        n = replay(self.entries, done, k, matrix, n)
        self._last = (k, matrix, n)
        answer: np.ndarray = matrix[:n].copy()
        return answer

    def copies(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the copies of the matrix every :data:`CHECKPOINT` entries and their rows in
        use (:func:`gangviz.fast.placement_kernel.checkpoints`), made once, on the first call: a
        worker process makes them before it hands the run back, so the process that reads it
        needs no compiled loop."""
        if self._copies is None or self._used is None:
            from gangviz.fast.placement_kernel import checkpoints

            self._copies, self._used = checkpoints(self.entries, CHECKPOINT, self.rows, self.processors)
        return self._copies, self._used
