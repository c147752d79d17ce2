"""The earliest fit in a booking profile, compiled, shared by the compiled loops that book.

A profile is a list of breakpoints: from ``times[i]`` until the next one, ``usage[i]``
processors are booked. Conservative backfilling's profile (:mod:`gangviz.spacesharing.compiled`,
as :class:`~gangviz.spacesharing.profile.Profile`) and each row of the BGS planner
(:mod:`gangviz.fast.gang_kernel`, as :class:`gangviz.policies.ibm.bgs.Planner`) ask it the same
question: the earliest breakpoint from which a job finds room for its whole duration.

Callers compile this function into their own, so they key their numba cache by this file too
(:func:`gangviz.jitcache.cached_with`); this module calls no jitted code of any other.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True)
def earliest_fit(times, usage, k_n, room, duration, limit, ia, ib, other):
    """Return the earliest of the first ``k_n`` breakpoints before ``limit`` from which the
    usage stays at most ``room`` for ``duration`` (every breakpoint that starts before the end
    counts), else ``inf``. The breakpoints ``ia .. ib - 1`` count ``other`` processors fewer (a
    job's own booking, taken out while it looks for an earlier start; ``ia == ib``: none). After
    a breakpoint that lacks room the scan goes on after it, as ``Profile.earliest`` and
    ``Planner.earliest`` do."""
    i = 0
    while i < k_n:
        t = times[i]
        if t >= limit:
            return math.inf
        u = usage[i] - other if ia <= i < ib else usage[i]
        if u > room:
            i += 1
            continue
        end = t + duration
        j = i + 1
        ok = True
        while j < k_n and times[j] < end:
            u = usage[j] - other if ia <= j < ib else usage[j]
            if u > room:
                ok = False
                break
            j += 1
        if ok:
            return t
        i = j + 1
    return math.inf
