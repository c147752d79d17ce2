"""The space-sharing view, offscreen: running jobs in their colour, the EASY backfill window,
reservations, hover text, and the same picture after stepping back."""

from __future__ import annotations

import math

import pytest
from gui_helpers import record_painted_texts
from PySide6.QtCore import QSettings

from gangviz.gui.families.gantt import WINDOW_FILL, GanttView, gantt_of
from gangviz.gui.palette import job_colour
from gangviz.policies import make_policy
from gangviz.resources import RESOURCES
from gangviz.spacesharing.simulation import SpaceSharingSimulation
from gangviz.workloads.source import load_source

KTH = str(RESOURCES / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")


def _sim(mode):
    src = load_source(KTH)
    return SpaceSharingSimulation(src.jobs, src.processors, make_policy(mode))


def _first_step(sim, pred):
    while sim.step() is not None:
        if pred(sim.state):
            return
    raise AssertionError("no such step")


@pytest.fixture
def view(qtbot):
    v = GanttView()
    qtbot.addWidget(v)
    v.resize(900, 520)
    return v


def _close(c, ref, tol=3):
    return all(abs(a - b) <= tol for a, b in zip(c.getRgb()[:3], ref.getRgb()[:3]))


def test_running_jobs_and_reservation_are_drawn_where_they_are(view):
    sim = _sim("easy")
    _first_step(sim, lambda st: st.waiting and st.reservations and st.running)
    view.set_state(sim)
    img = view.grab().toImage()
    hits = dict((job, rect) for rect, job in view._hits)
    job = next(iter(sim.state.running))
    r = hits[job]
    assert _close(img.pixelColor(int(r.left() + 1), int(r.center().y())), job_colour(job))
    head = sim.state.waiting[0]
    assert view.jobAt(hits[head].center()) == head
    assert sim.names[head] in sim.job_text(head)


def test_easy_shows_the_backfill_window(view):
    sim = _sim("easy")
    _first_step(sim, lambda st: st.waiting and st.free > 0 and st.extra is not None
                and all(w != float("inf") for w in st.reservations.values()))
    view.set_state(sim)
    img = view.grab().toImage()
    strip = view._strip()
    # the top row of the strip just right of the clock is free now: shaded as the window
    t0, t1 = view._window()
    x = strip.left() + (sim.state.time - t0) / (t1 - t0) * strip.width() + 3
    row = [img.pixelColor(int(x) + k, int(strip.top() + 6)) for k in range(40)]
    # grey stripes over the idle cells: dark neutral pixels beside pale ones, no job's hue
    dark = [c for c in row if c.lightness() < 190]
    assert dark and any(c.lightness() > 220 for c in row)
    assert all(max(c.red(), c.green(), c.blue()) - min(c.red(), c.green(), c.blue()) < 30 for c in dark)
    assert WINDOW_FILL.alpha() < 255


def test_time_ticks_are_round_and_at_least_five():
    from gangviz.gui.families.gantt import round_ticks

    for t0, t1, sec in ((0.0, 226000.0, 1.0), (15600.0, 15700.0, 1.0), (3.0, 48.0, None), (0.0, 0.7, None)):
        ticks = round_ticks(t0, t1, sec)
        assert len(ticks) >= 5 and all(t0 - 1e-9 <= t <= t1 + 1e-9 for t in ticks)
        step = ticks[1] - ticks[0]
        unit = next(u for u in (86400, 3600, 60, 1, 1e-3) if step * (sec or 1) >= u - 1e-9) if sec else \
            10 ** math.floor(math.log10(step))
        assert round(step * (sec or 1) / unit, 6) in (1, 2, 5, 10, 20, 50), (t0, t1, step)


def test_step_back_restores_the_picture(view):
    sim = _sim("conservative")
    sim.go_to(120)
    view.set_state(sim)
    before = view.grab().toImage()
    sim.go_to(160)
    view.set_state(sim)
    assert view.grab().toImage() != before
    sim.go_to(120)
    view.set_state(sim)
    assert view.grab().toImage() == before


def test_window_plays_easy_with_the_gantt_view(qtbot, tmp_path):
    from gangviz.gui.window import MainWindow

    w = MainWindow(KTH, "easy", settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    assert isinstance(w.board.family[0], GanttView)
    w.player.go_to(50, now=True)
    assert w.player.position == 50
    w.player.go_to(10, now=True)
    assert w.player.sim.cursor == 10
    assert "policy easy" in w.board.subtitle.text()


def test_compare_window_puts_gang_and_backfilling_in_one_ibm_table(qtbot):
    from gangviz.experiments.compare import compare
    from gangviz.gui.compare.window import CompareWindow

    source = load_source(KTH)
    win = CompareWindow(source, ["easy", "gs"])
    qtbot.addWidget(win)
    assert isinstance(win.panes[0].family[0], GanttView) and win.panes[1].matrix is not None
    shown = win.table.values()
    want = compare(load_source(KTH), ["easy", "gs"])
    from gangviz.results.figures import CORE_KEYS, ZHOU_KEYS

    assert list(shown["gs"]) == list(CORE_KEYS + ZHOU_KEYS)
    for lab in ("easy", "gs"):
        for m, v in want.metrics[lab].items():
            assert shown[lab][m] == pytest.approx(v, nan_ok=True)


def _painted(view, monkeypatch, sim) -> list[str]:
    import gangviz.gui.families.gantt as gv

    texts = record_painted_texts(monkeypatch, gv)
    view.set_state(sim)
    view.grab()
    return texts


def test_a_model_is_drawn_in_slices_and_a_trace_in_its_clock(view, monkeypatch):
    from gangviz.factory import build

    model = build(load_source("downey", jobs=40, procs=32, seed=1), "easy")
    _first_step(model, lambda st: st.waiting and st.running and st.time > 60)
    texts = _painted(view, monkeypatch, model)
    header = next(t for t in texts if t.startswith("EASY"))
    assert "slices" in header and ":" not in header.split("·")[1], header  # not "t = 00:23:45"
    assert any(t.endswith("slices") for t in texts if t != header)  # the time axis
    assert all(not t.endswith(" s") and " min" not in t and " h" not in t for t in texts), texts
    assert "slices" in model.job_text(model.state.waiting[0])

    trace = build(load_source(KTH), "easy")
    _first_step(trace, lambda st: st.waiting and st.running)
    texts = _painted(view, monkeypatch, trace)
    header = next(t for t in texts if t.startswith("EASY"))
    assert "slices" not in header and ":" in header.split("·")[1], header
    assert not any("slices" in t for t in texts), texts


def test_processors_across_draws_a_job_as_wide_as_its_size_with_time_running_up(view):
    sim = _sim("easy")
    _first_step(sim, lambda st: st.running and st.waiting and st.reservations)
    view.set_processors_across(True)
    view.set_state(sim)
    img = view.grab().toImage()
    strip, P = view._strip(), sim.processors
    hits = dict((job, rect) for rect, job in view._hits)
    probed = []
    for job in sim.state.running:
        r = hits[job]
        # across: the width is the job's share of the machine, as a matrix pane's columns
        size = gantt_of(sim).jobs[job].size
        assert r.width() == pytest.approx(strip.width() * size / P, abs=1.0)
        if r.width() >= 6 and r.height() >= 6:
            probed.append(job)
            assert _close(img.pixelColor(int(r.center().x()), int(r.bottom() - 2)), job_colour(job))
    assert probed
    # time runs up: a running job started at or before the clock's line, so its bar starts
    # on or below it, and the head's reservation is at or above it
    t0, t1 = view._window()
    now_y = strip.bottom() - (sim.state.time - t0) / (t1 - t0) * strip.height()
    assert all(hits[job].bottom() >= now_y - 1 for job in sim.state.running)
    assert max(hits[job].bottom() for job in sim.state.running) > now_y + 5
    head = sim.state.waiting[0]
    reservation = next(r for r, j in view._hits if j == head)  # (the queue row comes after)
    assert reservation.bottom() <= now_y + 1


def test_the_compare_window_draws_the_strip_with_processors_across(qtbot):
    from gangviz.gui.compare.window import CompareWindow

    win = CompareWindow(load_source("downey", jobs=30, procs=32, load=0.8, seed=3), ["easy", "repack"])
    qtbot.addWidget(win)
    gantt = win.panes[0].family[0]
    assert isinstance(gantt, GanttView) and gantt.processors_across
    assert win.panes[1].matrix is not None  # beside a matrix, whose processors run across
