"""Every widget writes an instant the same way: a trace's clock (``2 d 07:33:20``) on a trace,
slices on a scenario or model; never ``t=1.8927e+06``."""

from __future__ import annotations

import re
from pathlib import Path

from gangviz.factory import build
from gangviz.gui.families.gantt import header_forms
from gangviz.gui.lecture.narration import NarrationView
from gangviz.gui.panels import JobPanel
from gangviz.gui.playback.player import Player
from gangviz.workloads.source import load_source

KTH = str(Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf")
CLOCK = r"(\d[\d,]* d )?\d\d:\d\d:\d\d"


def _stepped(sim, steps: int):
    for _ in range(steps):
        if sim.step() is None:
            break
    return sim


def test_the_narration_of_a_trace_reads_its_clock(qtbot):
    sim = build(load_source(KTH), "gs", record=True, watch=False)
    player = Player(sim)
    view = NarrationView()
    qtbot.addWidget(view)
    view.set_time_unit(1.0)
    view.set_player(player)
    for _ in range(40):
        player.step_forward(animate=False)
    qtbot.waitUntil(lambda: bool(view.model_.row_text))
    rows = view.model_.row_text
    assert all(re.match(CLOCK + "  ", r) for r in rows), rows[:3]
    assert not any("e+0" in r for r in rows)


def test_the_narration_of_a_scenario_counts_slices(qtbot):
    sim = build(load_source("fig2-repacking"), record=True)
    player = Player(sim)
    view = NarrationView()
    qtbot.addWidget(view)
    view.set_player(player)
    for _ in range(5):
        player.step_forward(animate=False)
    qtbot.waitUntil(lambda: bool(view.model_.row_text))
    assert all(re.match(r"[\d,.]+ slices?  ", r) for r in view.model_.row_text), view.model_.row_text[:3]


def test_the_gantt_state_line_reads_the_trace_clock():
    sim = _stepped(build(load_source(KTH), "easy", record=True), 400)
    assert sim.state.time > 86_400  # past a day: the clock shows days
    forms = header_forms(sim)
    assert all(re.search(r"t = " + CLOCK + "  ", f) for f in forms)
    assert re.search(r"t = \d+ d \d\d:\d\d:\d\d", forms[0])


def test_the_job_panel_reads_the_trace_clock_and_durations_with_units(qtbot):
    sim = _stepped(build(load_source(KTH), "gs", record=True, watch=False), 100)
    panel = JobPanel()
    qtbot.addWidget(panel)
    panel.slice_seconds = 1.0
    job = next(iter(sim.matrix.jobs()))
    panel.show_job(sim, job)
    text = panel.label.text()
    assert re.search(r"arrival t = " + CLOCK, text), text
    assert re.search(r"work [\d.,]+ (s|min|h|d),", text), text
    assert "slices" not in text


def test_the_status_bar_of_a_trace_reads_its_clock(window, qtbot):
    window.open_source(KTH, "gs")
    for _ in range(30):
        window.player.step_forward(animate=False)
    window._update_status()
    assert re.match(r"t = " + CLOCK + "   ·   step", window.status.text()), window.status.text()


def test_a_job_tooltip_in_the_matrix_reads_the_trace_clock(qtbot):
    from gangviz.gui.matrix.view import MatrixWidget

    sim = _stepped(build(load_source(KTH), "gs", record=True, watch=False), 100)
    view = MatrixWidget(Player(sim))
    qtbot.addWidget(view)
    job = next(iter(sim.matrix.jobs()))
    assert re.search(r"arrival t = \d\d:\d\d:\d\d|arrival t = \d+ d ", view.job_tooltip(job) or "") is None
    view.slice_seconds = 1.0
    tip = view.job_tooltip(job)
    assert re.search(r"arrival t = " + CLOCK, tip), tip
    assert "slices" not in tip


def test_a_completion_in_the_narration_names_its_unit():
    """The engine's own sentence for a completion gives the time with its unit, not a bare number."""
    sim = build(load_source("fig2-repacking"), None)
    texts = []
    while not sim.done:
        step = sim.step()
        texts.extend(change.reason for change in step.changes if hasattr(change, "reason"))
    done = [t for t in texts if t.startswith("completed at")]
    assert done, texts
    assert all(re.fullmatch(r"completed at t = [\d,.]+ slices?", t) for t in done), done
