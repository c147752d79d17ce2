"""A scenario's fixed gangs or job sequence, behind the interfaces of the random streams.

A multi-site scenario lists its gangs and an epoch scenario its jobs; the simulations read
arrivals from a stream object, so these adapters present the scripted lists as such streams.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.epoch.workload import EpochJobSpec


class ScriptedGangStream:
    """The :class:`~gangviz.multisite.workload.GangStream` interface over a fixed list of gangs."""

    def __init__(self, gangs: list[Any]) -> None:
        self.arrival = [g.at for g in gangs]
        self.size = [g.size for g in gangs]
        self.service = [g.service for g in gangs]
        self.site = [g.site for g in gangs]

    def ensure(self, i: int) -> None:
        """Check that gang ``i`` exists; raise ``IndexError`` past the end of the script."""
        if i >= len(self.arrival):
            raise IndexError(f"the scenario lists {len(self.arrival)} gangs; gang {i} does not exist")


class ScriptedEpochWorkload:
    """The :class:`~gangviz.epoch.workload.ClosedWorkload` interface over a fixed job sequence.

    Job ``index`` gets id ``index + 1`` (labelled ``J<index+1>``, as the paper numbers jobs).
    """

    def __init__(self, jobs: list[Any]) -> None:
        self.jobs = list(jobs)

    def job(self, index: int) -> EpochJobSpec:
        """Return job ``index`` as an :class:`~gangviz.epoch.workload.EpochJobSpec`; raise
        ``IndexError`` past the end of the sequence."""
        from gangviz.epoch.workload import EpochJobSpec

        if index >= len(self.jobs):
            raise IndexError(f"the scenario lists {len(self.jobs)} jobs; job {index + 1} does not exist")
        j = self.jobs[index]
        return EpochJobSpec(index + 1, j.min_nodes, j.work, j.beta, "scripted")
