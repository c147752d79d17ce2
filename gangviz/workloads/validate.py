"""The text report of ``gangviz validate FILE...``: is a trace usable, and what does it hold?

For each file: jobs kept out of job records read, processors (and where the number came from),
time span, offered load, a size histogram in power-of-two bins and a run-time histogram in
fixed human bins (both drawn with ``#``), then the reader's warnings. Bin counts never depend on
values in the file beyond a logarithm (at most 64 size bins, a fixed list of time bins).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TextIO

import numpy as np

from gangviz.workloads.model import Workload
from gangviz.workloads.swf import SWFError, check_options, header_int, read_swf

BAR = 40
#: Run-time bin edges in seconds and their labels.
TIME_EDGES = (0.0, 1.0, 10.0, 60.0, 600.0, 3600.0, 36000.0, 86400.0, 864000.0, float("inf"))
TIME_LABELS = ("< 1 s", "1-10 s", "10 s-1 min", "1-10 min", "10 min-1 h", "1-10 h", "10 h-1 d",
               "1-10 d", ">= 10 d")


def _bars(labels: Sequence[str], counts: Sequence[int]) -> list[str]:
    nz = [i for i, c in enumerate(counts) if c]
    if not nz:
        return []
    top = max(counts)
    width = max(len(lab) for lab in labels)
    out = []
    for i in range(nz[0], nz[-1] + 1):
        c = counts[i]
        bar = "#" * (max(1, round(BAR * c / top)) if c else 0)
        out.append(f"    {labels[i]:>{width}} | {bar:<{BAR}} {c}")
    return out


def size_histogram(sizes: np.ndarray) -> list[str]:
    """Return the lines of a size histogram in bins 1, 2, 3-4, 5-8, ... (power-of-two tops)."""
    if sizes.size == 0:
        return []
    idx = np.zeros(len(sizes), dtype=np.int64)
    big = sizes > 1
    # bin k >= 1 holds 2^(k-1) < s <= 2^k
    idx[big] = np.ceil(np.log2(sizes[big].astype(np.float64))).astype(np.int64)
    # log2 of an exact power of two is exact; guard float rounding just above one
    over = big & (np.left_shift(1, np.minimum(idx, 62)) < sizes)
    idx[over] += 1
    counts = np.bincount(idx).tolist()
    labels = ["1" if k == 0 else str(2**k) if k == 1 else f"{2**(k - 1) + 1}-{2**k}"
              for k in range(len(counts))]
    return _bars(labels, counts)


def runtime_histogram(seconds: np.ndarray) -> list[str]:
    """Return the lines of a run-time histogram over :data:`TIME_EDGES` (seconds)."""
    if seconds.size == 0:
        return []
    idx = np.searchsorted(np.asarray(TIME_EDGES), seconds, side="right") - 1
    counts = np.bincount(np.clip(idx, 0, len(TIME_LABELS) - 1), minlength=len(TIME_LABELS))
    return _bars(TIME_LABELS, counts.tolist())


def human_seconds(s: float) -> str:
    """Return ``s`` seconds as a short human duration (``"3.2 h"``, ``"271.3 d"``)."""
    for unit, length in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if s >= length:
            return f"{s / length:.1f} {unit}"
    return f"{s:g} s"


def summary(workload: Workload, *, procs_given: bool = False) -> str:
    """Return the multi-line text summary of ``workload`` (without the warnings).

    ``procs_given`` says the processor count came from ``--procs`` (for the report only).
    """
    w = workload
    sl = w.slice_seconds
    sizes = w.sizes()
    lines = [w.source]
    records = w.header.get("JobRecords")
    lines.append(f"  jobs:         {len(w.jobs)}" + (f" usable of {records} job records" if records else ""))
    if w.processors is None:
        lines.append(f"  processors:   unknown (largest job: {int(sizes.max())})")
    else:
        where = ("--procs" if procs_given else "MaxProcs header" if header_int(w.header, "MaxProcs")
                 else "MaxNodes header" if header_int(w.header, "MaxNodes") else "model")
        lines.append(f"  processors:   {w.processors} ({where})")
    span_s = w.span() * sl
    lines.append(f"  time span:    {span_s:g} s ({human_seconds(span_s)}) from submit time "
                 f"{w.submit_offset:g} s; one slice = {sl:g} s")
    load = w.offered_load()
    lines.append("  offered load: " + ("n/a (needs the processor count and two arrival times)"
                                       if load is None else f"{load:.3f}"))
    lines.append("  sizes (processors):")
    lines += size_histogram(sizes)
    lines.append("  run times:")
    lines += runtime_histogram(w.works() * sl)
    return "\n".join(lines)


def validate_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    procs: int | None = None,
    slice_seconds: float = 1.0,
    strict: bool = False,
    out: TextIO,
) -> int:
    """Write a report for each file to ``out``; return 0 when every file is usable, else 1.

    A file is usable when :func:`read_swf` returns at least one job. A file that is not gets
    its one-line error in the report; a ``.toml`` file is named as a scenario, playlist or
    session file rather than read as a trace. Raises ``ValueError`` (naming the allowed range) for a
    bad ``procs`` or ``slice_seconds`` before reading anything.
    """
    check_options(procs, slice_seconds)
    status = 0
    for i, path in enumerate(paths):
        if i:
            out.write("\n")
        if os.fspath(path).lower().endswith(".toml"):
            # a scenario, playlist or session file would otherwise fail as line 1 of a trace
            out.write(f"{path}\n  error: {path}: a TOML file (scenario, playlist or session), not an "
                      "SWF trace: check it with 'gangviz run' or 'gangviz open'\n  result: not usable\n")
            status = 1
            continue
        try:
            w = read_swf(path, procs=procs, slice_seconds=slice_seconds, strict=strict)
        except (SWFError, OSError) as exc:
            msg = str(exc) if isinstance(exc, SWFError) else f"{path}: cannot read: {exc.strerror or exc}"
            out.write(f"{path}\n  error: {msg}\n  result: not usable\n")
            status = 1
            continue
        out.write(summary(w, procs_given=procs is not None) + "\n")
        if w.warnings:
            out.write("  warnings:\n")
            for m in w.warnings:
                out.write(f"    - {m}\n")
        out.write("  result: usable\n")
    return status
