"""What the benchmark scripts share: the best of repeated timings (imported by its name, as the
scripts run from this folder: ``python benchmarks/bench_swf.py``; the leading underscore says it
is no benchmark of its own)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 3,
            clock: Callable[[], float] = time.perf_counter) -> float:
    """Return the shortest of ``repeat`` timings of ``fn()`` in seconds of ``clock``."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)
