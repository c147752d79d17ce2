"""The compare window as a lecturer projects it: every pane's clock reads the shared clock,
presentation mode's text sizes, the table's number forms and distinct policy colours."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from gangviz.cli import main
from gangviz.core import registry
from gangviz.gui.compare import window as compare_window
from gangviz.gui.compare.window import CompareWindow
from gangviz.timefmt import clock_text
from tests.gui import test_presentation_text as text_sizes

SIZE, small_texts = text_sizes.SIZE, text_sizes.small_texts
#: the recorder of painted text sizes (a fixture)
painted = text_sizes.painted


def open_window(qtbot, source, specs, **kw):
    win = CompareWindow(source, specs, **kw)
    qtbot.addWidget(win)
    win.resize(1500, 950)
    win.show()
    qtbot.waitExposed(win)
    return win


def pane_clocks(win) -> list[str]:
    """The ``t = ...`` of every pane's state line."""
    return [p.state.text().replace("\u00a0", " ").split("  ·  ")[0].removeprefix("t = ") for p in win.panes]


def toolbar_clock(win) -> str:
    return win.clock_label.text().split("  of  ")[0]


def assert_clocks_agree(win):
    shared = toolbar_clock(win)
    assert shared == clock_text(win.time, win._slice_seconds())
    assert pane_clocks(win) == [shared] * len(win.panes), (shared, pane_clocks(win))
    for pane in win.panes:  # a view that writes the time (the Gantt strip's header) writes it too
        from gangviz.gui.families.gantt import GanttView, header_forms

        if getattr(pane, "family", None) is not None and isinstance(pane.family[0], GanttView):
            assert f"t = {shared}" in header_forms(pane.family[0]._shown())[0]
        if getattr(pane, "family", None) is not None and hasattr(pane.family[0], "time_window"):
            # the multi-site lanes end at the clock they write under them
            assert clock_text(pane.family[0].time_window()[1], win._slice_seconds()) == shared


