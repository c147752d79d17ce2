"""The compiled headless loops, and the one place that decides when one may run instead of the
reference engine.

A compiled runner is written again from a reference policy without change records, history or
narration, and gives the same result for every job (each has a property test against the
reference). :func:`compiled_runner` returns the first runner of :data:`RUNNERS` whose
``covers`` accepts the run; :func:`gangviz.factory.run` asks it only when no step is recorded.
To add a loop, append an object with the :class:`CompiledRunner` members to :data:`RUNNERS`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from gangviz.workloads.source import Source

__all__ = ["CompiledRunner", "BuddyRunner", "GangRunner", "RUNNERS", "compiled_runner"]


class CompiledRunner(Protocol):
    """What :func:`gangviz.factory.run` needs of a compiled loop."""

    name: str

    def covers(self, source: Source, name: str, params: dict[str, Any], ring: bool) -> bool:
        """Whether the loop runs policy ``name`` with ``params`` on ``source`` (on a ring when
        ``ring``) exactly as the reference engine would."""
        ...

    def run(self, source: Source, name: str, params: dict[str, Any], *, placement: bool = False,
            jobs: bool = False, progress: Any = None) -> Any:
        """Run the covered run to its end (writing the simulated time to ``progress[0]``, a
        one-element float64 array, after every decision when given); return an object with ``metrics`` (the Zhou00 §4.3
        figures, :func:`gangviz.metrics.zhou.zhou_metrics`'s keys), ``time``, ``max_slots``,
        ``raw`` (the loop's per-job ``start`` and ``finish``, in the order of the jobs sorted
        by arrival then id, and with ``placement`` its ``placement``, a
        :class:`~gangviz.fast.placement.PlacementLog` in that order; with ``jobs`` what
        :func:`gangviz.results.compiled_jobs.jobs_of_compiled` needs) and ``capacity()`` (a
        :class:`~gangviz.metrics.ibm.CapacityLog`)."""
        ...


class BuddyRun:
    """A finished compiled buddy run: :class:`gangviz.fast.buddy.BuddyRun` plus its metrics."""

    def __init__(self, raw: Any, metrics: dict[str, float]) -> None:
        self.raw, self.metrics = raw, metrics
        self.time, self.max_slots = raw.time, raw.max_slots

    def capacity(self) -> Any:
        """Return the node-time lost while jobs waited: none, since a buddy scheme places every
        job in a slot (a new one if need be) at its arrival and no job ever waits [Zhou00 §3]
        (a test checks it against the reference engine's count)."""
        from gangviz.metrics.ibm import CapacityLog

        return CapacityLog()


class BuddyRunner:
    """BC, BR, BRMS and BRMMS of Zhou00 §3-§4 on :mod:`gangviz.fast.buddy`.

    Covers: parameters ``occupy`` and ``extra_slots_on`` only, no initial matrix or script, a
    linear array whose size is a power of two, every job of 1..processors processors with finite
    work (the engine's time model without overhead).
    """

    name = "buddy"
    PARAMS = frozenset({"occupy", "extra_slots_on"})

    def covers(self, source: Source, name: str, params: dict[str, Any], ring: bool) -> bool:
        """See :meth:`CompiledRunner.covers`."""
        from gangviz.core.registry import REGISTRY

        procs = source.processors
        entry = REGISTRY.get(name.lower())
        return (entry is not None and entry.group == "buddy" and set(params) <= self.PARAMS
                and source.matrix is None and not source.script
                and not ring and procs >= 1 and not procs & (procs - 1)
                and all(1 <= j.size <= procs and math.isfinite(j.work) for j in source.jobs))

    def run(self, source: Source, name: str, params: dict[str, Any], *, placement: bool = False,
            jobs: bool = False, progress: Any = None) -> BuddyRun:
        """See :meth:`CompiledRunner.run`; raises ``ValueError`` as
        :func:`gangviz.fast.buddy.run_buddy` does."""
        from gangviz.fast.buddy import run_buddy
        from gangviz.metrics.zhou import zhou_metrics_of

        specs = sorted(source.jobs, key=lambda j: (j.arrival, j.id))  # the reference engine's order
        raw = run_buddy([j.id for j in specs], [j.arrival for j in specs], [j.size for j in specs],
                        [j.work for j in specs], name.upper(), source.processors,
                        params.get("occupy", "size"), params.get("extra_slots_on"),
                        source.absent_from, placement=placement, stats=jobs, progress=progress)
        done = [(j.arrival, j.size, j.work, f) for j, f in zip(specs, raw.finish.tolist())]
        real = source.absent_from or source.processors  # padding is no processor
        return BuddyRun(raw, zhou_metrics_of(done, real, raw.time, raw.max_slots, raw.slot_time))


class GangRun:
    """A finished compiled gang run: :class:`gangviz.fast.gang.GangRun` plus its metrics."""

    def __init__(self, raw: Any, metrics: dict[str, float]) -> None:
        self.raw, self.metrics = raw, metrics
        self.time, self.max_slots = raw.time, raw.max_rows

    def capacity(self) -> Any:
        """Return the node-time lost while jobs waited, as the loop counted it (eq. 3)."""
        return self.raw.capacity()


class GangRunner:
    """GS, BGS, MGS and MBGS of Zhang01 §2-§4 on :mod:`gangviz.fast.gang`.

    Covers what :func:`gangviz.fast.gang.covers` accepts (their own parameters, decisions at
    events, no initial matrix or script, a linear array, finite work) with every job of
    1..processors processors.
    """

    name = "gang"

    def covers(self, source: Source, name: str, params: dict[str, Any], ring: bool) -> bool:
        """See :meth:`CompiledRunner.covers`."""
        from gangviz.fast.gang import covers

        procs = source.processors
        return (covers(name, params, ring=ring, initial=source.matrix,
                       script=source.script, jobs=source.jobs)
                and all(1 <= j.size <= procs for j in source.jobs))

    def run(self, source: Source, name: str, params: dict[str, Any], *, placement: bool = False,
            jobs: bool = False, progress: Any = None) -> GangRun:
        """See :meth:`CompiledRunner.run`; raises ``ValueError`` as
        :func:`gangviz.fast.gang.run_gang` does."""
        from gangviz.fast.gang import job_arrays, run_gang
        from gangviz.metrics.zhou import zhou_metrics_of

        specs = sorted(source.jobs, key=lambda j: (j.arrival, j.id))  # the reference engine's order
        # a per-job table takes each job's processors from the placement log
        raw = run_gang(job_arrays(specs), name, params, source.processors, placement=placement or jobs,
                       progress=progress)
        done = [(j.arrival, j.size, j.work, f) for j, f in zip(specs, raw.finish.tolist())]
        return GangRun(raw, zhou_metrics_of(done, source.processors, raw.time, raw.max_rows,
                                            raw.slot_time))


#: The compiled loops, asked in order.
RUNNERS: list[CompiledRunner] = [BuddyRunner(), GangRunner()]


def compiled_runner(source: Source, name: str, params: dict[str, Any], ring: bool) -> CompiledRunner | None:
    """Return the first runner of :data:`RUNNERS` that covers the run, or ``None``."""
    for runner in RUNNERS:
        if runner.covers(source, name, params, ring):
            return runner
    return None
