"""The reductions of the table of figures (:mod:`gangviz.metrics.table`), one implementation for
a whole column and for a column read a block of jobs at a time.

:func:`core_figures` returns every figure of the table that reduces per-job values (the core
of the IBM study [Zhang01 §2.3]) from jobs given as columns. Each per-job quantity is written
once (:data:`PER_JOB`, :func:`bounded_slowdowns`) and each reduction once (:func:`reduce_one`);
a whole column is one block.

A block at a time, no array is longer than a block: for ten million jobs a float64 array per
figure and per job class would be gigabytes. The sums are numpy's own, to the bit: numpy sums
a float64 array (``sum``, ``mean``, ``std``) pairwise: an array of ``n > 128`` values is split
at ``n2 = n // 2 - (n // 2) % 8``, each half summed the same way, the two sums added; 128 or
fewer go to an eight-way unrolled loop. The split points depend on the length only, so
:func:`pairwise_sum` follows numpy's splits down to pieces of at most ``leaf`` values, has
numpy sum each piece (the same algorithm on that piece) and adds the pieces' sums as numpy
would: the same operations in the same order, the same result. Minima and maxima are exact in
any order; a percentile gathers the class's values (it needs them all).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gangviz.metrics.table import (
    SIZE_CLASSES,
    SMALL_NODES_MAX,
    SPACE_SHARING,
    TABLE,
    Figure,
    split_keys,
)

__all__ = ["GAMMA", "BLOCK", "Column", "pairwise_sum", "bounded_slowdowns", "PER_JOB", "core_figures",
           "reduce_one", "ordered_figures", "running_figures", "last"]

#: the bounded slowdown's threshold Γ, 10 seconds [Zhang01 §2.3]
GAMMA = 10.0
#: Jobs computed at once; also the largest piece numpy sums in one call.
BLOCK = 1 << 16

#: A column of per-job values: a 1-d array or any sequence of numbers.
Column = Sequence[float] | npt.NDArray[Any]
Array = npt.NDArray[Any]
Getter = Callable[[int, int], Array]


def pairwise_sum(n: int, get: Getter, leaf: int = BLOCK) -> float:
    """Return ``float(np.sum(x))`` of the float64 array ``x`` of length ``n`` that
    ``get(lo, hi)`` gives a piece at a time (``x[lo:hi]``, contiguous float64, ``hi - lo <=
    leaf``), bit for bit (module docstring). ``leaf`` must be at least 128."""
    if leaf < 128:
        raise ValueError(f"leaf must be >= 128 (numpy's unrolled block), got {leaf}")
    return _pairwise(get, 0, n, leaf)


def _pairwise(get: Getter, lo: int, m: int, leaf: int) -> float:
    """The pairwise sum of the ``m`` values from ``lo``. Not a nested function: one calling
    itself is a reference cycle, which would keep the pieces ``get`` read alive until the
    garbage collector runs, so that every call would take fresh memory from the system."""
    if m <= leaf:
        return float(np.add.reduce(get(lo, lo + m))) if m else 0.0
    m2 = m // 2
    m2 -= m2 % 8
    return _pairwise(get, lo, m2, leaf) + _pairwise(get, lo + m2, m - m2, leaf)


def bounded_slowdowns(arrival: npt.ArrayLike, start: npt.ArrayLike, finish: npt.ArrayLike,
                      work: npt.ArrayLike, gamma: float = GAMMA) -> npt.NDArray[np.float64]:
    """Return each job's bounded slowdown ``max(t_f - t_a, gamma) / max(t_e, gamma)`` from
    columns in one time unit, with ``t_e = min(work, t_f - t_s)`` the time it executed
    [Zhang01 §2.3] (:mod:`gangviz.metrics.ibm`): at least 1 for every job whose start is not
    before its arrival."""
    a, s, f, e = (np.asarray(x, dtype=np.float64) for x in (arrival, start, finish, work))
    # two temporaries, each reused in place: fresh memory for every step would cost more
    # than the arithmetic on a million jobs
    ran = f - s
    np.minimum(e, ran, out=ran)
    np.maximum(ran, gamma, out=ran)
    out: npt.NDArray[np.float64] = f - a
    np.maximum(out, gamma, out=out)
    np.divide(out, ran, out=out)
    return out


#: the per-job quantities the table's reductions read (:class:`~gangviz.metrics.table.Reduce`'s
#: ``of``), each from the jobs' float64 columns in one time unit (``ran``: the time each ran)
PER_JOB: dict[str, Callable[[dict[str, Array], float], Array]] = {
    "wait": lambda c, g: c["start"] - c["arrival"],
    "response": lambda c, g: c["finish"] - c["arrival"],
    "bounded_slowdown": lambda c, g: bounded_slowdowns(c["arrival"], c["start"], c["finish"], c["work"], g),
    "slowdown": lambda c, g: (c["finish"] - c["arrival"]) / c["work"],
    "node_time": lambda c, g: c["size"] * c["ran"],
    "node_time_asked": lambda c, g: c["size"] * c["work"],
    "node_time_unserved": lambda c, g: c["size"] * (c["work"] - c["ran"]),
    "finish": lambda c, g: c["finish"],
}


class _Class:
    """The jobs of one class (all, small, large, killed) as a virtual array: ``count`` jobs, and
    the values of any per-job quantity for the class's jobs ``lo .. hi - 1`` (numbered within
    the class, in column order). ``masks[b]`` picks the class's jobs of block ``b`` (``None``:
    all ``lengths[b]`` of them)."""

    def __init__(self, masks: list[Array | None], lengths: list[int]) -> None:
        self.masks = masks
        counts = [k if m is None else int(np.count_nonzero(m)) for m, k in zip(masks, lengths)]
        self.before = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
        self.count = int(self.before[-1])

    def pieces(self, values: Callable[[int], Array]) -> Iterator[Array]:
        """Yield the class's values a block at a time (``values(b)``: every job's of block b)."""
        for b, m in enumerate(self.masks):
            v = values(b)
            yield v if m is None else v[m]

    def getter(self, values: Callable[[int], Array]) -> Getter:
        """Return the getter of :func:`pairwise_sum` of the class's values (a block's values
        picked once for the class, however many sums read them)."""
        memo: dict[int, Array] = {}

        def piece(b: int) -> Array:
            if b not in memo:
                memo.clear()
                m = self.masks[b]
                memo[b] = values(b) if m is None else values(b)[m]
            return memo[b]

        def get(lo: int, hi: int) -> Array:
            parts = []
            b = int(np.searchsorted(self.before, lo, side="right")) - 1
            while b < len(self.masks) and self.before[b] < hi:
                v = piece(b)
                base = int(self.before[b])
                parts.append(v[max(lo - base, 0):hi - base])
                b += 1
            return np.ascontiguousarray(parts[0] if len(parts) == 1 else np.concatenate(parts))

        return get


class _Run:
    """What every reduction reads of one run's jobs: the classes, the per-job values a block at a
    time, the first arrival, the makespan, the machine's node-time, the lost capacity."""

    def __init__(self, classes: dict[str, _Class], values: Callable[[str], Callable[[int], Array]],
                 leaf: int, origin: np.float64, end: np.float64, processors: int,
                 lost: dict[str, float] | None, time_unit: float, throughput_per: float) -> None:
        self.classes, self.values, self.leaf = classes, values, leaf
        self.origin, self.end, self.denom = origin, end, end * processors
        self.lost, self.time_unit, self.throughput_per = lost, time_unit, throughput_per


