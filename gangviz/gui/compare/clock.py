"""One simulated clock for several simulations (the compare window's shared timeline).

Compare window: one timeline drives every pane in *simulated time*, so every pane
shows the same instant even though each policy reaches its decision points at different times.
This module is the Qt-free arithmetic behind that; it works with any
:class:`gangviz.sim.protocol.Simulation` (``peek``, ``run(until=)``, ``go_to``, ``position``,
``step_at``).

Reading of "the state at time t" (the natural one, and the only one every family can show): the
state after *every* step whose time is ``<= t``. A simulation that has several steps at the same
instant (an arrival and the re-pack it triggers) shows them all. So after :func:`seek` the
simulation's ``time`` is ``<= t`` and its next step (``peek()``) lies strictly after ``t``; before
the first step (``t`` < the first decision point) the starting picture is shown.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable

from gangviz.sim.protocol import Simulation


def applied_times(sim: Simulation) -> list[float]:
    """Return the times of the applied steps of ``sim``, in order (non-decreasing)."""
    return [sim.step_at(i).time for i in range(sim.position)]


def seek(sim: Simulation, t: float) -> int:
    """Put ``sim`` in its state after every step at or before time ``t``; return its position.

    Forward moves call ``sim.run(until=t)``; backward moves go to the last applied step with a
    time ``<= t`` (``go_to``).
    Raises ``ValueError`` for a ``t`` that is not a number (``nan``).
    """
    if math.isnan(t):
        raise ValueError("the shared time must be a number, got nan")
    if t < sim.time:  # some applied step lies after t (the last one is at sim.time)
        sim.go_to(bisect.bisect_right(applied_times(sim), t))
    if sim.peek() <= t:
        sim.run(until=t)
    return sim.position


def next_event(sims: Iterable[Simulation], t: float) -> float:
    """Return the earliest next-step time after ``t`` over ``sims`` (``inf`` when all are done).

    Each simulation must already be seeked to ``t`` (its ``peek()`` is then its first step
    after ``t``).
    """
    return min((s.peek() for s in sims), default=math.inf)


def previous_event(sims: Iterable[Simulation], t: float) -> float:
    """Return the time to step the shared clock back to from ``t``, or 0.0 when there is none.

    The picture at ``t`` shows the latest step at or before ``t`` over all ``sims`` (at time
    ``cur``); stepping back shows the latest step strictly before ``cur``, so every press
    changes at least one pane (tie-break: steps of several panes at the same time count once).
    """
    times = sorted({x for s in sims for x in applied_times(s) if x <= t})
    return times[-2] if len(times) >= 2 else 0.0
