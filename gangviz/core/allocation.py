"""Allocation through the workload vector (WLV) and the workload tree (WLT).

Zhou99 §4 (Fig. 5, Fig. 6) and Zhou00 §3 (Fig. 2).

* WLV allocation, any size: with re-packing, a job of size p fits without a new slot iff the WLV
  has p consecutive non-zero entries (Property 1 joins adjacent idle fragments). Among all such
  windows the least loaded one is chosen, i.e. the window with the largest sum of idle slots
  (Fig. 5 prefers P4..P8 over P3..P7 because P8 has three idle slots); ties go to the leftmost
  window. The chosen columns are then re-packed into one slot.
* Buddy allocation through the WLT: a job of size p takes a whole aligned block of n processors,
  n the power of two with n/2 < p <= n (internal fragmentation, Zhou00 §1). A block is available iff
  its WLT node is non-zero; the least loaded available block (largest node value) is chosen,
  ties to the leftmost; its fragments are re-packed into one slot.
* When nothing fits, a new slot is added on top (the papers draw new slots above the others).
"""

from __future__ import annotations

import numpy as np

from gangviz.core.changes import JobPlaced, MatrixChange, SlotAdded, cols_label
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.core.repack import emit, gather, ring_gather
from gangviz.core.wlt import next_power_of_two


def _window_values(wlv: np.ndarray, size: int, ring: bool) -> np.ndarray:
    """Return the WLV as int64 entries, on a ring extended by its first ``size - 1`` entries so
    that windows may wrap; raise ``ValueError`` if ``size`` is not in ``1..len(wlv)``."""
    n = len(wlv)
    if not 1 <= size <= n:
        raise ValueError(f"job size must be in 1..{n} processors, got {size}")
    values = np.asarray(wlv, dtype=np.int64)
    if ring and size < n:
        values = np.concatenate([values, values[: size - 1]])
    return values


def best_window(wlv: np.ndarray, size: int, ring: bool = False) -> int | None:
    """Return the start of the least-loaded window of ``size`` consecutive non-zero WLV entries.

    The load criterion is the window's sum of idle slots (larger = less loaded); ties go to the
    leftmost window. On a ring windows may wrap. Returns ``None`` when no window exists.
    Raises ``ValueError`` if ``size`` is not in ``1..len(wlv)``.
    """
    n = len(wlv)
    values = _window_values(wlv, size, ring)
    zeros = np.concatenate([[0], np.cumsum(values == 0)])
    sums = np.concatenate([[0], np.cumsum(values)])
    starts = np.arange(len(values) - size + 1)
    ok = (zeros[starts + size] - zeros[starts]) == 0
    if ring and size == n:
        ok = ok[:1]
        starts = starts[:1]
    if not ok.any():
        return None
    totals = np.where(ok, sums[starts + size] - sums[starts], -1)
    return int(starts[int(np.argmax(totals))])


def leftmost_window(wlv: np.ndarray, size: int, ring: bool = False) -> int | None:
    """Return the start of the leftmost window of ``size`` consecutive non-zero WLV entries
    (``None`` when there is none); raises ``ValueError`` as :func:`best_window`."""
    n = len(wlv)
    values = _window_values(wlv, size, ring)
    last = len(values) - size + 1 if not (ring and size == n) else 1
    for start in range(last):
        if np.all(values[start:start + size] != 0):
            return start
    return None


def best_block(m: OusterhoutMatrix, block: int, usable: int | None = None,
               width: int | None = None) -> int | None:
    """Return the index of the least-loaded non-zero WLT node covering ``block`` processors.

    Ties go to the leftmost node; ``None`` when every node on that level is zero. With
    ``usable`` (the machine's real size when processors ``usable..`` are padding), only nodes
    whose first ``width`` processors (default the whole block) are real are considered.
    """
    if usable is None or usable >= m.processors:
        value, index = m.tree.best(block)
        return index if value > 0 else None
    values = m.tree.level_for_block(block)
    fits = (np.arange(len(values)) * block + (block if width is None else width)) <= usable
    masked = np.where(fits, values, 0)
    index = int(np.argmax(masked))
    return index if masked[index] > 0 else None


