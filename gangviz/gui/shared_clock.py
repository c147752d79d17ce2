"""One simulated clock for several simulations (the compare window's shared timeline).

Compare window: one timeline drives every pane in *simulated time*, so every pane
shows the same instant even though each policy reaches its decision points at different times.
This module is the Qt-free arithmetic behind that; it works with any gangviz simulation family
(``step()``, ``peek()``, ``run(until=)``, ``steps``, ``time``; ``go_to``/``cursor``/``step_back``
when present).

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
from typing import Any


def position(sim: Any) -> int:
    """Return the number of steps ``sim`` has applied (``cursor`` when it keeps a redo history)."""
    cursor = getattr(sim, "cursor", None)
    return int(cursor) if cursor is not None else len(sim.steps)


def applied_times(sim: Any) -> list[float]:
    """Return the times of the applied steps of ``sim``, in order (non-decreasing)."""
    return [s.time for s in sim.steps[: position(sim)]]


def seek(sim: Any, t: float) -> int:
    """Put ``sim`` in its state after every step at or before time ``t``; return its position.

    Forward moves call ``sim.run(until=t)``; backward moves go to the last applied step with a
    time ``<= t`` (``go_to`` when the model has it, else ``step_back`` one step at a time).
    Raises ``ValueError`` for a ``t`` that is not a number (``nan``).
    """
    if math.isnan(t):
        raise ValueError("the shared time must be a number, got nan")
    times = applied_times(sim)
    keep = bisect.bisect_right(times, t)
    if keep < len(times):
        go = getattr(sim, "go_to", None)
        if go is not None:
            go(keep)
        else:
            while position(sim) > keep and sim.step_back() is not None:
                pass
    if sim.peek() <= t:
        sim.run(until=t)
    return position(sim)


def next_event(sims: Iterable[Any], t: float) -> float:
    """Return the earliest next-step time after ``t`` over ``sims`` (``inf`` when all are done).

    Each simulation must already be seeked to ``t`` (its ``peek()`` is then its first step
    after ``t``).
    """
    return min((s.peek() for s in sims), default=math.inf)


def previous_event(sims: Iterable[Any], t: float) -> float:
    """Return the time to step the shared clock back to from ``t``, or 0.0 when there is none.

    The picture at ``t`` shows the latest step at or before ``t`` over all ``sims`` (at time
    ``cur``); stepping back shows the latest step strictly before ``cur``, so every press
    changes at least one pane (tie-break: steps of several panes at the same time count once).
    """
    times = sorted({x for s in sims for x in applied_times(s) if x <= t})
    return times[-2] if len(times) >= 2 else 0.0
