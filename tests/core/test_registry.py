"""The registry is the one place a policy is named, and it describes every built-in."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import pytest

import gangviz
from gangviz.cli import main
from gangviz.core import registry
from gangviz.core.registry import REGISTRY

PACKAGE = Path(gangviz.__file__).parent
#: Every name and title the registry knows, lower case; "buddy" is also an ordinary word.
NAMES = ({e.name for e in REGISTRY.values()} | {e.title.lower() for e in REGISTRY.values()}
         | {e.title.lower().replace("(k)", "") for e in REGISTRY.values()}) - {"buddy"}


def _tables(tree: ast.AST):
    """Yield every literal that could list policies: a list, tuple or set (its items) and a
    dict (its keys and its values), wherever it is written."""
    exports = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)}
    for node in ast.walk(tree):
        if id(node) in exports:
            continue  # a module's exported class names (GS, BGS, ...), not a table of policies
        if isinstance(node, ast.Dict):
            yield node, node.keys
            yield node, node.values
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            yield node, node.elts


def _literal_tables(tree: ast.AST):
    """Yield (line, names) of each table of :func:`_tables` holding two or more policy names."""
    for node, items in _tables(tree):
        named = [n.value for n in items if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and n.value.lower() in NAMES]
        if len(named) >= 2:
            yield node.lineno, named


#: Modules whose tables of names do not describe policies, and why (anything else fails).
NOT_REGISTRIES = {
    "experiments/repro/": "a paper's experiment names the policies its table compared",
    "fast/buddy.py": "the compiled buddy kernel's scheme codes",
    "spacesharing/": "the backfilling simulator's modes (fcfs, easy, conservative)",
}


def test_no_module_but_the_registry_keeps_a_table_of_policy_names():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "core/registry.py" or any(rel.startswith(k) for k in NOT_REGISTRIES):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(PACKAGE)}:{line}: {names}" for line, names in _literal_tables(tree)]
    assert not found, "policy names kept outside gangviz/core/registry.py:\n" + "\n".join(found)


def test_no_caller_asks_a_policy_its_family_by_getattr_or_registers_one():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for i, line in enumerate(text.splitlines(), 1):
            if "getattr(pol" in line and '"family"' in line or "register_policy(" in line \
                    or "is_space_sharing(" in line or 'policy, "family"' in line:
                bad.append(f"{path.relative_to(PACKAGE)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_every_time_slot_policy_class_has_an_entry_and_every_entry_builds():
    from gangviz.sim.policy import Policy

    targets = set()
    for entry in REGISTRY.values():
        made = entry.constructor()
        assert callable(made), entry.name
        targets.add(made)
    import gangviz.policies.buddy
    import gangviz.policies.ibm.gs
    import gangviz.policies.linear

    for module in (gangviz.policies.buddy, gangviz.policies.linear, gangviz.policies.ibm.gs):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            public = cls.__module__ == module.__name__ and not cls.__name__.startswith("_")
            concrete = issubclass(cls, Policy) and cls.name != "ibm-gang"
            if public and concrete:
                assert cls in targets, f"{cls.__name__} has no registry entry"


def test_a_built_in_class_takes_its_title_paper_and_timing_from_its_entry():
    from gangviz.policies import make_policy

    for entry in registry.entries(registry.MATRIX):
        cls = entry.constructor()
        assert cls.paper == entry.paper and cls.decides_at == entry.decides, entry.name
        # the IBM classes keep the lower-case name the window has always written
        assert cls.name in (entry.title, entry.name), entry.name
        assert make_policy(entry.name).paper == entry.paper


def test_the_registry_covers_every_family_named_in_the_papers():
    groups = {(e.family, e.group) for e in REGISTRY.values()}
    assert groups == {("matrix", "linear"), ("matrix", "buddy"), ("matrix", "ibm"),
                      ("space-sharing", "backfill"), ("multisite", "afcfs"), ("epoch", "epoch")}
    for e in REGISTRY.values():
        assert e.paper.startswith("[") and "§" in e.paper, e.name
        assert set(e.loops) <= set(registry.LOOPS) and "reference" in e.loops
        assert e.family in registry.FAMILIES


def test_every_parameter_default_is_one_its_own_parser_accepts():
    for e in REGISTRY.values():
        for p in e.params:
            if p.default is not None:
                assert p.parse(p.default, e.title) == p.default
                assert p.parse(p.describe_default(), e.title) == p.default


def test_gangviz_policies_lists_every_built_in(capsys):
    assert main(["policies"]) == 0
    out = capsys.readouterr().out
    for e in REGISTRY.values():
        assert f"{e.title}  ({e.family}, {e.group})  {e.paper}" in out
    assert "migration_cost = 0.0  (a finite number in 0..1,099,511,627,776 slices)" in out
    assert main(["policies", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_name = {p["name"]: p for p in doc["policies"]}
    assert set(by_name) == {e.title for e in REGISTRY.values()}
    mgs = {p["name"]: p for p in by_name["MGS"]["parameters"]}
    assert mgs["charge_migration"] == {"name": "charge_migration", "type": "bool", "default": True,
                                       "allowed": "true or false", "doc": mgs["charge_migration"]["doc"]}
    assert mgs["q"]["none"] == "none" and mgs["mpl"]["low"] == 1


@pytest.mark.parametrize("name, family", [("BRMMS", "matrix"), ("Easy", "space-sharing"),
                                          ("afcfswm", "multisite"), ("heuristic(2)", "epoch")])
def test_lookup_is_case_insensitive_and_knows_the_family(name, family):
    assert registry.lookup(name)[0].family == family


def test_the_menus_read_the_registry():
    assert registry.menu("matrix") == sorted(e.name for e in REGISTRY.values()
                                             if e.family in ("matrix", "space-sharing"))
    assert registry.menu("multisite") == ["AFCFS", "AFCFSwM"]
    assert "OPT-EPOCH(1)" in registry.menu("epoch")


def test_every_built_in_has_a_colour_of_its_own_within_its_family():
    # (policies shown together are parted further: colours.separated, tested with the compare window)
    for family in registry.FAMILIES:
        own = [e.colour.upper() for e in registry.entries(family)]
        assert all(len(c) == 7 and int(c[1:], 16) >= 0 for c in own), family
        assert len(set(own)) == len(own), (family, own)
    assert registry.colour("MBGS") != registry.colour("firstfit")
    assert registry.colour("gs:mpl=3") == REGISTRY["gs"].colour
