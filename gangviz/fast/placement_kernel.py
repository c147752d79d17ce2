"""The copies of the Ousterhout matrix a placement log keeps (:mod:`gangviz.fast.placement`),
made by a compiled loop: a 122,000-job trace logs hundreds of thousands of entries, too many to
replay in Python. Kept apart from the log so that reading a finished run's matrix imports no
numba."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["checkpoints"]


@njit(cache=True)
def checkpoints(entries: np.ndarray, every: int, rows: int, processors: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the matrix (``rows x processors`` int32, -1 idle) and its rows in use before
    every ``every``-th entry of a placement log: copy ``i`` is the state after entries
    ``[0, i * every)``, the log's ``[row, first, end, job]`` entries applied in order (``row``
    -1: ``first`` rows in use from then on)."""
    count = (entries.shape[0] + every - 1) // every
    copies = np.full((max(count, 1), rows, processors), -1, np.int32)
    used = np.zeros(max(count, 1), np.int64)
    matrix = np.full((rows, processors), -1, np.int32)
    n = 0
    for i in range(count):
        copies[i] = matrix
        used[i] = n
        for k in range(i * every, min((i + 1) * every, entries.shape[0])):
            r = entries[k, 0]
            if r < 0:
                n = entries[k, 1]
            else:
                matrix[r, entries[k, 1]:entries[k, 2]] = entries[k, 3]
    return copies, used
