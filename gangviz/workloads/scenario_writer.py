"""Write a :class:`~gangviz.workloads.scenario.Scenario` back out as scenario TOML.

The scenario editor saves through :func:`scenario_toml`; reading the text back with
:func:`~gangviz.workloads.scenario.load_scenario` gives an equal scenario
(:func:`scenario_key` says what "equal" compares). All three families are written: the matrix
family with its matrix (top slot first, as the papers print it), ``[jobs]`` works and
``[[events]]``; ``multisite`` with its ``[[gangs]]``; ``epoch`` with its ``[[workload]]``.

Qt-free, no dependency: a small TOML emitter for the value types scenarios use (strings,
booleans, numbers, lists and nested tables).
"""

from __future__ import annotations

import math
from typing import Any

from gangviz.core.jobs import ScriptEvent
from gangviz.workloads.scenario import Scenario


def scenario_key(sc: Scenario) -> dict[str, Any]:
    """Return everything that defines ``sc`` except where it was read from, in a form that
    compares with ``==`` (the matrix as its printed rows, jobs and script as tuples)."""
    key: dict[str, Any] = {
        "model": sc.model, "title": sc.title, "explanation": sc.explanation,
        "processors": sc.processors, "policy": sc.policy, "expect": sc.expect, "params": sc.params,
    }
    if sc.model == "matrix":
        key.update(
            ring=sc.ring, allocation=sc.allocation, guided=sc.guided, rows=sc.matrix.to_rows(),
            jobs=tuple((j.name, j.size, j.work) for j in sc.jobs),
            script=tuple((e.at, tuple(e.terminate), tuple(e.submit)) for e in sc.script),
        )
    elif sc.model == "multisite":
        key.update(sites=sc.sites, gangs=tuple(sc.gangs))
    else:
        key.update(workload=tuple(sc.workload), in_system=sc.in_system, static=sc.static,
                   quantum=sc.quantum)
    return key


def scenario_data(sc: Scenario) -> dict[str, Any]:
    """Return ``sc`` as the dictionary of TOML keys :func:`~gangviz.workloads.scenario.
    parse_scenario` reads (only what differs from the defaults, in the usual order)."""
    data: dict[str, Any] = {}
    if sc.model != "matrix":
        data["model"] = sc.model
    data["title"] = sc.title
    if sc.explanation:
        data["explanation"] = sc.explanation
    data["processors"] = sc.processors
    if sc.policy:
        data["policy"] = sc.policy
    data.update(_FAMILY_KEYS[sc.model](sc))
    if sc.expect:
        data["expect"] = sc.expect
    return data


def matrix_options(sc: Scenario) -> dict[str, Any]:
    """Return the options of the matrix scenario ``sc`` (``ring``, ``allocation``,
    ``guided``) as file keys, those at their defaults left out."""
    data: dict[str, Any] = {}
    if sc.ring:
        data["ring"] = True
    if sc.allocation != "contiguous":
        data["allocation"] = sc.allocation
    if sc.guided:
        data["guided"] = True
    return data


def _matrix_keys(sc: Scenario) -> dict[str, Any]:
    """The keys of a matrix scenario after ``policy``, defaults left out."""
    data = matrix_options(sc)
    data["matrix"] = matrix_rows(sc)
    works = {j.name: InlineTable(work=_number(j.work)) for j in sc.jobs if math.isfinite(j.work)}
    if works:
        data["jobs"] = works
    if sc.params:
        data["params"] = sc.params
    if sc.script:
        data["events"] = [_event(e) for e in sc.script]
    return data


def _multisite_keys(sc: Scenario) -> dict[str, Any]:
    """The keys of a multi-site scenario after ``policy``."""
    data: dict[str, Any] = {"sites": sc.sites}
    if sc.params:
        data["params"] = sc.params
    data["gangs"] = [{"at": _number(g.at), "size": g.size, "site": g.site + 1,
                      "service": _number(g.service)} for g in sc.gangs]
    return data


def _epoch_keys(sc: Scenario) -> dict[str, Any]:
    """The keys of an epoch scenario after ``policy``, defaults left out."""
    data: dict[str, Any] = {"in_system": sc.in_system}
    if sc.static:
        data["static"] = True
    if sc.quantum != 10.0:
        data["quantum"] = _number(sc.quantum)
    if sc.params:
        data["params"] = sc.params
    data["workload"] = [{"min": w.min_nodes, "work": _number(w.work), "beta": _number(w.beta)}
                        for w in sc.workload]
    return data


