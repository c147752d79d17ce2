"""The binary workload tree (WLT) of the buddy system.

000_fc8d6d1d4cf9d1e1.txt §4 (Fig. 6) and 001_c175c8c1780c2fd0.txt §3 (Fig. 2): the tree has
log N + 1 levels; a leaf holds the number of idle slots of its processor (the workload vector,
WLV); an inner node holds the sum of its two children when both are non-zero, and 0 otherwise.
A non-zero node therefore says "every processor below me has an idle slot", so by Property 1 the
fragments there can be re-packed into one slot; a non-zero root says a slot can be eliminated
(Property 2).

The tree is kept as one numpy array per level and is updated incrementally: changing the leaves
of a column range touches only the ancestors of that range (O(width + log N)); only a change of
the number of slots, which alters every leaf, recomputes whole levels (vectorised, O(N)).

When N is not a power of two the tree is padded to the next power of two with *phantom* leaves
that hold 0, so no node that covers a phantom processor is ever non-zero; buddy allocation
therefore needs N to be a power of two (the policies check this).
"""

from __future__ import annotations

import numpy as np


def next_power_of_two(n: int) -> int:
    """Return the smallest power of two >= ``n`` (``n`` >= 1)."""
    if n < 1:
        raise ValueError(f"need n >= 1, got {n}")
    return 1 << (n - 1).bit_length()


def _combine(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Parent values: the sum where both children are non-zero, else 0."""
    return np.where((left > 0) & (right > 0), left + right, 0)


class WorkloadTree:
    """The WLT over ``processors`` leaves.

    ``levels[0]`` is the leaf level (one value per processor, padded to a power of two) and
    ``levels[-1]`` holds the single root. ``levels[d][i]`` covers processors
    ``[i * 2**d, (i + 1) * 2**d)``.
    """

    def __init__(self, processors: int) -> None:
        self.processors = processors
        self.width = next_power_of_two(processors)
        depth = self.width.bit_length()  # log2(width) + 1 levels
        self.levels: list[np.ndarray] = [
            np.zeros(self.width >> d, dtype=np.int64) for d in range(depth)
        ]

    @property
    def root(self) -> int:
        """Return the root value (non-zero iff every processor has an idle slot)."""
        return int(self.levels[-1][0])

    def rebuild(self, wlv: np.ndarray) -> None:
        """Recompute every level from the workload vector ``wlv`` (length ``processors``)."""
        leaves = self.levels[0]
        leaves[: self.processors] = wlv
        leaves[self.processors :] = 0
        for d in range(1, len(self.levels)):
            below = self.levels[d - 1]
            self.levels[d][:] = _combine(below[0::2], below[1::2])

    def update(self, lo: int, hi: int, wlv: np.ndarray) -> None:
        """Refresh leaves ``[lo, hi)`` from ``wlv`` and their ancestors only."""
        if hi <= lo:
            return
        self.levels[0][lo:hi] = wlv[lo:hi]
        for d in range(1, len(self.levels)):
            lo >>= 1
            hi = ((hi - 1) >> 1) + 1
            below = self.levels[d - 1]
            self.levels[d][lo:hi] = _combine(below[2 * lo : 2 * hi : 2], below[2 * lo + 1 : 2 * hi : 2])

    def level_for_block(self, block: int) -> np.ndarray:
        """Return the node values of the level whose nodes cover ``block`` processors.

        Raises ``ValueError`` unless ``block`` is a power of two no larger than the tree.
        """
        if block < 1 or block & (block - 1) or block > self.width:
            raise ValueError(f"block size must be a power of two in 1..{self.width}, got {block}")
        return self.levels[block.bit_length() - 1]

    def node(self, block: int, index: int) -> int:
        """Return the value of node ``index`` on the level of blocks of ``block`` processors."""
        return int(self.level_for_block(block)[index])

    def as_lists(self) -> list[list[int]]:
        """Return the tree top level first, as plain lists (phantom leaves included)."""
        return [lvl.tolist() for lvl in reversed(self.levels)]
