"""Scheduling policies, by name.

:func:`make_policy` builds one from its name (case-insensitive) and keyword parameters;
:data:`POLICIES` lists what is available with the paper section each implements.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from gangviz.policies.buddy import BC, BR, BRMMS, BRMS
from gangviz.policies.linear import FirstFit, RandomAllocation, Repack
from gangviz.sim.policy import Policy

POLICIES: dict[str, Callable[..., Policy]] = {
    "repack": Repack,
    "bc": BC,
    "br": BR,
    "brms": BRMS,
    "brmms": BRMMS,
    "random": RandomAllocation,
    "firstfit": FirstFit,
}


def register_policy(name: str, factory: Callable[..., Policy]) -> None:
    """Make ``factory`` available to :func:`make_policy` under ``name`` (lower case)."""
    POLICIES[name.lower()] = factory


def make_policy(name: str, **params) -> Policy:
    """Return a new policy called ``name`` built with ``params``.

    Raises ``ValueError`` naming the known policies for an unknown name, or the parameter
    that the policy does not take.
    """
    factory = POLICIES.get(name.lower())
    if factory is None:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(sorted(POLICIES))}")
    unknown = sorted(set(params) - set(_parameters(factory)))
    if unknown and not _takes_any(factory):
        takes = ", ".join(_parameters(factory)) or "no parameters"
        raise ValueError(f"policy {name}: unknown parameter {unknown[0]!r} (it takes: {takes})")
    try:
        return factory(**params)
    except TypeError as exc:
        raise ValueError(f"policy {name}: {exc}") from None


def _parameters(factory: Callable[..., Policy]) -> list[str]:
    """Names of the keyword parameters ``factory`` accepts, in its signature's order."""
    return [p.name for p in inspect.signature(factory).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _takes_any(factory: Callable[..., Policy]) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(factory).parameters.values())

import gangviz.policies.ibm  # noqa: F401  (registers gs, bgs, mgs, mbgs)
from gangviz.spacesharing.policy import EASY, FCFS, Conservative

# The space-sharing family runs on its own simulator; see gangviz.spacesharing.policy.
for _name, _factory in (("fcfs", FCFS), ("easy", EASY), ("conservative", Conservative)):
    register_policy(_name, _factory)
