"""A simulation seen through the Simulation protocol only.

:class:`ProtocolOnly` wraps a simulation and forwards exactly the members
:class:`gangviz.sim.protocol.Simulation` declares (computed from the protocol class by
:func:`gangviz.sim.protocol.protocol_members`, never listed by hand); reading any other member
raises ``AttributeError`` naming it, and is remembered in :data:`UNDECLARED` so that a caller
which swallows the error (a Qt slot, a ``try``) still fails the test that installed the wrapper.
"""

from __future__ import annotations

import sys
from typing import Any

from gangviz.sim.protocol import protocol_members

#: the members of the protocol, the only names a wrapper forwards
MEMBERS = protocol_members()
#: ``(family, member, module)`` of every undeclared read through any wrapper since the last clear
UNDECLARED: list[tuple[str, str, str]] = []


class ProtocolOnly:
    """``sim`` with every member outside the Simulation protocol hidden (see the module)."""

    __slots__ = ("_sim",)

    def __init__(self, sim: Any) -> None:
        object.__setattr__(self, "_sim", sim)

    def __getattr__(self, name: str) -> Any:
        if name in MEMBERS:
            return getattr(self._sim, name)
        reader = sys._getframe(1).f_globals.get("__name__", "?")
        UNDECLARED.append((self._sim.family, name, reader))
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
