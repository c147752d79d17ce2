"""The GUI reads simulations through the Simulation protocol only: no attribute probing of a
simulation and no class-name tests anywhere in gangviz/gui/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import gangviz.gui

GUI = Path(gangviz.gui.__file__).parent
SIM_NAME = re.compile(r"(^|\.)(sim|sims|simulation)$")


def _names_a_sim(node: ast.expr) -> bool:
    """Whether ``node`` is a simulation by its name: ``sim``, ``self.sim``, ``p.sim``, ..."""
    return SIM_NAME.search(ast.unparse(node)) is not None


def offences(source: str) -> list[tuple[int, str]]:
    """Return ``(line, code)`` of every getattr/hasattr on a simulation and every comparison of
    a ``__name__`` in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args):
            target = node.args[0]
            attr = node.args[1] if len(node.args) > 1 else None
            asks_sim = isinstance(attr, ast.Constant) and attr.value in ("sim", "sims")
            if _names_a_sim(target) or asks_sim:
                found.append((node.lineno, ast.unparse(node)))
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr == "__name__" for s in sides):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_checker_catches_probes_and_class_name_tests():
    bad = '''
m = getattr(sim, "matrix", None)
ok = hasattr(self.player.sim, "terminate_now")
inner = getattr(getattr(player, "sim", None), "matrix", None)
multi = type(sim).__name__ == "MultiSiteSimulation"
'''
    assert sorted(line for line, _ in offences(bad)) == [2, 3, 4, 5]
    fine = '''
view = getattr(parent, "matrix", None)
m = sim.snapshot() if sim.family == "matrix" else None
msg = f"{type(exc).__name__}: {exc}"
'''
    assert offences(fine) == []


def test_no_module_in_gui_probes_a_simulation_or_tests_a_class_name():
    found = [f"{path.name}:{line}: {code}" for path in sorted(GUI.rglob("*.py"))
             for line, code in offences(path.read_text(encoding="utf-8"))]
    assert not found, "read simulations through gangviz.sim.protocol:\n" + "\n".join(found)
