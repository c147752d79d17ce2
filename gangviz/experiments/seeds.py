"""Seeds of replicated runs, derived so that a run's result does not depend on where it ran.

A run's seed is a pure function of ``(sweep seed, cell, replication)``: numpy's
:class:`~numpy.random.SeedSequence` with the sweep seed as entropy and ``(*cell, replication)``
as its spawn key, reduced to one 63-bit integer. No counter, process id or clock is involved, so
the same sweep gives bit-identical runs in one process, in a process pool or on a Dask cluster,
in any order, and a resumed sweep recomputes exactly the missing runs.

Choices (documented tie-breaks):

* ``cell`` is the tuple of *per-axis indices* of the grid point (load index, jobs index, ...),
  not a flat counter, so appending a value at the end of a grid axis keeps every existing seed;
  reordering an axis changes them.
* The policy is **not** part of the seed: every policy sees the same workload in the same grid
  point and replication (common random numbers), as the papers compare policies on the same job
  sets (Zhou00 §4.3: "20 different sets of jobs" run under each scheme).
* A policy that draws random numbers itself (``random``) gets a second, independent seed
  (:func:`policy_seed`) derived from the run seed, unless the sweep fixes its ``seed``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_MASK63 = (1 << 63) - 1


def _check(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    return int(value)


def run_seed(sweep_seed: int, cell: Sequence[int], replication: int) -> int:
    """Return the seed (0 <= seed < 2**63) of replication ``replication`` of grid point ``cell``.

    Raises ``ValueError`` for a negative or non-integer seed, index or replication.
    """
    key = tuple(_check("cell index", c) for c in cell) + (_check("replication", replication),)
    ss = np.random.SeedSequence(_check("seed", sweep_seed), spawn_key=key)
    return int(ss.generate_state(1, dtype=np.uint64)[0]) & _MASK63


def policy_seed(seed: int) -> int:
    """Return the seed a randomised policy uses in the run whose seed is ``seed``."""
    ss = np.random.SeedSequence(_check("seed", seed), spawn_key=(1,))
    return int(ss.generate_state(1, dtype=np.uint64)[0]) & _MASK63
