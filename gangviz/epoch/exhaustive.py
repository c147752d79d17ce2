"""Exhaustive references for small instances, used to check the paper's optimality claims.

McCann94: Theorem 1 (§3.1), Theorem 2 (§4.1.1), OPT-EPOCH(k) (§4.2) and the
counterexamples of Fig. 4, 7 and 8. These searches try every schedule of their class, so they
are only for a handful of jobs (J <= 10 or so) and small N.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

from gangviz.epoch.epochs import Epoch, epoch_widths
from gangviz.epoch.model import Piece, Schedule, normalize_mins

INF = float("inf")


def min_single_piece_overhead(nodes: int, mins: Sequence[int] | Mapping[int, int],
                              widths: str = "pow2") -> tuple[float, Schedule | None]:
    """Return the least sum A_j over all equal-allocation schedules, and one such schedule.

    The class is §2.3's: each job one piece of area N/J and height <= 1, the pieces tiling the
    N x 1 rectangle (contiguous nodes, see :mod:`gangviz.epoch.model`). ``widths="pow2"``
    allows only power-of-two widths (Theorem 1's class); ``"any"`` allows every width M_j..N
    (Fig. 4). The search fills the lowest, leftmost frontier segment next, which finds every
    tiling, and memoises on (frontier, remaining minima). Returns ``(inf, None)`` if no schedule
    exists. Raises ``ValueError`` for an unknown ``widths`` or bad input.
    """
    if widths not in ("pow2", "any"):
        raise ValueError(f"widths must be 'pow2' or 'any', got {widths!r}")
    table = normalize_mins(mins, nodes)
    share = Fraction(nodes, len(table))
    options = [w for w in range(1, nodes + 1)
               if (widths == "any" or w & (w - 1) == 0) and share / w <= 1]

    @cache
    def best(frontier: tuple[Any, ...], rest: tuple[int, ...]) -> tuple[float, tuple[Any, ...]]:
        if not rest:
            return 0, ()
        low = min(range(len(frontier)), key=lambda i: (frontier[i][2], frontier[i][0]))
        lo, hi, h = frontier[low]
        top: tuple[float, tuple[Any, ...]] = (INF, ())
        for m in sorted(set(rest)):
            left = list(rest)
            left.remove(m)
            for w in options:
                if w < m or w > hi - lo or h + share / w > 1:
                    continue
                seg = [(lo, lo + w, h + share / w)]
                if lo + w < hi:
                    seg.append((lo + w, hi, h))
                new = list(frontier[:low]) + seg + list(frontier[low + 1:])
                merged: list[Any] = []
                for s in new:
                    if merged and merged[-1][2] == s[2]:
                        merged[-1] = (merged[-1][0], s[1], s[2])
                    else:
                        merged.append(s)
                cost, plan = best(tuple(merged), tuple(left))
                if w + cost < top[0]:
                    top = (w + cost, ((m, lo, w, h, h + share / w),) + plan)
        return top

    cost, plan = best(((0, nodes, Fraction(0)),), tuple(sorted(table.values())))
    if cost == INF:
        return INF, None
    free: dict[int, list[int]] = {}
    for j in sorted(table):
        free.setdefault(table[j], []).append(j)
    pieces = tuple(Piece(free[m].pop(0), lo, w, a, b) for m, lo, w, a, b in plan)
    return int(cost), Schedule(nodes, pieces, f"EXHAUSTIVE({widths})")


def min_epochs(nodes: int, mins: Sequence[int] | Mapping[int, int],
               k: int) -> tuple[int, list[Epoch]]:
    """Return the fewest epochs of inequity <= k for these jobs, and one such set of epochs.

    Tries every partition of the jobs into epochs (dynamic programming over subsets, so J <= 12
    or so); an epoch is valid when its jobs fit widths summing to N that differ by <= k and are
    >= each job's M (§4.2; k = 0 is Theorem 2's equal-allocation class). Raises ``ValueError``
    for k < 0, more than 16 jobs, or bad input.
    """
    if k < 0:
        raise ValueError(f"inequity k must be >= 0, got {k}")
    table = normalize_mins(mins, nodes)
    ids = sorted(table, key=lambda j: (-table[j], j))
    if len(ids) > 16:
        raise ValueError(f"exhaustive epoch search is limited to 16 jobs, got {len(ids)}")
    full = (1 << len(ids)) - 1

    def members(mask: int) -> list[int]:
        return [i for i in range(len(ids)) if mask >> i & 1]

    @cache
    def widths_of(mask: int) -> Any:
        return epoch_widths([table[ids[i]] for i in members(mask)], nodes, k)

    @cache
    def best(mask: int) -> tuple[float, int]:
        if mask == 0:
            return 0, 0
        low = mask & -mask
        rest = mask ^ low
        top: tuple[float, int] = (INF, 0)
        sub = rest
        while True:
            group = sub | low
            if widths_of(group) is not None:
                cost = 1 + best(mask ^ group)[0]
                if cost < top[0]:
                    top = (cost, group)
            if sub == 0:
                break
            sub = (sub - 1) & rest
        return top

    count, _ = best(full)
    epochs: list[Epoch] = []
    mask = full
    while mask:
        group = best(mask)[1]
        w = widths_of(group)
        epochs.append([(ids[i], w[n]) for n, i in enumerate(members(group))])
        mask ^= group
    return int(count), epochs
