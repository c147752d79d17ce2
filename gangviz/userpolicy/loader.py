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

import hashlib
import importlib
import numbers
import os
import re
import sys
import types
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from gangviz.core.params import quote
from gangviz.core.registry import MATRIX, SPACE_SHARING, PolicyEntry
from gangviz.inputs import InputFileError, check_regular, read_bounded
from gangviz.userpolicy.errors import UserPolicyError, def_line, describe_exception
from gangviz.userpolicy.policy import ENGINE_PARAMS, EnginePolicy, MatrixPolicy, _call

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.userpolicy.space import SpacePolicy

    #: a user's policy class, of either family
    _PolicyClass = type[MatrixPolicy] | type[SpacePolicy]

__all__ = ["ENTRY_POINT_GROUP", "is_user_spec", "split_user_spec", "user_entry", "load_function",
           "load_class", "forget", "order_key", "installed_entries"]

ENTRY_POINT_GROUP = "gangviz.policies"
_MODULE = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+):([A-Za-z_]\w*)(?::(.*))?$", re.S)
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
#: The largest policy file read (1 MiB: a policy is code, not data; compiling a larger file
#: takes about a hundred times its size in memory).
MAX_POLICY_BYTES = 1 << 20
#: path -> (mtime_ns, size, module)
_CACHE: dict[str, tuple[int, int, types.ModuleType]] = {}


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


def forget(path: str) -> None:
    """Drop the cached module of ``path`` so the next load imports it again."""
    _CACHE.pop(os.path.abspath(path), None)


def _load_file(path: str) -> types.ModuleType:
    """Import the Python file ``path`` (again when it changed since its last import)."""
    full = os.path.abspath(path)
    try:
        st = os.stat(full)
    except OSError as exc:
        raise UserPolicyError(f"policy file {path}: {exc.strerror or exc}") from None
    cached = _CACHE.get(full)
    if cached is not None and cached[:2] == (st.st_mtime_ns, st.st_size):
        return cached[2]
    try:
        check_regular(full, MAX_POLICY_BYTES)  # a FIFO would block, a device never end
        with open(full, "rb") as f:
            source = read_bounded(f, MAX_POLICY_BYTES, st.st_size)
    except InputFileError as exc:
        raise UserPolicyError(f"policy file {str(exc).replace(full, path, 1)}".replace(
            "for an input file", "for a policy file")) from None
    except OSError as exc:
        raise UserPolicyError(f"policy file {path}: {exc.strerror or exc}") from None
    if len(source) > MAX_POLICY_BYTES:  # it grew while being read
        raise UserPolicyError(f"policy file {path}: is over the limit of {MAX_POLICY_BYTES:,} bytes "
                              "for a policy file")
    tag = hashlib.sha1(full.encode()).hexdigest()[:10]
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(full))[0])
    name = f"gangviz_user_{stem}_{tag}"
    module = types.ModuleType(name)
    module.__file__ = path  # messages name the file as the user wrote it
    try:
        code = compile(source, path, "exec")
    except SyntaxError as exc:
        raise UserPolicyError(describe_exception(exc, path, "policy file")) from None
    except ValueError as exc:  # e.g. a null byte
        raise UserPolicyError(f"policy file {path}: {exc}") from None
    sys.modules[name] = module  # dataclasses and pickling look the module up
    try:
        exec(code, module.__dict__)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise UserPolicyError(describe_exception(exc, path, "policy file")) from None
    _CACHE[full] = (st.st_mtime_ns, st.st_size, module)
    return module


def _load_module(name: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except Exception as exc:
        raise UserPolicyError(describe_exception(exc, None, f"policy module {name}")) from None


def _bases() -> tuple[type[MatrixPolicy], type[SpacePolicy]]:
    from gangviz.userpolicy.space import SpacePolicy

    return MatrixPolicy, SpacePolicy


def _policy_classes(module: types.ModuleType) -> list[_PolicyClass]:
    bases = _bases()
    return [v for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, bases) and v not in bases
            and v.__module__ == module.__name__]


