"""Paper reproductions, one module each, listed by ``gangviz repro``.

A module here provides ``TARGETS: dict[str, str]`` (target name -> one-line summary),
``add_arguments(parser)`` (its options, e.g. ``--sets``, ``--jobs``, ``--reps``, and
``--workers``/``--scheduler`` from :func:`add_where`) and ``run(target, args) -> int`` that prints its table and findings and returns
:data:`RAN` when every finding holds, :data:`FINDING_FAILED` when one does not, and 1 when runs
failed. ``gangviz repro`` turns :data:`FINDING_FAILED` into exit status 0 unless ``--strict``.

Every module prints a finding with :func:`verdict` (one label for each outcome) and names its
paper with :data:`REFERENCES`. Every module runs its simulations through
:func:`gangviz.experiments.runner.map_runs` (local processes, or a Dask cluster), taking the
results as they complete, with the seeds of :mod:`gangviz.experiments.seeds`.
"""

from __future__ import annotations

import argparse

from gangviz.experiments.numbers import plural
from gangviz.experiments.options import add_workers

RAN = 0
FINDING_FAILED = 3

#: How output names the papers: author and year.
REFERENCES = {
    "zhou99": "Zhou et al. (1999)",
    "zhou00": "Zhou and Walsh (2000)",
    "papazachos": "Papazachos and Karatza",
    "zhang01": "Zhang et al. (2001)",
    "mccann94": "McCann and Zahorjan (1994)",
}


def verdict(holds: bool) -> str:
    """Return the bracketed label of a finding: ``[holds]`` or ``[DOES NOT HOLD]``."""
    return "[holds]" if holds else "[DOES NOT HOLD]"


def add_where(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers N`` and, exclusive with it, ``--scheduler ADDRESS`` (a Dask scheduler)."""
    group = parser.add_mutually_exclusive_group()
    add_workers(group)
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="address of a Dask scheduler (e.g. tcp://host:8786) to run on instead "
                            "of local workers; the results do not depend on it")


def where(args: argparse.Namespace) -> str:
    """Return where the runs go, for the user: "a Dask cluster at ADDRESS" or "N workers"."""
    if getattr(args, "scheduler", None):
        return f"the Dask cluster at {args.scheduler}"
    return plural(args.workers, "worker")
