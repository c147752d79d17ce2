"""The checks of a scenario file that need the policies: run before any simulation is built.

:mod:`gangviz.workloads.scenario` reads a file's shape and knows no policy; here each policy
the file names is built once, so an unknown policy, a parameter it does not take, a bad
multi-site configuration or an epoch policy outside Table 2's restrictions (McCann94 §4.4) is
reported as :class:`~gangviz.workloads.scenario.ScenarioError` with the file and the line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover  (a trace's run never loads the scenario reader)
    from gangviz.workloads.scenario import Scenario, ScenarioError
    from gangviz.workloads.source import Source

__all__ = ["check_source", "check_scenario"]

#: Multi-site configuration fields a scenario's ``[params]`` may not set (the file or the
#: policy fixes them, or the random stream they drive is replaced by the scripted gangs).
MULTISITE_FIXED = frozenset({"sites", "procs", "migrate", "arrival_rate", "size_dist", "sigma", "mean_service"})


def check_source(source: Source) -> None:
    """Run :func:`check_scenario` on the scenario behind ``source``; nothing for a trace or a
    model. Raises ``ScenarioError`` as it does."""
    if source.kind == "scenario" and source.scenario is not None:
        check_scenario(source.scenario)


def check_scenario(sc: Scenario) -> None:
    """Raise :class:`~gangviz.workloads.scenario.ScenarioError` (``path:line: problem``) for a
    policy or parameter of ``sc`` that its family does not know or accept."""
    from gangviz.workloads.scenario import ScenarioError

    def fail(key: str, problem: str) -> ScenarioError:
        return ScenarioError(f"{sc.path}:{sc.lines.get(key, 1)}: {problem}")

    if sc.model == "multisite":
        _multisite(sc, fail)
    elif sc.model == "epoch":
        _epoch(sc, fail)
    else:
        _matrix(sc, fail)


def _matrix(sc: Scenario, fail: Callable[[str, str], ScenarioError]) -> None:
    from gangviz.core import registry
    from gangviz.factory.policy import make, resolve
    from gangviz.policies import build as build_policy

    if sc.policy is not None:  # the file's own policy, named with its file and line
        try:
            make("matrix", resolve(sc, sc.policy))
        except ValueError as exc:
            raise fail("policy", f"policy: {exc}") from None

    known = registry.menu(registry.MATRIX)
    for name, table in sc.params.items():
        if name.lower() not in known:
            raise fail(f"params.{name}", f"[params.{name}]: unknown policy {name!r}; "
                       f"known: {', '.join(known)}")
        try:
            build_policy(registry.lookup(name)[0], table)
        except ValueError as exc:
            raise fail(f"params.{name}", f"[params.{name}]: {exc}") from None


def _multisite(sc: Scenario, fail: Callable[[str, str], ScenarioError]) -> None:
    from gangviz.multisite.config import MultiSiteConfig

    allowed = sorted(f.name for f in dataclasses.fields(MultiSiteConfig) if f.name not in MULTISITE_FIXED)
    for key, value in sc.params.items():
        if key not in allowed:
            raise fail(f"param.{key}", f"unknown multisite parameter {key!r} (known: {', '.join(allowed)})")
        try:
            MultiSiteConfig(sites=sc.sites, procs=sc.processors, **{key: value})
        except (ValueError, TypeError) as exc:
            raise fail(f"param.{key}", str(exc)) from None


def _epoch(sc: Scenario, fail: Callable[[str, str], ScenarioError]) -> None:
    from gangviz.epoch.policies import make_policy

    if sc.policy is None:
        return
    try:
        policy = make_policy(sc.policy)
    except ValueError as exc:
        raise fail("policy", str(exc)) from None
    if not policy.applies(sc.processors, sc.in_system):
        raise fail("policy", f"{sc.policy} does not apply to N = {sc.processors}, "
                   f"J = {sc.in_system} (Table 2 restrictions)")
