"""The machine's booking profile for conservative backfilling: processors booked over time.

A step function kept as two numpy arrays, ``times`` (sorted breakpoints, the first one ``now``)
and ``usage`` (processors booked from ``times[k]`` to ``times[k + 1]``; the last segment extends
to infinity). :meth:`earliest` answers "when can a job of this size and length start?" with
whole-array operations: a segment can open a window when it has room and the first segment
without room at or after it begins no sooner than the window ends. :meth:`could_start_before`
is the cheap necessary condition that lets the compression pass skip a job that cannot move: a
start before ``limit`` needs some segment before ``limit`` with room for it.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Profile"]


class Profile:
    """Bookings of a ``processors``-wide machine from ``now`` on."""

    def __init__(self, processors: int, now: float) -> None:
        self.processors = processors
        self.now = float(now)
        self.times = np.array([self.now])
        self.usage = np.zeros(1, dtype=np.int64)

    def advance(self, now: float) -> None:
        """Move ``now`` forward, dropping the past."""
        if now <= self.now:
            return
        k = int(np.searchsorted(self.times, now, side="right")) - 1
        if k > 0:
            self.times = self.times[k:].copy()
            self.usage = self.usage[k:].copy()
        self.times[0] = now
        self.now = now

    def _breakpoint(self, t: float) -> int:
        k = int(np.searchsorted(self.times, t))
        if k < len(self.times) and self.times[k] == t:
            return k
        self.times = np.insert(self.times, k, t)
        self.usage = np.insert(self.usage, k, self.usage[k - 1] if k else 0)
        return k

    def book(self, start: float, end: float, size: int) -> None:
        """Add ``size`` processors over ``[start, end)`` (clipped to now; negative to release)."""
        a = max(start, self.now)
        if not end > a:
            return
        ia = self._breakpoint(a)
        ib = self._breakpoint(end)
        self.usage[ia:ib] += size

    def could_start_before(self, size: int, limit: float) -> bool:
        """Return False when no segment before ``limit`` has ``size`` processors free (then no
        job of that size can start before ``limit``); True means it may."""
        k = int(np.searchsorted(self.times, limit))  # segments 0 .. k-1 start before limit
        return k > 0 and int(self.usage[:k].min()) <= self.processors - size

    def earliest(self, duration: float, size: int, limit: float = math.inf,
                 own: tuple[float, float, int] | None = None) -> float:
        """Return the earliest time >= now, before ``limit``, at which ``size`` processors stay
        free for ``duration``; ``inf`` if there is none. ``own`` = ``(start, end, size)`` is a
        booking of the job itself, counted as free."""
        times = self.times
        used = self.usage
        if own is not None:
            oa, ob, osz = own
            ia, ib = np.searchsorted(times, (oa, ob))
            if ib > ia:
                used = used.copy()
                used[ia:ib] -= osz
        blocked = used > self.processors - size
        # the start time of the first blocked segment at or after each segment (inf if none)
        nxt = np.where(blocked, times, np.inf)[::-1]
        nxt = np.minimum.accumulate(nxt)[::-1]
        fits = ~blocked & (nxt >= times + duration)
        if limit != math.inf:
            fits &= times < limit
        k = int(np.argmax(fits))
        return float(times[k]) if fits[k] else math.inf
