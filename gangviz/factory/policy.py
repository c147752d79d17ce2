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
from typing import TYPE_CHECKING, Any

from gangviz.core import registry
from gangviz.core.params import split_spec
from gangviz.core.registry import PolicyEntry

if TYPE_CHECKING:  # pragma: no cover
    from gangviz.workloads.scenario_types import Scenario
    from gangviz.workloads.source import Source

__all__ = ["PolicyChoice", "parse_policy_spec", "policy_name", "resolve", "make", "construct",
           "typed_params"]


@dataclass(frozen=True)
class PolicyChoice:
    """A resolved policy: ``spec`` as given (the label of a run), ``name``, merged ``params``
    (as given: text from a spec, values from files and callers) and its registry ``entry``."""

    spec: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    entry: PolicyEntry | None = None


def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Return ``(name, params)`` of ``"NAME"`` or ``"NAME:key=value,key=value"``, each value
    typed as the policy declares it (:meth:`gangviz.core.registry.PolicyEntry.coerce`).

    Raises ``ValueError`` for a malformed spec, an unknown policy or parameter, a key given
    twice or a value outside its allowed range.
    """
    entry, params = registry.parse(spec)
    return split_spec(spec)[0], params


def family_of_source(source: Source | Scenario) -> str:
    """Return the model family of a source or scenario: ``"matrix"``, ``"multisite"`` or ``"epoch"``."""
    return source.model


def policy_name(source: Source | Scenario, policy: str | None = None) -> str:
    """Return the policy spec a run of ``source`` (a Source or Scenario) uses: ``policy``, else
    the source's own, else its family's default (:attr:`gangviz.core.registry.Family.default`)."""
    return policy or source.policy or registry.family(family_of_source(source)).default or ""


def source_params(source: Source | Scenario, name: str) -> dict[str, Any]:
    """Return the parameters a matrix source gives for policy ``name`` (its ``[params.NAME]``
    table; empty for another family, whose ``[params]`` configure the model, not a policy)."""
    if family_of_source(source) != "matrix":
        return {}
    value = source.params.get(name.lower(), {})
    return dict(value) if isinstance(value, dict) else {}


def resolve(source: Source | Scenario, policy: str | None = None, *, params: Mapping[str, Any] | None = None,
            defaults: Mapping[str, Any] | None = None) -> PolicyChoice:
    """Return the :class:`PolicyChoice` of ``policy`` (a spec; ``None``: :func:`policy_name`'s
    default) on ``source``, parameters merged as the module docstring says. Raises
    ``ValueError`` for a malformed spec (an empty one included), a key given twice, an unknown
    policy or one of a family that cannot run ``source`` (naming the ones that can)."""
    spec = policy if policy is not None else policy_name(source)
    family = family_of_source(source)
    user = _user_entry(spec, family)
    if user is not None:
        entry, text = user
        name = entry.name
        carried: dict[str, str] = {}
        own = split_spec(f"{entry.title}:{text}")[1]
    else:
        name, own = split_spec(spec)
        entry, carried = _entry(name, family)
    declared = entry.declared
    given = {**carried, **own}  # typed now: a spec's text has one meaning wherever it is read
    spec_params = {k: declared[k].parse(v, entry.title) if k in declared else v
                   for k, v in given.items()}
    merged = {**(defaults or {}), **source_params(source, name), **spec_params, **(params or {})}
    return PolicyChoice(spec, name, merged, entry)


def _user_entry(spec: str, family: str) -> tuple[PolicyEntry, str] | None:
    """The entry and parameter text of a user's policy that ``spec`` names by file or module,
    or by an entry point when no built-in has its name; ``None`` otherwise."""
    if ".py" not in spec:
        try:
            registry.lookup(split_spec(spec)[0])
            return None  # a built-in: the user's loader is not even imported
        except ValueError:
            pass
    from gangviz.userpolicy.loader import user_entry

    found = user_entry(spec)
    if found is not None and found[0].runs_on() != family:
        raise ValueError(f"policy {found[0].title} ({found[0].origin}) is {_a(found[0].family)} "
                         f"policy; {_a(family)} source runs: {', '.join(_known(family))}")
    return found


def _entry(name: str, family: str) -> tuple[PolicyEntry, dict[str, str]]:
    known = _known(family)
    try:
        entry, carried = registry.lookup(name)
    except ValueError:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(known)} "
                         "(or a policy file: my.py, my.py:Class, package.module:Class)") from None
    if entry.runs_on() != family:
        raise ValueError(f"unknown policy {name!r} for {_a(family)} source ({entry.title} is "
                         f"{_a(entry.family)}"
                         f" policy); known: {', '.join(known)}")
    return entry, carried


def _known(family: str) -> list[str]:
    """The names to suggest for a source of ``family``: the matrix menu's, else the titles."""
    return registry.menu(family) if registry.family(family).matrix else registry.runs_on(family)


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def typed_params(choice: PolicyChoice) -> dict[str, Any]:
    """Return the parameters of ``choice`` parsed by their declared types and checked
    (:meth:`gangviz.core.registry.PolicyEntry.coerce`). Raises ``ValueError`` as it does."""
    entry = choice.entry if choice.entry is not None else registry.lookup(choice.name)[0]
    return entry.coerce(choice.params)


def construct(entry: PolicyEntry, typed: Mapping[str, Any]) -> Any:
    """Return the policy object of a time-slot or space-sharing ``entry`` built with ``typed``
    (parameters already coerced): the maker of those two families
    (:attr:`gangviz.core.registry.Family.maker`). Only the policy's own package is imported.
    Raises ``ValueError`` for what the constructor refuses."""
    return entry.constructor()(**typed)


def make(family: str, choice: PolicyChoice) -> Any:
    """Return the policy object of ``choice`` for a source of ``family``, built by the maker of
    its entry's family (:attr:`gangviz.core.registry.Family.maker`: the constructor for the
    time-slot and space-sharing families, whether AFCFS migrates for the multi-site one,
    :func:`gangviz.epoch.policies.from_entry` for the epoch one). Raises ``ValueError`` naming
    the family's allowed policies for an unknown name or parameter, or the allowed range of a
    bad value.
    """
    entry = choice.entry if choice.entry is not None else _entry(choice.name, family)[0]
    if entry.runs_on() != family:
        raise ValueError(f"unknown policy {choice.name!r} for {_a(family)} source; "
                         f"known: {', '.join(_known(family))}")
    params = entry.coerce(choice.params)
    return registry.family(entry.family).load("maker")(entry, params)
