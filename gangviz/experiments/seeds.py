"""Seeds of replicated runs, derived so that a run's result does not depend on where it ran.

The one seed scheme of sweeps and of every paper reproduction: a run's seed is a pure function
of ``(base seed, cell, replication)``: numpy's :class:`~numpy.random.SeedSequence` with the base
seed as entropy and ``(*cell, replication)`` as its spawn key (:func:`run_sequence`), reduced
to one 63-bit integer (:func:`run_seed`) for a model that takes an integer. No counter, process
id or clock is involved, so the same sweep or reproduction gives bit-identical runs in one
process, in a process pool or on a Dask cluster, in any order, and a resumed sweep recomputes
exactly the missing runs (and a run retried after its worker died gives the same result).

The cells of the reproductions (whatever the cell, all policies compared in it share the seed):

* ``repro zhou-*``: cell ``(load index,)``, replication = job set.
* ``repro zhang-table1``: cell ``()``, replication = replication; the nine workloads of one
  replication scale one sample (Zhang01 §2.2).
* ``repro papazachos``: cell ``(distribution index, lambda index)``, replication = replication;
  the multi-site model takes the :func:`run_sequence` itself.
* ``repro mccann``: cell ``(stream, N, J, load in percent)`` (stream 0: the minima of the
  overhead trials, 1: the response-time simulations), replication = trial, so every figure that
  shares (N, J, load) shares its random minima.

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


def run_sequence(sweep_seed: int, cell: Sequence[int], replication: int) -> np.random.SeedSequence:
    """Return the seed sequence of replication ``replication`` of grid point ``cell``: entropy
    ``sweep_seed``, spawn key ``(*cell, replication)``.

    Raises ``ValueError`` for a negative or non-integer seed, index or replication.
    """
    key = tuple(_check("cell index", c) for c in cell) + (_check("replication", replication),)
    return np.random.SeedSequence(_check("seed", sweep_seed), spawn_key=key)


def run_seed(sweep_seed: int, cell: Sequence[int], replication: int) -> int:
    """Return the seed (0 <= seed < 2**63) of replication ``replication`` of grid point ``cell``:
    the first 64 bits of :func:`run_sequence`'s state, less the top bit.

    Raises ``ValueError`` for a negative or non-integer seed, index or replication.
    """
    ss = run_sequence(sweep_seed, cell, replication)
    return int(ss.generate_state(1, dtype=np.uint64)[0]) & _MASK63


def policy_seed(seed: int) -> int:
    """Return the seed a randomised policy uses in the run whose seed is ``seed``."""
    ss = np.random.SeedSequence(_check("seed", seed), spawn_key=(1,))
    return int(ss.generate_state(1, dtype=np.uint64)[0]) & _MASK63
