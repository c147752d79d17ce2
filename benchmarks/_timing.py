"""What the benchmark scripts share: the best of repeated timings, the spread of paired ones and
a big trace made from a small one (imported by its name, as the
scripts run from this folder: ``python benchmarks/bench_swf.py``; the leading underscore says it
is no benchmark of its own)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def best_of(fn: Callable[[], object], repeat: int = 3,
            clock: Callable[[], float] = time.perf_counter) -> float:
    """Return the shortest of ``repeat`` timings of ``fn()`` in seconds of ``clock``."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def spread(values: Sequence[float], fmt: str = "7.3f") -> str:
    """Return ``"min / median"`` of ``values``, each written as ``fmt``."""
    return f"{min(values):{fmt}} / {statistics.median(values):{fmt}}"


def ratios(base: Sequence[float], other: Sequence[float]) -> list[float]:
    """Return each pair's ``other / base``, pair by pair."""
    return [b / a for a, b in zip(base, other)]


def make_trace(src: Path, jobs: int, dest: Path, header: list[str] | None = None) -> int:
    """Write ``jobs`` job lines to ``dest``, the job lines of the SWF file ``src`` repeated with
    new ids, each repetition shifted past the last submit of the one before; under ``header``
    (comment lines) when given, else under ``src``'s own. Return the count written."""
    own, rows = [], []
    for line in src.read_text().splitlines():
        (own if line.lstrip().startswith(";") or not line.strip() else rows).append(line)
    parsed = [line.split() for line in rows]
    span = max(float(r[1]) for r in parsed) + 1
    out, n, rep = list(own if header is None else header), 0, 0
    while n < jobs:
        for r in parsed:
            if n == jobs:
                break
            f = list(r)
            f[0] = str(n + 1)
            f[1] = str(int(float(f[1]) + rep * span))
            out.append(" ".join(f"{v:>6}" for v in f))
            n += 1
        rep += 1
    dest.write_text("\n".join(out) + "\n")
    return n
