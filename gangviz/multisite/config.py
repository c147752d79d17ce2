"""Parameters of the multi-site gang-scheduling model.

Source: Papazachos09 (Papazachos and Karatza), §2 "System and workload models",
§3 "Scheduling strategy" and §4.2 "Input parameters". The defaults are the paper's: two sites
of P = 16 processors, exponential service with mean 1/mu = 1, migration overheads 0.05 (local)
and 0.1 (grid), aging k = 3.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from gangviz.core.registry import PolicyEntry

#: The gang-size distributions of §2: bounded normal (sigma 3 or 4) or uniform on [1..P].
SIZE_DISTRIBUTIONS = ("normal", "uniform")


@dataclass(frozen=True, slots=True)
class MultiSiteConfig:
    """One configuration of the model.

    Attributes:
        sites: number of sites (paper: 2).
        procs: processors per site, P (paper: 16); one FIFO queue per processor.
        arrival_rate: lambda, gangs per time unit (paper: 2.3 .. 2.45).
        size_dist: ``"normal"`` (bounded normal on [1..P], mean (1+P)/2) or ``"uniform"``.
        sigma: standard deviation of the bounded normal (paper: 3 or 4); unused for uniform.
        mean_service: 1/mu (paper: 1).
        migrate: False for AFCFS, True for AFCFSwM (AFCFS with local and grid migration).
        local_overhead: time a local migration takes (paper: 0.05).
        grid_overhead: time a grid migration takes (paper: 0.1).
        aging_k: a queue accepts no migrated task while one of its tasks has already been
            bypassed this many times (paper: k = 3); at least 1.
        afcfs_overtake: how AFCFS treats a queue's order (§3.2). True (default, the paper's
            wording: "a job is scheduled whenever processors assigned to its tasks are available
            ... AFCFS schedules other jobs whose tasks are behind the tasks of the aforementioned
            job"): a gang starts when every processor holding one of its tasks is available,
            whatever the task's place in the queue. False: strict per-queue FIFO, a gang starts
            only when each of its tasks is at the head of an idle processor's queue (with it,
            plain AFCFS is unstable at the paper's loads: its RT grows with the run length).
    """

    sites: int = 2
    procs: int = 16
    arrival_rate: float = 2.3
    size_dist: str = "normal"
    sigma: float = 3.0
    mean_service: float = 1.0
    migrate: bool = False
    local_overhead: float = 0.05
    grid_overhead: float = 0.1
    aging_k: int = 3
    afcfs_overtake: bool = True

    def __post_init__(self) -> None:
        _check_int("sites", self.sites, 1, 64)
        _check_int("procs", self.procs, 1, 1024)
        _check_pos("arrival_rate", self.arrival_rate)
        _check_pos("mean_service", self.mean_service)
        if self.size_dist not in SIZE_DISTRIBUTIONS:
            raise ValueError(
                f"size_dist must be one of {', '.join(SIZE_DISTRIBUTIONS)}, got {self.size_dist!r}"
            )
        if self.size_dist == "normal":
            _check_pos("sigma", self.sigma)
        for name in ("local_overhead", "grid_overhead"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        _check_int("aging_k", self.aging_k, 1, 10**6)
        if not isinstance(self.afcfs_overtake, bool):
            raise ValueError(f"afcfs_overtake must be True or False, got {self.afcfs_overtake!r}")

    @property
    def total_procs(self) -> int:
        """Return the number of processors of all sites together."""
        return self.sites * self.procs

    @property
    def policy(self) -> str:
        """Return the policy name: ``"AFCFSwM"`` with migration, else ``"AFCFS"``."""
        return "AFCFSwM" if self.migrate else "AFCFS"

    def with_(self, **changes: Any) -> MultiSiteConfig:
        """Return a copy with ``changes`` applied (validated again)."""
        return replace(self, **changes)


def _check_int(name: str, value: object, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")


def _check_pos(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
        math.isfinite(value) and value > 0
    ):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


def migrates(entry: PolicyEntry, params: Mapping[str, Any]) -> bool:
    """Return the multi-site family's policy object of ``entry``: whether AFCFS migrates (its
    ``migrate`` trait, Papazachos09 §3.3); the scenario's ``[params]`` configure the sites, so
    ``params`` are none (:attr:`gangviz.core.registry.Family.maker`)."""
    return "migrate" in entry.traits
