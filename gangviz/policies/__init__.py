"""The time-slot policies (re-packing and linear allocation, the buddy schemes, the IBM gang
policies). Their names, parameters and papers are in the registry
(:mod:`gangviz.core.registry`); :func:`make_policy` builds one from it.
"""

from __future__ import annotations

from typing import Any

from gangviz.core import registry


def make_policy(name: str, **params: Any) -> Any:
    """Return a new time-slot or space-sharing policy called ``name`` (any case, as the
    registry writes it) built with ``params`` (values or text, typed as declared).

    Raises ``ValueError`` naming the known policies for an unknown name, the parameters the
    policy takes for an unknown one, or the allowed values of a bad value.
    """
    entry, carried = registry.lookup(name)
    if entry.runs_on() != registry.MATRIX:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(registry.runs_on(registry.MATRIX))}")
    return registry.build(entry, {**carried, **params})
