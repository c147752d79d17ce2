"""numba's on-disk cache for compiled code that calls jitted helpers of other modules.

numba caches each compiled function on disk under an index checked against the source file
the function comes from (its time stamp and size) and keyed by the function's own bytecode.
A function compiled with another module's jitted helpers in it is therefore not compiled
again when only that other module changes: the next process would load stale machine code.

:func:`cached_with` makes a ``njit`` decorator whose functions also key their cache entries by
the source of the modules named (a SHA-256 of each file's bytes): an edit of a shared helper
gives every function compiled with it a new key, so the next process compiles them again (the
stale entries stay in the index, unused). The shared modules themselves use plain
``njit(cache=True)`` and must call no jitted code outside their own file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from numba import njit
from numba.core.caching import FunctionCache
from numba.core.dispatcher import Dispatcher

__all__ = ["cached_with", "source_digest"]

F = TypeVar("F", bound=Callable[..., Any])


def source_digest(*modules: ModuleType) -> str:
    """Return the SHA-256 of the source files of ``modules``, in the order given. Raises
    ``ValueError`` for a module without a source file."""
    digest = hashlib.sha256()
    for module in modules:
        path = getattr(module, "__file__", None)
        if not path:
            raise ValueError(f"module {module.__name__} has no source file to key a cache by")
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


class _KeyedCache(FunctionCache):
    """numba's per-function cache with ``digest`` added to every index key."""

    def __init__(self, py_func: Callable[..., Any], digest: str) -> None:
        super().__init__(py_func)  # type: ignore[no-untyped-call]
        self._digest = digest

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        return (*super()._index_key(sig, codegen), self._digest)  # type: ignore[no-untyped-call]


def cached_with(*shared: ModuleType, nogil: bool = False) -> Callable[[F], Dispatcher[F]]:
    """Return a decorator that compiles a function as ``njit(nogil=nogil)`` does and caches it
    on disk (``cache=True``), its cache entries keyed by the source of the ``shared`` modules
    too (:func:`source_digest`, read once, here). Raises ``ValueError`` as
    :func:`source_digest`."""
    digest = source_digest(*shared)

    def decorate(func: F) -> Dispatcher[F]:
        dispatcher: Dispatcher[F] = njit(func, nogil=nogil)
        # What ``cache=True`` does (Dispatcher.enable_caching), with the keyed cache.
        dispatcher._cache = _KeyedCache(dispatcher.py_func, digest)  # type: ignore[attr-defined]
        return dispatcher

    return decorate
