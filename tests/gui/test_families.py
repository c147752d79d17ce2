"""The table of family views: every family is drawn, each by the view its row names."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QVariantAnimation

from gangviz.factory import build as simulation_for
from gangviz.gui.board import Board
from gangviz.gui.families.epoch import EpochView
from gangviz.gui.families.gantt import GanttView
from gangviz.gui.families.sites import QueueView
from gangviz.gui.families.table import FamilyView, family_view, matrix_of
from gangviz.gui.playback.player import Player
from gangviz.resources import RESOURCES
from gangviz.sim.protocol import FAMILIES
from gangviz.workloads.source import load_source

KTH = str(RESOURCES / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")


def test_every_family_but_the_matrix_has_a_view():
    from gangviz.core import registry

    drawn = {key for key in FAMILIES if registry.family(key).views}
    assert drawn == set(FAMILIES) - {"matrix"}
    assert all(isinstance(registry.family(key).load("views"), FamilyView) for key in drawn)


@pytest.mark.parametrize(("name", "policy", "view_class", "animated"), [
    ("papazachos-migration", None, QueueView, True),
    ("mccann-fig6-epochs", None, EpochView, True),
    (KTH, "easy", GanttView, False),
])
def test_a_board_shows_each_family_in_its_view(qtbot, name, policy, view_class, animated):
    sim = simulation_for(load_source(name), policy)
    board = Board()
    qtbot.addWidget(board)
    player = Player(sim, board)
    board.set_player(player)
    view = board.family[0]
    assert isinstance(view, view_class) and not board.matrix.isVisible()
    drawn = family_view(sim)
    anim = drawn.animation(view)
    assert isinstance(anim, QVariantAnimation) if animated else anim is None
    assert matrix_of(sim) is None
    player.step_forward()
    player.step_back()  # a jump: the view is reset from the simulation's snapshot
    assert player.position == 0
    player.stop()


def test_the_matrix_family_is_drawn_by_the_board_itself(qtbot):
    sim = simulation_for(load_source("fig2-repacking"))
    board = Board()
    qtbot.addWidget(board)
    player = Player(sim, board)
    board.set_player(player)
    assert family_view(sim) is None and board.family is None
    assert matrix_of(sim) is sim.snapshot() and not board.matrix.isHidden()
    player.stop()
