"""The workload tree is drawn only under the policies that read it (the buddy schemes and
re-packing); under any other policy a line says why it is hidden."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPainter

from gangviz.gui.matrix.vector import tree_hidden_reason

#: the policies that allocate by the workload tree: the buddy schemes and re-packing
TREE_POLICIES = {"bc", "br", "brms", "brmms", "repack"}


def painted_texts(widget, monkeypatch) -> list[str]:
    seen: list[str] = []
    orig = QPainter.drawText

    def record(self, *args, **kwargs):
        seen.extend(a for a in args if isinstance(a, str))
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(QPainter, "drawText", record)
    widget.grab()
    monkeypatch.setattr(QPainter, "drawText", orig)
    return seen


@pytest.mark.parametrize("policy", sorted(TREE_POLICIES | {"random", "gs", "mgs", "firstfit"}))
def test_the_reason_is_given_exactly_for_the_policies_that_do_not_use_the_tree(policy):
    assert (tree_hidden_reason(policy) is None) == (policy in TREE_POLICIES)
    assert tree_hidden_reason(policy.upper() + "(limit=2)") == tree_hidden_reason(policy) or \
        policy not in TREE_POLICIES


def test_random_allocation_hides_the_tree_and_says_why(window, monkeypatch):
    assert window.open_source("zhou-fig1-random-trap")
    vec = window.board.vector
    assert vec.tree_levels() == []
    texts = painted_texts(vec, monkeypatch)
    assert not any(t == "root" or t.startswith("WLT") for t in texts)
    assert any("Workload tree not shown" in t and "random" in t for t in texts)


def test_a_buddy_policy_draws_the_tree_with_its_root(window, monkeypatch):
    assert window.open_source("zhou-fig6-wlt")
    vec = window.board.vector
    assert vec.tree_levels()
    texts = painted_texts(vec, monkeypatch)
    assert "root" in texts and not any("not shown" in t for t in texts)


def test_gs_on_a_large_machine_draws_no_wall_of_numbers(window, monkeypatch):
    assert window.open_source("downey", "gs", procs=9216, jobs=200)
    window.player.go_to(50, now=True)
    vec = window.board.vector
    assert vec.tree_levels() == []
    assert any("gs does not allocate by buddy groups" in t.lower() for t in painted_texts(vec, monkeypatch))
