"""Lecture playlists: a TOML file listing scenarios in the order of a lecture, a note for each.

Format::

    title = "Job re-packing, Fig. 1 to Fig. 6"
    [[scenario]]
    source = "zhou-fig1-random-trap"    # a built-in name, or a .toml path relative to this file
    note = "What to look for: ..."      # shown while the scenario is on screen (optional)
    policy = "mine.py"                   # the policy it opens under (optional): a built-in's
                                         # name or spec, or a policy file relative to this file

``gangviz open lecture.toml`` opens the first scenario; Page Down and Page Up move through the
list. A built-in playlist (``resources/playlists/``) opens by its name, like a built-in scenario.
Every problem raises :class:`~gangviz.workloads.scenario.ScenarioError` naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gangviz.core.limits import MAX_TITLE_CHARS
from gangviz.inputs import policy_file, policy_spec_from, printable, quoted, read_toml
from gangviz.resources import RESOURCES, scenario_path
from gangviz.workloads.files import read_input
from gangviz.workloads.scenario import MAX_SCENARIO_BYTES, ScenarioError

PLAYLISTS = RESOURCES / "playlists"
TOP_KEYS = {"title", "scenario"}
ITEM_KEYS = {"source", "note", "policy"}


@dataclass(frozen=True)
class PlaylistItem:
    """One entry: what to open (a path or a built-in name), the lecturer's note, and the
    policy it opens under (``None``: the scenario's own; a policy file made absolute)."""

    source: str
    note: str = ""
    policy: str | None = None


@dataclass(frozen=True)
class Playlist:
    """A loaded playlist: where it came from, its title and its entries in order."""

    path: str
    title: str
    items: tuple[PlaylistItem, ...]


def playlist_path(name: str) -> Path | None:
    """Return the file of ``name`` when it names a playlist (a ``.toml`` file with a
    ``[[scenario]]`` list, or a built-in playlist's stem), else ``None``."""
    path = Path(name)
    if not path.is_file():
        stem = name[:-5] if name.endswith(".toml") else name
        path = PLAYLISTS / f"{stem}.toml"
        if not path.is_file():
            return None
    if path.suffix.lower() != ".toml":
        return None
    try:  # only to recognise it: a damaged playlist is reported by load_playlist
        text = read_input(path, MAX_SCENARIO_BYTES).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    # a [[scenario]] table, or a "scenario = ..." key, which the playlist reader then explains
    return path if re.search(r"^\s*(?:\[\[\s*scenario\s*\]\]|scenario\s*=)", text, re.MULTILINE) else None


def list_playlists() -> list[Path]:
    """Return the built-in playlists, sorted by name."""
    return sorted(PLAYLISTS.glob("*.toml"))


def load_playlist(name: str | Path) -> Playlist:
    """Read the playlist ``name`` (a path or a built-in name) and check every entry opens.

    Raises :class:`ScenarioError` for a syntax error, an unknown key, an entry without a
    source, or a source that is neither a file nor a built-in scenario; ``FileNotFoundError``
    when ``name`` is no playlist at all.
    """
    path = playlist_path(str(name))
    if path is None:
        raise FileNotFoundError(f"{name}: no such playlist")
    data, text = read_toml(path, "playlist (TOML)", MAX_SCENARIO_BYTES, ScenarioError)
    lines = text.splitlines()

    def line_of(pattern: str, start: int = 0) -> int:
        rx = re.compile(pattern)
        return next((i + 1 for i in range(start, len(lines)) if rx.search(lines[i])), 1)

    for key in data:
        if key not in TOP_KEYS:
            line = line_of(r"^\s*\[*\s*" + re.escape(key) + r"\b")
            raise ScenarioError(f"{path}:{line}: unknown key {quoted(key)} (known: {', '.join(sorted(TOP_KEYS))})")
    entries = data.get("scenario", [])
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        line = line_of(r"^\s*(?:\[\[\s*)?scenario\b")
        raise ScenarioError(f"{path}:{line}: scenario: a playlist lists its entries as [[scenario]] "
                            f"tables, each with source = \"<built-in name or file.toml>\"; got "
                            f"{quoted(entries)}")
    items = []
    at = 0
    for k, entry in enumerate(entries, 1):
        at = line_of(r"^\s*\[\[\s*scenario\s*\]\]", at)
        where = f"{path}:{at}"
        extra = set(entry) - ITEM_KEYS
        if extra:
            raise ScenarioError(f"{where}: entry {k}: unknown key {quoted(sorted(extra)[0])} "
                                "(known: note, policy, source)")
        source = entry.get("source")
        if not isinstance(source, str) or not source:
            raise ScenarioError(f"{where}: entry {k} needs source = \"<built-in name or file.toml>\"")
        note = entry.get("note", "")
        if not isinstance(note, str):
            raise ScenarioError(f"{where}: entry {k}: note must be text")
        policy = _entry_policy(path, entry.get("policy"), f"{where}: entry {k}")
        items.append(PlaylistItem(_entry_source(path, source, f"{where}: entry {k}"), " ".join(note.split()),
                                  policy))
    title = data.get("title", path.stem)
    if not isinstance(title, str) or len(title) > MAX_TITLE_CHARS:  # a window title, not a text
        line = line_of(r"^\s*title\b")
        raise ScenarioError(f"{path}:{line}: title must be text of at most "
                            f"{MAX_TITLE_CHARS} characters, got {quoted(title)}")
    return Playlist(str(path), printable(title), tuple(items))


def _entry_policy(path: Path, policy: object, where: str) -> str | None:
    """Return the policy an entry names (``None`` when it names none), a policy file made
    absolute against the playlist's folder. Raises :class:`ScenarioError` (``where`` names the
    file, line and entry) for a value that is not text, a policy file that is not there, or
    an unknown built-in."""
    if policy is None:
        return None
    if not isinstance(policy, str) or not policy.strip():
        raise ScenarioError(f"{where}: policy must be a policy's name or a policy file, got {quoted(policy)}")
    found = policy_file(policy)
    if found is not None:
        spec = policy_spec_from(policy, path.parent)
        spec_file = policy_file(spec)  # the spec names the file again, now by its path
        if spec_file is None or not Path(spec_file[0]).is_file():
            raise ScenarioError(f"{where}: policy file {quoted(found[0])} is not next to the playlist")
        return spec
    from gangviz.core import registry

    name = policy.partition(":")[0].strip()
    if _MODULE_CLASS.match(policy.strip()) is None:
        try:
            registry.lookup(name)
        except ValueError as exc:
            raise ScenarioError(f"{where}: policy: {exc}") from None
    return policy.strip()


_MODULE_CLASS = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+:[A-Za-z_]\w*")


def _entry_source(path: Path, source: str, where: str) -> str:
    """Return what entry ``source`` of the playlist at ``path`` opens: a scenario file next to
    the playlist, or a built-in scenario's name. Raises :class:`ScenarioError` (``where``
    names the file, line and entry) for another playlist (nesting could loop back) or a name
    that is neither."""
    local = path.parent / source
    try:
        is_local = local.is_file()
    except OSError:  # a name no file system takes (too long, ...): no file
        is_local = False
    if is_local:
        if playlist_path(str(local)) is not None:
            what = "this playlist itself" if local.resolve() == path.resolve() else "a playlist, not a scenario"
            raise ScenarioError(f"{where}: {quoted(source)} is {what}; a playlist lists scenarios only, "
                                "so it can never loop")
        return str(local)
    try:
        scenario_path(source)
    except OSError:
        raise ScenarioError(f"{where}: {quoted(source)} is neither a file next to the playlist nor a "
                            "built-in scenario") from None
    return source
