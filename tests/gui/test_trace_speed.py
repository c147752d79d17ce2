"""Speed on a trace: the control reads simulated time per second, and a trace starts at the
slowest speed that plays it whole in a few minutes, in the main window and the compare window."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import gangviz.gui.playback.player as player_module
from gangviz.gui.compare.window import CompareWindow
from gangviz.gui.playback import speeds
from gangviz.gui.playback.player import Player
from gangviz.gui.window import MainWindow
from gangviz.workloads.source import load_source

TRACE = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


@pytest.mark.parametrize("per", [None, 1.0, 200.0])
@pytest.mark.parametrize("end", [0.0, 50.0, 3e4, 2.9e7, 1e12])
def test_the_default_is_the_slowest_speed_that_plays_the_run_in_time(per, end):
    offered = speeds.rates(per)
    assert offered == sorted(offered)
    i = speeds.default_index(end, offered, speeds.TRACE_PLAY_SECONDS)
    if i < len(offered) - 1:
        assert end / offered[i] <= speeds.TRACE_PLAY_SECONDS
    assert i == 0 or end / offered[i - 1] > speeds.TRACE_PLAY_SECONDS


def test_speeds_read_in_the_runs_own_units():
    assert speeds.rate_text(2 * 86400, 1.0) == "2 d/s"
    assert speeds.rate_text(3600 / 200, 200.0) == "1 h/s"
    assert speeds.rate_text(30, 1.0) == "30 s/s"
    assert speeds.rate_text(50, None) == "50 slices/s"
    assert speeds.play_text(2.9e7, 2 * 86400) == "whole run in 2 min 47 s"


def test_a_trace_opens_in_the_main_window_at_a_speed_that_plays_it_in_minutes(qtbot, settings):
    win = MainWindow(settings=settings, source=str(TRACE), policy="gs")
    qtbot.addWidget(win)
    span = max(j.arrival for j in win.source.jobs)
    rate = win.time_rates[win.speed.value()]
    assert win.player.time_rate == rate
    assert span / rate <= speeds.TRACE_PLAY_SECONDS < span / win.time_rates[win.speed.value() - 1]
    assert win.speed_label.text().endswith("/s") and "slices" not in win.speed_label.text()
    assert win.play_note.text().startswith("whole trace in")
    win.speed.setValue(win.speed.value() + 1)  # faster: the player follows
    assert win.player.time_rate == win.time_rates[win.speed.value()]
    win.open_source("fig2-repacking")  # a scenario: back to the lecture pace
    assert win.time_rates is None and win.player.time_rate is None
    assert win.speed_label.text().endswith("x") and not win.play_note.text()
    win.close()


def test_playing_at_a_time_rate_takes_every_step_due_and_no_later_one(qtbot, monkeypatch):
    monkeypatch.setattr(player_module, "TICK_BUDGET", 60.0)  # the machine's load changes nothing
    src = load_source(str(TRACE))
    from gangviz.factory import build

    player = Player(build(src, "gs", record=True, watch=False))
    player.set_time_rate(1000.0)
    player._playing = True
    player._clock = 0.0
    player._play_time(player_module.time.perf_counter(), 5.0)
    assert player._clock == 5000.0
    assert player.sim.time <= 5000.0 < player.sim.peek()
    player._play_time(player_module.time.perf_counter(), 1e9)  # far past the end: it finishes
    assert math.isinf(player.sim.peek()) and not player.playing
    player.stop()


def test_the_compare_window_on_a_trace_reads_its_speed_in_the_trace_clock(qtbot):
    win = CompareWindow(load_source(str(TRACE)), ["gs", "easy"])
    qtbot.addWidget(win)
    rate = float(win.rate.currentData())
    assert win.rate.currentText().endswith("/s") and "slices" not in win.rate.currentText()
    assert win.end / rate <= speeds.TRACE_PLAY_SECONDS
    assert win.rate_note.text().startswith("whole run in")
    win.close()