_FAMILY_KEYS = {"matrix": _matrix_keys, "multisite": _multisite_keys, "epoch": _epoch_keys}


def matrix_rows(sc: Scenario) -> list[str]:
    """Return the starting matrix as scenario rows, top slot first, cells padded to one width."""
    m = sc.matrix
    width = max([1] + [len(m.name(j)) for j in m.jobs()])
    rows = []
    for r in range(m.n_rows - 1, -1, -1):
        cells = [m.name(int(j)) if j >= 0 else "." for j in m.cells[r].tolist()]
        rows.append(" ".join(c.ljust(width) for c in cells).rstrip())
    return rows


def _event(e: ScriptEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"at": _number(e.at)}
    if e.terminate:
        out["terminate"] = list(e.terminate)
    subs = [InlineTable(name=n, size=s, work=_number(w)) for n, s, w in e.submit]
    if len(subs) == 1:
        out["submit"] = subs[0]
    elif subs:
        out["submit"] = subs
    return out


def _number(x: float) -> int | float:
    """A whole float as an int, so that ``at = 2`` stays ``2`` in the file."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def scenario_toml(sc: Scenario) -> str:
    """Return ``sc`` as scenario TOML text; ``load_scenario`` of it gives an equal scenario."""
    return dumps(scenario_data(sc))


# ------------------------------------------------------------------ TOML emitter
class InlineTable(dict[str, Any]):
    """A table written inline, ``{ work = 4 }``, rather than under its own header."""


def dumps(data: dict[str, Any]) -> str:
    """Return ``data`` as TOML: plain keys first, then tables, then arrays of tables.

    Raises ``TypeError`` for a value TOML cannot hold here (``None``, a non-finite float, an
    object)."""
    lines: list[str] = []
    _table(data, [], lines)
    return "\n".join(lines).strip("\n") + "\n"


def _is_plain(v: Any) -> bool:
    """Whether ``v`` is written as ``key = value`` (not as a table or an array of tables)."""
    return isinstance(v, InlineTable) or (not isinstance(v, dict) and not _is_table_array(v))


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _table(data: dict[str, Any], path: list[str], lines: list[str]) -> None:
    plain = {k: v for k, v in data.items() if _is_plain(v)}
    for k, v in plain.items():
        if isinstance(v, str) and len(v) > 80 and "\n" not in v:
            lines.append(f"{_key(k)} = {_wrapped(v)}")
        else:
            lines.append(f"{_key(k)} = {_value(v, multiline=True)}")
    for k, v in data.items():
        if not _is_plain(v) and isinstance(v, dict):
            sub = path + [k]
            has_plain = any(_is_plain(x) for x in v.values())
            if has_plain or not v:
                lines.append("")
                lines.append(f"[{'.'.join(_key(p) for p in sub)}]")
            _table(v, sub, lines)
    for k, v in data.items():
        if _is_table_array(v):
            for item in v:
                lines.append("")
                lines.append(f"[[{'.'.join(_key(p) for p in path + [k])}]]")
                _table(item, path + [k], lines)


def _wrapped(s: str) -> str:
    """A long one-line string as a multi-line basic string whose line ends are escaped, so
    the file reads as a paragraph and the value keeps no line breaks."""
    import textwrap

    body = _escape(s)
    lines = textwrap.wrap(body, 92, break_long_words=False, break_on_hyphens=False,
                          drop_whitespace=True)
    if " ".join(lines) != body:  # runs of spaces: keep the value exact
        return _string(s)
    return '"""' + " \\\n".join(lines) + '"""'


def _key(k: str) -> str:
    if k and all(c.isalnum() or c in "-_" for c in k):
        return k
    return _string(k)


def _escape(s: str) -> str:
    """``s`` escaped for a TOML basic string: backslash, quote and every control character."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


def _string(s: str) -> str:
    return f'"{_escape(s)}"'


def _value(v: Any, multiline: bool = False) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise TypeError(f"cannot write {v} to TOML")
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        items = [_value(x) for x in v]
        if multiline and len(items) > 1 and sum(len(i) for i in items) > 60:
            return "[\n" + "".join(f"  {i},\n" for i in items) + "]"
        return "[" + ", ".join(items) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")