def _stats(cls: _Class, values: Callable[[int], Array], leaf: int) -> tuple[float, float]:
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


def _squared(x: Array, mean: np.float64) -> Array:
    d = x - mean
    np.multiply(d, d, out=d)
    return d


def reduce_one(figure: Figure, suffix: str, run: _Run, std: dict[str, float]) -> Any:
    """Return ``figure``'s value for the size class ``suffix`` of ``run`` (its
    :class:`~gangviz.metrics.table.Reduce`); a mean puts its deviation in ``std``. Raises
    ``ValueError`` for a reduction this module does not make (``"own"``: the family's code)."""
    how, of = figure.reduce.how, figure.reduce.of
    cls = run.classes[figure.reduce.among or suffix]
    if how == "mean":
        mean, dev = _stats(cls, run.values(of), run.leaf)
        std[figure.key + suffix] = dev
        return mean
    if how in ("share", "sum"):
        total = np.float64(pairwise_sum(cls.count, cls.getter(run.values(of)), run.leaf))
        if how == "sum":
            return float(total)
        return float(total / run.denom) if run.denom > 0 else math.nan
    if how == "lost":
        lost = None if run.lost is None else run.lost[suffix]
        return math.nan if lost is None or run.denom <= 0 else lost * run.time_unit / run.denom
    if how == "extremum":
        if not cls.count:
            return math.nan
        return float(max(v.max() for v in cls.pieces(run.values(of)) if len(v)) - run.origin)
    if how == "rate":
        return cls.count / run.end * run.throughput_per if run.end > 0 else math.nan
    if how == "count":
        return cls.count
    if how == "percentile":
        if not cls.count:
            return math.nan
        return float(np.percentile(np.concatenate(list(cls.pieces(run.values(of)))), figure.reduce.q))
    raise ValueError(f"figure {figure.key!r}: no reduction {how!r} from per-job values")


