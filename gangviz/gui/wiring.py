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
