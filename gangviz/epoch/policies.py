"""The six policies of Table 2 by name (McCann94 §4.4).

Names: ``BUDDY``, ``BUDDY*``, ``HYBRID(k)``, ``EQUI-EPOCH``, ``OPT-EPOCH(k)``,
``HEURISTIC-EPOCH(k)`` (``HEURISTIC(k)`` is accepted, as the paper writes it in §5). §5 uses
"BUDDY" for BUDDY when J is a power of two and BUDDY* otherwise; BUDDY* already does exactly
that, so experiments call BUDDY*.

HEURISTIC-EPOCH(k) and HYBRID(k) take ``spread``, the rule for an epoch's free nodes (§4.3;
"shares" by default, "level" for the other reading, see
:func:`gangviz.epoch.epochs.heuristic_epoch_epochs`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from gangviz.core.registry import EPOCH, PolicyEntry, lookup
from gangviz.epoch.epochs import check_spread
from gangviz.epoch.model import Schedule


@dataclass(frozen=True)
class Policy:
    """A named policy: call it with (N, minima) to get one quantum's :class:`Schedule`."""

    name: str
    family: str
    k: int | None
    func: Callable[..., Schedule]
    traits: frozenset[str] = frozenset()

    def __call__(self, nodes: int, mins: Sequence[int] | Mapping[int, int]) -> Schedule:
        """Return this policy's schedule; raise ``ValueError`` where the policy does not apply."""
        if self.k is None:
            return self.func(nodes, mins)
        return self.func(nodes, mins, self.k)

    def applies(self, nodes: int, jobs: int) -> bool:
        """Return False when Table 2's restrictions (the registry's ``pow2-nodes`` and
        ``pow2-jobs`` traits) rule out (N, J) for this policy."""
        ok_n = "pow2-nodes" not in self.traits or (nodes & (nodes - 1) == 0)
        ok_j = "pow2-jobs" not in self.traits or (jobs & (jobs - 1) == 0)
        return ok_n and ok_j


def make_policy(name: str, spread: str = "shares") -> Policy:
    """Return the policy called ``name`` (e.g. ``"OPT-EPOCH(1)"``, ``"HEURISTIC(2)"``).

    ``spread`` ("shares" or "level") is passed to HEURISTIC-EPOCH(k) and HYBRID(k) and ignored
    by the other policies. Raises ``ValueError`` naming the allowed policies for an unknown
    name, a missing or unwanted k, a k below the policy's range, or an unknown ``spread``.
    """
    check_spread(spread)
    entry, carried = lookup(name)
    if entry.family != EPOCH:
        raise ValueError(f"{name!r} is not an epoch policy; expected one of "
                         "BUDDY, BUDDY*, HYBRID(k), EQUI-EPOCH, OPT-EPOCH(k), HEURISTIC-EPOCH(k)")
    params: dict[str, Any] = dict(carried)
    if "spread" in entry.declared:
        params["spread"] = spread
    return from_entry(entry, params)


def from_entry(entry: PolicyEntry, params: Mapping[str, Any]) -> Policy:
    """Return the epoch policy of a registry ``entry`` with ``params`` (``k``, ``spread``).

    Raises ``ValueError`` for a parameter the policy does not take or a bad value.
    """
    typed = entry.coerce(params)
    func = entry.constructor()
    base = entry.title.removesuffix("(k)")
    k = typed.pop("k", None)
    if typed:
        func = partial(func, **typed)
    if k is None:
        return Policy(base, entry.title, None, func, entry.traits)
    return Policy(f"{base}({k})", entry.title, k, func, entry.traits)
