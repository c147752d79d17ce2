"""The IBM study's figures [Zhang01 §2.3] of jobs given as columns, a block of jobs at a time.

:func:`gangviz.metrics.ibm.ibm_metrics_of_columns` makes a float64 array per figure and per job
class (waits, responses, slowdowns, their squared deviations, each class's copy): for ten million
jobs that is gigabytes. :func:`ibm_metrics_of_column_blocks` returns the same dictionary, to the
bit, making no array longer than a block: every per-job value is computed a block at a time from
the columns, and every sum is numpy's own.

Numpy sums a float64 array (``sum``, ``mean``, ``std``) pairwise: an array of ``n > 128``
values is split at ``n2 = n // 2 - (n // 2) % 8``, each half summed the same way, the two sums
added; 128 or fewer go to an eight-way unrolled loop. The split points depend on the length
only, so :func:`pairwise_sum` follows numpy's splits down to pieces of at most ``leaf`` values,
has numpy sum each piece (the same algorithm on that piece) and adds the pieces' sums as numpy
would: the same operations in the same order, the same result. A test compares it with numpy's
sums of arrays of many lengths, and the figures with :func:`ibm_metrics_of_columns`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from gangviz.metrics.ibm import GAMMA, SMALL_NODES_MAX, CapacityLog

#: a column of per-job values: a numpy array or any sequence of numbers
Column = Sequence[float] | np.ndarray

__all__ = ["pairwise_sum", "ibm_metrics_of_column_blocks", "BLOCK"]

#: Jobs computed at once; also the largest piece numpy sums in one call.
BLOCK = 1 << 16

Getter = Callable[[int, int], np.ndarray]


def pairwise_sum(n: int, get: Getter, leaf: int = BLOCK) -> float:
    """Return ``float(np.sum(x))`` of the float64 array ``x`` of length ``n`` that
    ``get(lo, hi)`` gives a piece at a time (``x[lo:hi]``, contiguous float64, ``hi - lo <=
    leaf``), bit for bit (module docstring). ``leaf`` must be at least 128."""
    if leaf < 128:
        raise ValueError(f"leaf must be >= 128 (numpy's unrolled block), got {leaf}")

    def part(lo: int, m: int) -> float:
        if m <= leaf:
            return float(np.add.reduce(get(lo, lo + m))) if m else 0.0
        m2 = m // 2
        m2 -= m2 % 8
        return part(lo, m2) + part(lo + m2, m - m2)

    return part(0, n)


class _Class:
    """The jobs of one class (all, small, large) as a virtual array: ``count`` jobs, and the
    values of any per-job quantity for the class's jobs ``lo .. hi - 1`` (numbered within the
    class, in column order). ``masks[b]`` picks the class's jobs of block ``b`` (``None``:
    all ``lengths[b]`` of them)."""

    def __init__(self, masks: list[np.ndarray | None], lengths: list[int]) -> None:
        self.masks = masks
        counts = [k if m is None else int(np.count_nonzero(m)) for m, k in zip(masks, lengths)]
        self.before = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
        self.count = int(self.before[-1])

    def pieces(self, values: Callable[[int], np.ndarray]) -> Iterator[np.ndarray]:
        """Yield the class's values a block at a time (``values(b)``: every job's of block b)."""
        for b, m in enumerate(self.masks):
            v = values(b)
            yield v if m is None else v[m]

    def getter(self, values: Callable[[int], np.ndarray]) -> Getter:
        """Return the getter of :func:`pairwise_sum` of the class's values."""

        def get(lo: int, hi: int) -> np.ndarray:
            parts = []
            b = int(np.searchsorted(self.before, lo, side="right")) - 1
            while b < len(self.masks) and self.before[b] < hi:
                v = values(b)
                m = self.masks[b]
                if m is not None:
                    v = v[m]
                base = int(self.before[b])
                parts.append(v[max(lo - base, 0):hi - base])
                b += 1
            return np.ascontiguousarray(parts[0] if len(parts) == 1 else np.concatenate(parts))

        return get


