"""Exported frames carry t and the step, the scrubber follows the export, and captions wrap
rather than shrink below a readable size."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from gangviz.factory import build
from gangviz.gui.board import Board
from gangviz.gui.export.render import count_ahead, frame_stamp, render
from gangviz.gui.lecture.caption import MIN_SCALE, Caption
from gangviz.timefmt import clock_text
from gangviz.workloads.source import load_source


def test_frame_stamp_names_time_with_its_unit_and_step():
    assert frame_stamp("8 processors", 2.0, 3, 5) == "8 processors   ·   t = 2 slices   ·   step 3 of 5"
    assert frame_stamp("", 0.5, 0, None) == "t = 0.5 slices   ·   step 0"
    # a trace's clock, as the window's status line writes it; never a raw 2.96138e+06
    assert frame_stamp("", 2961380.0, 1200, 5000, 1.0) == "t = 34 d 06:36:20   ·   step 1,200 of 5,000"
    assert frame_stamp("", 95.0, 1, None, 60.0) == "t = 01:35:00   ·   step 1"


def test_count_ahead_leaves_the_simulation_where_it_was():
    sim = build(load_source("fig2-repacking"))
    n = count_ahead(sim, 100)
    assert n is not None and n > 3 and len(sim.steps) == 0 and sim.time == 0
    assert count_ahead(sim, 2) == 2 and len(sim.steps) == 0


def test_every_frame_carries_t_and_step_and_the_handle_follows(qtbot):
    sim = build(load_source("fig2-repacking"))
    total = count_ahead(sim, 100)
    seen = []

    def on_frame(img, ticks):
        board = next(w for w in QApplication.topLevelWidgets() if isinstance(w, Board))
        tl = board.timeline
        seen.append((board.subtitle.text(), tl.x_of(tl.player.position), tl.width()))

    steps = render(sim, (640, 400), 5, on_frame, subtitle="Fig. 2")
    assert steps == total
    first, last = seen[0], seen[-1]
    assert first[0] == f"Fig. 2   ·   t = 0 slices   ·   step 0 of {total}"
    assert last[0].endswith(f"step {total} of {total}") and "t = " in last[0]
    xs = [x for _, x, _ in seen]
    assert xs == sorted(xs) and xs[0] < xs[-1]
    mid = seen[len(seen) // 2]
    assert xs[0] < mid[1] < xs[-1], "half-way through the export the handle is inside the bar"


def test_a_trace_exports_its_frames_in_its_clock(qtbot):
    """The frames of a trace's export say the time as the window does (hours:minutes:seconds),
    not the raw count of seconds."""
    from gangviz.resources import RESOURCES

    source = load_source(str(RESOURCES / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"))
    sim = build(source, "easy")
    seen = []

    def on_frame(img, ticks):
        board = next(w for w in QApplication.topLevelWidgets() if isinstance(w, Board))
        seen.append(board.subtitle.text())

    render(sim, (640, 400), 5, on_frame, steps=12, slice_seconds=source.slice_seconds)
    last = seen[-1]
    assert sim.time > 3600 and "t = " in last
    clock = last.split("t = ")[1].split("   ·")[0]
    assert clock == clock_text(sim.time, 1.0) and clock.count(":") == 2, last


def test_a_long_caption_wraps_at_a_readable_size(qtbot):
    c = Caption(points=13.0)
    qtbot.addWidget(c)
    c.resize(400, 10)
    c.show()
    short_h = c.sizeHint().height()
    least = c.minimumHeight()
    c.full_text = " ".join(f"J{i} shifts from S1 to S2 on the same processors." for i in range(8))
    c._fit()
    assert c.font().pointSizeF() >= 13.0 * MIN_SCALE - 1e-6 >= 11.0
    assert c.sizeHint().height() > short_h, "it asks for more lines instead of a smaller font"
    assert c.minimumHeight() == least, "without raising the window's minimum size"
    c.full_text = "short"
    c._fit()
    assert c.sizeHint().height() == short_h and c.font().pointSizeF() == 13.0


def test_in_the_board_a_long_caption_gets_its_lines_when_there_is_room(qtbot):
    board = Board()
    qtbot.addWidget(board)
    board.resize(900, 900)
    board.show()
    board.caption.full_text = " ".join(f"J{i} shifts from S1 to S2 on the same processors." for i in range(20))
    board.caption._fit()
    board.layout().activate()
    assert board.caption.height() > board.caption.minimumHeight() + 10, "more lines, not a smaller font"


def test_a_space_sharing_export_counts_its_steps_and_moves_the_handle(qtbot):
    """An easy run has no matrix: its frames still say 'step k of n' and the handle starts at
    the left, not at the end of the bar."""
    from pathlib import Path

    from gangviz.experiments.compare import build_simulations

    kth = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    sim = build_simulations(load_source(str(kth)), ["easy"])["easy"]
    assert count_ahead(sim, 6) == 6 and sim.cursor == 0
    seen = []

    def on_frame(img, ticks):
        board = next(w for w in QApplication.topLevelWidgets() if isinstance(w, Board))
        tl = board.timeline
        seen.append((board.subtitle.text(), tl.x_of(tl.player.position)))

    assert render(sim, (640, 400), 5, on_frame, steps=6) == 6
    assert seen[0][0].endswith("step 0 of 6") and seen[-1][0].endswith("step 6 of 6")
    xs = [x for _, x in seen]
    assert xs[0] < xs[-1]
