"""A simulation seen through the Simulation protocol only.

:class:`ProtocolOnly` wraps a simulation and forwards exactly the members
:class:`gangviz.sim.protocol.Simulation` declares (computed from the protocol class by
:func:`gangviz.sim.protocol.protocol_members`, never listed by hand); reading any other member
raises ``AttributeError`` naming it, and is remembered in :data:`UNDECLARED` so that a caller
which swallows the error (a Qt slot, a ``try``) still fails the test that installed the wrapper.

The reads :data:`TOLERATED` lists, by reading module and member, are forwarded and remembered
in :data:`TOLERATED_READS` instead: the figures of the metrics, results and experiments layers,
computed from a family's own records by design, and the family views not yet moved onto the
protocol (the work left). Any read not listed fails.
"""

from __future__ import annotations

import sys
from typing import Any

from gangviz.sim.protocol import protocol_members

#: the members of the protocol, the only names a wrapper forwards
MEMBERS = protocol_members()
#: ``(family, member, module)`` of every undeclared read through any wrapper since the last clear
UNDECLARED: list[tuple[str, str, str]] = []
_FIGURES = "a paper's figures, computed from the family's own records; the layer sits above the engine"
#: reading module -> (the members it may read beyond the protocol, why)
TOLERATED: dict[str, tuple[frozenset[str], str]] = {
    "gangviz.metrics.zhou": (frozenset({"jobs", "max_slots", "processors", "slot_time"}), _FIGURES),
    "gangviz.metrics.ibm": (frozenset({"matrix", "overhead", "cursor", "processors", "result",
                                       "time_unit"}), _FIGURES),
    "gangviz.metrics.epoch": (frozenset({"nodes", "quantum", "state", "steps"}), _FIGURES),
    "gangviz.metrics.multisite": (frozenset({"cursor", "state", "steps"}), _FIGURES),
    "gangviz.results.figures": (frozenset({"records", "result"}), _FIGURES),
    "gangviz.experiments.compare": (frozenset({"policy", "result"}), _FIGURES),
    # family views still to move onto the protocol (a richer snapshot of their family)
    "gangviz.gui.families.gantt": (frozenset({"state", "names", "policy", "processors", "time_unit",
                                              "slice_seconds", "estimate", "job_text"}),
                                   "the space-sharing Gantt view reads the live SpaceState"),
    "gangviz.gui.families.epoch_construction": (frozenset({"state", "workload", "jobs"}),
                                                "the epoch construction reads the jobs' minimum partitions"),
    "gangviz.gui.families.site_arrivals": (frozenset({"stream"}),
                                           "the arrivals strip reads the scripted gangs still to come"),
}
#: ``(family, member, module)`` of the reads :data:`TOLERATED` let through
TOLERATED_READS: list[tuple[str, str, str]] = []


class ProtocolOnly:
    """``sim`` with every member outside the Simulation protocol hidden (see the module)."""

    __slots__ = ("_sim",)

    def __init__(self, sim: Any) -> None:
        object.__setattr__(self, "_sim", sim)

    def __getattr__(self, name: str) -> Any:
        if name in MEMBERS:
            return getattr(self._sim, name)
        reader = sys._getframe(1).f_globals.get("__name__", "?")
        read = (self._sim.family, name, reader)
        if name in TOLERATED.get(reader, (frozenset(), ""))[0]:
            TOLERATED_READS.append(read)
            return getattr(self._sim, name)
        UNDECLARED.append(read)
        raise AttributeError(f"{name!r} is not a member of the Simulation protocol "
                             f"(read by {reader} of a {self._sim.family} simulation)")

    def __setattr__(self, name: str, value: Any) -> None:
        UNDECLARED.append((self._sim.family, f"{name} (set)", sys._getframe(1).f_globals.get("__name__", "?")))
        raise AttributeError(f"{name!r} cannot be set through the Simulation protocol")

    def __repr__(self) -> str:
        return f"ProtocolOnly({self._sim!r})"


def wrap(sim: Any) -> ProtocolOnly:
    """Return ``sim`` behind the protocol (``sim`` itself when it is wrapped already)."""
    return sim if isinstance(sim, ProtocolOnly) else ProtocolOnly(sim)
