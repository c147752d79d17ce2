"""Paper reproductions, one module each, listed by ``gangviz repro``.

A module here provides ``TARGETS: dict[str, str]`` (target name -> one-line summary),
``add_arguments(parser)`` (its options, e.g. ``--sets``, ``--jobs``, ``--reps``, ``--workers``)
and ``run(target, args) -> int`` that prints its table and findings and returns the exit code.
"""