def load_class(target: str, cls_name: str | None) -> tuple[_PolicyClass, str]:
    """Return the policy class ``cls_name`` of ``target`` (a .py file or a module; the one
    class the file defines when ``cls_name`` is ``None``) and the file it came from.

    Raises :class:`UserPolicyError` for a file that does not load, no such class, or a file
    with no policy class or more than one when none is named.
    """
    module = _load_file(target) if target.endswith(".py") else _load_module(target)
    origin = getattr(module, "__file__", None) or target
    if cls_name is not None:
        cls = getattr(module, cls_name, None)
        if not (isinstance(cls, type) and issubclass(cls, _bases())):
            found = ", ".join(c.__name__ for c in _policy_classes(module)) or "none"
            raise UserPolicyError(f"{origin}: no policy class {cls_name!r} (a subclass of "
                                  f"gangviz.userpolicy.MatrixPolicy or SpacePolicy; found: {found})")
        return cls, origin
    classes = _policy_classes(module)
    if not classes:
        raise UserPolicyError(f"{origin}: no policy class (define one subclass of "
                              "gangviz.userpolicy.MatrixPolicy or SpacePolicy)")
    if len(classes) > 1:
        names = ", ".join(c.__name__ for c in classes)
        raise UserPolicyError(f"{origin}: {len(classes)} policy classes ({names}); name one, "
                              f"e.g. {target}:{classes[0].__name__}")
    return classes[0], origin


def load_function(spec: str) -> tuple[Callable[[Any], Any], str]:
    """Return the function a ``file.py:function`` or ``module:function`` spec names and its
    file (a queue order, ``--order``). Raises :class:`UserPolicyError` when it does not load
    or is not callable."""
    m = re.match(r"^(.*?\.py):([A-Za-z_]\w*)$", spec.strip()) or _MODULE.match(spec.strip())
    if not m or (m.re is _MODULE and m.group(3) is not None):  # a function takes no parameters
        raise UserPolicyError(f"order {spec!r}: write it as file.py:function or module:function")
    target, attr = m.group(1), m.group(2)
    module = _load_file(target) if target.endswith(".py") else _load_module(target)
    fn = getattr(module, attr, None)
    origin = getattr(module, "__file__", None) or target
    if not callable(fn):
        raise UserPolicyError(f"{origin}: no function {attr!r}")
    return fn, origin


#: The longest one call of a queue order may take, in seconds (a user policy's default limit).
ORDER_LIMIT = 5.0


def order_key(spec: str) -> Callable[[Any], Any]:
    """Return the queue order ``spec`` names (``file.py:function``) as a sort key.

    The key raises :class:`UserPolicyError` naming the user's file and line when the function
    raises, runs past :data:`ORDER_LIMIT`, or returns what does not sort (``None``, NaN, a
    list, or a kind other than the first job's)."""
    fn, origin = load_function(spec)
    kinds: list[str] = []  # the kind of the first key: every job's key must compare with it

    def key(job: Any) -> Any:
        value = _call(lambda: fn(job), origin, spec, ORDER_LIMIT, kind="order")
        kind = _key_kind(value)
        if kind is None or (kinds and kind != kinds[0]):
            allowed = "a number (not NaN), text, or a tuple of them"
            if kinds:
                allowed += f", and for every job the same kind ({kinds[0]})"
            raise UserPolicyError(f"order {spec} ({def_line(fn, origin)}): returned {quote(value)} "
                                  f"for job {getattr(job, 'name', job)}; a queue order returns {allowed}")
        kinds[:1] = [kind]
        return value

    return key


def _key_kind(value: Any) -> str | None:
    """Return the kind of a sort key (``"number"``, ``"text"``, ``"tuple of ..."``), or ``None``
    for a value that does not sort with its own kind (``None``, NaN, a list, ...)."""
    if isinstance(value, bool) or isinstance(value, numbers.Real):
        return None if value != value else "number"  # NaN compares false with everything
    if isinstance(value, str):
        return "text"
    if isinstance(value, tuple):
        parts = [_key_kind(v) for v in value]
        kinds = [k for k in parts if k is not None]
        return None if len(kinds) != len(parts) else "tuple of " + ", ".join(kinds)
    return None


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
        try:
            cls = ep.load()
        except Exception as exc:
            raise UserPolicyError(describe_exception(exc, None, f"policy {ep.name} ({ep.value})")) from None
        if not (isinstance(cls, type) and issubclass(cls, _bases())):
            raise UserPolicyError(f"policy {ep.name}: {ep.value} is not a gangviz.userpolicy policy class")
        origin = getattr(sys.modules.get(cls.__module__), "__file__", None) or ep.value
        return entry_of_class(cls, origin, ep.name), params
    target, cls_name, params = parts
    cls, origin = load_class(target, cls_name)
    key = f"{target}:{cls.__name__}" if cls_name else target
    return entry_of_class(cls, origin, key), params


