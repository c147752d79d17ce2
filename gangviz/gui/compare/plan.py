"""The runs a comparison asks for, worked out before any window exists.

A comparison of policies (``gangviz compare --window``, or the compare window's chooser) names
its runs by label: a policy, or a policy under one of its queue orders. This module turns the
policies and orders asked for into each label's policy and order (:class:`Plan`), and, for a
comparison that runs in worker processes, into the task each worker is given
(:func:`run_tasks`): the machine the comparison gives the policy
(:func:`gangviz.experiments.compare.machine_sources`), its order and the bounded slowdown's
threshold. The command and the window both use it, so that runs the command starts before the
window is built (:func:`gangviz.gui.compare.ahead.start_runs`) are exactly those the window would
start. Nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from gangviz.workloads.source import Source

__all__ = ["MIN_POLICIES", "MAX_POLICIES", "Run", "Plan", "RunTask", "check_count", "machines", "refusal",
           "run_tasks"]

MIN_POLICIES, MAX_POLICIES = 2, 4

#: a run of a comparison: the policy and its queue order (``None``: arrival order)
Run = tuple[str, "str | None"]


def check_count(specs: list[str], runs: dict[str, Run] | None = None) -> None:
    """Raise ``ValueError`` unless ``specs`` names 2-4 different runs: different policies, or
    one policy under different queue orders (``runs`` maps a label to its policy and order,
    :func:`gangviz.experiments.compare.labelled_runs`; a label not there is a policy in
    arrival order)."""
    n = len(specs)
    if n < MIN_POLICIES:
        raise ValueError(f"pick at least {MIN_POLICIES} policies to compare ({n} picked)")
    if n > MAX_POLICIES:
        raise ValueError(f"pick at most {MAX_POLICIES} policies ({n} picked): the panes sit side by side")
    from gangviz.experiments.compare import check_distinct

    by_order: dict[str | None, list[str]] = {}
    for label in specs:
        spec, order = (runs or {}).get(label, (label, None))
        by_order.setdefault(order, []).append(spec)
    for same in by_order.values():
        check_distinct(same, "policy")


@dataclass(frozen=True)
class Plan:
    """The runs of a comparison of ``policies`` under queue ``orders`` (``--order``).

    ``runs`` maps the label of each run asked for with an order of its own to its policy and
    order (:func:`~gangviz.experiments.compare.labelled_runs`); ``every_order`` is the order
    given for every policy (an ``--order`` naming no policy), ``None`` for arrival order;
    ``labels`` are the runs shown first.
    """

    runs: dict[str, Run] = field(default_factory=dict)
    every_order: str | None = None
    labels: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, policies: Sequence[str], orders: Sequence[str] = ()) -> Plan:
        """Return the plan of ``policies`` under ``orders``. Raises ``ValueError`` as
        :func:`~gangviz.experiments.compare.labelled_runs` does (an order given twice, an order
        that names no policy compared)."""
        from gangviz.experiments.compare import labelled_runs, split_own_order

        runs = labelled_runs(list(policies), list(orders)) if orders else {}
        split = [(o, split_own_order(o, list(policies))) for o in orders]
        every = next((o for o, (head, eq, _) in split if not (eq and head in policies)), None)
        return cls(runs, every, list(runs) or list(policies))

    def run_of(self, label: str) -> Run:
        """Return the policy and queue order of the run ``label``: as asked for, else the
        policy ``label`` under the order given for every policy (or arrival order)."""
        return self.runs.get(label, (label, self.every_order))

    def runs_of(self, labels: Sequence[str]) -> dict[str, Run]:
        """Return ``{label: (policy, order)}`` of ``labels`` (:meth:`run_of`)."""
        return {label: self.run_of(label) for label in labels}


class RunTask(NamedTuple):
    """What a worker process is given to run one policy of a comparison
    (:func:`gangviz.experiments.schedule.schedule_task`).

    ``source`` is ``(origin, ring, processors, absent_from)`` for a source loaded from a file or
    a model (the worker loads it again: faster than receiving its jobs pickled), else the
    :class:`~gangviz.workloads.source.Source` itself; ``gamma`` is the bounded slowdown's
    threshold of the run's figures, in the source's clock.
    """

    label: str
    source: Any
    policy: str
    order: str | None
    gamma: float


def machines(source: Source, runs: dict[str, Run], padding: str | None = None) -> dict[str, Source]:
    """Return ``{label: source}``: the machine each run of ``runs`` (``{label: (policy,
    order)}``) runs on, the one the comparison gives its policy
    (:func:`~gangviz.experiments.compare.machine_sources`, with ``padding``). Raises
    ``ValueError`` as :func:`check_count` does and for policies that would run on different
    machines."""
    from gangviz.experiments.compare import machine_sources

    check_count(list(runs), runs)
    by_policy = machine_sources(source, [spec for spec, _ in runs.values()], padding)
    return {label: by_policy[spec] for label, (spec, _) in runs.items()}


def refusal(exc: BaseException, spec: str, who: str) -> ValueError:
    """Return the ``ValueError`` that reports ``exc``, raised for the policy ``spec``: its
    message, prefixed with ``who`` (the policy or the run's label) unless it names ``spec``."""
    msg = str(exc).strip("'\"")
    return ValueError(msg if spec in msg else f"{who}: {msg}")


def run_tasks(source: Source, runs: dict[str, Run], padding: str | None = None,
              gamma: float = 10.0) -> list[RunTask]:
    """Return the task of each run of ``runs`` (``{label: (policy, order)}``, in order) on
    ``source``, each on the machine the comparison gives its policy (:func:`machines`).

    Raises ``ValueError`` as :func:`machines` does, and for a policy that cannot run on
    ``source`` (the message names it).
    """
    from gangviz.factory import resolve

    given = machines(source, runs, padding)
    for spec, _ in runs.values():
        try:
            resolve(source, spec)
        except (ValueError, KeyError, TypeError) as exc:
            raise refusal(exc, spec, spec) from None
    tasks = []
    for label, (spec, order) in runs.items():
        own = given[label]
        sent = ((own.origin, own.ring, own.processors, own.absent_from) if own.origin is not None
                else own)
        tasks.append(RunTask(label, sent, spec, order, float(gamma)))
    return tasks
