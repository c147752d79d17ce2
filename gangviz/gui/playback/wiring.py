"""Connecting views to a player and letting go of it again."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, SignalInstance

#: a slot: any callable a signal can call
Slot = Callable[..., Any]


def disconnect_quietly(signals: Iterable[SignalInstance], slot: Slot) -> None:
    """Disconnect ``slot`` from each of ``signals``, ignoring ones it was not connected to
    (or whose sender is already gone)."""
    for sig in signals:
        try:
            sig.disconnect(slot)
        except (RuntimeError, TypeError):
            pass


def follow(previous: QObject | None, player: QObject, signals: tuple[str, ...], slot: Slot) -> None:
    """Connect ``slot`` to the named ``signals`` of ``player``, first letting go of the same
    signals of ``previous`` (the player followed until now, or ``None``)."""
    if previous is not None:
        disconnect_quietly([getattr(previous, name) for name in signals], slot)
    for name in signals:
        getattr(player, name).connect(slot)
