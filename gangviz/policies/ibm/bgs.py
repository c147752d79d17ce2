"""Backfilling inside every row of the matrix: BGS reservations (Zhang01 §5.2).

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

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np

from gangviz.core.jobs import JobSpec

__all__ = ["Reservation", "Planner", "predicted_end", "job_estimate"]


@dataclass(frozen=True, slots=True)
class Reservation:
    """A waiting job's reservation: ``size`` processors of ``row`` from ``start`` to ``end``."""

    job: int
    row: int
    start: float
    end: float
    size: int


def job_estimate(spec: JobSpec) -> float:
    """Return the user's estimate of ``spec`` in slices (its work when it carries none)."""
    est = spec.estimate
    return spec.work if est is None or not est > 0 else est


def predicted_end(start: float, estimate: float, mpl: int, now: float) -> float:
    """Return ``start + mpl * estimate``, or ``now + 1`` when that lies at or before ``now``."""
    end = start + mpl * estimate
    return end if end > now else now + 1.0


class Planner:
    """Per-row usage profiles (running jobs + reservations) from time ``now`` on.

    Each row is a step function kept as two lists, ``times`` (sorted breakpoints, the first one
    ``now``) and ``usage`` (processors booked from ``times[k]`` to ``times[k + 1]``; the last
    segment extends to infinity). Bookings update them in place; a query walks the segments
    once (each segment is looked at no more than twice), so both are O(K) for K breakpoints.

    Args:
        processors: P, the width of every row.
        n_rows: number of rows.
        now: the current time; nothing is planned before it.
    """

    def __init__(self, processors: int, n_rows: int, now: float) -> None:
        self.processors = processors
        self.now = float(now)
        self._times: list[list[float]] = []
        self._usage: list[list[int]] = []
        for _ in range(n_rows):
            self.add_row()

    @classmethod
    def from_bookings(cls, processors: int, n_rows: int, now: float, rows: list[int], ends: list[float],
                      sizes: list[int]) -> Planner:
        """Return a planner holding, for each ``i``, ``sizes[i]`` processors of ``rows[i]`` booked
        from ``now`` to ``ends[i]``: the same profiles as :meth:`add` one booking at a time (a
        breakpoint at each distinct end after ``now``), built by one sort per row."""
        plan = cls(processors, n_rows, now)
        per_row: list[list[tuple[float, int]]] = [[] for _ in range(n_rows)]
        for row, end, size in zip(rows, ends, sizes):
            end = float(end)
            if end > plan.now:
                per_row[row].append((end, int(size)))
        for row, books in enumerate(per_row):
            if not books:
                continue
            books.sort()
            times, usage = [plan.now], [sum(size for _, size in books)]
            for end, size in books:
                if end != times[-1]:
                    times.append(end)
                    usage.append(usage[-1])
                usage[-1] -= size
            plan._times[row], plan._usage[row] = times, usage
        return plan

    @property
    def n_rows(self) -> int:
        """Return the number of rows planned."""
        return len(self._times)

    def add_row(self) -> int:
        """Add an empty row on top; return its index."""
        self._times.append([self.now])
        self._usage.append([0])
        return len(self._times) - 1

    def _breakpoint(self, row: int, t: float) -> int:
        times = self._times[row]
        k = bisect_left(times, t)
        if k < len(times) and times[k] == t:
            return k
        usage = self._usage[row]
        times.insert(k, t)
        usage.insert(k, usage[k - 1] if k else 0)
        return k

    def add(self, row: int, start: float, end: float, size: int) -> None:
        """Book ``size`` processors of ``row`` over ``[start, end)`` (clipped to ``now``)."""
        self._book(row, start, end, int(size))

    def remove(self, row: int, start: float, end: float, size: int) -> None:
        """Undo an :meth:`add` with the same arguments."""
        self._book(row, start, end, -int(size))

    def _book(self, row: int, start: float, end: float, size: int) -> None:
        a = max(float(start), self.now)
        b = float(end)
        if not b > a:
            return
        ia = self._breakpoint(row, a)
        ib = self._breakpoint(row, b)
        usage = self._usage[row]
        for k in range(ia, ib):
            usage[k] += size

    def profile(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(times, usage)`` of ``row`` as arrays (see the class docstring)."""
        return np.array(self._times[row]), np.array(self._usage[row], dtype=np.int64)

    def earliest(self, row: int, duration: float, size: int, not_after: float = math.inf) -> float:
        """Return the earliest time >= now at which ``size`` processors of ``row`` stay free for
        ``duration``; ``inf`` if there is none at or before ``not_after``."""
        times, usage = self._times[row], self._usage[row]
        room = self.processors - size
        n = len(times)
        i = 0
        while i < n:
            t = times[i]
            if t > not_after:
                return math.inf
            if usage[i] > room:
                i += 1
                continue
            end = t + duration
            j = i + 1
            while j < n and times[j] < end:
                if usage[j] > room:
                    break
                j += 1
            else:
                return t
            i = j + 1
        return math.inf  # pragma: no cover - the last segment is always free

    def fits_now(self, row: int, duration: float, size: int) -> bool:
        """Return whether ``size`` processors of ``row`` are free from now for ``duration``."""
        return self.earliest(row, duration, size, not_after=self.now) == self.now

    def advance(self, now: float) -> None:
        """Move ``now`` forward, dropping the past of every row."""
        now = float(now)
        if now <= self.now:
            return
        for row in range(self.n_rows):
            times, usage = self._times[row], self._usage[row]
            k = bisect_right(times, now) - 1
            if k > 0:
                del times[:k]
                del usage[:k]
            times[0] = now
        self.now = now

    def free_now(self, row: int) -> int:
        """Return the processors of ``row`` not booked at ``now``."""
        return self.processors - self._usage[row][0]

    def violations(self) -> list[str]:
        """Return a sentence for every row where bookings exceed P (empty if none)."""
        out = []
        for row in range(self.n_rows):
            for t, u in zip(self._times[row], self._usage[row]):
                if u > self.processors:
                    out.append(f"row {row}: {u} > {self.processors} processors booked at t={t:g}")
                    break
        return out
