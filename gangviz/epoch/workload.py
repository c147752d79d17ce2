"""Workloads of §5 (McCann94, Table 3 and §5.2).

* Minimum node requirements: M_j uniform on 1 .. 2 L N / J - 1, so the load factor L (jobs
  times mean M, over N) holds on average. Table 3's "2^(L*N/J) - 1" is read as 2 L N / J - 1
  (the only reading whose mean gives load factor L). The bound is rounded to the nearest integer
  and clipped to 1..N (a job must fit the machine).
* Closed system (§5.2): J jobs; each departure is replaced at once by a new job, short or long
  with probability 1/2 each, work exponential with mean 400 or 4000 units of sequential
  service, speedup parameter beta uniform on [30, 300].
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol


def max_min_nodes(nodes: int, jobs: int, load: float) -> int:
    """Return the upper end of the M_j range: round(2 L N / J) - 1, clipped to 1..N."""
    if nodes < 1 or jobs < 1 or load <= 0:
        raise ValueError(f"need N >= 1, J >= 1 and load > 0, got N={nodes}, J={jobs}, "
                         f"load={load}")
    return max(1, min(nodes, round(2 * load * nodes / jobs) - 1))


def draw_mins(rng: random.Random, nodes: int, jobs: int, load: float) -> list[int]:
    """Return J minimum node requirements drawn uniformly from 1..max_min_nodes(N, J, L)."""
    top = max_min_nodes(nodes, jobs, load)
    return [rng.randint(1, top) for _ in range(jobs)]


@dataclass(frozen=True, slots=True)
class EpochJobSpec:
    """One job of the closed system: id, M, work (sequential units), beta, class name."""

    id: int
    min_nodes: int
    work: float
    beta: float
    cls: str


class JobSequence(Protocol):
    """A simulation's source of jobs: job ``index`` of the sequence (0-based), raising
    ``IndexError`` past a finite sequence's end (:class:`ClosedWorkload` never ends)."""

    def job(self, index: int) -> EpochJobSpec: ...


class ClosedWorkload:
    """The endless job sequence of §5.2; job i is the same whatever policy consumes it.

    Raises ``ValueError`` for bad parameters (non-positive works, an empty beta range).
    """

    def __init__(self, nodes: int, jobs: int, load: float = 1.0, seed: int = 0,
                 short_work: float = 400.0, long_work: float = 4000.0,
                 beta_range: tuple[float, float] = (30.0, 300.0)) -> None:
        if not (short_work > 0 and long_work > 0):
            raise ValueError(f"job works must be > 0, got {short_work}, {long_work}")
        if not 0 < beta_range[0] <= beta_range[1]:
            raise ValueError(f"beta range must satisfy 0 < low <= high, got {beta_range}")
        self.nodes, self.jobs, self.load = nodes, jobs, load
        self.top = max_min_nodes(nodes, jobs, load)
        self.short_work, self.long_work, self.beta_range = short_work, long_work, beta_range
        self._rng = random.Random(seed)
        self._specs: list[EpochJobSpec] = []

    def job(self, index: int) -> EpochJobSpec:
        """Return job ``index`` of the sequence (drawn on first use, then remembered)."""
        while len(self._specs) <= index:
            r = self._rng
            i = len(self._specs)
            short = r.random() < 0.5
            mean = self.short_work if short else self.long_work
            self._specs.append(EpochJobSpec(i, r.randint(1, self.top), r.expovariate(1 / mean),
                                            r.uniform(*self.beta_range),
                                            "short" if short else "long"))
        return self._specs[index]