def check_declarations(cls: Any, origin: str) -> None:
    """Raise :class:`UserPolicyError` (one line naming the file, the class and the attribute)
    when a policy class declares what cannot work: a ``name`` or ``paper`` that is not text, a
    ``family`` other than its base class's, ``params`` that are not
    :class:`~gangviz.core.params.Param` objects, or a parameter whose default is not of its
    own kind or range."""
    from gangviz.core.params import KINDS, Param
    from gangviz.userpolicy.space import SpacePolicy

    where = f"{origin}: class {cls.__name__}"
    for attr in ("name", "paper"):
        value = getattr(cls, attr, "")
        if not isinstance(value, str):
            raise UserPolicyError(f"{where}: {attr} must be text, got {quote(value)}")
    base, family = (SpacePolicy, SPACE_SHARING) if issubclass(cls, SpacePolicy) else (MatrixPolicy, MATRIX)
    if cls.family != family:
        raise UserPolicyError(f"{where}: family is {quote(cls.family)} but the class derives from "
                              f"{base.__name__}, whose family is {family!r}; leave family out "
                              f"(or derive from {'MatrixPolicy' if base is SpacePolicy else 'SpacePolicy'})")
    params = cls.params
    if not isinstance(params, (tuple, list)) or not all(isinstance(p, Param) for p in params):
        raise UserPolicyError(f"{where}: params must be a tuple of Param(...), got {quote(params)}")
    for p in params:
        if not isinstance(p.name, str) or not p.name.isidentifier():
            raise UserPolicyError(f"{where}: a parameter's name must be a Python name, got {quote(p.name)}")
        if p.kind not in KINDS:
            raise UserPolicyError(f"{where}: parameter {p.name}: kind must be one of "
                                  f"{', '.join(KINDS)}, got {quote(p.kind)}")
        default = p.default
        # of its kind as a value, not as text to be read (``"3"`` is no default of an int);
        # True is an int to Python, not a number to a policy
        kinds = {"int": numbers.Integral, "float": numbers.Real, "bool": bool, "choice": str, "text": str}
        ok = (default is None and p.none is not None) or (
            isinstance(default, kinds[p.kind]) and not (isinstance(default, bool) and p.kind != "bool"))
        try:
            if ok:
                p.parse(default, cls.name or cls.__name__)
        except ValueError:
            ok = False
        if not ok:
            raise UserPolicyError(f"{where}: parameter {p.name}: the default {quote(default)} is not "
                                  f"{p.allowed()}")


def entry_of_class(cls: Any, origin: str, key: str) -> PolicyEntry:
    """Return the registry entry of a user's policy class (its declarations, plus
    :data:`~gangviz.userpolicy.policy.ENGINE_PARAMS` it does not declare itself, and for space
    sharing :data:`~gangviz.userpolicy.space.SPACE_PARAMS`)."""
    from gangviz.userpolicy.space import SPACE_PARAMS, SpaceEngine

    check_declarations(cls, origin)
    space = cls.family == SPACE_SHARING
    own = tuple(cls.params)
    declared = {p.name for p in own}
    params = own + tuple(p for p in ENGINE_PARAMS + (SPACE_PARAMS if space else ())
                         if p.name not in declared)
    traits = frozenset({"user"} | ({"buddy"} if cls.buddy else set()) | ({"migrate"} if cls.migrates else set()))
    doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
    engine = SpaceEngine if space else EnginePolicy
    if space and getattr(cls, "follows", ""):
        traits |= {"reserve-" + ("head" if cls.follows == "easy" else "all"), cls.follows}
    return PolicyEntry(key, cls.name or cls.__name__, cls.family, "user", cls.paper or origin, "",
                       params, ("reference",), cls.decides_at, traits, doc=doc, origin=origin,
                       loader=lambda: partial(engine, cls, origin, spec=key))
