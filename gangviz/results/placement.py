"""Named processors for a space-sharing schedule, and processor lists as interval sets.

A space-sharing run (FCFS, EASY, conservative [Zhang01 §3]) books processor *counts*: the
machine is one row and a job needs ``size`` free processors, not particular ones. A Gantt chart
(evalys, Batsim's ``allocated_resources``) needs named processors, so :func:`place_counts`
chooses them after the run: at each instant jobs that finish release their processors before
jobs that start take theirs (the simulator's tie rule), and a starting job takes the
lowest-numbered free ones, contiguous where they are. The schedule never runs more than the
machine at once, so a placement always exists; it is one of many and decides nothing.

:func:`interval_set` writes a list of processors in the interval syntax of Batsim and evalys
(``"0-23 25 28-29"``), of any length.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from gangviz.results.texts import TextColumn

__all__ = ["interval_set", "interval_texts", "place_counts", "place_texts"]


def interval_set(cols: Sequence[int] | np.ndarray | None) -> str:
    """Return processors as an interval set (``[0, 1, 2, 5]`` -> ``"0-2 5"``), sorted, each
    processor once; ``""`` for none."""
    if cols is None or not len(cols):
        return ""
    values = np.unique(np.asarray(cols, dtype=np.int64))
    breaks = np.flatnonzero(np.diff(values) != 1)
    lo = values[np.concatenate(([0], breaks + 1))].tolist()
    hi = values[np.concatenate((breaks, [len(values) - 1]))].tolist()
    return " ".join(f"{a}-{b}" if b > a else str(a) for a, b in zip(lo, hi))


def interval_texts(cols: np.ndarray, begins: np.ndarray) -> np.ndarray:
    """Return the interval set (:func:`interval_set`) of each of the flat lists of processors
    ``cols[begins[j]:begins[j + 1]]`` (each ascending, each processor once) as an object array
    of ``str``, all in one compiled pass (:func:`gangviz.fast.intervals.list_texts`)."""
    from gangviz.fast.intervals import list_texts

    return TextColumn(*list_texts(cols, begins)).strings()


def place_counts(start: Sequence[float] | np.ndarray, finish: Sequence[float] | np.ndarray,
                 size: Sequence[int] | np.ndarray, processors: int) -> list[str]:
    """Return, per job, the processors it held as an interval set (:func:`interval_set`),
    chosen as the module docstring says; ``""`` for a job that has not started. The free
    processors are the bits of one integer, so a job takes whole runs of free processors at a
    time and its interval set is those runs (:func:`place_counts_python` is the same rule with
    a processor array, event by event).

    The optional C loop (:func:`_c_place`) does the same where it is built.

    Raises ``ValueError`` when the schedule needs more than ``processors`` at some instant (not
    a schedule of this machine).
    """
    out = [""] * len(start)
    events = _events(start, finish)
    if events is None:
        return out
    times, kinds, jobs, ends = events
    sz = np.ascontiguousarray(size, dtype=np.int64)
    placed = _c_place(times, kinds, jobs, sz, ends, processors)
    if placed is not None:
        return placed
    sizes, last = sz.tolist(), ends.tolist()
    free = (1 << processors) - 1  # bit p: processor p is free
    held: dict[int, int] = {}
    for t, kind, j in zip(times.tolist(), kinds.tolist(), jobs.tolist()):
        if kind == 0:
            free |= held.pop(j, 0)
            continue
        need, left, taken, parts = sizes[j], free, 0, []
        while need:
            if not left:
                raise ValueError(f"the schedule runs more than {processors} processors at time {t:g}")
            low = left & -left
            first = low.bit_length() - 1
            run = left & ~(left + low)  # the lowest run of free processors
            length = run.bit_count()
            if length > need:
                run, length = ((1 << need) - 1) << first, need
            taken |= run
            left &= ~run
            need -= length
            parts.append(f"{first}-{first + length - 1}" if length > 1 else str(first))
        out[j] = " ".join(parts)
        if last[j] > t:  # a job of no length holds nothing
            free &= ~taken
            held[j] = taken
    return out


def place_texts(start: Sequence[float] | np.ndarray, finish: Sequence[float] | np.ndarray,
                size: Sequence[int] | np.ndarray, processors: int) -> TextColumn:
    """Return :func:`place_counts` of the schedule as one
    :class:`~gangviz.results.texts.TextColumn` (what the per-job writers take), made by the
    optional C loop without a string per job where it is built; raises as :func:`place_counts`
    does."""
    events = _events(start, finish)
    if events is not None and not os.environ.get("GANGVIZ_PURE_PYTHON"):
        try:
            from gangviz.spacesharing import _easyloop

            place = getattr(_easyloop, "place_columns", None)
        except ImportError:
            place = None
        if place is not None:
            times, kinds, jobs, ends = events
            try:
                placed = place(times, kinds, jobs, np.ascontiguousarray(size, dtype=np.int64), ends, processors,
                               True)
            except TypeError:  # an extension built before it wrote one buffer
                placed = None
            if placed is not None:
                data, offsets = placed
                return TextColumn(np.frombuffer(data, np.uint8), np.frombuffer(offsets, np.int64))
    return TextColumn.of(place_counts(start, finish, size, processors))


def _events(start: Sequence[float] | np.ndarray, finish: Sequence[float] | np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Return the schedule's events in the order they are placed, ``(times, kinds, jobs)``
    (kind 0 releases a job's processors, kind 1 takes them; at one instant releases come
    before takes, then by job), and every job's end (``inf`` for one that does not end); ``None``
    when no job started."""
    st = np.asarray(start, dtype=np.float64)
    fi = np.asarray(finish, dtype=np.float64)
    ran = np.flatnonzero(~np.isnan(st))
    if not len(ran):
        return None
    ends = np.where(np.isnan(fi), np.inf, fi)
    times = np.concatenate((ends[ran], st[ran]))
    kinds = np.concatenate((np.zeros(len(ran), np.int8), np.ones(len(ran), np.int8)))
    jobs = np.concatenate((ran, ran)).astype(np.int64)
    order = np.argsort(times, kind="stable")  # already by kind, then job: a stable sort keeps that
    return times[order], kinds[order], jobs[order], ends


