"""What a run was, recorded with its figures: the policy with every parameter (defaults
included), the queue order, the engine, the machine, the source and its reader's warnings.

One record for the header every run prints, the ``--json`` documents, the sidecar written next
to a per-job file and the notebook API's results, so each says the same thing:

* :func:`policy_record`: ``name`` (the registry's key: one spelling of every policy),
  ``label`` (the spec as given), ``family``, ``parameters`` (every declared parameter with the
  value used), ``engine``, ``machine`` (:func:`run_machine`) and ``order`` (the queue order's
  ``file``, ``function`` and the ``sha256`` of the file, or ``None``);
* :func:`source_record`: ``name``, ``kind``, ``jobs``, ``sha256`` of the file read (``None``
  for a built-in scenario or a model), ``seed`` (a model's) and ``warnings`` (the reader's).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

__all__ = ["provenance_lines", "file_sha256", "leaves_padding", "order_record", "policy_record", "policy_text",
           "run_machine", "source_record"]


def file_sha256(path: str | Path) -> str:
    """Return the SHA-256 of the file at ``path`` as hex. Raises ``OSError`` when it cannot be
    read. A run asks for its source's hash more than once (the header, the per-job file's
    sidecar): the hash is kept for the file as it is (its device, inode, size and modification
    time in nanoseconds), and read again when any of them changes."""
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        known = _HASHES.get(key)
        if known is not None:
            return known
        digest = hashlib.sha256()
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    if len(_HASHES) >= 16:  # a run reads a source or a few: never a long list
        _HASHES.clear()
    _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


#: the files hashed by :func:`file_sha256`, by their identity and state
_HASHES: dict[tuple[int, int, int, int, int], str] = {}


def leaves_padding(spec: str) -> bool:
    """Return whether the policy of ``spec`` leaves a padded machine's added processors alone
    (the buddy schemes of Zhou00, whose tree needs a power of two:
    :attr:`~gangviz.workloads.source.Source.absent_from`); ``False`` for a spec the registry
    does not know (a user policy: it uses every processor)."""
    from gangviz.core import registry
    from gangviz.core.params import split_spec

    try:
        return registry.lookup(split_spec(spec)[0])[0].group == "buddy"
    except ValueError:
        return False


def run_machine(source: Any, spec: str) -> dict[str, int]:
    """Return the machine policy ``spec`` runs on when run on ``source``: ``processors``, the
    processors that exist for it, and ``absent``, processors added to reach a power of two
    that it leaves alone (0: none)."""
    absent = source.absent_from
    if absent is not None and leaves_padding(spec):
        return {"processors": int(absent), "absent": int(source.processors - absent)}
    return {"processors": int(source.processors), "absent": 0}


def order_record(order: str | None) -> dict[str, str] | None:
    """Return the record of a queue order ``file.py:function``: ``file``, ``function`` and the
    ``sha256`` of the file (``""`` when it cannot be read); ``None`` for none."""
    if not order:
        return None
    file, _, function = order.rpartition(":")
    try:
        digest = file_sha256(file)
    except OSError:
        digest = ""
    return {"file": file, "function": function, "sha256": digest}


def _plain(v: Any) -> Any:
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)


def policy_record(source: Any, spec: str, family: str, parameters: dict[str, Any], engine: str,
                  order: str | None = None) -> dict[str, Any]:
    """Return the ``policy`` record of a run of ``spec`` on ``source`` (module docstring):
    ``parameters`` are those the run resolved, completed with the declared defaults."""
    from gangviz.factory.policy import resolve

    try:
        choice = resolve(source, spec)
        name = choice.entry.name if choice.entry is not None else choice.name
        every = {**(choice.entry.defaults() if choice.entry is not None else {}), **parameters}
    except ValueError:
        name, every = spec, dict(parameters)
    return {"name": name, "label": spec, "family": family,
            "parameters": {k: _plain(v) for k, v in every.items()}, "engine": engine,
            "machine": run_machine(source, spec), "order": order_record(order)}


def policy_text(record: dict[str, Any]) -> str:
    """Return a policy record as one line: ``name:k=v,...`` with every parameter, then the
    engine and the queue order (with the start of its file's hash)."""
    params = ",".join(f"{k}={_text(v)}" for k, v in record["parameters"].items())
    out = f"{record['name']}" + (f":{params}" if params else "") + f" ({record['engine']}"
    order = record.get("order")
    if order:
        out += f"; order {order['file']}:{order['function']} sha256 {order['sha256'][:12]}"
    return out + ")"


def provenance_lines(source: Any, records: dict[str, dict[str, Any]], figures: Any = None) -> list[str]:
    """Return the lines a header prints under its first line: each policy as
    :func:`policy_text` writes it (with its label when it differs), then the source's hash and
    the number of the reader's warnings (printed in full above, on stderr), and the bounded
    slowdown's threshold of ``figures`` (a :class:`~gangviz.results.figures.Figures`) when
    given."""
    lines = []
    for label, rec in records.items():
        text = policy_text(rec)
        lines.append(f"policy {text}" if len(records) == 1 else f"  {label}: {text}")
    src = source_record(source)
    parts = [f"sha256 {src['sha256'][:12]}" if src["sha256"] else ""]
    if src["seed"] is not None:
        parts.append(f"seed {src['seed']}")
    n = len(src["warnings"])
    parts.append(f"{n} reader warning{'' if n == 1 else 's'}" if n else "")
    shown = ", ".join(p for p in parts if p)
    if shown:
        lines.append(f"source {src['name']}: {shown}")
    if figures is not None:
        unit = "s" if figures.clock == "s" else "slices"
        lines.append(f"bounded slowdown threshold Γ = {figures.gamma:g} {unit} (--bsld-threshold)")
    from gangviz.inputs import printable  # names and labels from files may hold control characters

    return [printable(line) for line in lines]


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return "none" if v is None else str(v)


def source_record(source: Any) -> dict[str, Any]:
    """Return the ``source`` record of ``source`` (module docstring)."""
    path = source.path
    digest = None
    if path is not None:
        try:
            digest = file_sha256(path)
        except OSError:
            digest = None
    return {"name": source.title, "kind": source.kind, "jobs": source.job_count, "sha256": digest,
            "seed": source.seed, "warnings": list(source.warnings)}
