"""Policy specs and their parameters, read and merged in one place.

The command line, sweep files and the window write a policy as ``NAME`` or
``NAME:key=value,key=value`` (:func:`parse_policy_spec`). :func:`resolve` turns a spec into the
policy's name and parameters for one source, merging in this order, later winning:

1. ``defaults`` (e.g. a sweep's per-task seed of a randomised policy),
2. the source's own ``[params.NAME]`` table (a matrix scenario's),
3. the spec's ``key=value`` pairs,
4. ``params`` given by the caller (the window's parameter field, ``gangviz.simulate(params=)``).

:func:`make` builds the policy object of a family from a resolved spec; it raises
``ValueError`` naming the allowed policies of that family for an unknown name. The policy
packages are imported only when a policy of theirs is built, so a space-sharing run never loads
the time-slot engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_POLICY", "PolicyChoice", "parse_policy_spec", "policy_name",
           "resolve", "make"]

#: The policy a source runs when neither the caller nor the source names one, per family.
DEFAULT_POLICY = {"matrix": "repack", "multisite": "AFCFSwM", "epoch": "OPT-EPOCH(1)"}



@dataclass(frozen=True)
class PolicyChoice:
    """A resolved policy: ``spec`` as given (the label of a run), ``name`` and merged ``params``."""

    spec: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)


def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Return ``(name, params)`` of ``"NAME"`` or ``"NAME:key=value,key=value"``.

    Values read as int, then float, then ``true``/``false``, else stay text. Raises
    ``ValueError`` for a malformed spec.
    """
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"policy {spec!r}: give a name, e.g. repack or random:seed=3")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"policy {spec!r}: parameter {item!r} is not key=value")
        params[key.strip()] = _value(value.strip())
    return name, params


def _value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def family_of_source(source: Any) -> str:
    """Return the model family of a source or scenario: ``"matrix"``, ``"multisite"`` or ``"epoch"``."""
    return getattr(source, "model", "matrix")


def policy_name(source: Any, policy: str | None = None) -> str:
    """Return the policy spec a run of ``source`` (a Source or Scenario) uses: ``policy``, else
    the source's own, else the family's default (repack, AFCFSwM, OPT-EPOCH(1))."""
    return policy or getattr(source, "policy", None) or DEFAULT_POLICY[family_of_source(source)]


def source_params(source: Any, name: str) -> dict[str, Any]:
    """Return the parameters a matrix source gives for policy ``name`` (its ``[params.NAME]``
    table; empty for another family, whose ``[params]`` configure the model, not a policy)."""
    if family_of_source(source) != "matrix":
        return {}
    value = (getattr(source, "params", None) or {}).get(name.lower(), {})
    return dict(value) if isinstance(value, dict) else {}


def resolve(source: Any, policy: str | None = None, *, params: Mapping[str, Any] | None = None,
            defaults: Mapping[str, Any] | None = None) -> PolicyChoice:
    """Return the :class:`PolicyChoice` of ``policy`` (a spec; ``None``: :func:`policy_name`'s
    default) on ``source``, parameters merged as the module docstring says. Raises
    ``ValueError`` for a malformed spec (an empty one included)."""
    spec = policy if policy is not None else policy_name(source)
    name, own = parse_policy_spec(spec)
    merged = {**(defaults or {}), **source_params(source, name), **own, **(params or {})}
    return PolicyChoice(spec, name, merged)


def make(family: str, choice: PolicyChoice) -> Any:
    """Return the policy object of ``choice`` for a source of ``family``.

    matrix: a time-slot policy (:func:`gangviz.policies.make_policy`) or a space-sharing one
    (:func:`gangviz.spacesharing.policy.make_space_sharing`); multisite: ``True``/``False``,
    whether AFCFSwM migrates (it takes no parameters: the scenario's ``[params]`` configure the
    sites); epoch: :func:`gangviz.epoch.policies.make_policy` (parameter ``spread``). Raises
    ``ValueError`` naming the family's allowed policies for an unknown name or parameter.
    """
    name, params = choice.name, choice.params
    if family == "multisite":
        from gangviz.workloads.scenario import MULTISITE_POLICIES

        migrate = MULTISITE_POLICIES.get(name.lower())
        if migrate is None:
            raise ValueError(f"policy {name!r} is not a multisite policy; use AFCFS or AFCFSwM")
        if params:
            raise ValueError(f"policy {name}: a multisite policy takes no parameters "
                             f"(the scenario's [params] configure the sites), got {', '.join(params)}")
        return migrate
    if family == "epoch":
        from gangviz.epoch.policies import make_policy as make_epoch

        unknown = set(params) - {"spread"}
        if unknown:
            raise ValueError(f"policy {name}: an epoch policy takes only spread, not {', '.join(sorted(unknown))}")
        return make_epoch(name, **params)
    from gangviz.spacesharing.policy import is_space_sharing, make_space_sharing

    if is_space_sharing(name):
        return make_space_sharing(name, **params)
    from gangviz.policies import make_policy

    return make_policy(name, **params)