def ibm_metrics_of_column_blocks(arrival: Column, start: Column, finish: Column, work: Column,
                                 size: Column, processors: int, *,
                                 time_unit: float = 1.0, capacity: CapacityLog | None = None,
                                 gamma: float = GAMMA, small_max: int = SMALL_NODES_MAX,
                                 throughput_per: float = 1.0, block: int = BLOCK) -> dict[str, Any]:
    """Return :func:`gangviz.metrics.ibm.ibm_metrics_of_columns` of the same arguments, bit for
    bit, with no temporary array longer than ``block`` jobs (or 128, numpy's smallest pairwise
    piece); the columns may be of any numeric dtype (they are read as float64 a block at a
    time). Raises ``ValueError`` as that function does, and for a ``block`` below 1."""
    if processors < 1:
        raise ValueError(f"processors must be >= 1, got {processors}")
    n = len(arrival)
    if not n:
        raise ValueError("no job finished; the metrics need at least one")
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    leaf = max(block, 128)
    blocks = [(lo, min(n, lo + block)) for lo in range(0, n, block)]

    def col(x: Column, b: int, scale: bool = True) -> np.ndarray:
        lo, hi = blocks[b]
        v = np.asarray(x[lo:hi], dtype=np.float64)
        return v * time_unit if scale else v

    def per_job(b: int) -> dict[str, np.ndarray]:
        a, s, f, e = (col(x, b) for x in (arrival, start, finish, work))
        ran = np.minimum(e, f - s)  # bounded_slowdowns, element for element
        return {"wait": s - a, "response": f - a,
                "bounded_slowdown": np.maximum(f - a, gamma) / np.maximum(ran, gamma),
                "node_time": col(size, b, scale=False) * e, "finish": f}

    cache: dict[int, dict[str, np.ndarray]] = {}

    def values(key: str) -> Callable[[int], np.ndarray]:
        def at(b: int) -> np.ndarray:
            if b not in cache:
                if len(cache) > 1:  # the sums walk the blocks in order: keep the last two
                    del cache[min(cache)]
                cache[b] = per_job(b)
            return cache[b][key]
        return at

    # min and max are exact in any order
    origin = np.float64(min(col(arrival, b).min() for b in range(len(blocks))))
    end = np.float64(max(col(finish, b).max() for b in range(len(blocks)))) - origin
    small = [col(size, b, scale=False) <= small_max for b in range(len(blocks))]
    lengths = [hi - lo for lo, hi in blocks]
    classes = {"": _Class([None] * len(blocks), lengths), "_small": _Class(list(small), lengths),
               "_large": _Class([~m for m in small], lengths)}
    denom = end * processors
    out: dict[str, Any] = {"std": {}}
    for suffix, cls in classes.items():
        count = cls.count
        for key in ("wait", "response", "bounded_slowdown"):
            mean, std = _stats(cls, values(key), leaf)
            out[key + suffix] = mean
            out["std"][key + suffix] = std
        used = pairwise_sum(count, cls.getter(values("node_time")), leaf)
        out["utilization" + suffix] = float(np.float64(used) / denom) if denom > 0 else math.nan
        lost = None if capacity is None else {"": capacity.lost, "_small": capacity.lost_small,
                                              "_large": capacity.lost_large}[suffix]
        out["loss_of_capacity" + suffix] = math.nan if lost is None or denom <= 0 else lost * time_unit / denom
        if count:
            last = max(v.max() for v in cls.pieces(values("finish")) if len(v))
            out["makespan" + suffix] = float(last - origin)
        else:
            out["makespan" + suffix] = math.nan
        out["throughput" + suffix] = count / end * throughput_per if end > 0 else math.nan
        out["jobs" + suffix] = count
    # these loops run every job to the end of its work (no estimate stops one)
    out.update(jobs_completed=classes[""].count, jobs_killed=0, work_unserved=0.0,
               utilization_requested=out["utilization"])
    return out


def _stats(cls: _Class, values: Callable[[int], np.ndarray], leaf: int) -> tuple[float, float]:
    """``(values.mean(), values.std())`` of the class's values as numpy computes them: the mean
    is the pairwise sum over the count; the deviation the square root of the pairwise sum of
    ``(x - mean) * (x - mean)`` over the count."""
    n = cls.count
    if n == 0:
        return math.nan, math.nan
    get = cls.getter(values)
    mean = np.float64(pairwise_sum(n, get, leaf)) / n
    sq = pairwise_sum(n, lambda lo, hi: _squared(get(lo, hi), mean), leaf)
    return float(mean), float(np.sqrt(np.float64(sq) / n))


def _squared(x: np.ndarray, mean: np.float64) -> np.ndarray:
    d = x - mean
    return d * d