def core_figures(arrival: Column, start: Column, finish: Column, work: Column, size: Column,
                 processors: int, *, time_unit: float = 1.0, lost: tuple[float, float, float] | None = None,
                 gamma: float = GAMMA, small_max: int = SMALL_NODES_MAX, throughput_per: float = 1.0,
                 executed: Column | None = None, block: int | None = None) -> dict[str, Any]:
    """Return every figure of the table made from per-job values, for finished jobs given as
    columns in a time unit of ``time_unit`` seconds (the keys of
    :func:`gangviz.metrics.ibm.ibm_metrics_of_columns`, ``std`` the deviations of the means).

    ``executed`` is the time each job ran (default: its work); ``lost`` the node-time lost
    while jobs (all, small, large) waited, in the jobs' time unit (``None``: unknown, the loss
    of capacity is ``nan``). With ``block`` no temporary array is longer than ``block`` jobs
    (or 128), with the same result to the bit; the columns may then be of any numeric dtype.
    Raises ``ValueError`` when there is no job, ``processors`` < 1 or ``block`` < 1.
    """
    if processors < 1:
        raise ValueError(f"processors must be >= 1, got {processors}")
    n = len(arrival)
    if not n:
        raise ValueError("no job finished; the metrics need at least one")
    if block is not None and block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    step = n if block is None else block
    leaf = max(step, 128)
    blocks = [(lo, min(n, lo + step)) for lo in range(0, n, step)]

    def col(x: Column, b: int, scale: bool = True) -> Array:
        lo, hi = blocks[b]
        v = np.asarray(x[lo:hi], dtype=np.float64)
        return v * time_unit if scale and time_unit != 1.0 else v  # a product by 1 is the value

    def jobs_of(b: int) -> dict[str, Array]:
        a, s, f, e = (col(x, b) for x in (arrival, start, finish, work))
        ran = e if executed is None else col(executed, b)
        return {"arrival": a, "start": s, "finish": f, "work": e, "size": col(size, b, scale=False), "ran": ran}

    cache: dict[int, dict[str, Array]] = {}

    def values(key: str) -> Callable[[int], Array]:
        def at(b: int) -> Array:
            if b not in cache:
                if len(cache) > 1:  # the sums walk the blocks in order: keep the last two
                    del cache[min(cache)]
                cache[b] = jobs_of(b)
            block = cache[b]
            if key not in block:  # each quantity made once per block, when first read
                block[key] = PER_JOB[key](block, gamma)
            return block[key]
        return at

    every = range(len(blocks))
    origin = np.float64(min(col(arrival, b).min() for b in every))
    end = np.float64(max(col(finish, b).max() for b in every)) - origin
    small = [col(size, b, scale=False) <= small_max for b in every]
    killed = None if executed is None else [col(executed, b) < col(work, b) for b in every]
    run = _Run(_classes([hi - lo for lo, hi in blocks], small, killed), values, leaf, origin, end,
               processors, None if lost is None else dict(zip(SIZE_CLASSES, lost)), time_unit,
               throughput_per)
    return _reduce_all(run)


def _classes(lengths: list[int], small: list[Array], killed: list[Array] | None) -> dict[str, _Class]:
    """The classes of jobs the reductions read, of blocks of ``lengths`` jobs: all, small,
    large (``small``: each block's mask), killed and completed (``killed``: each block's mask,
    ``None``: no job was killed)."""
    nothing = [np.zeros(k, bool) for k in lengths]
    every: list[Array | None] = [None] * len(lengths)
    return {"": _Class(every, lengths), "_small": _Class(list(small), lengths),
            "_large": _Class([~m for m in small], lengths),
            "killed": _Class(list(killed or nothing), lengths),
            "completed": _Class(every if killed is None else [~m for m in killed], lengths)}


def _reduce_all(run: _Run) -> dict[str, Any]:
    """Every figure of the table that reduces per-job values, of ``run``."""
    out: dict[str, Any] = {"std": {}}
    figures = [f for f in TABLE if SPACE_SHARING in f.families and f.reduce.how != "own"]
    for suffix in SIZE_CLASSES:  # each class's figures together, as the keys have always come
        for f in figures:
            if f.split:
                out[f.key + suffix] = reduce_one(f, suffix, run, out["std"])
    for f in figures:
        if not f.split:
            for key in split_keys(f):
                out[key] = reduce_one(f, "", run, out["std"])
    return out


