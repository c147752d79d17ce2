"""The documents ``gangviz run --json`` and ``gangviz compare --json`` print (schema 1), and
the header line every run prints: which machine and slice it used, and where each came from.

A document (see ``gangviz/results/schema.json``, checked by :func:`gangviz.results.schema.validate`):

* ``schema`` (1), ``command`` (``"run"`` or ``"compare"``), ``gangviz`` (the version);
* ``source``: ``name``, ``kind`` (``swf``, ``scenario`` or ``model``), ``jobs``;
* ``machine``: ``processors`` and ``processors_from`` (``--procs``, ``trace header``,
  ``scenario``, ``model default``), ``slice`` (seconds per slice on a trace, ``null`` on a
  source without a clock) and ``slice_from`` (``--slice``, ``default``, ``no clock``);
* ``time_unit`` (``s`` or ``slice``), ``classes`` (small and large, the same for every family,
  and the families' own), ``units`` and ``definitions`` of every figure present;
* for ``run``: ``policy`` (``name``, ``family``, ``parameters``), ``engine`` and ``metrics``
  (figure -> number, ``null`` when undefined); per-step and per-job detail only when asked
  (``steps``, ``final_matrix``);
* for ``compare``: ``policies`` (one such ``policy`` object each, with its ``engine``),
  ``metrics`` (label -> figures), ``best`` (figure -> best labels; none when the policies
  served different work), ``served`` (``same``, and the ``note`` saying why not), ``goals`` and ``lacks``
  (label -> the figures its family does not have).
"""

from __future__ import annotations

from typing import Any

from gangviz.results.figures import CLASSES, ZHOU_CLASSES, Figures
from gangviz.results.provenance import source_record

__all__ = ["SCHEMA_VERSION", "machine", "header_line", "base_document", "run_document",
           "compare_document", "policy_object"]

SCHEMA_VERSION = 1


def machine(source: Any, procs: int | None = None, slice_seconds: float | None = None) -> dict[str, Any]:
    """Return the ``machine`` object of a run on ``source``: its processors and slice and where
    each came from, given the ``--procs`` and ``--slice`` options as passed (``None``: not
    given)."""
    kind = source.kind
    if procs is not None:
        procs_from = "--procs"
    else:
        procs_from = {"swf": "trace header", "model": "model default"}.get(kind, "scenario")
    if kind == "swf":
        return {"processors": source.processors, "processors_from": procs_from,
                "slice": float(source.slice_seconds),
                "slice_from": "--slice" if slice_seconds is not None else "default"}
    return {"processors": source.processors, "processors_from": procs_from, "slice": None,
            "slice_from": "no clock"}


def header_line(title: str, policy: str, family: str, mach: dict[str, Any], jobs: int) -> str:
    """Return the first line every run prints: source, policy (or policies, comma-separated)
    and family, machine and slice, each with where it came from."""
    slice_text = (f"slice {mach['slice']:g} s ({mach['slice_from']})" if mach["slice"] is not None
                  else "times in slices (no clock)")
    word = "policies" if ", " in policy else "policy"
    return (f"{title} — {word} {policy} ({family}), {mach['processors']:,} processors "
            f"({mach['processors_from']}), {slice_text}, {jobs:,} jobs")


def base_document(command: str, source: Any, mach: dict[str, Any], clock: str) -> dict[str, Any]:
    """Return the members every document starts with (schema, command, version, source,
    machine, time unit, classes)."""
    return {"schema": SCHEMA_VERSION, "command": command, "gangviz": version(),
            "source": source_record(source),
            "machine": mach, "time_unit": clock,
            "classes": {**CLASSES, **ZHOU_CLASSES}}


def version() -> str:
    """The installed gangviz's version (the package metadata, so this layer imports no higher
    module to read it): :func:`_metadata_version` where it finds it, else what
    ``importlib.metadata`` says; ``"unknown"`` when gangviz is not installed."""
    found = _metadata_version("gangviz")
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gangviz")
    except PackageNotFoundError:  # pragma: no cover - run from a plain checkout
        return "unknown"


