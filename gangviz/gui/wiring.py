"""Connecting views to a player and letting go of it again."""

from __future__ import annotations


def disconnect_quietly(signals, slot) -> None:
    """Disconnect ``slot`` from each of ``signals``, ignoring ones it was not connected to
    (or whose sender is already gone)."""
    for sig in signals:
        try:
            sig.disconnect(slot)
        except (RuntimeError, TypeError):
            pass


def follow(previous, player, signals: tuple[str, ...], slot) -> None:
    """Connect ``slot`` to the named ``signals`` of ``player``, first letting go of the same
    signals of ``previous`` (the player followed until now, or ``None``)."""
    if previous is not None:
        disconnect_quietly([getattr(previous, name) for name in signals], slot)
    for name in signals:
        getattr(player, name).connect(slot)
