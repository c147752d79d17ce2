"""Build a step-able simulation of any family from a source and a policy spec.

One entry point, :func:`build`, for the window, the commands, compare, sweeps and the
reproductions:

* a matrix source (scenario, SWF trace, synthetic model) under a time-slot policy:
  :class:`gangviz.sim.engine.Simulation`, starting from the scenario's matrix and script;
* the same source under a space-sharing policy (``fcfs``, ``easy``, ``conservative``):
  :class:`gangviz.spacesharing.simulation.SpaceSharingSimulation`;
* a ``multisite`` scenario: :class:`gangviz.multisite.simulation.MultiSiteSimulation` under AFCFS
  or AFCFSwM (Papazachos09 §3), fed the scenario's gangs;
* an ``epoch`` scenario: :class:`gangviz.epoch.sim.EpochSimulation` (McCann94 §5.2) with the
  scenario's job sequence; it stops when the sequence is used up.

Every simulation built here carries its figures (:attr:`gangviz.sim.protocol.Simulation.measures`,
bound by :func:`gangviz.factory.finished.measures_of`).

The random models of the two other families (the window's Multi-site and Epoch menus, the
McCann94 tables) have no source file: :func:`multisite_model` and :func:`epoch_model` build them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gangviz.core import registry
from gangviz.factory.checks import check_source
from gangviz.factory.finished import measures_of
from gangviz.factory.policy import PolicyChoice, family_of_source, make, resolve

if TYPE_CHECKING:  # pragma: no cover
    from gangviz.workloads.source import Source

__all__ = ["build", "build_resolved", "multisite_model", "epoch_model", "as_source"]


def as_source(source: Any) -> Source:
    """Return the :class:`~gangviz.workloads.source.Source` of ``source``: itself, a scenario's
    (:func:`gangviz.workloads.source.source_of`), or the one a path or name loads
    (:func:`gangviz.workloads.source.load_source` with its default options). Raises
    ``TypeError`` for anything else."""
    from gangviz.workloads.source import load_source, source_of

    if isinstance(source, (str, os.PathLike)):
        return load_source(os.fspath(source))
    return source_of(source)


def build(source: Any, policy: str | None = None, *, params: Mapping[str, Any] | None = None,
          defaults: Mapping[str, Any] | None = None, record: bool = True, watch: bool | None = None,
          ring: bool | None = None, order: str | None = None) -> Any:
    """Return a fresh step-able simulation of ``source`` under ``policy``.

    ``source`` is a :class:`~gangviz.workloads.source.Source` (any kind and model), a
    :class:`~gangviz.workloads.scenario.Scenario`, or a path or name to load. ``policy`` is a
    spec (``NAME`` or ``NAME:key=value,...``; default the source's own, else its family's);
    ``params`` and ``defaults`` merge with the source's and the spec's parameters as
    :func:`gangviz.factory.policy.resolve` says. For the matrix family, ``record`` keeps the
    engine's history (stepping back, the steps' change records), ``watch`` steps slice by slice
    (default: on for scenarios), ``ring`` joins the processors in a ring (default: the source's),
    ``order`` names a queue order (``file.py:function``, a key of a waiting job's spec) for a
    time-slot policy.

    Raises ``ValueError`` for an unknown policy (naming the allowed ones), a bad parameter, a
    policy of another family (e.g. ``"repack"`` for an epoch scenario) or a machine the policy
    cannot use; :class:`~gangviz.workloads.scenario.ScenarioError` (a ``ValueError`` naming the
    file and line) for a scenario whose policies or ``[params]`` do not check out
    (:func:`gangviz.factory.checks.check_scenario`).
    """
    source = as_source(source)
    check_source(source)
    choice = resolve(source, policy, params=params, defaults=defaults)
    return build_resolved(source, choice, make(family_of_source(source), choice),
                          record=record, watch=watch, ring=ring, order=order)


def build_resolved(source: Source, choice: PolicyChoice, policy: Any, *, record: bool = True,
                   watch: bool | None = None, ring: bool | None = None,
                   order: str | None = None) -> Any:
    """Return the simulation of ``source`` under an already built ``policy`` (of
    :func:`gangviz.factory.policy.make`), its figures bound to it
    (:func:`gangviz.factory.finished.measures_of`); arguments and errors as :func:`build`."""
    sim = _simulation(source, choice, policy, record=record, watch=watch, ring=ring, order=order)
    measures_of(sim, source, choice.spec)
    return sim


def _simulation(source: Source, choice: PolicyChoice, policy: Any, *, record: bool,
                watch: bool | None, ring: bool | None, order: str | None) -> Any:
    """The simulation :func:`build_resolved` returns, before its figures are bound: built by the
    simulator of the policy's family (:attr:`gangviz.core.registry.Family.simulator`)."""
    kind = choice.entry.kind if choice.entry is not None else registry.family(family_of_source(source))
    return kind.load("simulator")(source, choice, policy, record=record, watch=watch, ring=ring,
                                  order=order)


def multisite_simulation(source: Source, choice: PolicyChoice, migrate: bool, **_: Any) -> Any:
    """Return the multi-site simulation of a scenario's gangs (AFCFS, with migration when
    ``migrate``): the simulator of the multi-site family."""
    return _multisite(_scenario(source), migrate)


def epoch_simulation(source: Source, choice: PolicyChoice, policy: Any, **_: Any) -> Any:
    """Return the epoch simulation of a scenario's job sequence under ``policy``: the simulator
    of the epoch family."""
    return _epoch(_scenario(source), policy)


def _no_order(choice: PolicyChoice, order: str | None) -> None:
    """Raise ``ValueError`` for a queue ``order`` given to a policy no order applies to."""
    if order is not None and choice.entry is None:
        raise ValueError(f"--order applies to the time-slot and space-sharing policies, not {choice.spec}")


def space_sharing_simulation(source: Source, choice: PolicyChoice, policy: Any, *, order: str | None,
                             **_: Any) -> Any:
    """Return the space-sharing simulation of ``source``'s jobs under ``policy`` (a user's runs
    its own log of decisions): the simulator of the space-sharing family. Raises ``ValueError``
    for a machine the policy refuses or an order given to a user's policy."""
    from gangviz.spacesharing.simulation import SpaceSharingSimulation

    _no_order(choice, order)
    policy.check_source(source)
    user = choice.entry is not None and "user" in choice.entry.traits
    if user and order is not None:
        raise ValueError(f"--order applies to the built-in policies, not {choice.spec}")
    jobs = source.jobs if isinstance(source.jobs, list) else list(source.jobs)  # a model's columns
    return SpaceSharingSimulation(jobs, source.processors, policy,
                                  time_unit=source.slice_seconds,
                                  slice_seconds=_clock(source),
                                  order=_order(order) if order is not None else None,
                                  result=policy.simulate(source.jobs, source.processors, log=True)
                                  if user else None)


def matrix_simulation(source: Source, choice: PolicyChoice, policy: Any, *, record: bool,
                      watch: bool | None, ring: bool | None, order: str | None) -> Any:
    """Return the Ousterhout-matrix engine of ``source`` under ``policy``, from the scenario's
    matrix and script: the simulator of the time-slot family."""
    from gangviz.sim.engine import Simulation

    _no_order(choice, order)
    if watch is None:
        watch = source.kind == "scenario"
    matrix = source.matrix
    absent = source.absent_from
    if absent is not None and hasattr(policy, "usable"):
        policy.usable = absent  # a buddy policy on a padded machine never places a job there
    return Simulation(source.jobs, policy, source.processors,
                      ring=source.ring if ring is None else ring,
                      initial=matrix.copy() if matrix is not None else None,
                      script=source.script, watch=watch, record=record,
                      order=_order(order) if order is not None else None)


def _clock(source: Source) -> float | None:
    """Return the seconds of one slice of ``source`` when it has a clock (an SWF trace), else
    ``None``: models and scenarios count time in slices."""
    if source.kind != "swf":
        return None
    return float(source.slice_seconds or 1.0)


def _order(spec: str) -> Any:
    from gangviz.userpolicy.loader import order_key

    return order_key(spec)


def _scenario(source: Source) -> Any:
    """Return the Scenario behind a Source of the multisite or epoch family; raise
    ``ValueError`` when there is none (those families are read from scenario files only)."""
    if source.scenario is None:
        raise ValueError(f"{source.title}: a {source.model} run needs a scenario file")
    return source.scenario


def _multisite(sc: Any, migrate: bool) -> Any:
    from gangviz.factory.scripted import ScriptedGangStream
    from gangviz.multisite.config import MultiSiteConfig
    from gangviz.multisite.simulation import MultiSiteSimulation

    cfg = MultiSiteConfig(sites=sc.sites, procs=sc.processors, migrate=migrate, **sc.params)
    return MultiSiteSimulation(cfg, max_gangs=len(sc.gangs), stream=ScriptedGangStream(sc.gangs))


def _epoch(sc: Any, policy: Any) -> Any:
    from gangviz.epoch.sim import EpochSimulation
    from gangviz.factory.scripted import ScriptedEpochWorkload

    return EpochSimulation(sc.processors, sc.in_system, policy, static=sc.static, quantum=sc.quantum,
                           workload=ScriptedEpochWorkload(sc.workload),
                           departures=len(sc.workload) - sc.in_system)


def multisite_model(*, migrate: bool = True, gangs: int | None = 400, seed: int = 0,
                    stop_after: int | None = None, **config: Any) -> Any:
    """Return the random two-site model of Papazachos09 (AFCFS, with migration when
    ``migrate``): ``config`` sets :class:`~gangviz.multisite.config.MultiSiteConfig` fields;
    the run stops after ``gangs`` gangs arrived or ``stop_after`` completed. Raises
    ``ValueError``/``TypeError`` for a bad configuration."""
    from gangviz.multisite.config import MultiSiteConfig
    from gangviz.multisite.simulation import MultiSiteSimulation

    sim = MultiSiteSimulation(MultiSiteConfig(migrate=migrate, **config), seed=seed,
                              max_gangs=gangs, stop_after=stop_after)
    measures_of(sim)
    return sim


def epoch_model(nodes: int, jobs: int, policy: Any, *, static: bool = False, quantum: float = 10.0,
                load: float = 1.0, seed: int = 0, departures: int | None = None) -> Any:
    """Return the closed system of McCann94 §5.2: ``jobs`` random jobs on ``nodes`` nodes under
    ``policy`` (a spec such as ``"OPT-EPOCH(1)"`` or ``"HEURISTIC(2):spread=level"``, or an
    epoch policy object), until ``departures`` jobs left. Raises ``ValueError`` for an unknown
    policy (naming the allowed ones) or one that does not apply to (N, J)."""
    from gangviz.epoch.sim import EpochSimulation

    if isinstance(policy, str):
        from gangviz.core.registry import EPOCH
        from gangviz.workloads.source import Source

        # the random model has no source: one of its family stands for it, so the spec resolves
        policy = make(EPOCH, resolve(Source("model", "epoch model", nodes, [], model="epoch"), policy))
    sim = EpochSimulation(nodes, jobs, policy, static=static, quantum=quantum, load=load, seed=seed,
                          departures=departures)
    measures_of(sim)
    return sim
