"""The queue state of the multi-site model as plain, immutable data for views.

A view (``gangviz.gui.families.sites``) draws a :class:`QueueSnapshot`: per site and per processor
the waiting tasks head first, the task running and the task reserved (in transit after a
migration, Papazachos09 §3.3).
"""

from __future__ import annotations

from dataclasses import dataclass

from gangviz.multisite.state import MultiSiteState, Task


@dataclass(frozen=True, slots=True)
class QueueSnapshot:
    """Immutable picture of all queues at ``time``.

    Attributes:
        sites, procs: the shape; processor ``g = site * procs + local``.
        time: simulated time of the picture.
        queues: per global processor, the waiting tasks ``(gang, task)``, head first.
        running: per global processor, the running task or ``None``.
        reserved: per global processor, the task reserved there (migrating) or ``None``.
        sizes: gang id -> number of tasks, for every gang shown.
    """

    sites: int
    procs: int
    time: float
    queues: tuple[tuple[Task, ...], ...]
    running: tuple[Task | None, ...]
    reserved: tuple[Task | None, ...]
    sizes: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_state(cls, state: MultiSiteState, time: float = 0.0) -> QueueSnapshot:
        """Return the snapshot of ``state`` at ``time``."""
        shown = {t[0] for q in state.queues for t in q}
        shown |= {t[0] for t in state.running if t is not None}
        shown |= {t[0] for t in state.reserved if t is not None}
        return cls(state.cfg.sites, state.cfg.procs, time,
                   tuple(tuple(q) for q in state.queues), tuple(state.running),
                   tuple(state.reserved),
                   tuple(sorted((g, state.gangs[g].size) for g in shown if g in state.gangs)))

    @classmethod
    def empty(cls, sites: int = 2, procs: int = 16) -> QueueSnapshot:
        """Return an all-idle snapshot of ``sites`` x ``procs``; raise ValueError if either is < 1."""
        if sites < 1 or procs < 1:
            raise ValueError(f"sites and procs must be >= 1, got {sites} x {procs}")
        n = sites * procs
        return cls(sites, procs, 0.0, tuple(() for _ in range(n)), (None,) * n, (None,) * n)

    def running_gangs(self) -> set[int]:
        """Return the ids of the gangs running now."""
        return {t[0] for t in self.running if t is not None}


def state_from_snapshot(snap: QueueSnapshot) -> MultiSiteState:
    """Return a :class:`MultiSiteState` holding ``snap``'s queues and processors.

    Gangs get their sizes from ``snap.sizes`` (arrival and service unknown: 0 and 1), so change
    records of later steps apply to it; views use this to follow a step stream.
    """
    from gangviz.multisite.config import MultiSiteConfig
    from gangviz.multisite.state import GangInfo

    st = MultiSiteState(MultiSiteConfig(sites=snap.sites, procs=snap.procs))
    st.queues = [list(q) for q in snap.queues]
    st.running = list(snap.running)
    st.reserved = list(snap.reserved)
    for gang, size in snap.sizes:
        st.gangs[gang] = GangInfo(gang, size, 0, 0.0, 1.0)
    return st
