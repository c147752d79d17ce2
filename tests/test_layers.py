"""The import contracts of pyproject.toml hold: the layers, Qt only in ``gangviz.gui``, no cycles.

``lint-imports`` (import-linter, installed by ``make lint``) checks them; this test runs it so the
suite fails on a broken contract too, and is skipped where the checker is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports() -> str | None:
    """Return the path of the ``lint-imports`` script beside this Python, else on PATH."""
    beside = Path(sys.executable).with_name("lint-imports")
    return str(beside) if beside.exists() else shutil.which("lint-imports")


def test_every_import_contract_is_kept():
    pytest.importorskip("importlinter", reason="import-linter is installed by `make lint`")
    exe = _lint_imports()
    if exe is None:
        pytest.skip("lint-imports is not on PATH")
    res = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
    assert "BROKEN" not in res.stdout


def test_contracts_name_the_layers_and_forbid_qt():
    """The contracts exist as the README's Layout describes them (a contract deleted from
    pyproject.toml would otherwise pass silently)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    by_type = {c["type"]: c for c in config["contracts"]}
    assert set(by_type) == {"layers", "forbidden", "acyclic_siblings"}
    layers = by_type["layers"]["layers"]
    order = [layer.split(" | ")[0].strip("()") for layer in layers]
    for upper, lower in [("gangviz.cli", "gangviz.commands"), ("gangviz.commands", "gangviz.gui"),
                         ("gangviz.gui", "gangviz.experiments"),
                         ("gangviz.experiments", "gangviz.factory"),
                         ("gangviz.factory", "gangviz.policies"), ("gangviz.policies", "gangviz.metrics"),
                         ("gangviz.metrics", "gangviz.sim"), ("gangviz.policies", "gangviz.sim"),
                         ("gangviz.sim", "gangviz.workloads"), ("gangviz.workloads", "gangviz.core")]:
        assert order.index(upper) < order.index(lower), (upper, lower)
    qt = by_type["forbidden"]
    assert {"PySide6", "pyqtgraph"} <= set(qt["forbidden_modules"])
    assert qt["source_modules"] == ["gangviz"]
    assert all(ignored.startswith("gangviz.gui.** -> ") for ignored in qt["ignore_imports"])


def test_the_architecture_page_draws_the_contracts_layers_in_order():
    """docs/architecture.md draws the layers of the contract top first, siblings on one line."""
    import re
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    groups = [[name.strip().removeprefix("gangviz.") for name in layer.split("|")]
              for layer in layers]
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = page.split("```")[1].splitlines()

    def line_of(name: str) -> int:
        hits = [i for i, line in enumerate(drawing) if re.search(rf"\b{name}\b", line)]
        assert hits, f"{name} is not drawn"
        return hits[0]

    rows = [{line_of(name) for name in group} for group in groups]
    assert all(len(row) == 1 for row in rows), "siblings share one line"
    assert [min(row) for row in rows] == sorted(min(row) for row in rows)


def test_no_module_cites_documents_outside_the_repository():
    offenders = [str(path.relative_to(ROOT)) for path in (ROOT / "gangviz").rglob("*.py")
                 if "DESIGN.md" in path.read_text(encoding="utf-8")]
    assert offenders == []


#: The step-able simulation classes of the four families: only gangviz/factory builds them.
ENGINE_CLASSES = {("gangviz.sim.engine", "Simulation"),
                  ("gangviz.spacesharing.simulation", "SpaceSharingSimulation"),
                  ("gangviz.multisite.simulation", "MultiSiteSimulation"),
                  ("gangviz.epoch.sim", "EpochSimulation")}


def engine_constructions(source: str) -> list[tuple[int, str]]:
    """Return ``(line, call)`` for every call in ``source`` that constructs an engine class,
    whether imported by name (also under another name), through its module, or spelled out."""
    import ast

    modules = {module for module, _ in ENGINE_CLASSES}
    tree = ast.parse(source)
    classes: dict[str, str] = {}
    module_names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (node.module, alias.name) in ENGINE_CLASSES:
                    classes[alias.asname or alias.name] = alias.name
                if f"{node.module}.{alias.name}" in modules:
                    module_names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules and alias.asname:
                    module_names[alias.asname] = alias.name
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in classes:
            found.append((node.lineno, func.id))
        elif isinstance(func, ast.Attribute):
            owner = ast.unparse(func.value)
            if (module_names.get(owner, owner), func.attr) in ENGINE_CLASSES:
                found.append((node.lineno, ast.unparse(func)))
    return found


def test_the_scan_finds_every_spelling_of_an_engine_construction():
    source = ("from gangviz.sim.engine import Simulation as Engine\n"
              "from gangviz.epoch import sim\n"
              "import gangviz.multisite.simulation as ms\n"
              "import gangviz.spacesharing.simulation\n"
              "a = Engine([], None, 4)\n"
              "b = sim.EpochSimulation(4, 2, None)\n"
              "c = ms.MultiSiteSimulation(cfg)\n"
              "d = gangviz.spacesharing.simulation.SpaceSharingSimulation([], 4, None)\n"
              "e = Simulation\n")
    assert [line for line, _ in engine_constructions(source)] == [5, 6, 7, 8]


def test_only_the_factory_constructs_an_engine():
    offenders = []
    for path in sorted((ROOT / "gangviz").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("gangviz/factory/"):
            continue
        offenders += [f"{relative}:{line}: {call}"
                      for line, call in engine_constructions(path.read_text(encoding="utf-8"))]
    assert offenders == []
