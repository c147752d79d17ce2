"""Every consumer reads a source as the one typed :class:`gangviz.workloads.source.Source`: no
getattr/hasattr on a source (or a scenario standing for one) anywhere in the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import gangviz

PACKAGE = Path(gangviz.__file__).parent
#: what names a source: ``source``, ``src``, ``self.source``, ``done.source``, ``scenario``, ``sc``
SOURCE_NAME = re.compile(r"(^|\.)(source|sources|src|scenario|sc)$")
#: fields only a source has: asked of anything, they are a probe for one
SOURCE_FIELDS = frozenset({"absent_from", "slice_seconds", "submit_offset", "scenario", "explanation",
                           "job_count"})


def offences(source: str) -> list[tuple[int, str]]:
    """Return ``(line, code)`` of every getattr/hasattr in ``source`` (Python text) whose object
    is named as a source or whose attribute is a field only a source has."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2):
            target, attr = node.args[0], node.args[1]
            named = SOURCE_NAME.search(ast.unparse(target)) is not None
            field = isinstance(attr, ast.Constant) and attr.value in SOURCE_FIELDS
            if named or field:
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_checker_catches_probes_of_a_source():
    bad = '''
scale = getattr(source, "slice_seconds", 1.0)
ok = hasattr(self.source, "kind")
absent = getattr(done.source, "absent_from", None)
sc = getattr(scenario, "scenario", None) or scenario
pad = getattr(thing, "absent_from", None)
'''
    assert sorted(line for line, _ in offences(bad)) == [2, 3, 4, 5, 6]
    fine = '''
scale = source.slice_seconds
view = getattr(parent, "matrix", None)
code = getattr(fn, "__code__", None)
'''
    assert offences(fine) == []


def test_no_module_probes_a_source():
    found = [f"{path.relative_to(PACKAGE)}:{line}: {code}" for path in sorted(PACKAGE.rglob("*.py"))
             for line, code in offences(path.read_text(encoding="utf-8"))]
    assert not found, "read sources as gangviz.workloads.source.Source:\n" + "\n".join(found)
