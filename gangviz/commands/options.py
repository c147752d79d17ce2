"""The options several sub-commands share, defined once: same names, defaults and help wording.

* the source options of ``run``, ``compare``, ``open`` and ``export`` (``--procs``, ``--slice``,
  ``--jobs``, ``--load``, ``--seed``, ``--ring``), which size a synthetic model or override a
  trace's header;
* ``--workers`` of ``sweep`` and every ``repro`` target: all cores but one by default (at least
  one), so the machine stays usable while a long run works;
* ``--seed``: seed 1 unless a reproduction keeps the seed its published figures were made with;
* ``--json`` always prints one JSON document on stdout; ``-o/--out`` names a file to write;
* ``--strict`` of the reproductions: exit 3 when a finding of the paper does not hold.
"""

from __future__ import annotations

import argparse
import os

from gangviz.experiments.argtypes import positive_int

#: Seed of the synthetic models when none is given (``run``, ``compare``, ``open``, ``export``,
#: ``generate``).
DEFAULT_SEED = 1
#: Jobs of a synthetic model when ``--jobs`` is not given.
DEFAULT_JOBS = 200
#: Offered load of a synthetic model when ``--load`` is not given.
DEFAULT_LOAD = 0.5


def default_workers() -> int:
    """Return the default number of worker processes: all cores but one, at least 1."""
    return max(1, (os.cpu_count() or 1) - 1)


def add_source_options(p: argparse.ArgumentParser, *, ring: bool = True) -> None:
    """Add ``--procs``, ``--slice``, ``--jobs``, ``--load``, ``--seed`` (and ``--ring``)."""
    p.add_argument("--procs", type=positive_int, default=None,
                   help="processors (default: the scenario's, the trace header's or the model's)")
    p.add_argument("--slice", type=float, default=None, metavar="SECONDS",
                   help="seconds per slice of an SWF trace (default: the trace's own, else 1)")
    p.add_argument("--jobs", type=positive_int, default=DEFAULT_JOBS,
                   help=f"jobs of a synthetic model (default {DEFAULT_JOBS})")
    p.add_argument("--load", type=float, default=DEFAULT_LOAD,
                   help=f"offered load of a synthetic model (default {DEFAULT_LOAD})")
    add_seed(p, DEFAULT_SEED, "seed of a synthetic model")
    if ring:
        p.add_argument("--ring", action="store_true", help="processors form a ring (default: a line)")


def add_seed(p: argparse.ArgumentParser, default: int = DEFAULT_SEED,
             what: str = "seed of the random numbers") -> None:
    """Add ``--seed`` with ``default``; the help reads "WHAT (default N)"."""
    p.add_argument("--seed", type=int, default=default, help=f"{what} (default {default})")


def add_workers(p: argparse.ArgumentParser, **kwargs) -> None:
    """Add ``--workers N`` (default: all cores but one); ``kwargs`` go to ``add_argument``
    (e.g. to put it in a mutually exclusive group, call this with that group as ``p``)."""
    n = default_workers()
    p.add_argument("--workers", type=positive_int, default=n, metavar="N",
                   help=f"local worker processes; the results do not depend on it "
                        f"(default: all cores but one, {n} here)", **kwargs)


def add_json(p: argparse.ArgumentParser, what: str = "print one JSON document on stdout "
                                                      "instead of the text") -> None:
    """Add ``--json`` (a flag: JSON always goes to stdout)."""
    p.add_argument("--json", action="store_true", help=what)


def add_out(p: argparse.ArgumentParser, what: str, *, required: bool = False) -> None:
    """Add ``-o/--out FILE``."""
    p.add_argument("-o", "--out", metavar="FILE", required=required, default=None, help=what)


def add_strict(p: argparse.ArgumentParser) -> None:
    """Add ``--strict``: exit 3 when a finding of the paper does not hold (0 otherwise)."""
    p.add_argument("--strict", action="store_true",
                   help="exit with status 3 when a finding of the paper does not hold "
                        "(default: exit 0 whenever the reproduction ran)")
