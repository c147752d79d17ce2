"""The state of the multi-site model that change records mutate.

Source: Papazachos09 §2 (sites of P processors, each serving its own FIFO queue,
Fig. 1) and §3.3 (migration to the head of a queue, reserved target processors, aging).

Processors are numbered globally, ``g = site * P + local``; narration shows sites and
processors 1-based ("site 2, P7"). A task is the pair ``(gang, task_index)``. Each processor is
idle, *reserved* (holding a task in transit that will start with its gang after the migration
overhead) or *running* one task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gangviz.multisite.config import MultiSiteConfig

Task = tuple[int, int]


@dataclass(frozen=True, slots=True)
class GangInfo:
    """What the workload says about one gang: id, size, site it was sent to, arrival, service."""

    id: int
    size: int
    site: int
    arrival: float
    service: float


@dataclass
class MultiSiteState:
    """Queues, processors and gang bookkeeping of one multi-site system.

    Attributes:
        cfg: the configuration (sites, procs, ...).
        queues: per global processor, the waiting tasks, head first.
        running: per global processor, the task it runs, or ``None``.
        reserved: per global processor, the task in transit to it (or already taken from its
            head) whose gang starts when the migration ends, or ``None``.
        bypass: per task, how many migrated tasks have been put ahead of it (aging, §3.3).
        gangs: every gang that has arrived, by id.
        start: start time of every gang that has started.
        finish: finish time of every gang that has finished.
        completed: gang ids in completion order.
    """

    cfg: MultiSiteConfig
    queues: list[list[Task]] = field(default_factory=list)
    running: list[Task | None] = field(default_factory=list)
    reserved: list[Task | None] = field(default_factory=list)
    bypass: dict[Task, int] = field(default_factory=dict)
    gangs: dict[int, GangInfo] = field(default_factory=dict)
    start: dict[int, float] = field(default_factory=dict)
    finish: dict[int, float] = field(default_factory=dict)
    completed: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = self.cfg.total_procs
        if not self.queues:
            self.queues = [[] for _ in range(n)]
            self.running = [None] * n
            self.reserved = [None] * n

    # --- addressing -------------------------------------------------------------------------
    def proc(self, site: int, local: int) -> int:
        """Return the global index of processor ``local`` of ``site``; raise ValueError if out of range."""
        if not (0 <= site < self.cfg.sites and 0 <= local < self.cfg.procs):
            raise ValueError(
                f"no processor {local} at site {site} (sites 0..{self.cfg.sites - 1}, "
                f"processors 0..{self.cfg.procs - 1})"
            )
        return site * self.cfg.procs + local

    def site_procs(self, site: int) -> range:
        """Return the global indices of the processors of ``site``."""
        p = self.cfg.procs
        return range(site * p, site * p + p)

    # --- queries ----------------------------------------------------------------------------
    def is_idle(self, g: int) -> bool:
        """Return True when processor ``g`` neither runs nor is reserved (it is *available*)."""
        return self.running[g] is None and self.reserved[g] is None

    def queue_length(self, g: int) -> int:
        """Return the JSQ length of processor ``g``: waiting tasks plus one if it is busy or reserved."""
        return len(self.queues[g]) + (0 if self.is_idle(g) else 1)

    def aging_blocked(self, g: int) -> bool:
        """Return True when a task waiting at ``g`` has been bypassed ``aging_k`` times (§3.3)."""
        k = self.cfg.aging_k
        get = self.bypass.get
        return any(get(t, 0) >= k for t in self.queues[g])

    def snapshot(self) -> tuple[Any, ...]:
        """Return a hashable, comparable copy of everything records mutate (for tests, undo checks)."""
        return (
            tuple(tuple(q) for q in self.queues),
            tuple(self.running),
            tuple(self.reserved),
            tuple(sorted((k, v) for k, v in self.bypass.items() if v)),
            tuple(sorted(self.gangs.items())),
            tuple(sorted(self.start.items())),
            tuple(sorted(self.finish.items())),
            tuple(self.completed),
        )
