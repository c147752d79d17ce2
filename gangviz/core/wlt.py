"""The binary workload tree (WLT) of the buddy system.

Zhou99 §4 (Fig. 6) and Zhou00 §3 (Fig. 2): the tree has
log N + 1 levels; a leaf holds the number of idle slots of its processor (the workload vector,
WLV); an inner node holds the sum of its two children when both are non-zero, and 0 otherwise.
A non-zero node therefore says "every processor below me has an idle slot", so by Property 1 the
fragments there can be re-packed into one slot; a non-zero root says a slot can be eliminated
(Property 2).

The tree is kept as one numpy array per level (views into one flat array) and is updated
incrementally: changing the leaves of a narrow column range touches only the ancestors of that
range (O(width + log N)); a change across a quarter of the machine or more (a slot added or
removed alters every leaf) recomputes every inner node in one vectorised pass from prefix sums
of the leaves (O(N)).

Choosing the least-loaded node of a level (the allocation decision) reads the top of a
tournament tree kept over that level: each entry holds the larger of two below it and where it
came from. Updates only mark which part of a level changed; a query refreshes the changed paths
of that one level (O(log N) vectorised steps), so a decision costs O(log N), not O(N).

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
        # All levels are views into one array, leaves first, so a whole refresh can compute
        # every inner node at once from prefix sums of the leaves.
        self._flat = np.zeros(2 * self.width - 1, dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum([self.width >> d for d in range(depth)])))
        self.levels: list[np.ndarray] = [
            self._flat[starts[d] : starts[d + 1]] for d in range(depth)
        ]
        # For each inner node, in the flat order: its first leaf and one past its last.
        inner = range(1, depth)
        self._node_lo = np.concatenate([[]] + [np.arange(self.width >> d) << d for d in inner]).astype(np.int64)
        self._node_hi = self._node_lo + np.concatenate(
            [[]] + [np.full(self.width >> d, 1 << d) for d in inner]
        ).astype(np.int64)
        # Tournament trees: _best[d][k] holds, for layer k above level d, the maxima of blocks of
        # 2**k nodes; _where[d][k] the index (on level d) of the leftmost maximum.
        self._best: list[list[np.ndarray]] = []
        self._where: list[list[np.ndarray]] = []
        for lvl in self.levels:
            size = len(lvl)
            layers = [size >> k for k in range(size.bit_length())]
            self._best.append([np.zeros(n, dtype=np.int64) for n in layers])
            self._where.append([np.zeros(n, dtype=np.int64) for n in layers])
        self._dirty: list[tuple[int, int] | None] = [(0, len(lvl)) for lvl in self.levels]

    @property
    def root(self) -> int:
        """Return the root value (non-zero iff every processor has an idle slot)."""
        return int(self.levels[-1][0])

    def rebuild(self, wlv: np.ndarray) -> None:
        """Recompute every level from the workload vector ``wlv`` (length ``processors``)."""
        leaves = self.levels[0]
        leaves[: self.processors] = wlv
        leaves[self.processors :] = 0
        self._refresh_inner()
        self._dirty = [(0, len(lvl)) for lvl in self.levels]

    def _refresh_inner(self) -> None:
        """Recompute every inner node from the leaves in one pass: a node holds the sum of its
        leaves when none of them is zero, else 0 (the same as combining level by level)."""
        leaves = self.levels[0]
        sums = np.concatenate(([0], np.cumsum(leaves)))
        zeros = np.concatenate(([0], np.cumsum(leaves == 0)))
        lo, hi = self._node_lo, self._node_hi
        full = zeros[hi] == zeros[lo]
        self._flat[self.width :] = (sums[hi] - sums[lo]) * full

    def _mark(self, d: int, lo: int, hi: int) -> None:
        old = self._dirty[d]
        self._dirty[d] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))

    def update(self, lo: int, hi: int, wlv: np.ndarray) -> None:
        """Refresh leaves ``[lo, hi)`` from ``wlv`` and their ancestors only.

        Propagation stops at the first level where nothing changed, since nothing above can
        change then; single nodes are updated as scalars (cheaper than array calls).
        """
        if hi <= lo:
            return
        if hi - lo <= 16:
            self._update_small(lo, hi, wlv)
            return
        leaves = self.levels[0]
        new = wlv[lo:hi]
        if (leaves[lo:hi] == new).all():
            return
        leaves[lo:hi] = new
        if 4 * (hi - lo) >= self.width:
            # A wide change reaches most nodes: one pass over all of them is cheaper than a
            # pass per level.
            self._refresh_inner()
            self._dirty = [(0, len(lvl)) for lvl in self.levels]
            return
        self._mark(0, lo, hi)
        levels = self.levels
        for d in range(1, len(levels)):
            lo >>= 1
            hi = ((hi - 1) >> 1) + 1
            below = levels[d - 1]
            left, right = below[2 * lo : 2 * hi : 2], below[2 * lo + 1 : 2 * hi : 2]
            # _combine for non-negative values, in fewer array operations
            fresh = left + right
            fresh *= np.minimum(left, right) > 0
            current = levels[d][lo:hi]
            if (current == fresh).all():
                return
            current[:] = fresh
            self._mark(d, lo, hi)

    def _update_small(self, lo: int, hi: int, wlv: np.ndarray) -> None:
        """The same as :meth:`update` for a narrow range, node by node (no array calls)."""
        new = wlv[lo:hi].tolist()
        leaves = self.levels[0]
        if leaves[lo:hi].tolist() == new:
            return
        leaves[lo:hi] = new
        self._mark(0, lo, hi)
        below = new if lo % 2 == 0 and hi % 2 == 0 else None
        for d in range(1, len(self.levels)):
            lower = self.levels[d - 1]
            lo >>= 1
            hi = ((hi - 1) >> 1) + 1
            values = lower[2 * lo : 2 * hi].tolist() if below is None else below
            fresh = [a + b if a > 0 and b > 0 else 0 for a, b in zip(values[0::2], values[1::2])]
            level = self.levels[d]
            if level[lo:hi].tolist() == fresh:
                return
            level[lo:hi] = fresh
            self._mark(d, lo, hi)
            below = None

    def best(self, block: int) -> tuple[int, int]:
        """Return ``(value, index)`` of the least-loaded node covering ``block`` processors.

        Least loaded = largest value (most idle slots); ties go to the leftmost node. A value of
        0 means no node on that level is available. Raises ``ValueError`` as
        :meth:`level_for_block`.
        """
        values = self.level_for_block(block)
        d = block.bit_length() - 1
        best, where = self._best[d], self._where[d]
        dirty = self._dirty[d]
        if dirty is not None:
            lo, hi = dirty
            best[0][lo:hi] = values[lo:hi]
            where[0][lo:hi] = np.arange(lo, hi)
            for k in range(1, len(best)):
                lo >>= 1
                hi = ((hi - 1) >> 1) + 1
                lower_v, lower_w = best[k - 1], where[k - 1]
                if hi - lo == 1:
                    a, b = int(lower_v[2 * lo]), int(lower_v[2 * lo + 1])
                    if a >= b:
                        best[k][lo], where[k][lo] = a, lower_w[2 * lo]
                    else:
                        best[k][lo], where[k][lo] = b, lower_w[2 * lo + 1]
                    continue
                left_v, right_v = lower_v[2 * lo : 2 * hi : 2], lower_v[2 * lo + 1 : 2 * hi : 2]
                take_left = left_v >= right_v
                best[k][lo:hi] = np.where(take_left, left_v, right_v)
                where[k][lo:hi] = np.where(take_left, lower_w[2 * lo : 2 * hi : 2], lower_w[2 * lo + 1 : 2 * hi : 2])
            self._dirty[d] = None
        return int(best[-1][0]), int(where[-1][0])

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
