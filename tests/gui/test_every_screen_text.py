"""Every screen a lecturer projects has no text under 18 pixels at 1920 x 1080 in presentation
mode (16 pixels at 1280 x 720) and no text cut by its rectangle: every built-in scenario at
every step and at every move, the compare window of each family at several times, and every
frame of a presentation export.

Texts are read as :mod:`screen_text` reads them: the widgets that hold text from the widget
tree, painted text by recording ``QPainter.drawText`` while the screen is grabbed.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QLabel
from screen_text import PaintedTexts, Seen, problems, screen_texts

from gangviz.resources import RESOURCES, list_scenarios

SIZES = {"1920x1080": ((1920, 1080), 18.0), "1280x720": ((1280, 720), 16.0)}
SCENARIOS = [p.stem for p in list_scenarios()]
KTH = str(RESOURCES / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")


@pytest.fixture
def painted(monkeypatch) -> PaintedTexts:
    return PaintedTexts().install(monkeypatch)


def _summary(found: dict[Seen, str]) -> list[str]:
    return [f"{where}: {s.where} {s.px:.1f} px{' CUT' if s.clipped else ''} {s.text!r}" for s, where in found.items()]


def present_window(window, size) -> None:
    window.presentation.full_screen = False  # offscreen: the picture is ``size``, not the screen
    window.resize(*size)
    if not window.presentation.active:
        window.toggle_presentation()
    window.resize(*size)
    window.presentation.rescale()
    QApplication.processEvents()


def test_the_reader_sees_small_and_cut_text(window, painted, qtbot):
    """The reader can fail: the normal window has small text, and a squeezed label is cut."""
    assert window.open_source("fig2-repacking")
    window.resize(1280, 720)
    assert any(s.px < 18 for s in problems(screen_texts(window, painted), 18.0))
    label = QLabel("a label far too long for its width")
    qtbot.addWidget(label)
    label.resize(60, 30)
    label.show()
    assert [s.clipped for s in screen_texts(label, painted, grab=False)] == [True]


def _walk(window, painted, min_px: float, found: dict[Seen, str], *, by_move: bool) -> int:
    """Show every step (or every move) of the open scenario from its start; return how many."""
    p = window.player
    p.go_to(0, now=True)
    shown = 0
    while True:
        for s in problems(screen_texts(window, painted), min_px):
            found.setdefault(s, f"{'move' if by_move else 'step'} {shown}")
        shown += 1
        more = p.step_move(animate=False) if by_move else p.step_forward(animate=False) is not None
        if not more:
            return shown


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_step_and_move_of_every_scenario(shared_window, painted, name):
    window = shared_window
    found: dict[Seen, str] = {}
    assert window.open_source(name)
    for size, min_px in SIZES.values():
        present_window(window, size)
        stops = _walk(window, painted, min_px, found, by_move=False)
        assert stops >= 2
        if window.player.has_matrix:
            _walk(window, painted, min_px, found, by_move=True)
    assert _summary(found) == []
    window.leave_presentation()


def test_the_easy_gantt_of_a_trace_at_every_tenth_step(window, painted):
    found: dict[Seen, str] = {}
    assert window.open_source(KTH, "easy")
    for size, min_px in SIZES.values():
        present_window(window, size)
        for k in range(0, 300, 30):
            window.player.go_to(k, now=True)
            for s in problems(screen_texts(window, painted), min_px):
                found.setdefault(s, f"step {k}")
    assert _summary(found) == []
    window.leave_presentation()


COMPARISONS = [
    ("fig2-repacking", ["repack", "firstfit"], {}),
    ("downey", ["bc", "brmms", "repack", "firstfit"], dict(jobs=40, procs=32, load=0.8, seed=3)),
    ("downey", ["easy", "conservative", "fcfs", "repack"], dict(jobs=40, procs=32, load=0.8, seed=3)),
    ("papazachos-migration", ["AFCFS", "AFCFSwM"], {}),
]


@pytest.mark.parametrize("size_name", list(SIZES))
@pytest.mark.parametrize("source, specs, kw", COMPARISONS, ids=["fig2", "downey-4", "downey-easy", "sites"])
def test_the_compare_window_at_five_times(qtbot, painted, source, specs, kw, size_name):
    from gangviz.gui.compare.window import CompareWindow
    from gangviz.workloads.source import load_source

    size, min_px = SIZES[size_name]
    win = CompareWindow(load_source(source, **kw), specs)
    qtbot.addWidget(win)
    assert win.error is None
    win.presentation.full_screen = False
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    assert win.toggle_presentation()
    win.resize(*size)
    win.presentation.rescale()
    found: dict[Seen, str] = {}
    for t in (0.0, win.end / 4, win.end / 2, win.end * 3 / 4, win.end):
        win.set_time(t)
        for s in problems(screen_texts(win, painted), min_px):
            found.setdefault(s, f"t = {t:g}")
    assert _summary(found) == []
    win.close()


@pytest.mark.parametrize("name, by_move, size_name", [
    ("fig2-repacking", True, "1920x1080"),
    ("zhou-fig3-pairwise-cuts", True, "1920x1080"),
    ("papazachos-migration", False, "1920x1080"),
    ("mccann-fig3-buddy", False, "1920x1080"),
    ("fig2-repacking", True, "1280x720"),
    ("papazachos-migration", False, "1280x720"),
])
def test_every_frame_of_a_presentation_export(monkeypatch, painted, name, by_move, size_name):
    """The board is read as each frame is grabbed (the frames are what the GIF holds)."""
    from gangviz.factory import build
    from gangviz.gui.board import Board
    from gangviz.gui.export.render import render

    size, min_px = SIZES[size_name]
    found: dict[Seen, str] = {}
    grabbed = [0]
    orig = Board.grab

    def grab(board, *args):
        grabbed[0] += 1
        for s in problems(screen_texts(board, painted, grab=False), min_px):
            found.setdefault(s, f"frame {grabbed[0]}")
        painted.clear()
        image = orig(board, *args)
        for s in problems(painted.seen, min_px):
            found.setdefault(s, f"frame {grabbed[0]}")
        return image

    monkeypatch.setattr(Board, "grab", grab)
    render(build(name), size, 5, lambda image, ticks: None, title=name, subtitle="policy",
           presentation=True, by_move=by_move)
    assert grabbed[0] > 5
    assert _summary(found) == []
