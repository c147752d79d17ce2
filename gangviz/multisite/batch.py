"""Independent replications of the multi-site model, on one core or a process pool.

Source: Papazachos09 §4.2 (independent replications, 10 seeds, runs of 64,000
completed gangs). Each run is a :class:`RunSpec` carrying its own seed, derived from the run's
key and never from the worker that executes it, and results come back in spec order, so the
numbers do not depend on the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.fast import run_fast
from gangviz.metrics.multisite import Metrics


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One replication: a configuration, a seed key and the number of gangs to complete."""

    cfg: MultiSiteConfig
    seed_key: tuple[int, ...]
    n_gangs: int

    def seed(self) -> np.random.SeedSequence:
        """Return the seed sequence of this run: entropy ``seed_key[0]``, spawn key the rest."""
        return np.random.SeedSequence(self.seed_key[0], spawn_key=tuple(self.seed_key[1:]))


def run_spec(spec: RunSpec) -> Metrics:
    """Run one replication with the fast path; return its metrics."""
    return run_fast(spec.cfg, spec.seed(), spec.n_gangs)


def run_many(specs: Sequence[RunSpec], workers: int = 1,
             progress: Callable[[int, int], None] | None = None) -> list[Metrics]:
    """Run every spec; return their metrics in spec order.

    ``workers`` > 1 uses a process pool of that size; the result is the same for any
    ``workers``. ``progress(done, total)``, if given, is called as results come in (in spec
    order). Raises ValueError when ``workers`` < 1.
    """
    from gangviz.experiments.progress import collect

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if workers == 1 or len(specs) <= 1:
        return collect(map(run_spec, specs), len(specs), progress)
    with ProcessPoolExecutor(max_workers=min(workers, len(specs))) as pool:
        return collect(pool.map(run_spec, specs, chunksize=1), len(specs), progress)
