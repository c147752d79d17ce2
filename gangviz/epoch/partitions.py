"""Partitions of N nodes into epoch widths with bounded inequity (Table 1).

McCann94 §4.2: an epoch of an OPT-EPOCH(k) schedule splits the N nodes into h
widths whose largest and smallest differ by at most k. A *valid partition* is such a multiset of
positive integers summing to N (order does not matter). Table 1 counts them for N = 128:
8, 128, 2144, 21527, 144055, 692693, 2560378 for k = 0..6.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache


def _count_parts_in(lo: int, hi: int, total: int) -> int:
    """Return the number of partitions of ``total`` into parts from lo..hi (0 parts if lo > hi)."""
    ways = [1] + [0] * total
    for part in range(lo, min(hi, total) + 1):
        for s in range(part, total + 1):
            ways[s] += ways[s - part]
    return ways[total]


def count_valid_partitions(nodes: int, k: int) -> int:
    """Return the number of partitions of ``nodes`` whose parts differ by at most ``k``.

    Exact (integer arithmetic): for each smallest part c, the partitions with parts in c..c+k
    minus those with parts in c+1..c+k. Raises ``ValueError`` when nodes < 1 or k < 0.
    """
    if nodes < 1 or k < 0:
        raise ValueError(f"need N >= 1 and k >= 0, got N={nodes}, k={k}")
    return sum(_count_parts_in(c, c + k, nodes) - _count_parts_in(c + 1, c + k, nodes)
               for c in range(1, nodes + 1))


@lru_cache(maxsize=4096)
def partitions_with_parts(nodes: int, k: int, parts: int) -> tuple[tuple[int, ...], ...]:
    """Return every valid partition of ``nodes`` into exactly ``parts`` widths (inequity <= k).

    Each partition is a non-increasing tuple. Order: by smallest width descending (the most even
    partition first), then lexicographically descending. Empty when none exists.
    """
    out: list[tuple[int, ...]] = []
    if parts < 1 or parts > nodes:
        return ()
    for c in range(nodes // parts, 0, -1):
        if c * parts > nodes:
            continue
        if (c + k) * parts < nodes:
            break
        _fill(out, c, [], nodes, parts, c + k)
    return tuple(out)


def _fill(found: list[tuple[int, ...]], smallest: int, prefix: list[int], left: int, slots: int,
          cap: int) -> None:
    """Append to ``found`` every non-increasing completion of ``prefix`` by ``slots`` widths in
    ``smallest..cap`` that sums to ``left`` and ends with ``smallest``, largest widths first."""
    if slots == 0:
        if left == 0 and prefix[-1] == smallest:
            found.append(tuple(prefix))
        return
    for v in range(min(cap, left - smallest * (slots - 1)), smallest - 1, -1):
        if v * slots < left:
            break
        prefix.append(v)
        _fill(found, smallest, prefix, left - v, slots - 1, v)
        prefix.pop()


def iter_valid_partitions(nodes: int, k: int) -> Iterator[tuple[int, ...]]:
    """Yield every valid partition of ``nodes`` (inequity <= k), most parts first."""
    for h in range(nodes, 0, -1):
        yield from partitions_with_parts(nodes, k, h)
