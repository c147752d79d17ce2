"""Presentation mode at 1920 x 1080: every text on screen is at least 18 pixels (the font's
pixel size), in every built-in scenario and in the states that draw extra text (a move the
guided exercise holds, BUDDY's construction, the EASY Gantt strip with its queue, the
warnings bar).

Labels and buttons are read from the widget tree; painted text is caught by recording the font
of every ``QPainter.drawText`` call while the window is grabbed, whichever widget paints it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QFontInfo, QPainter
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from gangviz.resources import list_scenarios

WORKLOADS = Path(__file__).resolve().parents[2] / "resources" / "workloads"
MIN_PX = 18.0
SIZE = (1920, 1080)


def _px(font, device) -> float:
    if font.pixelSize() > 0:
        return float(font.pixelSize())
    return font.pointSizeF() * device.logicalDpiY() / 72.0


@pytest.fixture
def painted(monkeypatch):
    """Record ``(widget class, pixel size, text)`` of every text painted while it is active."""
    seen: list[tuple[str, float, str]] = []
    orig = QPainter.drawText

    def record(self, *args, **kwargs):
        text = next((a for a in args if isinstance(a, str)), "")
        if text.strip():
            seen.append((type(self.device()).__name__, _px(self.font(), self.device()), text))
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(QPainter, "drawText", record)
    return seen


def present(window):
    window.presentation.full_screen = False  # offscreen: the picture is SIZE, not the screen
    window.resize(*SIZE)
    if not window.presentation.active:
        window.toggle_presentation()
    window.resize(*SIZE)
    window.presentation.rescale()
    QApplication.processEvents()  # lay the family view out before it is grabbed


def small_texts(window, painted) -> list[tuple[str, float, str]]:
    """Every text under :data:`MIN_PX` on the window as drawn now."""
    small = []
    for w in window.findChildren(QWidget):
        if w.isVisibleTo(window) and isinstance(w, (QLabel, QAbstractButton)) and w.text().strip():
            px = float(QFontInfo(w.font()).pixelSize())
            if px < MIN_PX:
                small.append((type(w).__name__, px, w.text()[:40]))
    QApplication.processEvents()
    painted.clear()
    window.grab()
    assert painted, "nothing painted: the recorder saw no text"
    small += [(cls, px, t[:40]) for cls, px, t in painted if px < MIN_PX]
    return small


@pytest.mark.parametrize("name", [p.stem for p in list_scenarios()])
def test_every_scenario_in_presentation_mode_has_no_text_under_18_px(shared_window, painted, name):
    window = shared_window
    assert window.open_source(name)
    present(window)
    assert small_texts(window, painted) == []
    window.player.go_to(2, now=True)
    assert small_texts(window, painted) == []
    window.leave_presentation()


def test_the_guided_prompt_and_verdict_are_18_px(window, painted, qtbot):
    assert window.open_source("zhou-fig3-4-legal-cuts")
    present(window)
    p = window.player
    p.step_forward()
    while p.gate is None and p.busy:
        p.advance_animation(0.05)
    assert p.gate is not None and window.coach.waiting.text.text()
    assert small_texts(window, painted) == []
    window.coach.pick_at(window.board.matrix.width() / 2)
    p.reveal()  # the verdict
    assert "slots" in window.coach.waiting.text.text()
    assert small_texts(window, painted) == []
    window.leave_presentation()


def test_the_buddy_construction_labels_are_18_px(window, painted, qtbot):
    assert window.open_source("mccann-fig3-buddy")
    present(window)
    view = window.board.family[0]
    view.set_animation_ms(0)
    assert small_texts(window, painted) == []  # the waiting jobs before the first step
    window.player.step_forward()
    cons = view.construction
    qtbot.waitUntil(lambda: cons.building, timeout=3000)
    cons.timer.stop()
    cons.advance()  # the min-seg label is drawn
    assert small_texts(window, painted) == []
    assert any(cls == "BuddyConstruction" for cls, _, _ in painted)
    cons.finish()
    window.leave_presentation()


def test_the_easy_gantt_strip_and_its_queue_are_18_px(window, painted):
    assert window.open_source(str(WORKLOADS / "KTH-SP2-1996-2.1-cln-first300.swf"), "easy")
    present(window)
    p = window.player
    while not p.sim.state.waiting and p.step_forward(animate=False) is not None:
        pass
    assert p.sim.state.waiting, "the queue must hold jobs for this test"
    assert small_texts(window, painted) == []
    assert any(cls == "GanttView" and "processors" in t for cls, _, t in painted)
    window.leave_presentation()


def test_the_warnings_bar_is_18_px(window, painted):
    window.warnings_bar.set_warnings("trace.swf", ["line 3: job 4 skipped (no size)"])
    assert window.open_source("fig2-repacking")
    window.warnings_bar.set_warnings("trace.swf", ["line 3: job 4 skipped (no size)"])
    present(window)
    assert window.warnings_bar.isVisibleTo(window)
    assert small_texts(window, painted) == []
    window.leave_presentation()


# On a 1280 x 720 projector the sizes of 1920 x 1080 scale by two thirds: the smallest, 19
# points, stays over 16 pixels, on matrix scenarios stopped on a move, BUDDY, the multi-site
# lanes and the EASY Gantt strip.
MIN_PX_720 = 16.0


@pytest.fixture
def at_720(monkeypatch):
    import sys

    module = sys.modules[__name__]
    monkeypatch.setattr(module, "SIZE", (1280, 720))
    monkeypatch.setattr(module, "MIN_PX", MIN_PX_720)


@pytest.mark.parametrize("name", ["fig2-repacking", "zhang-fig13-migration", "mccann-fig3-buddy",
                                  "papazachos-migration", "zhou-fig6-wlt"])
def test_scenarios_at_1280_by_720_have_no_text_under_16_px(window, painted, at_720, name):
    assert window.open_source(name)
    present(window)
    assert small_texts(window, painted) == []
    if window.player.has_matrix:
        window.player.go_to_move(1, 1)
    else:
        window.player.go_to(2, now=True)
    QApplication.processEvents()
    assert small_texts(window, painted) == []
    window.leave_presentation()


def test_the_gantt_strip_at_1280_by_720_has_no_text_under_16_px(window, painted, at_720):
    assert window.open_source(str(WORKLOADS / "KTH-SP2-1996-2.1-cln-first300.swf"), "easy")
    present(window)
    window.player.go_to(120, now=True)
    assert small_texts(window, painted) == []
    window.leave_presentation()
