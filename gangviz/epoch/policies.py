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

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from gangviz.epoch.buddy import buddy, buddy_star, hybrid
from gangviz.epoch.epochs import check_spread, equi_epoch, heuristic_epoch, opt_epoch
from gangviz.epoch.model import Schedule

#: Table 2's restrictions: (N = 2^n required, J = 2^j required, optimal within its class?)
RESTRICTIONS: dict[str, tuple[bool, bool, str]] = {
    "BUDDY": (True, True, "yes"),
    "BUDDY*": (True, False, "no"),
    "HYBRID(k)": (True, False, "no"),
    "EQUI-EPOCH": (False, False, "if N = 2^n"),
    "OPT-EPOCH(k)": (False, False, "yes"),
    "HEURISTIC-EPOCH(k)": (False, False, "no"),
}

_NAME = re.compile(r"^\s*([A-Za-z*\-]+)\s*(?:\(\s*(\d+)\s*\))?\s*$")


@dataclass(frozen=True)
class Policy:
    """A named policy: call it with (N, minima) to get one quantum's :class:`Schedule`."""

    name: str
    family: str
    k: int | None
    func: Callable[..., Schedule]

    def __call__(self, nodes: int, mins: Sequence[int] | Mapping[int, int]) -> Schedule:
        """Return this policy's schedule; raise ``ValueError`` where the policy does not apply."""
        if self.k is None:
            return self.func(nodes, mins)
        return self.func(nodes, mins, self.k)

    def applies(self, nodes: int, jobs: int) -> bool:
        """Return False when Table 2's restrictions rule out (N, J) for this policy."""
        pow2_n, pow2_j, _ = RESTRICTIONS[self.family]
        ok_n = not pow2_n or (nodes & (nodes - 1) == 0)
        ok_j = not pow2_j or (jobs & (jobs - 1) == 0)
        return ok_n and ok_j


def make_policy(name: str, spread: str = "shares") -> Policy:
    """Return the policy called ``name`` (e.g. ``"OPT-EPOCH(1)"``, ``"HEURISTIC(2)"``).

    ``spread`` ("shares" or "level") is passed to HEURISTIC-EPOCH(k) and HYBRID(k) and ignored
    by the other policies. Raises ``ValueError`` naming the allowed policies for an unknown
    name, a missing or unwanted k, a k below the policy's range, or an unknown ``spread``.
    """
    check_spread(spread)
    m = _NAME.match(name)
    allowed = "BUDDY, BUDDY*, HYBRID(k), EQUI-EPOCH, OPT-EPOCH(k), HEURISTIC-EPOCH(k)"
    if not m:
        raise ValueError(f"unknown policy {name!r}; expected one of {allowed}")
    base, k_text = m.group(1).upper(), m.group(2)
    if base == "HEURISTIC":
        base = "HEURISTIC-EPOCH"
    table: dict[str, tuple[Callable[..., Any], bool]] = {
        "BUDDY": (buddy, False), "BUDDY*": (buddy_star, False), "HYBRID": (hybrid, True),
        "EQUI-EPOCH": (equi_epoch, False), "OPT-EPOCH": (opt_epoch, True),
        "HEURISTIC-EPOCH": (heuristic_epoch, True)}
    if base not in table:
        raise ValueError(f"unknown policy {name!r}; expected one of {allowed}")
    func, takes_k = table[base]
    if takes_k != (k_text is not None):
        form = f"{base}(k)" if takes_k else base
        raise ValueError(f"policy {name!r}: write it as {form}")
    if not takes_k:
        return Policy(base, base, None, func)
    k = int(k_text)
    low = 0 if base == "OPT-EPOCH" else 1
    if k < low:
        raise ValueError(f"policy {name!r}: k must be >= {low}"
                         + (" (k = 0 is EQUI-EPOCH)" if low == 1 else ""))
    if base in ("HEURISTIC-EPOCH", "HYBRID"):
        func = partial(func, spread=spread)
    return Policy(f"{base}({k})", f"{base}(k)", k, func)
