"""Every text a shipped scenario or playlist shows a room speaks the room's language: no
command-line flag, file name or program identifier, and no paragraph too long to read from
the projected screen."""

from __future__ import annotations

import re

import pytest

from gangviz.resources import list_scenarios
from gangviz.workloads.playlist import list_playlists, load_playlist
from gangviz.workloads.scenario import load_scenario

#: a command-line flag, a file name, a CamelCase identifier, a snake_case identifier
DEVELOPER_WORDS = [
    (re.compile(r"(?<![\w-])--?[a-z][\w-]*"), "a command-line flag"),
    (re.compile(r"\b[\w-]+\.(?:toml|swf|py|csv|json|png|gif|mp4)\b"), "a file name"),
    (re.compile(r"\b[A-Z][a-z]{2,}(?:[A-Z][a-z0-9]+)+(?:-\d+)?\b"), "a class or phase name"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "a snake_case identifier"),
]
#: the longest explanation: six lines of the projected paragraph at 1920 x 1080 (and at
#: 1280 x 720, whose fonts scale with the width) hold about 870 characters
MAX_EXPLANATION = 860
#: the built-in files' names: a room reads "the next scenario", not a file's stem
FILE_STEMS = re.compile(r"\b(?:" + "|".join(re.escape(p.stem) for p in list_scenarios() + list_playlists())
                        + r")\b")


def shipped_texts() -> list[tuple[str, str]]:
    out = []
    for path in list_scenarios():
        sc = load_scenario(path)
        out += [(f"{path.stem}: title", sc.title), (f"{path.stem}: explanation", sc.explanation)]
    for path in list_playlists():
        pl = load_playlist(path)
        out.append((f"{path.stem}: title", pl.title))
        out += [(f"{path.stem}: note {k + 1}", item.note) for k, item in enumerate(pl.items)]
    return out


@pytest.mark.parametrize(("where", "text"), shipped_texts(), ids=lambda v: v if ":" in str(v) else "")
def test_no_developer_words(where, text):
    for pattern, what in DEVELOPER_WORDS + [(FILE_STEMS, "a built-in file's name")]:
        found = pattern.search(text)
        assert found is None, f"{where} holds {what}: {found.group(0)!r}"


@pytest.mark.parametrize("path", list_scenarios(), ids=lambda p: p.stem)
def test_explanations_fit_in_six_projected_lines(path):
    sc = load_scenario(path)
    assert len(sc.explanation) <= MAX_EXPLANATION, f"{path.stem}: {len(sc.explanation)} characters"
