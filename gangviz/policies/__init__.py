"""The time-slot policies (re-packing and linear allocation, the buddy schemes, the IBM gang
policies). Their names, parameters and papers are in the registry
(:mod:`gangviz.core.registry`); :func:`build` makes one from its entry, :func:`make_policy` from its name.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    return build(entry, {**carried, **params})


def build(entry: registry.PolicyEntry, params: Mapping[str, Any]) -> Any:
    """Return the policy object of ``entry`` built with ``params`` (coerced first).

    The registry only describes policies; they are made here, one layer above the models whose
    classes it names, so that no call climbs from the core into a model.

    Raises :class:`~gangviz.core.params.ParamError` as :meth:`PolicyEntry.coerce` does, and
    ``ValueError`` for what the constructor refuses.
    """
    typed = entry.coerce(params)
    return entry.constructor()(**typed)
