"""The PySide6 6.12.0 reference-count regression, and a short rendering soak."""

from __future__ import annotations

import gc
import sys

from gui_helpers import downey_sim
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.playback.player import Player


class _Emitter(QObject):
    flag = Signal(bool)
    plain = Signal()
    obj = Signal(object)


def test_many_signal_emits_do_not_drop_references_to_true():
    # pyproject.toml pins PySide6 below 6.12: 6.12.0 drops a reference to True on every emit
    # and aborts.
    e = _Emitter()
    got = []
    e.flag.connect(got.append)
    e.plain.connect(lambda: None)
    e.obj.connect(lambda o: None)
    before = sys.getrefcount(True)
    for i in range(3000):
        e.flag.emit(True)
        e.plain.emit()
        e.obj.emit(i)
    assert len(got) == 3000
    assert sys.getrefcount(True) >= before


def test_rendering_many_animation_frames_offscreen(qtbot):
    sim = downey_sim("brms", jobs=120, procs=64, load=0.9)
    player = Player(sim, speed_level=6)
    view = MatrixWidget(player)
    view.resize(900, 360)
    qtbot.addWidget(view)
    img = QImage(900, 360, QImage.Format.Format_ARGB32_Premultiplied)
    gc.collect()  # garbage of earlier tests freed inside the loop would drop references to True too
    before = sys.getrefcount(True)
    frames = 0
    while frames < 600 and not sim.done:
        player.step_forward(animate=True)
        while player.busy and frames < 600:
            player.advance_animation(0.004)
            view.render(img)
            frames += 1
    player.stop()
    assert frames == 600
    assert sys.getrefcount(True) >= before
