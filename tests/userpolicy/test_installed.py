"""Policies installed by a package through the ``gangviz.policies`` entry-point group: listed by
``gangviz policies`` (text and JSON) beside the built-ins, a broken one listed with its reason,
and runnable by name."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from pathlib import Path

import pytest

from gangviz.cli import main
from gangviz.userpolicy.loader import ENTRY_POINT_GROUP, installed_entries

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policies"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A fake distribution: module ``gvz_fake_pkg`` on the path and two entry points, one that
    loads and one whose module is missing."""
    shutil.copy(EXAMPLES / "gang_sjf.py", tmp_path / "gvz_fake_pkg.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    cls = next(line.split()[1].split("(")[0] for line in (tmp_path / "gvz_fake_pkg.py").read_text().splitlines()
               if line.startswith("class "))
    eps = [importlib.metadata.EntryPoint("shortjobs", f"gvz_fake_pkg:{cls}", ENTRY_POINT_GROUP),
           importlib.metadata.EntryPoint("gone", "gvz_missing_pkg:Nothing", ENTRY_POINT_GROUP)]
    real = importlib.metadata.entry_points

    def entry_points(**kw):
        if kw.get("group") == ENTRY_POINT_GROUP:
            return importlib.metadata.EntryPoints(eps)
        return real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    return cls


def test_installed_entries_load_each_and_report_the_broken_one(installed):
    rows = installed_entries()
    assert [r[0] for r in rows] == ["gone", "shortjobs"]
    gone, short = rows
    assert gone[2] is None and "gvz_missing_pkg" in gone[3]
    assert short[2] is not None and short[2].family == "matrix" and short[3] == ""
    assert short[1] == f"gvz_fake_pkg:{installed}"


def test_gangviz_policies_lists_installed_policies(installed, capsys):
    assert main(["policies"]) == 0
    out = capsys.readouterr().out
    assert f"Installed policies (entry points {ENTRY_POINT_GROUP}):" in out
    tail = out.split("Installed policies")[1]
    assert f"shortjobs = gvz_fake_pkg:{installed}" in tail
    assert "gone  (gvz_missing_pkg:Nothing)  does not load:" in tail
    assert "brmms" in out.split("Installed policies")[0].lower()  # the built-ins still come first

    assert main(["policies", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_key = {d["key"]: d for d in doc["installed"]}
    assert by_key["shortjobs"]["entry_point"] == f"gvz_fake_pkg:{installed}"
    assert by_key["shortjobs"]["family"] == "matrix" and by_key["shortjobs"]["parameters"]
    assert "error" in by_key["gone"] and "error" not in by_key["shortjobs"]
    assert len(doc["policies"]) > 10


def test_an_installed_policy_runs_by_its_name(installed, capsys):
    assert main(["run", "downey", "--jobs", "40", "--procs", "16", "--policy", "shortjobs"]) == 0
    assert "t_ta" in capsys.readouterr().out


def test_no_installed_policy_no_section(monkeypatch, capsys):
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: importlib.metadata.EntryPoints([]))
    assert main(["policies"]) == 0
    assert "Installed policies" not in capsys.readouterr().out


def test_an_installed_policy_runs_in_a_process_of_its_own(installed):
    # installed code is a user's code too: the engine's policy is the boundary to its process,
    # and its module is never imported into this one
    import sys

    from gangviz.factory import build
    from gangviz.userpolicy.boundary import IsolatedPolicy
    from gangviz.workloads.source import load_source

    sim = build(load_source("downey", jobs=20, procs=16, seed=1), "shortjobs")
    assert isinstance(sim.policy, IsolatedPolicy)
    sim.run()
    assert sim.done and "gvz_fake_pkg" not in sys.modules
