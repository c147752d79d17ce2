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
from typing import Any

from gangviz.experiments.argtypes import number, positive_int, positive_seconds, whole_number
from gangviz.experiments.options import DEFAULT_SEED
from gangviz.workloads.source import MODEL_DEFAULTS

#: Jobs of a synthetic model when ``--jobs`` is not given.
DEFAULT_JOBS = MODEL_DEFAULTS["jobs"]
#: Offered load of a synthetic model when ``--load`` is not given.
DEFAULT_LOAD = MODEL_DEFAULTS["load"]


def add_source_options(p: argparse.ArgumentParser, *, ring: bool = True) -> None:
    """Add ``--procs``, ``--slice``, ``--jobs``, ``--load``, ``--seed`` (and ``--ring``)."""
    p.add_argument("--procs", type=positive_int, default=None,
                   help="processors (default: the scenario's, the trace header's or the model's)")
    p.add_argument("--slice", type=number, default=None, metavar="SECONDS",
                   help="seconds per slice of an SWF trace (default: the trace's own, else 1)")
    # None when not given: a trace or a scenario refuses them rather than ignore them
    p.add_argument("--jobs", type=positive_int, default=None,
                   help=f"jobs of a synthetic model (default {DEFAULT_JOBS})")
    p.add_argument("--load", type=number, default=None,
                   help=f"offered load of a synthetic model (default {DEFAULT_LOAD})")
    p.add_argument("--seed", type=whole_number, default=None, help=f"seed of a synthetic model (default {DEFAULT_SEED})")
    if ring:
        p.add_argument("--ring", action="store_true", help="processors form a ring (default: a line)")


def add_bsld_threshold(p: argparse.ArgumentParser) -> None:
    """Add ``--bsld-threshold``: the bounded slowdown's Γ [Zhang01 §2.3], in the run's clock."""
    p.add_argument("--bsld-threshold", type=positive_seconds, default=10.0, metavar="GAMMA",
                   help="the bounded slowdown's threshold Γ: seconds on a trace, slices on a "
                        "scenario or model (default 10, Zhang01 §2.3)")


def add_strict(p: argparse.ArgumentParser) -> None:
    """Add ``--strict``: exit 3 when a finding of the paper does not hold (0 otherwise)."""
    p.add_argument("--strict", action="store_true",
                   help="exit with status 3 when a finding of the paper does not hold "
                        "(default: exit 0 whenever the reproduction ran)")


def add_user_policy_options(p: argparse.ArgumentParser) -> None:
    """Add ``--order``, ``--no-check`` and ``--decision-limit`` (a user's policy and queue order)."""
    p.add_argument("--order", metavar="FILE.py:FUNCTION",
                   help="order the waiting queue of a time-slot policy by a function of one job "
                        "(e.g. my.py:shortest_first; default: arrival order)")
    p.add_argument("--no-check", dest="check", action="store_false",
                   help="do not check a user's policy against the rules (faster; default: checked)")
    p.add_argument("--decision-limit", type=positive_seconds, default=None, metavar="SECONDS",
                   help="longest one decision of a user's policy may take (default: 5 s)")


def user_policy_params(args: argparse.Namespace) -> dict[str, Any]:
    """Return the parameters ``--no-check`` and ``--decision-limit`` give a user's policy."""
    params: dict[str, Any] = {}
    if not getattr(args, "check", True):
        params["check"] = False
    if getattr(args, "decision_limit", None) is not None:
        params["decision_limit"] = args.decision_limit
    return params


def window_size(text: str) -> tuple[int, int]:
    """Parse ``WIDTHxHEIGHT`` (each 200..8000) for ``--size``; raise
    ``argparse.ArgumentTypeError`` naming the token otherwise."""
    try:
        w, h = (int(v) for v in text.lower().split("x") if v.isascii())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1680x1050, got {text!r}") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"width and height must be in 200..8000, got {text!r}")
    return w, h
