"""Policy specs as the command line and sweep files write them: ``NAME`` or
``NAME:key=value,key=value``. Kept apart from :mod:`gangviz.experiments.compare` so a run
parses its ``--policy`` without importing the comparison machinery."""

from __future__ import annotations

from typing import Any

__all__ = ["parse_policy_spec"]


def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Return ``(name, params)`` of ``"NAME"`` or ``"NAME:key=value,key=value"``.

    Values read as int, then float, then ``true``/``false``, else stay text. Raises
    ``ValueError`` for a malformed spec.
    """
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"policy {spec!r}: give a name, e.g. repack or random:seed=3")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"policy {spec!r}: parameter {item!r} is not key=value")
        params[key.strip()] = _value(value.strip())
    return name, params


def _value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)
