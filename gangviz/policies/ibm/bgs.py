"""Backfilling inside every row of the matrix: BGS reservations (003_1fd1fd192052cc5d.txt §5.2).

Each row of the Ousterhout matrix is a virtual machine of P processors and gets its own
backfilling profile. The execution time of a job under gang scheduling is estimated
pessimistically as its dedicated-machine estimate times the multiprogramming level (§5.2: "the
product of the estimated time on a dedicated machine and the multiprogramming level"), so a job
started at ``s`` is predicted to end at ``s + MPL * estimate``. A job that has already outlived
that prediction is assumed to end one slice from now (the usual backfilling repair).

Only home rows count: replicas are temporary (§5.2, "the reservations do not impact the
FillMatrix phase, since the assignments in this phase are temporary").

:class:`Planner` keeps, per row, the usage step function of the running jobs plus the
reservations of waiting jobs, and answers the two questions of the Schedule phase: can a job
start in a row now without violating a reservation, and what is its earliest start in a row.
All of it is vectorised: for a row with K breakpoints, a query is O(K log K) numpy work.

Units: times and estimates are in slices (the engine's unit); a job without an estimate is
taken to be estimated exactly (estimate = work).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Reservation", "Planner", "predicted_end", "job_estimate"]


@dataclass(frozen=True, slots=True)
class Reservation:
    """A waiting job's reservation: ``size`` processors of ``row`` from ``start`` to ``end``."""

    job: int
    row: int
    start: float
    end: float
    size: int


def job_estimate(spec) -> float:
    """Return the user's estimate of ``spec`` in slices (its work when it carries none)."""
    est = spec.estimate
    return spec.work if est is None or not est > 0 else est


def predicted_end(start: float, estimate: float, mpl: int, now: float) -> float:
    """Return ``start + mpl * estimate``, or ``now + 1`` when that lies at or before ``now``."""
    end = start + mpl * estimate
    return end if end > now else now + 1.0


class Planner:
    """Per-row usage profiles (running jobs + reservations) from time ``now`` on.

    Args:
        processors: P, the width of every row.
        n_rows: number of rows.
        now: the current time; nothing is planned before it.
    """

    def __init__(self, processors: int, n_rows: int, now: float) -> None:
        self.processors = processors
        self.now = float(now)
        self._iv: list[list[tuple[float, float, int]]] = [[] for _ in range(n_rows)]
        self._cache: list[tuple[np.ndarray, np.ndarray] | None] = [None] * n_rows

    @property
    def n_rows(self) -> int:
        """Return the number of rows planned."""
        return len(self._iv)

    def add_row(self) -> int:
        """Add an empty row on top; return its index."""
        self._iv.append([])
        self._cache.append(None)
        return len(self._iv) - 1

    def add(self, row: int, start: float, end: float, size: int) -> None:
        """Book ``size`` processors of ``row`` over ``[start, end)``."""
        self._iv[row].append((max(float(start), self.now), float(end), int(size)))
        self._cache[row] = None

    def remove(self, row: int, start: float, end: float, size: int) -> None:
        """Undo an :meth:`add` with the same arguments (``ValueError`` if there is none)."""
        self._iv[row].remove((max(float(start), self.now), float(end), int(size)))
        self._cache[row] = None

    def profile(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(times, usage)``: usage[k] processors are booked on [times[k], times[k+1])
        (the last segment extends to infinity). times[0] is ``now``."""
        cached = self._cache[row]
        if cached is not None:
            return cached
        iv = self._iv[row]
        if not iv:
            out = (np.array([self.now]), np.zeros(1, dtype=np.int64))
        else:
            arr = np.array([(a, b) for a, b, _ in iv], dtype=np.float64)
            sz = np.array([s for _, _, s in iv], dtype=np.int64)
            times = np.unique(np.concatenate(([self.now], arr[:, 0], arr[:, 1])))
            delta = np.zeros(len(times) + 1, dtype=np.int64)
            np.add.at(delta, np.searchsorted(times, arr[:, 0]), sz)
            np.add.at(delta, np.searchsorted(times, arr[:, 1]), -sz)
            usage = np.cumsum(delta)[:-1]
            out = (times, usage)
        self._cache[row] = out
        return out

    def earliest(self, row: int, duration: float, size: int, not_after: float = np.inf) -> float:
        """Return the earliest time >= now at which ``size`` processors of ``row`` stay free for
        ``duration``; ``inf`` if none is found at or before ``not_after``."""
        times, usage = self.profile(row)
        ok = usage + size <= self.processors
        bad = np.concatenate(([0], np.cumsum(~ok)))
        ends = np.searchsorted(times, times + duration, side="left")
        feasible = (bad[ends] - bad[np.arange(len(times))] == 0) & (times <= not_after)
        hit = np.flatnonzero(feasible)
        return float(times[hit[0]]) if len(hit) else np.inf

    def fits_now(self, row: int, duration: float, size: int) -> bool:
        """Return whether ``size`` processors of ``row`` are free from now for ``duration``."""
        return self.earliest(row, duration, size, not_after=self.now) == self.now

    def free_now(self, row: int) -> int:
        """Return the processors of ``row`` not booked at ``now``."""
        times, usage = self.profile(row)
        return self.processors - int(usage[0])

    def violations(self) -> list[str]:
        """Return a sentence for every row and time where bookings exceed P (empty if none)."""
        out = []
        for row in range(self.n_rows):
            times, usage = self.profile(row)
            over = np.flatnonzero(usage > self.processors)
            if len(over):
                k = int(over[0])
                out.append(f"row {row}: {int(usage[k])} > {self.processors} processors booked at t={times[k]:g}")
        return out
