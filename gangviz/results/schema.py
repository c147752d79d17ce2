"""Check a results document (``gangviz run --json``, ``gangviz compare --json``) against its
schema, ``schema.json`` beside this module (schema 1, described in
:mod:`gangviz.results.summary`).

:func:`validate` applies the JSON Schema keywords the schema uses (``type``, ``const``,
``enum``, ``required``, ``properties``, ``additionalProperties``, ``items``, ``minimum``,
``$ref`` within the file), then the rules a schema cannot say: every figure of ``metrics`` has
a unit and a definition, a number or ``null`` as its value, and the members of its command.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["SchemaError", "schema", "validate"]


class SchemaError(ValueError):
    """A document that does not follow the schema; the message names the member's path."""


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """Return the schema (the parsed ``schema.json``)."""
    result: dict[str, Any] = json.loads((Path(__file__).with_name("schema.json")).read_text(encoding="utf-8"))
    return result


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def _check(value: Any, rule: dict[str, Any], where: str) -> None:
    if "$ref" in rule:
        rule = schema()["$defs"][rule["$ref"].rsplit("/", 1)[-1]]
    if "const" in rule and value != rule["const"]:
        raise SchemaError(f"{where}: must be {rule['const']!r}, not {value!r}")
    if "enum" in rule and value not in rule["enum"]:
        raise SchemaError(f"{where}: must be one of {rule['enum']}, not {value!r}")
    if "type" in rule:
        names = rule["type"] if isinstance(rule["type"], list) else [rule["type"]]
        if not any(_is(value, n) for n in names):
            raise SchemaError(f"{where}: must be {' or '.join(names)}, not {type(value).__name__}")
    if "minimum" in rule and _is(value, "number") and value < rule["minimum"]:
        raise SchemaError(f"{where}: must be >= {rule['minimum']}, not {value!r}")
    if isinstance(value, dict):
        _check_members(value, rule, where)
    if isinstance(value, list) and "items" in rule:
        for i, item in enumerate(value):
            _check(item, rule["items"], f"{where}[{i}]")


def _check_members(value: dict[str, Any], rule: dict[str, Any], where: str) -> None:
    for key in rule.get("required", ()):
        if key not in value:
            raise SchemaError(f"{where}: member {key!r} is missing")
    props = rule.get("properties", {})
    extra = rule.get("additionalProperties", True)
    for key, item in value.items():
        if key in props:
            _check(item, props[key], f"{where}.{key}")
        elif extra is False:
            raise SchemaError(f"{where}: unknown member {key!r}")
        elif isinstance(extra, dict):
            _check(item, extra, f"{where}.{key}")


def _figures(values: Any, doc: dict[str, Any], where: str) -> None:
    _check(values, schema()["$defs"]["figures"], where)
    for key in values:
        for member in ("units", "definitions"):
            if key not in doc[member]:
                raise SchemaError(f"{where}.{key}: the figure has no entry in {member}")


def validate(doc: Any) -> None:
    """Check ``doc`` (a parsed document) against schema 1; return ``None`` when it follows it.

    Raises :class:`SchemaError` naming the first member that does not.
    """
    _check(doc, schema(), "$")
    if doc["command"] == "run":
        for key in ("policy", "engine"):
            if key not in doc:
                raise SchemaError(f"$: a run document needs {key!r}")
        _figures(doc["metrics"], doc, "$.metrics")
        return
    for key in ("policies", "best", "goals", "lacks"):
        if key not in doc:
            raise SchemaError(f"$: a compare document needs {key!r}")
    names = [p.get("label", p["name"]) for p in doc["policies"]]  # the labels as given
    if list(doc["metrics"]) != names:
        raise SchemaError(f"$.metrics: must hold the policies {names} in order, not {list(doc['metrics'])}")
    for name, values in doc["metrics"].items():
        _figures(values, doc, f"$.metrics.{name}")