@pytest.mark.parametrize("source, specs, kw", [
    ("fig2-repacking", ["repack", "firstfit"], {}),
    ("downey", ["bc", "brmms", "repack"], dict(jobs=40, procs=32, load=0.8, seed=3)),
    ("downey", ["easy", "repack"], dict(jobs=40, procs=32, load=0.8, seed=3)),
    ("papazachos-migration", ["AFCFS", "AFCFSwM"], {}),
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


def present(win):
    win.presentation.full_screen = False  # offscreen: the picture is SIZE, not the screen
    win.resize(*SIZE)
    if not win.presentation.active:
        assert win.toggle_presentation()
    win.resize(*SIZE)
    win.presentation.rescale()
    QApplication.processEvents()


@pytest.mark.parametrize("source, specs, kw", [
    ("fig2-repacking", ["repack", "firstfit"], {}),
    ("downey", ["bc", "brmms", "repack", "firstfit"], dict(jobs=40, procs=32, load=0.8, seed=3)),
    ("downey", ["easy", "repack"], dict(jobs=40, procs=32, load=0.8, seed=3)),
    ("papazachos-migration", ["AFCFS", "AFCFSwM"], {}),
])
def test_presentation_mode_draws_no_text_under_18_px_at_1920_by_1080(qtbot, painted, source, specs, kw):
    from gangviz.workloads.source import load_source

    win = open_window(qtbot, load_source(source, **kw), specs)
    normal = small_texts(win, painted)
    assert normal, "the normal window has small text: the recorder would see it"
    present(win)
    assert not win.chooser.isVisibleTo(win) and not win.plots.isVisibleTo(win)
    assert (win.width(), win.height()) == SIZE, "the large text widened the window"
    table = win.table
    shown = [i for i in range(table.rowCount()) if not table.isRowHidden(i)]
    if win.comparison is not None:  # the families with the table
        assert shown and not any(table.comparison.keys[i].endswith(("_small", "_large")) for i in shown)
    for t in (0.0, win.end / 2, win.end):
        win.set_time(t)
        assert small_texts(win, painted) == []
    # F11 again restores the window: the chooser, the plots and the small text come back
    assert not win.toggle_presentation()
    assert win.chooser.isVisibleTo(win) and win.plots.isVisibleTo(win)
    assert small_texts(win, painted)
    win.close()


def test_the_projected_table_of_four_policies_shows_every_headline_row_without_scrolling(qtbot):
    from gangviz.workloads.source import load_source

    win = open_window(qtbot, load_source("downey", jobs=40, procs=32, load=0.8, seed=3),
                      ["bc", "brmms", "repack", "firstfit"])
    present(win)
    win.presentation.fit_table()
    QApplication.processEvents()
    shown = {i for t in (win.table, win.table_more) if t.isVisibleTo(win)
             for i in range(t.rowCount()) if not t.isRowHidden(i)}
    assert shown == set(win.headline_rows()) and len(shown) > 12
    assert win.table_more.isVisibleTo(win), "too many rows for one block: reflowed into two"
    for t in (win.table, win.table_more):
        assert t.verticalScrollBar().maximum() == 0 and t.horizontalScrollBar().maximum() == 0
        rows = [i for i in range(t.rowCount()) if not t.isRowHidden(i)]
        assert t.rowViewportPosition(rows[-1]) + t.rowHeight(rows[-1]) <= t.viewport().height()
        for j in range(t.columnCount()):  # no figure cut short ("0.0847…")
            assert t.columnWidth(j) >= t.sizeHintForColumn(j)
    assert not win.toggle_presentation()
    assert not win.table_more.isVisibleTo(win)
    assert all(not win.table.isRowHidden(i) for i in range(win.table.rowCount()))
    win.close()


def test_compare_presentation_on_the_command_line_renders_the_asked_size(tmp_path, capsys):
    from PySide6.QtGui import QImage

    out = tmp_path / "p.png"
    assert main(["compare", "fig2-repacking", "--policy", "repack", "--policy", "firstfit", "--window",
                 "--presentation", "--size", "1920x1080", "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1920, 1080)
    capsys.readouterr()
    assert main(["compare", "fig2-repacking", "--policy", "repack", "--policy", "firstfit", "--presentation"]) != 0
    assert "needs --window" in capsys.readouterr().err


def test_table_numbers_have_four_significant_digits_separators_words_and_read_times():
    from gangviz.gui.compare.table import cell_text, row_title

    assert cell_text(0.208333, False) == "0.2083"
    assert cell_text(2441.0, False) == "2,441"
    assert cell_text(39.165, True) == "39.16 ★" or cell_text(39.165, True) == "39.17 ★"
    assert cell_text(2441.0, False, "s") == "40.7 min"
    assert cell_text(200_000.0, False, "s") == "2.31 d"
    assert row_title("bounded_slowdown", "min", "ratio") == "mean bounded slowdown ↓"
    assert row_title("t_ta", "min", "slices") == "mean turnaround ↓ (slices)"
    assert row_title("wait_small", "min", "s") == "mean wait, small jobs ↓"


def test_the_window_table_names_figures_in_words(qtbot):
    from gangviz.workloads.source import load_source

    win = open_window(qtbot, load_source("fig2-repacking"), ["repack", "firstfit"])
    heads = [win.table.verticalHeaderItem(i).text() for i in range(win.table.rowCount())]
    assert heads and not any("_" in h for h in heads), heads
    cells = [win.table.item(i, j).text() for i in range(win.table.rowCount()) for j in range(2)]
    assert "0.208333" not in " ".join(cells) and "0.2083 ★" in cells
    win.close()


def test_mean_turnaround_has_no_curve_before_the_first_job_finishes(qtbot):
    import numpy as np

    from gangviz.workloads.source import load_source

    win = open_window(qtbot, load_source("fig2-repacking"), ["repack", "firstfit"])
    win.set_time(win.end)
    panel = [t for t, *_ in compare_panels()].index("Mean turnaround")
    for spec in ("repack", "firstfit"):
        samples = win.samples[spec]
        first = min(s.time for s in samples if s.finished > 0)
        xs, ys = win.plots.solid[(spec, panel)].getData()
        drawn = xs[np.isfinite(ys)]
        assert len(drawn) and drawn.min() >= first, (spec, first, drawn.min())
        assert np.all(ys[np.isfinite(ys)] > 0)
    win.close()


def compare_panels():
    from gangviz.gui.plots.compare import PANELS

    return PANELS


def registry_policies() -> list[str]:
    from gangviz.core.registry import menu

    names: set[str] = set()
    for model in ("matrix", "multisite", "epoch", "spacesharing"):
        try:
            names |= set(menu(model))
        except (KeyError, ValueError):
            pass
    return sorted(names)


def test_policies_shown_together_get_colours_20_apart_also_with_deuteranopia():
    import itertools

    from gangviz import colours

    names = registry_policies()
    assert len(names) >= 15
    # their own colours clash (two greens, two reds): the shared rule must part them
    own = [registry.colour(n) for n in names]
    assert min(colours.pair_distances(own)[i, j] for i in range(len(own)) for j in range(i)) < 20
    sets = [list(c) for k in (2, 3, 4) for c in itertools.combinations(names, k)]
    sets += [list(reversed(c)) for c in itertools.combinations(names, 3)]
    seen = set()
    for specs in sets:
        shown = tuple(registry.colours_shown(specs))
        seen.add(shown)
    for shown in seen:
        for kind in (None, "deuteranopia"):
            d = colours.pair_distances(list(shown), kind)
            k = len(shown)
            assert min(d[i, j] for i in range(k) for j in range(i)) >= colours.MIN_POLICY_DELTA_E, (shown, kind)
    # a policy keeps its own colour when nothing shown clashes with it
    assert registry.colours_shown(["repack", "br"]) == [registry.colour("repack"), registry.colour("br")]


def test_the_window_draws_each_policy_in_its_shown_colour(qtbot):
    from gangviz import colours
    from gangviz.workloads.source import load_source

    specs = ["bc", "firstfit"]  # a green and a green of their own
    assert colours.pair_distances([registry.colour(s) for s in specs])[0, 1] < 20
    win = open_window(qtbot, load_source("downey", jobs=30, procs=32, load=0.8, seed=3), specs)
    assert win.error is None
    shown = registry.colours_shown(specs)
    assert [win.colours[s].name().upper() for s in specs] == shown
    assert [c.name().upper() for c, _t in win.timeline.rows] == shown
    assert [win.plots.pens[s].name().upper() for s in specs] == shown
    assert [win.table.horizontalHeaderItem(j).foreground().color().name().upper() for j in range(2)] == shown
    for pane, colour in zip(win.panes, shown):
        assert colour.lower() in pane.styleSheet().lower()
    win.close()


def test_presentation_mode_on_finished_runs_of_a_trace_draws_no_text_under_18_px(qtbot, painted):
    from pathlib import Path

    trace = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    win = CompareWindow(str(trace), ["easy", "gs"], schedules=True)
    qtbot.addWidget(win)
    present(win)
    win.show()
    qtbot.waitExposed(win)
    win.runner.wait()
    qtbot.waitUntil(lambda: win.pending == 0, timeout=60_000)
    win.set_time(win.end / 2)
    QApplication.processEvents()
    shown = [i for i in range(win.table.rowCount()) if not win.table.isRowHidden(i)]
    assert shown and not any(win.table.comparison.keys[i].endswith(("_small", "_large")) for i in shown)
    assert small_texts(win, painted) == []
    win.close()
