"""Starting worker processes from the window: without running the user's main script again,
and deaf to the terminal's Ctrl-C, which the window handles for them."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def main_not_imported() -> Iterator[None]:
    """Spawn workers that do not import the main script and ignore Ctrl-C.

    A worker needs gangviz's own functions only, and a user's script that opens the window
    without an ``if __name__ == "__main__"`` guard would otherwise run again in every worker (a
    module run with ``python -m`` is imported by name, under its guard, as usual). A Ctrl-C in
    the terminal goes to every process of its group: the window ends its workers itself, so a
    worker started here ignores it (a process started with SIGINT ignored keeps it ignored),
    rather than printing a ``KeyboardInterrupt`` traceback from whatever it was doing."""
    with _interrupts_ignored(), _script_hidden():
        yield


@contextlib.contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """Within the block (on the main thread, where handlers are set), SIGINT is ignored, so
    processes started in it inherit that; the handler before is back after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _script_hidden() -> Iterator[None]:
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
