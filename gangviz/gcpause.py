"""Let Python's cyclic garbage collector rest while a large batch of plain objects is built.

Reading a trace or replaying a long schedule makes a few container objects per job; none of
them can form a reference cycle, but their sheer number would trigger many full collections.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_resting() -> Iterator[None]:
    """Disable the cyclic collector for the ``with`` block; re-enable it afterwards if it was
    on (an enclosing block that turned it off keeps it off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
