"""One independent replication of the multi-site model, as a picklable task.

Source: Papazachos09 §4.2 (independent replications, 10 seeds, runs of 64,000
completed gangs). Each run is a :class:`RunSpec` carrying its own seed, derived from the run's
key and never from the worker that executes it, so a run gives the same metrics in any process
or on any machine; :mod:`gangviz.experiments.repro.papazachos` runs many of them through
:func:`gangviz.experiments.runner.map_runs`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gangviz.metrics.multisite import Metrics
from gangviz.multisite.compiled import run_compiled
from gangviz.multisite.config import MultiSiteConfig


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One replication: a configuration, a seed key and the number of gangs to complete.

    ``seed_key`` is ``(base seed, *cell, replication)``: the key of
    :func:`gangviz.experiments.seeds.run_sequence`, the seed scheme of every reproduction.
    """

    cfg: MultiSiteConfig
    seed_key: tuple[int, ...]
    n_gangs: int

    def seed(self) -> np.random.SeedSequence:
        """Return the seed sequence of this run: entropy ``seed_key[0]``, spawn key the rest."""
        return np.random.SeedSequence(self.seed_key[0], spawn_key=tuple(self.seed_key[1:]))


def run_spec(spec: RunSpec) -> Metrics:
    """Run one replication on the compiled loop; return its metrics (those of the reference
    loop :func:`gangviz.multisite.fast.run_fast`, bit for bit)."""
    return run_compiled(spec.cfg, spec.seed(), spec.n_gangs)