def ordered_figures(family: str, columns: dict[str, Array], processors: int = 0,
                    gamma: float = GAMMA) -> dict[str, Any]:
    """Return ``family``'s figures of the table that reduce per-job values, from ``columns``
    (the jobs in the order they completed, as float64 arrays: ``arrival``, ``start``,
    ``finish``, ``work``, ``ran``, ``size``, or per-job quantities of :data:`PER_JOB` themselves;
    a quantity not given is made from the jobs' columns), each as a running value after each
    job: ``key -> array``, whose last entry is the figure (a mean before the first job is
    ``nan``). ``processors`` is the machine's, for a share of its node-time; ``gamma`` the
    bounded slowdown's threshold.

    The multi-site and epoch families sum in completion order, one job after the other, as
    their simulators and their papers' runs do [Papazachos09 §4.2, McCann94 §5.2]: a sum here is
    ``numpy.cumsum``, which adds in that order, so the figure equals a loop's sum to the bit.
    Each figure is reduced as :func:`running_figures` says. Raises ``ValueError`` for another
    reduction, ``KeyError`` for a column the family's figures need and ``columns`` lack.
    """
    keys = [f.key for f in TABLE if family in f.families and f.reduce.how != "own"]
    return running_figures(keys, columns, processors, gamma)


def running_figures(keys: Sequence[str], columns: dict[str, Array], processors: int = 0,
                    gamma: float = GAMMA) -> dict[str, Any]:
    """Return the figures of the table named ``keys``, each as a running value after each of
    the jobs of ``columns`` in their order (arguments as :func:`ordered_figures`).

    A ``"mean"`` is the sum over the count; a ``"weighted"`` mean the sum of size x value over
    the sum of sizes; a ``"count"`` the jobs; an ``"extremum"`` the last finish so far less the
    first arrival so far (the makespan); a ``"rate"`` the jobs over the makespan; a ``"share"``
    the sum over the machine's node-time so far; a ``"percentile"`` that of the jobs so far; an
    ``"alias"`` the figure it names (which must come first in ``keys``). Raises ``ValueError``
    for another reduction, ``KeyError`` for an unknown key or a column a figure needs and
    ``columns`` lack.
    """
    cols = {k: np.asarray(v, dtype=np.float64) for k, v in columns.items()}
    n = max((len(v) for v in cols.values()), default=0)
    count = np.arange(1, n + 1)
    by_key = {f.key: f for f in TABLE}

    def per_job(of: str) -> Array:
        if of not in cols:
            cols[of] = PER_JOB[of](cols, gamma)
        return cols[of]

    def makespan() -> Array:
        if "makespan" not in cols:
            cols["makespan"] = np.maximum.accumulate(per_job("finish")) - np.minimum.accumulate(cols["arrival"])
        return cols["makespan"]

    out: dict[str, Any] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for key in keys:
            f = by_key[key]
            how, of = f.reduce.how, f.reduce.of
            if how == "mean":
                out[key] = np.cumsum(per_job(of)) / count
            elif how == "weighted":
                size = per_job("size")
                out[key] = np.cumsum(size * per_job(of)) / np.cumsum(size)
            elif how == "count":
                out[key] = count
            elif how == "extremum":
                out[key] = makespan()
            elif how == "rate":
                span = makespan()
                out[key] = np.where(span > 0, count / span, math.nan)
            elif how == "share":
                span = makespan()
                out[key] = np.where(span > 0, np.cumsum(per_job(of)) / (span * processors), math.nan)
            elif how == "percentile":
                out[key] = _running_percentile(per_job(of), f.reduce.q)
            elif how == "alias":
                out[key] = out[of]
            else:
                raise ValueError(f"figure {key!r}: no running reduction {how!r}")
    return out


def _running_percentile(values: Array, q: float) -> Array:
    """The ``q``-th percentile of each prefix of ``values`` (linear interpolation between the
    closest ranks, numpy's default), kept sorted as the jobs come; the whole column's is
    ``numpy.percentile``'s own, to the bit."""
    out = np.empty(len(values))
    ordered: list[float] = []
    for i, v in enumerate(values.tolist()):
        bisect.insort(ordered, v)
        pos = q / 100.0 * i
        lo = int(pos)
        hi = min(lo + 1, i)
        out[i] = ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
    if len(values):
        out[-1] = np.percentile(values, q)
    return out


def last(running: dict[str, Array]) -> dict[str, Any]:
    """Return the figures of :func:`ordered_figures`'s running values: each one's last entry
    (``nan`` for a mean of no job, 0 for a count of none), as Python numbers."""
    out: dict[str, Any] = {}
    for key, values in running.items():
        counted = values.dtype.kind in "iu"
        out[key] = (int(values[-1]) if len(values) else 0) if counted else (
            float(values[-1]) if len(values) else math.nan)
    return out
