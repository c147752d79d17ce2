"""Saved sessions: what the window shows, in a small TOML file that reopens it exactly.

A session file (written by File > Save session, opened by ``gangviz open FILE.toml`` or File >
Open session) looks like::

    [session]
    version = 1

    [source]
    name = "resources/workloads/downey-200-load0.5-seed1.swf"
    procs = 128                 # optional; for models also jobs, load, seed
    playlist = "lecture.toml"   # optional: the lecture playlist the source is entry `entry` of
    entry = 2                   # (0-based; Page Down/Up go on from there)

    [policy]
    name = "brms"
    watch = false               # slice-by-slice stepping
    params = { }                # the policy's parameters, if any

    [view]
    step = 42                   # the position of the player
    presentation = false
    zoom = { "Slots over time" = [0.0, 120.0, 0.0, 6.0] }   # plots zoomed by hand: x0, x1, y0, y1
    processors = [256.0, 128.0]  # the matrix zoomed to 128 processors from P257; absent: whole

    [compare]
    policies = ["bc", "brms"]   # the compare window's policies; empty: no compare window

A relative ``source.name`` that names a file is read relative to the session file's folder
(where :func:`write_session` puts it when the file lies below that folder), else as given (a
built-in scenario or a model name); so is a user's policy file in ``policy.name``
(``"mine.py"``, ``"mine.py:Class:key=value"``). Nothing here imports Qt; :mod:`gangviz.gui.session`
applies a session to the window.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gangviz.inputs import parse_toml, policy_file, policy_spec_from, quoted

VERSION = 1
#: source options a session may carry (the keyword arguments of ``load_source``)
SOURCE_OPTIONS = ("procs", "slice_seconds", "jobs", "load", "seed")
#: how many policies ``[compare]`` may name: the compare window's 2-4 panes
COMPARE_POLICIES = (2, 4)
#: the largest session file read (a session is a few hundred bytes)
MAX_SESSION_BYTES = 1 << 20


class SessionError(ValueError):
    """A session file that cannot be used; the message names the file and the key."""


@dataclass
class Session:
    """What a window shows (see the module docstring for the meaning of each field)."""

    source: str
    source_args: dict[str, Any] = field(default_factory=dict)
    policy: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    watch: bool | None = None
    step: int = 0
    presentation: bool = False
    zoom: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    compare: list[str] = field(default_factory=list)
    #: the matrix's processor range on show, ``(first, count)`` in columns; ``None``: all of it
    processors: tuple[float, float] | None = None
    #: the lecture playlist ``source`` is entry ``entry`` (0-based) of; ``None``: no playlist
    playlist: str | None = None
    entry: int = 0


def is_session_file(path: str | os.PathLike[str]) -> bool:
    """Return whether ``path`` is a TOML file with a ``[session]`` table (not a scenario)."""
    p = Path(path)
    if p.suffix.lower() != ".toml" or not p.is_file():
        return False
    from gangviz.inputs import read_text

    try:
        return isinstance(parse_toml(read_text(p, "session file (TOML)", MAX_SESSION_BYTES)).get("session"), dict)
    except (OSError, ValueError):
        return False


def read_session(path: str | os.PathLike[str]) -> Session:
    """Read and check a session file; return the :class:`Session`, with a relative source
    path made relative to the current folder again.

    Raises :class:`SessionError` naming the file and the key for a malformed file, an unknown
    key, a value of the wrong type or out of range; ``OSError`` when it cannot be read.
    """
    from gangviz.inputs import InputFileError, read_text

    name = str(path)
    try:
        doc = parse_toml(read_text(path, "session file (TOML)", MAX_SESSION_BYTES))
    except InputFileError as exc:
        raise SessionError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise SessionError(f"{name}: not valid TOML ({exc})") from None
    _keys(name, "", doc, {"session", "source", "policy", "view", "compare"})
    head = _table(name, doc, "session")
    _keys(name, "session", head, {"version"})
    if head.get("version") != VERSION:
        raise SessionError(f"{name}: session.version must be {VERSION}, got {quoted(head.get('version'))}")
    src = _table(name, doc, "source")
    _keys(name, "source", src, {"name", "playlist", "entry", *SOURCE_OPTIONS})
    source = _get(name, src, "source.name", str, required=True)
    args = _source_args(name, src)
    pol = _table(name, doc, "policy")
    _keys(name, "policy", pol, {"name", "watch", "params"})
    params = pol.get("params", {})
    if not isinstance(params, dict):
        raise SessionError(f"{name}: policy.params must be a table, got {quoted(params)}")
    view = _table(name, doc, "view")
    _keys(name, "view", view, {"step", "presentation", "zoom", "processors"})
    step = _get(name, view, "view.step", int) or 0
    if step < 0:
        raise SessionError(f"{name}: view.step must be >= 0, got {step}")
    zoom = _zoom(name, view.get("zoom", {}))
    cmp = _table(name, doc, "compare")
    _keys(name, "compare", cmp, {"policies"})
    policies = cmp.get("policies", [])
    if not isinstance(policies, list) or not all(isinstance(p, str) and p for p in policies):
        raise SessionError(f"{name}: compare.policies must be a list of policy names, got {quoted(policies)}")
    if policies and not COMPARE_POLICIES[0] <= len(policies) <= COMPARE_POLICIES[1]:
        raise SessionError(f"{name}: compare.policies must name {COMPARE_POLICIES[0]} to "
                           f"{COMPARE_POLICIES[1]} policies (the compare window's panes), or none, "
                           f"got {len(policies)}")
    if len({_spec_key(p) for p in policies}) != len(policies):
        raise SessionError(f"{name}: compare.policies lists a policy twice: {quoted(policies)}")
    base = Path(path).resolve().parent
    if not Path(source).is_absolute() and _exists(base / source):
        source = os.path.relpath(base / source) if _below(base / source, Path.cwd()) else str(base / source)
    playlist = _get(name, src, "source.playlist", str)
    entry = _get(name, src, "source.entry", int) or 0
    if entry < 0:
        raise SessionError(f"{name}: source.entry must be >= 0, got {entry}")
    if playlist is not None and not Path(playlist).is_absolute() and _exists(base / playlist):
        playlist = str(base / playlist)
    policy = _get(name, pol, "policy.name", str)
    if policy is not None and not policy.strip():  # as --policy '': never replaced by the default
        raise SessionError(f"{name}: policy.name must name a policy (or be left out for the default), "
                           f"got {quoted(policy)}")
    if policy is not None:
        policy = policy_spec_from(policy, base)
    return Session(source, args, policy, dict(params),
                   _get(name, pol, "policy.watch", bool), step,
                   bool(_get(name, view, "view.presentation", bool)), zoom, list(policies),
                   _column_range(name, view.get("processors")), playlist, entry)


def _spec_key(spec: str) -> str:
    """Return ``spec`` as the same policy compares: the name before ``:`` stripped and in lower
    case (policy names are case-insensitive), the parameters stripped."""
    head, colon, rest = spec.partition(":")
    return head.strip().lower() + colon + ",".join(p.strip() for p in rest.split(",") if p.strip())


def _source_args(name: str, src: dict[str, Any]) -> dict[str, Any]:
    """Return the source options ``src`` gives (``procs``, ``jobs``, ...); raise
    :class:`SessionError` for a value of the wrong type or not > 0 where it must be."""
    args: dict[str, Any] = {}
    for key in SOURCE_OPTIONS:
        if key in src:
            kind = int if key in ("procs", "jobs", "seed") else (int, float)
            value = _get(name, src, f"source.{key}", kind)
            if key in ("procs", "jobs") and value < 1 or key in ("slice_seconds", "load") and not value > 0:
                raise SessionError(f"{name}: source.{key} must be > 0, got {quoted(value)}")
            args[key] = value
    return args


def _zoom(name: str, zoom_doc: Any) -> dict[str, tuple[float, float, float, float]]:
    """Return ``view.zoom`` as plot name -> ``(x0, x1, y0, y1)``; raise :class:`SessionError`
    unless it is a table of four finite numbers each with ``x0 < x1`` and ``y0 < y1``."""
    if not isinstance(zoom_doc, dict):
        raise SessionError(f"{name}: view.zoom must be a table of [x0, x1, y0, y1] lists")
    zoom: dict[str, tuple[float, float, float, float]] = {}
    for plot, rng in zoom_doc.items():
        if (not isinstance(rng, list) or len(rng) != 4
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in rng)
                or not (rng[0] < rng[1] and rng[2] < rng[3])):
            raise SessionError(f"{name}: view.zoom.{quoted(plot)} must be [x0, x1, y0, y1] with x0 < x1 "
                               f"and y0 < y1, got {quoted(rng)}")
        x0, x1, y0, y1 = (float(v) for v in rng)
        zoom[str(plot)] = (x0, x1, y0, y1)
    return zoom


def _column_range(name: str, value: Any) -> tuple[float, float] | None:
    """Return ``view.processors`` as ``(first, count)``; raise :class:`SessionError` unless it
    is absent or two finite numbers with ``first >= 0`` and ``count > 0``."""
    if value is None:
        return None
    ok = (isinstance(value, list) and len(value) == 2
          and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
          and value[0] >= 0 and value[1] > 0)
    if not ok:
        raise SessionError(f"{name}: view.processors must be [first, count] with first >= 0 and "
                           f"count > 0, got {quoted(value)}")
    return float(value[0]), float(value[1])


def write_session(session: Session, path: str | os.PathLike[str]) -> Path:
    """Write ``session`` as TOML to ``path``; return the path. A source file below the
    session's folder is written relative to it, so the pair can be moved together.

    Raises ``ValueError`` for a parameter value TOML cannot hold, ``OSError`` when the file
    cannot be written.
    """
    out = Path(path)
    source = session.source
    if Path(source).exists():
        full = Path(source).resolve()
        source = os.path.relpath(full, out.resolve().parent) if _below(full, out.resolve().parent) else str(full)
    lines = ["# gangviz session: open with `gangviz open THIS.toml`", "[session]", f"version = {VERSION}", "",
             "[source]", f"name = {_toml(source)}"]
    lines += [f"{k} = {_toml(v)}" for k, v in session.source_args.items() if k in SOURCE_OPTIONS]
    if session.playlist is not None:
        playlist = session.playlist
        if Path(playlist).exists():
            full = Path(playlist).resolve()
            playlist = os.path.relpath(full, out.resolve().parent) if _below(full, out.resolve().parent) else str(full)
        lines += [f"playlist = {_toml(playlist)}", f"entry = {int(session.entry)}"]
    lines += ["", "[policy]"]
    if session.policy is not None:
        lines.append(f"name = {_toml(_relative_policy(session.policy, out.resolve().parent))}")
    if session.watch is not None:
        lines.append(f"watch = {_toml(session.watch)}")
    lines.append(f"params = {_inline(session.params)}")
    lines += ["", "[view]", f"step = {int(session.step)}", f"presentation = {_toml(session.presentation)}",
              f"zoom = {_inline({k: list(v) for k, v in session.zoom.items()})}",
              *([f"processors = {_toml([float(v) for v in session.processors])}"]
                if session.processors is not None else []),
              "", "[compare]", f"policies = {_toml(list(session.compare))}", ""]
    from gangviz.outputs import write_text_atomically

    write_text_atomically(out, "\n".join(lines))
    return out


def _relative_policy(spec: str, folder: Path) -> str:
    """A user's policy file below ``folder`` written relative to it (the session, its source
    and its policy move together); any other spec as given."""
    found = policy_file(spec)
    if found is None or not Path(found[0]).exists():
        return spec
    full = Path(found[0]).resolve()
    return (os.path.relpath(full, folder) if _below(full, folder) else str(full)) + found[1]


def _exists(path: Path) -> bool:
    """Whether ``path`` names something; ``False`` for a name no file system takes (too long,
    ...), which then stays a name (and fails, if at all, where it is opened)."""
    try:
        return path.exists()
    except OSError:
        return False


def _below(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return _inline(value)
    raise ValueError(f"a session cannot hold {quoted(value)} ({type(value).__name__})")


def _inline(table: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in table.items()) + " }" \
        if table else "{ }"


def _table(name: str, doc: dict[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise SessionError(f"{name}: {key} must be a table ([{key}])")
    return value


def _keys(name: str, where: str, table: dict[str, Any], allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            place = f"{where}.{key}" if where else key
            raise SessionError(f"{name}: unknown key {quoted(place)} (allowed{' in [' + where + ']' if where else ''}: "
                               f"{', '.join(sorted(allowed))})")


def _get(name: str, table: dict[str, Any], key: str, kind: type | tuple[type, ...], *,
         required: bool = False) -> Any:
    short = key.rsplit(".", 1)[-1]
    if short not in table:
        if required:
            raise SessionError(f"{name}: {key} is missing")
        return None
    value = table[short]
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        wants: dict[type | tuple[type, ...], str] = {str: "text", int: "a whole number",
                                                     bool: "true or false"}
        want = wants.get(kind, "a number")
        raise SessionError(f"{name}: {key} must be {want}, got {quoted(value)}")
    return value
