"""The options the sub-commands and the reproductions share: same names, defaults and help.

* ``--workers`` of ``sweep``, ``compare`` and every ``repro`` target: all the cores this process
  may run on by default. The runs are independent and CPU-bound, and the results do not depend
  on the count, so a default run takes the wall time the README quotes; the system's scheduler
  keeps the machine responsive (the window, a shell), and ``--workers N`` leaves cores free;
* ``--seed``: seed 1 unless a reproduction keeps the seed its published figures were made with;
* ``--json`` always prints one JSON document on stdout; ``-o/--out`` names a file to write.

They live here rather than in :mod:`gangviz.commands.options` because each reproduction
registers its own options and the reproductions sit below the commands.
"""

from __future__ import annotations

import argparse
from typing import Any

from gangviz.experiments.argtypes import positive_int

#: Seed of the synthetic models when none is given (``run``, ``compare``, ``open``, ``export``,
#: ``generate``).
DEFAULT_SEED = 1


class _Default(int):
    """An int that is the option's default and not a value typed: argparse refuses two options
    of a mutually exclusive group (``--workers`` beside ``--scheduler``) only when the value
    parsed is not the default object, so ``--workers 2`` must not *be* the default 2."""


def default_workers() -> int:
    """Return the default number of worker processes: every core this process may run on
    (its CPU affinity), at least 1."""
    from gangviz.experiments.runner import cores

    return _Default(cores())


def add_seed(p: argparse.ArgumentParser, default: int = DEFAULT_SEED,
             what: str = "seed of the random numbers") -> None:
    """Add ``--seed`` with ``default``; the help reads "WHAT (default N)"."""
    p.add_argument("--seed", type=int, default=default, help=f"{what} (default {default})")


def add_workers(p: argparse.ArgumentParser | argparse._ArgumentGroup, **kwargs: Any) -> None:
    """Add ``--workers N`` (default: all cores, :func:`default_workers`); ``kwargs`` go to ``add_argument``
    (e.g. to put it in a mutually exclusive group, call this with that group as ``p``)."""
    n = default_workers()
    p.add_argument("--workers", type=positive_int, default=n, metavar="N",
                   help=f"local worker processes; the results do not depend on it "
                        f"(default: all cores, {n} here)", **kwargs)


def add_json(p: argparse._ActionsContainer, what: str = "print one JSON document on stdout "
                                                      "instead of the text") -> None:
    """Add ``--json`` (a flag: JSON always goes to stdout)."""
    p.add_argument("--json", action="store_true", help=what)


def add_out(p: argparse.ArgumentParser, what: str, *, required: bool = False) -> None:
    """Add ``-o/--out FILE``."""
    p.add_argument("-o", "--out", metavar="FILE", required=required, default=None, help=what)
