"""Loading a user's policy wherever a policy is named.

A spec names a user's policy as

* ``path/to/file.py`` (the one policy class in the file) or ``path/to/file.py:Class``;
* ``package.module:Class`` (an importable module);
* a name an installed package registers in the entry-point group ``gangviz.policies``;

each optionally followed by ``:key=value,...`` (``my.py:Class:mpl=3``). :func:`user_entry`
returns the policy's :class:`~gangviz.core.registry.PolicyEntry`, built from the class's
declarations, so the factory treats it as it treats a built-in. A file is imported afresh when it
changed since it was last loaded (the window's hot reload), else from a cache; a worker process
imports it again from the spec. Every failure is a
:class:`~gangviz.userpolicy.errors.UserPolicyError` naming the user's file and line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from gangviz.core import registry
from gangviz.core.params import quote
from gangviz.core.registry import PolicyEntry
from gangviz.userpolicy.errors import UserPolicyError, def_line
from gangviz.userpolicy.imports import (
    ORDER_LIMIT,
    check_declarations,
    forget,
    key_kind,
    load_class,
    load_function,
)
from gangviz.userpolicy.policy import (
    ENGINE_PARAMS,
    PROCESS_PARAMS,
    EnginePolicy,
    MatrixPolicy,
    _call,
)

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.userpolicy.space import SpacePolicy

    #: a user's policy class, of either family
    _PolicyClass = type[MatrixPolicy] | type[SpacePolicy]

__all__ = ["ENTRY_POINT_GROUP", "is_user_spec", "split_user_spec", "user_entry", "load_function",
           "load_class", "forget", "order_key", "installed_entries"]

ENTRY_POINT_GROUP = "gangviz.policies"
_MODULE = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+):([A-Za-z_]\w*)(?::(.*))?$", re.S)
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
def _py_split(spec: str) -> tuple[str, str | None, str] | None:
    """Split ``file.py[:Class][:params]``; ``None`` when ``spec`` names no .py file."""
    m = re.match(r"^(.*?\.py)(?::(.*))?$", spec, re.S)
    if not m:
        return None
    path, rest = m.group(1), m.group(2) or ""
    head, _, tail = rest.partition(":")
    if head and _IDENT.match(head.strip()):
        return path, head.strip(), tail
    return path, None, rest


def split_user_spec(spec: str) -> tuple[str, str | None, str] | None:
    """Return ``(file or module, class or None, params text)`` of a user spec, or ``None`` when
    ``spec`` does not name a file or a ``module:Class``."""
    if not isinstance(spec, str):
        return None
    parts = _py_split(spec.strip())
    if parts is not None:
        return parts
    m = _MODULE.match(spec.strip())
    if m:
        return m.group(1), m.group(2), m.group(3) or ""
    return None


def is_user_spec(spec: str) -> bool:
    """Whether ``spec`` names a user's policy by file or module (not a built-in's name)."""
    return split_user_spec(spec) is not None


def _order_function(spec: str) -> tuple[Callable[[Any], Any], str, str]:
    """The order ``spec`` names as a function run in a process of its own, its file, and where
    it is defined. A ``module:function`` spec (installed code) runs in this process."""
    from gangviz.userpolicy.boundary import isolated_order

    path = re.match(r"^(.*?\.py):([A-Za-z_]\w*)$", spec.strip())
    if path is None:
        fn, origin = load_function(spec)
        return fn, origin, def_line(fn, origin)
    if not os.path.isfile(path.group(1)):
        load_function(spec)  # says why it does not load
    return isolated_order(spec.strip(), path.group(1), ORDER_LIMIT), path.group(1), path.group(1)


def order_key(spec: str) -> Callable[[Any], Any]:
    """Return the queue order ``spec`` names (``file.py:function``) as a sort key.

    The key raises :class:`UserPolicyError` naming the user's file and line when the function
    raises, runs past :data:`ORDER_LIMIT`, or returns what does not sort (``None``, NaN, a
    list, or a kind other than the first job's)."""
    fn, origin, defined = _order_function(spec)
    kinds: list[str] = []  # the kind of the first key: every job's key must compare with it

    def key(job: Any) -> Any:
        value = _call(lambda: fn(job), origin, spec, ORDER_LIMIT, kind="order")
        kind = key_kind(value)
        if kind is None or (kinds and kind != kinds[0]):
            allowed = "a number (not NaN), text, or a tuple of them"
            if kinds:
                allowed += f", and for every job the same kind ({kinds[0]})"
            raise UserPolicyError(f"order {spec} ({defined}): returned {quote(value)} "
                                  f"for job {getattr(job, 'name', job)}; a queue order returns {allowed}")
        kinds[:1] = [kind]
        return value

    return key


def _entry_points() -> list[Any]:
    import importlib.metadata  # here: it costs a tenth of a second, and most runs list none

    try:
        return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception:  # a broken installation lists nothing rather than failing every run
        return []


def _entry_point(name: str) -> Any:
    for ep in _entry_points():
        if ep.name.lower() == name.lower():
            return ep
    return None


def installed_entries() -> list[tuple[str, str, PolicyEntry | None, str]]:
    """Return ``(name, target, entry, error)`` for every policy installed through the
    ``gangviz.policies`` entry-point group, sorted by name: ``target`` is the entry point's
    ``module:Class``, ``entry`` the policy's registry entry, or ``None`` with ``error`` saying
    why it does not load (one broken package does not hide the others)."""
    out: list[tuple[str, str, PolicyEntry | None, str]] = []
    for ep in sorted(_entry_points(), key=lambda e: e.name.lower()):
        try:
            found = user_entry(ep.name)
        except UserPolicyError as exc:
            out.append((ep.name, ep.value, None, str(exc)))
            continue
        if found is not None:
            out.append((ep.name, ep.value, found[0], ""))
    return out


def user_entry(spec: str) -> tuple[PolicyEntry, str] | None:
    """Return the entry of the user's policy ``spec`` names and the spec's parameter text, or
    ``None`` when ``spec`` names no user policy (no file, module or entry point).

    Raises :class:`UserPolicyError` for a policy that does not load.
    """
    parts = split_user_spec(spec)
    if parts is None:
        name, _, params = spec.partition(":")
        ep = _entry_point(name.strip())
        if ep is None:
            return None
        module, _, attr = str(ep.value).replace(" ", "").partition(":")
        if not (re.match(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$", module) and _IDENT.match(attr)):
            raise UserPolicyError(f"policy {ep.name}: its entry point {ep.value} does not name a module:Class")
        # an installed policy is a user's code too: imported and run in a process of its own
        decl = _declarations(module, attr)
        cls = _stand_in(decl, decl["__origin__"])
        return entry_of_class(cls, decl["__origin__"], ep.name, where=(module, attr, decl)), params
    target, cls_name, params = parts
    decl = _declarations(target, cls_name)
    origin = decl["__origin__"]
    cls = _stand_in(decl, origin)
    key = f"{target}:{cls.__name__}" if cls_name else target
    return entry_of_class(cls, origin, key, where=(target, cls_name, decl)), params


#: (target, class, mtime_ns, size) -> what the class declares (read in a process of its own)
_DECLARED: dict[tuple[Any, ...], dict[str, Any]] = {}


def _declarations(target: str, cls_name: str | None) -> dict[str, Any]:
    """What the policy class of ``target`` declares, read by importing it in a process of its
    own (the import runs the user's code: whatever it patches stays there)."""
    from gangviz.userpolicy.boundary import fetch_declarations

    try:
        st = os.stat(target) if target.endswith(".py") else None
    except OSError as exc:
        raise UserPolicyError(f"policy file {target}: {exc.strerror or exc}") from None
    key = (os.path.abspath(target) if st else target, cls_name, st and st.st_mtime_ns, st and st.st_size)
    found = _DECLARED.get(key)
    if found is None:
        found = _DECLARED[key] = fetch_declarations(target, cls_name, target)
    return found


def _stand_in(decl: dict[str, Any], origin: str) -> Any:
    """A class carrying what the user's class declares (for its registry entry), never its code."""
    from gangviz.userpolicy.space import SpacePolicy

    base = SpacePolicy if decl.get("family") == SpacePolicy.family else MatrixPolicy
    ns: dict[str, Any] = {k: decl[k] for k in ("name", "paper", "params", "family", "decides_at", "buddy", "migrates",
                               "follows") if k in decl and decl[k] is not None}
    if not isinstance(ns.get("params", ()), tuple):
        raise UserPolicyError(f"{origin}: {decl['__name__']}.params must be a tuple of Param, got "
                              f"{ns['params']!r:.60}")
    ns["__doc__"] = decl.get("__doc__") if isinstance(decl.get("__doc__"), str) else None
    ns["__module__"] = __name__
    return type(str(decl["__name__"]), (base,), ns)


def entry_of_class(cls: Any, origin: str, key: str,
                   where: tuple[str, str | None, dict[str, Any]] | None = None) -> PolicyEntry:
    """Return the registry entry of a user's policy class (its declarations, plus
    :data:`~gangviz.userpolicy.policy.ENGINE_PARAMS` it does not declare itself, and for space
    sharing :data:`~gangviz.userpolicy.space.SPACE_PARAMS`).

    ``where`` (the file or module, the class name given, what it declares) says where to import
    the class again: the policy then runs in a process of its own unless ``isolated=false``;
    without it ``cls`` itself is run in this process."""
    from gangviz.userpolicy.space import SPACE_PARAMS, SpaceEngine

    check_declarations(cls, origin)
    space = not registry.family(cls.family).matrix  # a space-sharing policy, runs kept as a log
    own = tuple(cls.params)
    declared = {p.name for p in own}
    params = own + tuple(p for p in ENGINE_PARAMS + (SPACE_PARAMS if space else ())
                         if p.name not in declared)
    traits = frozenset({"user"} | ({"buddy"} if cls.buddy else set()) | ({"migrate"} if cls.migrates else set()))
    doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
    engine = SpaceEngine if space else EnginePolicy
    follows: str = getattr(cls, "follows", "") or ""
    if space and follows:
        traits |= {"reserve-" + ("head" if cls.follows == "easy" else "all"), cls.follows}
    if where is None:
        make: Callable[..., Any] = partial(_in_process, engine, cls, origin, key)
    else:
        make = partial(_engine, space, where, origin, key)
    return PolicyEntry(key, cls.name or cls.__name__, cls.family, "user", cls.paper or origin, "",
                       params, ("reference",), cls.decides_at, traits, doc=doc, origin=origin,
                       loader=lambda: make)


def _in_process(engine: Any, cls: Any, origin: str, key: str, **params: Any) -> Any:
    for name in PROCESS_PARAMS:
        params.pop(name, None)
    return engine(cls, origin, spec=key, **params)


def _engine(space: bool, where: tuple[str, str | None, dict[str, Any]], origin: str, key: str,
            **params: Any) -> Any:
    """The engine's policy object: the user's class in its own process (the default), or
    imported into this one with ``isolated=false`` (faster; only for code one trusts: it can
    then reach the engine, the checker and the other policies of the run)."""
    from gangviz.userpolicy.boundary import IsolatedPolicy, IsolatedSpaceEngine
    from gangviz.userpolicy.space import SpaceEngine

    target, cls_name, decl = where
    if not params.pop("isolated", True):
        cls, _ = load_class(target, cls_name)
        return _in_process(SpaceEngine if space else EnginePolicy, cls, origin, key, **params)
    return (IsolatedSpaceEngine if space else IsolatedPolicy)(decl, target, cls_name, origin, spec=key, **params)
