"""Starting worker processes from the window without running the user's main script again."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def main_not_imported() -> Iterator[None]:
    """Spawn workers that do not import the main script: a worker needs gangviz's own
    functions only, and a user's script that opens the window without an
    ``if __name__ == "__main__"`` guard would otherwise run again in every worker (a module run
    with ``python -m`` is imported by name, under its guard, as usual)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or getattr(main, "__spec__", None) is not None:
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path