def place_wlv(m: OusterhoutMatrix, job: int, size: int, out: list[MatrixChange], *,
              leftmost: bool = False, pairwise: bool = False) -> int:
    """Allocate ``size`` consecutive processors to ``job`` through the WLV; return its row.

    ``leftmost=True`` takes the leftmost window of non-zero entries instead of the least-loaded
    one (the first of the two subsets of [Zhou99 §4, Fig. 5], which the paper does not prefer);
    ``pairwise`` re-packs as :func:`~gangviz.core.repack.gather` says.
    Raises ``ValueError`` if ``size`` exceeds the machine.
    """
    pick = leftmost_window if leftmost else best_window
    start = pick(m.wlv, size, m.ring) if m.n_rows else None
    reason = ("WLV: the leftmost run of non-zero entries" if leftmost
              else "WLV: the least-loaded run of non-zero entries")
    if start is None:
        emit(m, out, SlotAdded(m.n_rows, f"no {size} consecutive processors have an idle slot"))
        start = pick(m.wlv, size, m.ring)
        reason = "in the new slot"
        assert start is not None
    region = m.region_cols(start, start + size)
    cols = region if isinstance(region, range) else tuple(region)
    row = ring_gather(m, start, start + size, out, f"Property 1 frees {cols_label(cols)}", pairwise)
    if row is None:  # a ring whose fragments there cannot be combined: as if no window had room
        emit(m, out, SlotAdded(m.n_rows, f"on the ring no legal cut lets the idle slots of "
                                         f"{cols_label(cols)} combine into one slot"))
        reason = "in the new slot"
        row = gather(m, start, start + size, out, "the new slot is idle everywhere")
    emit(m, out, JobPlaced(job, row, cols, reason))
    return row


def place_buddy(
    m: OusterhoutMatrix, job: int, size: int, out: list[MatrixChange], occupy: str = "block",
    usable: int | None = None,
) -> int:
    """Allocate ``job`` a buddy block through the WLT; return its row.

    ``occupy="block"`` gives the job the whole block (classic buddy: the n - p extra processors
    are lost to internal fragmentation); ``occupy="size"`` gives it the first ``size``
    processors of the block and leaves the rest to smaller buddies.
    ``usable`` is the machine's real size when processors ``usable..`` are padding: the job is
    never placed on them. Raises ``ValueError`` if the processor count is not a power of two or
    ``size`` exceeds it (or the real machine).
    """
    require_power_of_two(m.processors)
    if not 1 <= size <= m.processors:
        raise ValueError(f"job size must be in 1..{m.processors} processors, got {size}")
    block = next_power_of_two(size)
    width = block if occupy == "block" else size
    if usable is not None and width > usable:
        raise ValueError(f"a job of {size} processors holds {width} under occupy={occupy!r}, more "
                         f"than the {usable} real processors (the rest are padding)")
    node = best_block(m, block, usable, width) if m.n_rows else None
    reason = f"WLT: least-loaded non-zero node of the {block}-processor level"
    if node is None:
        emit(m, out, SlotAdded(m.n_rows, f"every {block}-processor WLT node is zero"))
        node = best_block(m, block, usable, width)
        reason = "in the new slot"
        assert node is not None
    lo = node * block
    row = ring_gather(m, lo, lo + block, out, f"Property 1 within the buddy block {cols_label(range(lo, lo + block))}")
    if row is None:  # a ring whose fragments there cannot be combined: as if the node were zero
        emit(m, out, SlotAdded(m.n_rows, f"on the ring no legal cut lets the idle slots of "
                                         f"{cols_label(range(lo, lo + block))} combine into one slot"))
        reason = "in the new slot"
        row = gather(m, lo, lo + block, out, "the new slot is idle everywhere")
    emit(m, out, JobPlaced(job, row, range(lo, lo + width), reason))
    return row


def require_power_of_two(processors: int) -> None:
    """Raise ``ValueError`` unless ``processors`` is a power of two (buddy schemes need it)."""
    if processors < 1 or processors & (processors - 1):
        raise ValueError(
            f"buddy allocation needs a power-of-two number of processors, got {processors} "
            f"(run it on --procs {next_power_of_two(max(processors, 1))}, the next power of two, "
            f"or use the 'repack' policy, which takes any size)"
        )
