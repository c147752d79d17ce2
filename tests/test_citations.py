"""Docstrings, docs and output cite the papers by the keys of docs/papers.md, never by the
names of the files the papers were handed out as, and speak of the project only."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = ("Zhou99", "Zhou00", "Papazachos09", "Zhang01", "McCann94")


def _texts():
    for folder in ("gangviz", "benchmarks", "resources", "examples", "docs"):
        for p in (ROOT / folder).rglob("*"):
            if p.suffix in {".py", ".md", ".toml"} and "__pycache__" not in p.parts:
                yield p
    yield ROOT / "README.md"


def test_no_hashed_paper_file_names_or_issue_numbers():
    hashed = re.compile(r"\b00[0-4]_[0-9a-f]{16}")
    issue = re.compile(r"\b[Ii]ssue #?\d+")
    bad = [f"{p.relative_to(ROOT)}:{i}" for p in _texts()
           for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if hashed.search(line) or issue.search(line)]
    assert not bad, bad[:10]


def test_every_key_cited_is_listed_in_docs_papers():
    listed = (ROOT / "docs" / "papers.md").read_text(encoding="utf-8")
    assert all(f"| {k} |" in listed for k in KEYS)
    used = set()
    for p in _texts():
        used |= set(re.findall(r"\b(Zhou\d\d|Papazachos\d\d|Zhang\d\d|McCann\d\d)\b", p.read_text(encoding="utf-8")))
    assert used <= set(KEYS), used - set(KEYS)
