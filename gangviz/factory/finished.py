"""A run to its end (:class:`FinishedRun`), and the figures of a step-able simulation bound to it.

:func:`finish` runs a time-slot or space-sharing simulation to its end, counting the capacity
lost on the way, as :func:`gangviz.factory.run` does on the reference engine; :func:`measures_of`
gives a simulation its :class:`~gangviz.sim.protocol.Measures` (its figures, running curves and
:func:`finish`), which :func:`gangviz.factory.build` binds to every simulation it builds. The
functions are bound to the simulation itself, so whoever holds the simulation through the
narrower :class:`~gangviz.sim.protocol.Simulation` protocol (the window) still gets figures read
from the family's own records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gangviz.core import registry

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    from gangviz.sim.protocol import Curves, Measures
    from gangviz.workloads.source import Source

__all__ = ["FinishedRun", "finish", "finish_stepping", "measures_of"]


@dataclass
class FinishedRun:
    """One run to its end.

    ``label`` is the policy spec as given, ``policy`` the policy object, ``engine`` which engine
    ran (``"reference"``, ``"backfill"`` or ``"compiled:<runner>"``). ``simulation`` is the
    finished step-able simulation (``None`` after a compiled or a non-recorded backfilling run);
    ``result`` the compiled loop's or the backfilling simulator's own result; ``parameters``
    the policy's parameters as resolved; ``capacity`` the node-time lost while jobs waited
    (a :class:`~gangviz.metrics.ibm.CapacityLog` in the jobs' time unit, Zhang01 eqs. 2-3), or
    ``None`` when the engine did not count it (multi-site and epoch runs).
    """

    source: Source
    label: str
    policy: Any
    engine: str
    simulation: Any = None
    result: Any = None
    parameters: dict[str, Any] = field(default_factory=dict)
    capacity: Any = None
    _metrics: dict[str, float] | None = field(default=None, repr=False)

    @property
    def family(self) -> str:
        """``"matrix"``, ``"space-sharing"``, ``"multisite"`` or ``"epoch"``."""
        if self.simulation is not None:
            family: str = self.simulation.family
            return family
        return "space-sharing" if self.engine == "backfill" else "matrix"

    @property
    def kind(self) -> registry.Family:
        """The run's :class:`~gangviz.core.registry.Family`."""
        return registry.family(self.family)

    @property
    def backfill(self) -> Any:
        """The backfilling simulator's result of a space-sharing run (its records, end and
        capacity), run headless or stepped; ``None`` for a run of another family."""
        if not self.kind.backfills:
            return None
        return self.result if self.result is not None else self.simulation.result

    @property
    def metrics(self) -> dict[str, float]:
        """The Zhou00 §4.3 figures of a matrix or space-sharing run (a backfilling run counts as
        one row of the machine, :func:`gangviz.metrics.zhou.zhou_metrics_of_result`).
        Raises ``ValueError`` for the multisite and epoch families, which have their own."""
        if self._metrics is None:
            if self.engine.startswith("compiled:"):
                self._metrics = self.result.metrics
            elif self.backfill is not None:
                from gangviz.metrics.zhou import zhou_metrics_of_result

                self._metrics = zhou_metrics_of_result(self.backfill, self.source.processors)
            elif self.kind.matrix:
                from gangviz.metrics.zhou import zhou_metrics

                self._metrics = zhou_metrics(self.simulation)
            else:
                raise ValueError(f"a {self.family} run has no Zhou00 metrics")
        return self._metrics

    def final_matrix(self) -> list[str]:
        """Return the matrix's rows at the end (top slot first); a compiled run ends with
        every job done and the matrix empty. Raises ``ValueError`` for another family."""
        if self.simulation is not None and self.kind.matrix:
            rows: list[str] = self.simulation.matrix.to_rows()
            return rows
        if self.engine.startswith("compiled:"):
            return []
        raise ValueError(f"a {self.family} run has no Ousterhout matrix")


def finish(sim: Any, source: Source | None, label: str,
           tick: Callable[[Any], None] | None = None,
           until: Callable[[Any], None] | None = None, policy: Any = None) -> FinishedRun:
    """Run ``sim`` (a time-slot or space-sharing simulation of ``source``, labelled ``label``)
    to its end and return the :class:`FinishedRun`, with the capacity lost while jobs waited
    (:func:`gangviz.metrics.ibm.run_with_capacity`, which calls ``tick(sim)`` every thousand
    steps; a space-sharing run's own count); the finisher of these two families
    (:attr:`gangviz.core.registry.Family.finisher`; ``until`` is the other families', and the
    policy is the simulation's own, whatever ``policy`` says).
    Raises ``ValueError`` for another family (its figures are its own) and when ``source`` is
    ``None``."""
    if not registry.family(sim.family).measured:
        raise ValueError(f"a {sim.family} run has its own figures")
    if source is None:
        raise ValueError(f"the {label or sim.policy_name} simulation was not built from a source "
                         "(gangviz.factory.build): it has no finished run")
    if registry.family(sim.family).matrix:
        from gangviz.metrics.ibm import run_with_capacity

        capacity = run_with_capacity(sim, tick=tick)
    else:
        sim.run()
        capacity = sim.result.capacity
    return FinishedRun(source, label, sim.policy, "reference", simulation=sim, capacity=capacity)


def finish_stepping(sim: Any, source: Source, label: str,
                    tick: Callable[[Any], None] | None = None,
                    until: Callable[[Any], None] | None = None, policy: Any = None) -> FinishedRun:
    """Run ``sim`` (a multi-site or epoch simulation of ``source``) to its end with ``until(sim)``
    (default: step until no step is left; their ``run()`` has other stopping rules) and return
    the :class:`FinishedRun` of ``policy`` (the policy object the simulation was built with),
    without a lost capacity (these families' figures are their own): the finisher of these
    families (:attr:`gangviz.core.registry.Family.finisher`; ``tick`` is the others')."""
    if until is not None:
        until(sim)
    else:
        while sim.step() is not None:
            pass
    return FinishedRun(source, label, policy, "reference", simulation=sim)


def measures_of(sim: Any, source: Source | None = None, label: str = "") -> Measures[FinishedRun]:
    """Return ``sim.measures``, binding them to ``sim`` first when it has none (a simulation
    built outside :func:`gangviz.factory.build`, whose :meth:`Measures.finish` then needs
    ``source``). The figures are :func:`gangviz.metrics.figures` and
    :func:`gangviz.metrics.series` of ``sim`` (the matrix family's panels draw the engine's
    samples too)."""
    if sim.measures is None:
        from gangviz import metrics
        from gangviz.sim.protocol import Measures

        def series() -> Curves:
            return metrics.series(sim) if sim.family in metrics.SERIES else {}

        sim.measures = Measures(lambda: metrics.figures(sim), series,
                                lambda: finish(sim, source, label))
    measures: Measures[FinishedRun] = sim.measures
    return measures