def _metadata_version(name: str) -> str | None:
    """Return the ``Version`` of the distribution ``name`` (a name without ``-``, ``_`` or
    ``.``) as ``importlib.metadata.version`` finds it: the first folder of ``sys.path`` that
    holds a ``NAME-*.dist-info`` or ``NAME-*.egg-info``, its ``METADATA`` (or ``PKG-INFO``).
    ``None`` where that is not plain (a zip on the path, an egg, two candidates in one folder,
    no such header): ``importlib.metadata`` then decides. Its import alone (zipfile, email,
    csv) costs a short run's per-job file a tenth of its time, hence this reader."""
    import os
    import sys

    for entry in sys.path:
        folder = entry or "."
        try:
            children = os.listdir(folder)
        except OSError:
            if os.path.exists(folder):
                return None  # a zip, or a folder not readable: importlib.metadata's case
            continue
        found = []
        for child in children:
            low = child.lower()
            stem, dot, ext = low.rpartition(".")
            if stem.partition("-")[0] != name:
                continue
            if ext in ("dist-info", "egg-info"):
                found.append(child)
            elif ext == "egg":
                return None  # an egg: a legacy layout
        if not found:
            continue
        if len(found) > 1:
            return None
        base = os.path.join(folder, found[0])
        for meta in ("METADATA", "PKG-INFO") if os.path.isdir(base) else ():
            try:
                with open(os.path.join(base, meta), encoding="utf-8") as fh:
                    head = fh.read().split("\n\n", 1)[0].splitlines()
            except OSError:
                continue
            for i, line in enumerate(head):
                key, colon, value = line.partition(":")
                if colon and key.lower() == "version":
                    folded = i + 1 < len(head) and head[i + 1][:1] in (" ", "\t")
                    return None if folded else value.strip(" \t")
            return None
        return None
    return None


def policy_object(name: str, family: str, parameters: dict[str, Any],
                  engine: str | None = None, **more: Any) -> dict[str, Any]:
    """Return the ``policy`` object of a document; ``more`` adds members (``label``,
    ``machine``, ``order``) where given (not ``None``)."""
    out: dict[str, Any] = {"name": name, "family": family,
                           "parameters": {k: _plain(v) for k, v in parameters.items()}}
    if engine is not None:
        out["engine"] = engine
    out.update({k: v for k, v in more.items() if v is not None})
    return out


def _plain(v: Any) -> Any:
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)


def run_document(source: Any, mach: dict[str, Any], name: str, parameters: dict[str, Any],
                 engine: str, figures: Figures, record: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the summary document of one run (``gangviz run --json``); ``record`` is the
    policy's (:func:`gangviz.results.provenance.policy_record`), else one is made of ``name``
    and ``parameters``."""
    doc = base_document("run", source, mach, figures.clock)
    doc["policy"] = record or policy_object(name, figures.family, parameters)
    doc["engine"] = engine
    doc["metrics"] = figures.json_values()
    doc["bsld_threshold"] = figures.gamma
    doc["units"] = figures.units
    doc["definitions"] = figures.definitions
    return doc


def compare_document(source: Any, mach: dict[str, Any], runs: dict[str, Any], comparison: Any) -> dict[str, Any]:
    """Return the document of a comparison (``gangviz compare --json``): ``runs`` are label ->
    :class:`~gangviz.experiments.compare.PolicyRun`, ``comparison`` their
    :class:`~gangviz.experiments.compare.Comparison`."""
    clock = next(iter(runs.values())).figures.clock if runs else "slice"
    doc = base_document("compare", source, mach, clock)
    doc["policies"] = [r.record or policy_object(label, r.family, r.parameters, r.engine,
                                                 machine=r.machine or None)
                       for label, r in runs.items()]
    doc["metrics"] = {label: r.figures.json_values() for label, r in runs.items()}
    if runs:
        doc["bsld_threshold"] = next(iter(runs.values())).figures.gamma
    units: dict[str, str] = {}
    defs: dict[str, str] = {}
    for r in runs.values():
        units.update(r.figures.units)
        defs.update(r.figures.definitions)
    doc["units"], doc["definitions"] = units, defs
    doc["best"] = {m: list(b) for m, b in comparison.best.items()}
    doc["served"] = {"same": not comparison.note, "note": comparison.note}
    doc["goals"] = dict(comparison.goals)
    doc["lacks"] = {label: list(keys) for label, keys in comparison.lacks.items()}
    return doc
