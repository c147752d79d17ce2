"""The compare window as a lecturer projects it: every pane's clock reads the shared clock,
presentation mode's text sizes, the table's number forms and distinct policy colours."""

from __future__ import annotations

import pytest

from gangviz.cli import main
from gangviz.gui.compare import window as compare_window
from gangviz.gui.compare.window import CompareWindow
from gangviz.timefmt import clock_text


def open_window(qtbot, source, specs, **kw):
    win = CompareWindow(source, specs, **kw)
    qtbot.addWidget(win)
    win.resize(1500, 950)
    win.show()
    qtbot.waitExposed(win)
    return win


def pane_clocks(win) -> list[str]:
    """The ``t = ...`` of every pane's state line."""
    return [p.state.text().split("  ·  ")[0].removeprefix("t = ") for p in win.panes]


def toolbar_clock(win) -> str:
    return win.clock_label.text().split("  of  ")[0]


def assert_clocks_agree(win):
    shared = toolbar_clock(win)
    assert shared == clock_text(win.time, win._slice_seconds())
    assert pane_clocks(win) == [shared] * len(win.panes), (shared, pane_clocks(win))


@pytest.mark.parametrize("source, specs, kw", [
    ("fig2-repacking", ["repack", "firstfit"], {}),
    ("downey", ["bc", "brmms", "repack"], dict(jobs=40, procs=32, load=0.8, seed=3)),
])
def test_every_pane_clock_is_the_shared_clock_when_stepping_seeking_and_starting_at(qtbot, source, specs, kw):
    from gangviz.workloads.source import load_source

    src = load_source(source, **kw)
    win = open_window(qtbot, src, specs)
    assert_clocks_agree(win)
    for _ in range(12):
        win.step_forward()
        assert_clocks_agree(win)
    for _ in range(5):
        win.step_back()
        assert_clocks_agree(win)
    for t in (win.end / 2, win.end * 0.81, 3.0, win.end, 0.0):
        win.set_time(t)
        assert_clocks_agree(win)
    win.close()
    # --at: the window opened at a time
    at = 13.0 if source == "fig2-repacking" else win.end * 0.7
    started = open_window(qtbot, src, specs, start=at)
    assert started.time == min(at, started.end)
    assert_clocks_agree(started)
    started.close()


def test_compare_at_on_the_command_line_shows_the_shared_clock_in_every_pane(tmp_path, monkeypatch, capsys):
    seen: list[tuple[str, list[str]]] = []
    orig = CompareWindow.export_figure

    def record(self, path, what="window"):
        seen.append((toolbar_clock(self), pane_clocks(self)))
        return orig(self, path, what)

    monkeypatch.setattr(compare_window.CompareWindow, "export_figure", record)
    out = tmp_path / "c.png"
    assert main(["compare", "fig2-repacking", "--policy", "repack", "--policy", "firstfit", "--window",
                 "--screenshot", str(out), "--at", "13"]) == 0
    assert len(seen) == 1 and seen[0][1] == [seen[0][0]] * 2, seen
    assert seen[0][0].startswith("13")
