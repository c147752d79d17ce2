"""The :class:`Workload`: a list of jobs plus what is known about the machine they came from.

Every source of jobs (an SWF trace read by :mod:`gangviz.workloads.swf`, a synthetic model of
:mod:`gangviz.workloads.synthetic`) hands the simulator a :class:`Workload`. Times inside the
jobs are in *slices*; ``slice_seconds`` says how long one slice was in the source, so that a
writer can turn them back into seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gangviz.core.jobs import JobSpec


@dataclass
class Workload:
    """A job list and its context.

    Attributes:
        jobs: the jobs, ids ``0..n-1`` in submit order (ties keep their order in the source).
        processors: the machine size the workload was meant for, or ``None`` when unknown.
        source: where the jobs came from (a file path, or a model description such as
            ``"downey(n_jobs=200, load=0.5, procs=128, seed=1)"``).
        header: free key/value metadata (SWF header comments, model parameters). Repeated SWF
            keys are joined with newlines.
        warnings: plain sentences about what was skipped or repaired while building the jobs.
        slice_seconds: length of one slice in the source's time unit (seconds for SWF).
        submit_offset: the source's submit time of the first job, in the source's unit, before
            arrivals were shifted to start at 0 (0.0 for synthetic models).
    """

    jobs: list[JobSpec]
    processors: int | None
    source: str
    header: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    slice_seconds: float = 1.0
    submit_offset: float = 0.0

    def __len__(self) -> int:
        return len(self.jobs)

    def arrivals(self) -> np.ndarray:
        """Return the arrival times (slices) as a float array, in job order."""
        return np.fromiter((j.arrival for j in self.jobs), dtype=np.float64, count=len(self.jobs))

    def sizes(self) -> np.ndarray:
        """Return the job sizes (processors) as an int64 array, in job order."""
        return np.fromiter((j.size for j in self.jobs), dtype=np.int64, count=len(self.jobs))

    def works(self) -> np.ndarray:
        """Return the service demands (slices) as a float array, in job order."""
        return np.fromiter((j.work for j in self.jobs), dtype=np.float64, count=len(self.jobs))

    def span(self) -> float:
        """Return the time from the first to the last arrival, in slices (0.0 for < 2 jobs)."""
        if len(self.jobs) < 2:
            return 0.0
        a = self.arrivals()
        return float(a.max() - a.min())

    def total_work(self) -> float:
        """Return the total processor-slices the jobs demand: the sum of size x work."""
        if not self.jobs:
            return 0.0
        return float(np.dot(self.sizes().astype(np.float64), self.works()))

    def offered_load(self, processors: int | None = None) -> float | None:
        """Return the offered load rho = lambda * E[p] * E[t] / P (Zhou00 §4.3, definition of rho).

        The arrival rate lambda is estimated as ``(n - 1) / span`` (n jobs define n - 1
        inter-arrival gaps), so rho = (n - 1) / n * sum(size * work) / (P * span). ``processors``
        overrides :attr:`processors`. Returns ``None`` when the machine size is unknown or the
        arrival span is zero (fewer than two distinct arrival times).
        """
        procs = self.processors if processors is None else processors
        span = self.span()
        if not procs or span <= 0:
            return None
        n = len(self.jobs)
        return (n - 1) / n * self.total_work() / (procs * span)
