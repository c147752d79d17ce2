"""The arguments of the notebook API (:mod:`gangviz.api`), checked at its door.

Each public function of the API calls one function here first, so a wrong type or value is
refused before anything loads, with ``TypeError`` (wrong kind of value) or ``ValueError`` (right
kind, not allowed) naming the argument, what was given (quoted, at most 80 characters) and what
is allowed. Nothing is coerced: ``load=True`` is not load 1, ``record="no"`` is not true, and
``policy=""`` is not the default policy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from gangviz.inputs import quoted

#: the options that load a source, and the kind of value each takes
SOURCE_OPTIONS = {"procs": "a whole number >= 1", "slice_seconds": "a finite number of seconds > 0",
                  "jobs": "a whole number >= 1", "load": "a finite number > 0",
                  "seed": "a whole number >= 0"}
#: the kinds of value a policy parameter may have (what a spec's ``key=value`` reads as)
PARAM_TYPES = (bool, int, float, str)


def check_simulate(source: Any, policy: Any, ring: Any, record: Any, params: Any,
                   options: Mapping[str, Any]) -> None:
    """Check the arguments of :func:`gangviz.api.simulate`; raise ``TypeError``/``ValueError``
    naming the first that is not allowed (see the module docstring)."""
    _source(source, options)
    if policy is not None:
        _policy("policy", policy)
    _common(ring, record, params)


def check_compare(source: Any, policies: Any, ring: Any, record: Any, params: Any,
                  options: Mapping[str, Any]) -> list[str]:
    """Check the arguments of :func:`gangviz.api.compare`; return ``policies`` as a list (an
    iterator is read once, here). Raises ``TypeError``/``ValueError`` naming the first argument
    that is not allowed, and ``ValueError`` for no policy or one given twice."""
    _source(source, options)
    if isinstance(policies, (str, bytes, Mapping)) or not isinstance(policies, Iterable):
        raise TypeError(f"policies must be a list of names such as ['bc', 'br'], got "
                        f"{_kind(policies)} {quoted(policies)}")
    specs = list(policies)
    if not specs:
        raise ValueError("policies is empty: compare needs at least one policy name, e.g. ['bc', 'br']")
    for k, spec in enumerate(specs):
        _policy(f"policies[{k}]", spec)
    from gangviz.experiments.compare import check_distinct

    check_distinct(specs, "policies:")
    _common(ring, record, params)
    return specs


def check_bsld_threshold(value: Any) -> float:
    """Check ``bsld_threshold`` (the bounded slowdown's Γ, in the source's clock) of the API:
    return it as a float; raise ``TypeError`` for another kind than a number, ``ValueError``
    for a value that is not finite and > 0 (as ``--bsld-threshold`` refuses it)."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"bsld_threshold must be a number of seconds (slices off a trace) > 0, got "
                        f"{_kind(value)} {quoted(value)}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"bsld_threshold must be a finite number > 0 (seconds on a trace, slices "
                         f"otherwise), got {value!r}")
    return float(value)


def check_table(table: Any) -> None:
    """Check the argument of :func:`gangviz.api.to_pandas`: a per-job table (a numpy structured
    array, :attr:`gangviz.api.Result.jobs`); raise ``TypeError`` otherwise."""
    import numpy as np

    if not isinstance(table, np.ndarray) or table.dtype.names is None:
        raise TypeError(f"table must be a per-job table (Result.jobs, a numpy structured array), got "
                        f"{_kind(table)}")


def check_path(name: str, path: Any) -> None:
    """Raise ``TypeError`` unless ``path`` is a file name (text or ``os.PathLike``), ``ValueError``
    when it is empty."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file name (str or pathlib.Path), got {_kind(path)}")
    if not os.fspath(path):
        raise ValueError(f"{name} is empty: give a file name such as 'jobs.csv'")


def _source(source: Any, options: Mapping[str, Any]) -> None:
    from gangviz.workloads.source import Source

    if not isinstance(source, (str, os.PathLike, Source)):
        raise TypeError(f"source must be an SWF trace or scenario path, a built-in scenario or model "
                        f"name (str or pathlib.Path) or a loaded Source, got {_kind(source)}")
    if isinstance(source, str) and not source.strip():
        raise ValueError("source is empty: name a scenario, an SWF trace or a model such as 'downey'")
    unknown = sorted(str(k) for k in options if k not in SOURCE_OPTIONS)
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(quoted(k)[1:-1] for k in unknown)}; the options are "
                        f"{', '.join(SOURCE_OPTIONS)}, ring, record, params")
    for key, value in options.items():
        if value is not None:
            _option(key, value)


def _option(key: str, value: Any) -> None:
    # only the kind here: the ranges are the command line's, checked (and worded) where the
    # source loads, so the API and the command line give the same message
    whole = key in ("procs", "jobs", "seed")
    if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
        raise TypeError(f"{key} must be {SOURCE_OPTIONS[key]}, got {_kind(value)} {quoted(value)}")


def _policy(name: str, spec: Any) -> None:
    if not isinstance(spec, str):
        raise TypeError(f"{name} must be a policy name such as 'bc' or 'random:seed=3' (str), got "
                        f"{_kind(spec)} {quoted(spec)}")
    if not spec.strip():
        raise ValueError(f"{name} is empty: name a policy such as 'bc' or 'random:seed=3' "
                         "(None, for simulate, runs the source's own or repack)")


def _common(ring: Any, record: Any, params: Any) -> None:
    if ring is not None and not isinstance(ring, bool):
        raise TypeError(f"ring must be True, False or None (the source's own), got {_kind(ring)} "
                        f"{quoted(ring)}")
    if not isinstance(record, bool):
        raise TypeError(f"record must be True or False, got {_kind(record)} {quoted(record)}")
    if params is None:
        return
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict of parameter name -> value, got {_kind(params)}")
    for key, value in params.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"params keys must be parameter names (non-empty str), got {_kind(key)} "
                            f"{quoted(key)}")
        if not isinstance(value, PARAM_TYPES):  # (its range is the policy's to check)
            raise TypeError(f"params[{key!r}] must be a bool, a number or text, got {_kind(value)}")


def _kind(value: Any) -> str:
    return type(value).__name__
