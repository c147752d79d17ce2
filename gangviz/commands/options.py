"""The options several sub-commands share, defined once: same names, defaults and help wording.

The ones the reproductions register too (``--workers``, ``--seed``, ``--json``, ``-o/--out``)
live in :mod:`gangviz.experiments.options`, below the reproductions; these are the others:

* the source options of ``run``, ``compare``, ``open`` and ``export`` (``--procs``, ``--slice``,
  ``--jobs``, ``--load``, ``--seed``, ``--ring``), which size a synthetic model or override a
  trace's header;
* ``--strict`` of the reproductions: exit 3 when a finding of the paper does not hold.
"""

from __future__ import annotations

import argparse

from gangviz.experiments.argtypes import positive_int
from gangviz.experiments.options import DEFAULT_SEED, add_seed

#: Jobs of a synthetic model when ``--jobs`` is not given.
DEFAULT_JOBS = 200
#: Offered load of a synthetic model when ``--load`` is not given.
DEFAULT_LOAD = 0.5


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


def add_strict(p: argparse.ArgumentParser) -> None:
    """Add ``--strict``: exit 3 when a finding of the paper does not hold (0 otherwise)."""
    p.add_argument("--strict", action="store_true",
                   help="exit with status 3 when a finding of the paper does not hold "
                        "(default: exit 0 whenever the reproduction ran)")


def window_size(text: str) -> tuple[int, int]:
    """Parse ``WIDTHxHEIGHT`` (each 200..8000) for ``--size``; raise
    ``argparse.ArgumentTypeError`` naming the token otherwise."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1680x1050, got {text!r}") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"width and height must be in 200..8000, got {text!r}")
    return w, h
