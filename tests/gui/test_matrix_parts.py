"""The matrix view's parts: the Qt-free layout, the style table, the signals of its controller
and the job colours each view owns."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from gui_helpers import close_rgb, pixel
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QContextMenuEvent

from gangviz.colours import JOB_HEX
from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.gui import palette
from gangviz.gui.matrix.geometry import ColumnRange
from gangviz.gui.matrix.layout import layout_matrix
from gangviz.gui.matrix.style import STYLES, style_of
from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.playback.player import Player
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation


def test_the_layout_imports_no_qt():
    code = ("import sys; import gangviz.gui.matrix.layout; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_cell_at_the_centre_of_each_cell_box_is_that_cell():
    rng = ColumnRange(10)
    for bottom_up in (True, False):
        lay = layout_matrix(np.ones(4), 10, 700, 400, rng, bottom_up=bottom_up)
        for row in range(4):
            for col in range(10):
                x, y, w, h = lay.cell_box(row, col)
                assert lay.cell_at(x + w / 2, y + h / 2, 10) == (row, col)
        # S1 is the lowest row when drawn bottom up, the highest otherwise
        assert (lay.tops[0] > lay.tops[3]) == bottom_up
        assert lay.cell_at(1.0, float(lay.tops[0]) + 1, 10) is None  # in the gutter


def test_a_zoomed_layout_maps_points_onto_the_processors_on_show():
    rng = ColumnRange(100)
    rng.show(40, 10)
    lay = layout_matrix(np.ones(2), 100, 700, 400, rng)
    x, y, w, h = lay.cell_box(1, 45)
    assert lay.cell_at(x + w / 2, y + h / 2, 100) == (1, 45)
    assert lay.cell_at(lay.left - 1, y + h / 2, 100) is None  # left of the range on show
    assert lay.top > layout_matrix(np.ones(2), 100, 700, 400, ColumnRange(100)).top  # the strip


def test_a_migration_is_drawn_from_one_style_by_the_matrix_the_cues_and_the_key():
    mig = style_of("job_migrated")
    assert mig is STYLES["job_migrated"] and mig.badge and mig.ghost and mig.trail and mig.icon
    assert style_of("no_such_change").ghost is None
    # moving blocks and ghosts share the table's edges across the kinds that move jobs
    assert {STYLES[k].edge for k in ("job_shifted", "region_swapped", "job_migrated")} == {mig.edge}


def _two_jobs_of_one_preferred_colour(first: bool = True) -> Simulation:
    """J0 and the job one palette length later side by side: the second cannot take its
    preferred colour (the first's) and takes the next one; without ``first`` the second job
    is alone and takes its preferred colour."""
    n = len(JOB_HEX)
    m = OusterhoutMatrix(8)
    SlotAdded(0).apply(m)
    jobs = [JobSpec(j, f"J{j}", 0.0, 1, 100.0) for j in range(n + 1)]
    if first:
        JobPlaced(0, 0, range(0, 4)).apply(m)
    JobPlaced(n, 0, range(4, 8)).apply(m)
    m.set_active(0)
    return Simulation([jobs[0], jobs[n]] if first else [jobs[n]], make_policy("repack"), 8, initial=m)


def test_two_panes_keep_their_own_job_colours(qtbot):
    n = len(JOB_HEX)
    a_sim = _two_jobs_of_one_preferred_colour()
    a, b = MatrixWidget(Player(a_sim)), MatrixWidget(Player(_two_jobs_of_one_preferred_colour()))
    for v in (a, b):
        qtbot.addWidget(v)
        v.resize(600, 200)
        v.show()
    a.grab()
    assert a.colours.index(n) == 1  # next to J0, which has the preferred colour 0
    # J0 leaves pane A: J13 keeps the colour it was given while it lives
    pa = a.player
    pa.terminate_now(0)
    while pa.busy:
        pa.advance_animation(0.05)
    # pane B is given a new simulation: it starts its own colours afresh, never pane A's (where
    # the same job id alone takes its preferred colour 0)
    b.set_player(Player(_two_jobs_of_one_preferred_colour(first=False)))
    b.grab()
    assert b.colours.index(n) == 0
    img = a.grab().toImage()
    r = a.cell_rect(0, 6)
    assert a.colours.index(n) == 1
    assert close_rgb(pixel(img, r.center().x(), r.center().y()), palette.JOB_COLOURS[1])


def test_the_context_menu_asks_the_window_and_opens_no_dialog(qtbot, monkeypatch):
    sim = _two_jobs_of_one_preferred_colour()
    v = MatrixWidget(Player(sim))
    qtbot.addWidget(v)
    v.resize(600, 200)
    v.show()
    v.grab()
    chosen = []

    class Menu:  # the menu, without its modal loop: its first entry is chosen
        def __init__(self, parent):
            self.actions = []

        def addAction(self, text):
            act = QAction(text)
            self.actions.append(act)
            return act

        def exec(self, pos):
            chosen.append([act.text() for act in self.actions])
            self.actions[0].trigger()

    monkeypatch.setattr("gangviz.gui.matrix.interaction.QMenu", Menu)
    r = v.cell_rect(0, 1)
    with qtbot.waitSignal(v.interaction.terminateRequested) as got:
        v.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, r.center().toPoint(),
                                             v.mapToGlobal(r.center().toPoint())))
    assert got.args == [0] and chosen == [["Terminate J0 now"]]
    assert 0 in sim.matrix  # nothing terminated: the window answers the request
    with qtbot.waitSignal(v.jobSelected) as sel:
        qtbot.mouseClick(v, Qt.MouseButton.LeftButton, pos=QPoint(int(r.center().x()), int(r.center().y())))
    assert sel.args == [0] and v.selected == 0


def test_the_window_answers_the_view_s_what_ifs(window, message_boxes, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    m = window.board.matrix
    sim = window.player.sim
    job = int(sim.snapshot().cells[0, 0])
    m.interaction.terminateRequested.emit(job)
    assert job not in sim.snapshot() and message_boxes == []
    # a second termination of the same job is not possible: the window says why
    m.interaction.terminateRequested.emit(job)
    assert [kind for kind, _, _ in message_boxes] == ["warning"]
    # a submission asks for the size, then the work, in the window's dialogs
    asked = []

    def answer(value):
        def ask(parent, *args):
            asked.append(parent)
            return value, True
        return staticmethod(ask)

    monkeypatch.setattr(QInputDialog, "getInt", answer(2))
    monkeypatch.setattr(QInputDialog, "getDouble", answer(3.0))
    before = len(sim.snapshot().jobs())
    m.interaction.submitRequested.emit()
    assert asked == [window, window] and len(sim.snapshot().jobs()) == before + 1
