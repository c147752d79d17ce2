"""Paper reproductions, one module each, listed by ``gangviz repro``.

A module here provides ``TARGETS: dict[str, str]`` (target name -> one-line summary),
``add_arguments(parser)`` (its options, e.g. ``--sets``, ``--jobs``, ``--reps``, ``--workers``)
and ``run(target, args) -> int`` that prints its table and findings and returns
:data:`RAN` when every finding holds, :data:`FINDING_FAILED` when one does not, and 1 when runs
failed. ``gangviz repro`` turns :data:`FINDING_FAILED` into exit status 0 unless ``--strict``.

Every module prints a finding with :func:`verdict` (one label for each outcome) and names its
paper with :data:`REFERENCES`.
"""

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
