"""Importing a user's policy file or module, and finding its policy class or function.

A file is imported afresh when it changed since it was last loaded (the window's hot reload),
else from a cache. Every failure is a :class:`~gangviz.userpolicy.errors.UserPolicyError`
naming the user's file and line. Run in the policy's own process
(:mod:`gangviz.userpolicy.worker`), and in the engine's for a policy run there.
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
from typing import TYPE_CHECKING, Any

from gangviz.core.params import quote
from gangviz.core.registry import MATRIX, SPACE_SHARING
from gangviz.inputs import InputFileError, check_regular, read_bounded
from gangviz.userpolicy.errors import UserPolicyError, describe_exception
from gangviz.userpolicy.policy import MatrixPolicy

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.userpolicy.space import SpacePolicy

    #: a user's policy class, of either family
    _PolicyClass = type[MatrixPolicy] | type[SpacePolicy]

__all__ = ["listing", "forget", "load_class", "load_function", "ORDER_LIMIT", "key_kind",
           "check_declarations", "MAX_POLICY_BYTES"]

_MODULE = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+):([A-Za-z_]\w*)(?::(.*))?$", re.S)
#: The largest policy file read (1 MiB: a policy is code, not data; compiling a larger file
#: takes about a hundred times its size in memory).
MAX_POLICY_BYTES = 1 << 20
#: path -> (mtime_ns, size, module)
_CACHE: dict[str, tuple[int, int, types.ModuleType]] = {}


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


def key_kind(value: Any) -> str | None:
    """Return the kind of a sort key (``"number"``, ``"text"``, ``"tuple of ..."``), or ``None``
    for a value that does not sort with its own kind (``None``, NaN, a list, ...)."""
    if isinstance(value, bool) or isinstance(value, numbers.Real):
        return None if value != value else "number"  # NaN compares false with everything
    if isinstance(value, str):
        return "text"
    if isinstance(value, tuple):
        parts = [key_kind(v) for v in value]
        kinds = [k for k in parts if k is not None]
        return None if len(kinds) != len(parts) else "tuple of " + ", ".join(kinds)
    return None


def listing(target: str) -> dict[str, list[str]]:
    """Return the names of the policy classes (``"classes"``) and of the other public functions
    (``"functions"``, queue orders) that the file ``target`` defines itself."""
    module = _load_file(target)
    functions = [k for k, v in vars(module).items() if isinstance(v, types.FunctionType)
                 and not k.startswith("_") and v.__module__ == module.__name__]
    return {"classes": [c.__name__ for c in _policy_classes(module)], "functions": functions}


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