def _c_place(times: np.ndarray, kinds: np.ndarray, jobs: np.ndarray, sizes: np.ndarray, ends: np.ndarray,
             processors: int) -> list[str] | None:
    """The placement of :func:`place_counts` by the optional C loop (``place_columns`` of
    :mod:`gangviz.spacesharing._easyloop`, on the arrays :func:`_events` returns and the sizes
    as int64), or ``None`` when it is not built (or declines): the bit-set loop then runs.
    ``GANGVIZ_PURE_PYTHON=1`` skips it, as it does the C loops."""
    if os.environ.get("GANGVIZ_PURE_PYTHON"):
        return None
    try:
        from gangviz.spacesharing import _easyloop
    except ImportError:
        return None
    place = getattr(_easyloop, "place_columns", None)  # an extension built before it had one
    if place is None:
        return None
    placed: list[str] | None = place(times, kinds, jobs, sizes, ends, processors)
    return placed


def place_counts_python(start: Sequence[float] | np.ndarray, finish: Sequence[float] | np.ndarray,
                        size: Sequence[int] | np.ndarray, processors: int) -> list[str]:
    """Return :func:`place_counts` of the schedule, placed event by event on an array of the
    processors (what the bit-set version is tested against); raises as it does."""
    sz = np.asarray(size, dtype=np.int64)
    out = [""] * len(start)
    events = _events(start, finish)
    if events is None:
        return out
    times, kinds, jobs, ends = events
    free = np.ones(processors, bool)
    held: dict[int, np.ndarray] = {}
    for t, kind, j in zip(times.tolist(), kinds.tolist(), jobs.tolist()):
        if kind == 0:
            cols = held.pop(j, None)
            if cols is not None:
                free[cols] = True
            continue
        cols = np.flatnonzero(free)[: sz[j]]
        if len(cols) < sz[j]:
            raise ValueError(f"the schedule runs more than {processors} processors at time {t:g}")
        out[j] = interval_set(cols)
        if ends[j] > t:  # a job of no length holds nothing
            free[cols] = False
            held[j] = cols
    return out
