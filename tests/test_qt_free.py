"""Only gangviz.gui may import Qt: every other module imports with PySide6 blocked."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import gangviz

CHECK = r"""
import importlib, pkgutil, sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"):
            raise ImportError(f"Qt import blocked: {name}")
sys.meta_path.insert(0, Blocker())
import gangviz
names = [m.name for m in pkgutil.walk_packages(gangviz.__path__, "gangviz.")
         if not m.name.startswith("gangviz.gui")]
for name in names:
    importlib.import_module(name)
from gangviz.cli import build_parser
build_parser()
assert not any(k.split(".")[0] in ("PySide6", "pyqtgraph") for k in sys.modules)
print(len(names))
"""


def test_every_non_gui_module_imports_without_qt():
    result = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) >= 10


def test_no_module_outside_gui_mentions_a_qt_import():
    root = Path(gangviz.__file__).parent
    for info in pkgutil.walk_packages([str(root)], "gangviz."):
        if info.name.startswith("gangviz.gui"):
            continue
        spec = info.module_finder.find_spec(info.name)  # type: ignore[union-attr]
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        for line in Path(spec.origin).read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")) and not line.startswith((" ", "\t")):
                assert "PySide6" not in stripped and "pyqtgraph" not in stripped, (info.name, line)
