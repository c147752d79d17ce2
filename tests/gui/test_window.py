"""The main window: keyboard, opening files, settings, exports, closing during play."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from gangviz.gui.window import MainWindow


def test_opens_on_fig2_ready_to_play(window):
    p = window.player
    assert window.source_name == "fig2-repacking"
    assert p.position == 0 and not p.playing
    assert window.sim_rows() if hasattr(window, "sim_rows") else p.sim.matrix.n_rows == 3
    assert "Fig. 2" in window.board.title.text()


def test_keyboard_shortcuts(window, qtbot):
    p = window.player
    p.set_speed_level(8)  # no animation: every key acts at once
    shift = Qt.KeyboardModifier.ShiftModifier  # whole steps (Right alone: one move)
    qtbot.keyClick(window, Qt.Key.Key_Right, shift)
    assert p.position == 1
    qtbot.keyClick(window, Qt.Key.Key_Right, shift)
    assert p.position == 2
    qtbot.keyClick(window, Qt.Key.Key_Left, shift)
    assert p.position == 1
    qtbot.keyClick(window, Qt.Key.Key_Home)
    assert p.position == 0
    qtbot.keyClick(window, Qt.Key.Key_N)
    qtbot.waitUntil(lambda: not p.busy, timeout=5000)
    assert p.position == 1 and p.markers == [0]
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert p.playing
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert not p.playing
    level = window.speed.value()
    qtbot.keyClick(window, Qt.Key.Key_Minus)
    assert window.speed.value() == level - 1 == p.speed_level


def test_bad_file_shows_a_message_and_keeps_the_simulation(window, tmp_path, message_boxes):
    p, sim = window.player, window.player.sim
    p.step_forward(animate=False)
    bad = tmp_path / "broken.toml"
    bad.write_text("title = 'x'\nprocessors = 'eight'\n")
    assert window.open_source(str(bad)) is False
    assert len(message_boxes) == 1 and message_boxes[0][0] == "critical"
    assert "broken.toml" in message_boxes[0][2]
    assert window.player is p and p.sim is sim and p.position == 1
    assert window.source_name == "fig2-repacking"
    assert window.open_source(str(tmp_path / "missing.swf")) is False
    assert len(message_boxes) == 2 and window.player is p


def test_bad_policy_parameters_are_reported(window, message_boxes):
    window.policy_panel.params.setText("nonsense")
    window._apply_policy()
    assert message_boxes and "key=value" in message_boxes[-1][2]
    window.policy_panel.params.setText("bogus=3")
    window._apply_policy()
    assert len(message_boxes) == 2 and window.source_name == "fig2-repacking"


def test_policy_panel_restarts_under_another_policy(window):
    window.policy_panel.set_policy("firstfit")
    window.policy_panel.watch.setChecked(False)
    old = window.player
    window._apply_policy()
    assert window.player is not old
    assert window.player.sim.policy.name.lower() == "firstfit"
    assert window.player.sim.watch is False


def test_closing_during_play_exits_cleanly(qtbot, settings):
    win = MainWindow(settings=settings)
    qtbot.addWidget(win)
    win.show()
    win.open_source("downey", "br", remember=False, jobs=3000, procs=64)
    win.player.set_speed_level(9)
    win.player.play()
    qtbot.waitUntil(lambda: win.player.position > 5, timeout=5000)
    assert win.player.playing
    win.close()
    assert not win.player.timer.isActive() and not win.player.playing


def test_recent_files_and_settings_persist(qtbot, settings, tmp_path):
    from gangviz.resources import scenario_path

    copy = tmp_path / "mine.toml"
    copy.write_text(scenario_path("fig2-repacking").read_text())
    win = MainWindow(settings=settings)
    qtbot.addWidget(win)
    assert win.open_source(str(copy))
    win.speed.setValue(5)
    win.act_flip.setChecked(False)
    win._flip()
    win.close()
    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    assert again.recent_files()[0] == str(copy.resolve())
    assert again.speed.value() == 5 and again.player.speed_level == 5
    assert again.board.matrix.bottom_up is False
    assert [a.text() for a in again.recent_menu.actions()][0] == str(copy.resolve())
    again.close()


def test_metric_panels_follow_the_player_and_export(window, tmp_path):
    p = window.player
    p.go_to(4, now=True)
    window.metrics.refresh()
    assert window.metrics.columns.n == 4
    p.go_to(2)
    window.metrics.refresh()
    assert window.metrics.columns.n == 2
    plot = window.metrics.plots[0]
    png = plot.export(tmp_path / "slots.png")
    svg = plot.export(tmp_path / "slots.svg")
    csv = plot.export(tmp_path / "slots.csv")
    assert not QImage(str(png)).isNull()
    assert "<svg" in svg.read_text()
    lines = csv.read_text().splitlines()
    assert lines[0] == "time,slots"
    assert [float(v.split(",")[1]) for v in lines[1:]] == [s.slots for s in p.sim.samples[:2]]


def test_narration_highlights_the_current_step_and_jumps_on_click(window, qtbot):
    p = window.player
    p.go_to(3, now=True)
    model = window.narration.model_
    qtbot.waitUntil(lambda: len(model.first_row) == 3, timeout=3000)  # the log follows within 0.25 s
    assert any("eliminated" in t for t in model.row_text)
    row = model.first_row[0]
    rect = window.narration.visualRect(model.index(row))
    qtbot.mouseClick(window.narration.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert p.position == 1
    assert model.data(model.index(row), Qt.ItemDataRole.BackgroundRole) is not None
    assert model.data(model.index(model.first_row[2]), Qt.ItemDataRole.BackgroundRole) is None


def test_clicking_a_job_selects_it(window, qtbot):
    v = window.board.matrix
    sim = window.player.sim
    rect = v.cell_rect(0, 0)  # J1 in S1
    qtbot.mouseClick(v, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert sim.matrix.names[v.selected] == "J1"
    assert "J1" in window.job_panel.label.text() and "size 2" in window.job_panel.label.text()
    assert "work left" in v.job_tooltip(v.selected)


def test_screenshot_dump_for_the_readme_is_a_png(window, tmp_path):
    out = tmp_path / "w.png"
    assert window.grab().save(str(out))
    assert Path(out).stat().st_size > 1000


def test_family_views_plug_into_the_same_player(window, qtbot):
    from gangviz.gui.families.epoch import EpochView
    from gangviz.gui.families.sites import QueueView

    assert window.open_multisite(gangs=30)
    view = window.board.family[0]
    assert isinstance(view, QueueView) and not window.board.matrix.isVisible()
    p = window.player
    shown = []
    original = view.show_step
    view.show_step = lambda step: (shown.append(step.index), original(step))
    p.step_forward()
    p.step_forward()
    assert shown == [0, 1] and p.position == 2
    states = []
    original_set = view.set_state
    view.set_state = lambda *a: (states.append(a), original_set(*a))
    p.step_back()
    assert p.position == 1 and shown == [0, 1]
    assert len(states) == 1 and states[0][0] == p.sim.snapshot()  # the queues after one step
    assert window.open_epoch()
    assert isinstance(window.board.family[0], EpochView)
    window.player.step_forward()
    assert window.player.position == 1
    window.player.stop()
    # back to a matrix source: the matrix views return
    assert window.open_source("fig2-repacking", remember=False)
    assert window.board.family is None and window.board.matrix.isVisible()


def _long_run(window, jobs: int = 300):
    from gangviz.policies import make_policy
    from gangviz.sim.engine import Simulation
    from gangviz.workloads.source import load_source

    src = load_source("downey", jobs=jobs, load=0.7, procs=32, seed=3)
    window.set_simulation(Simulation(src.jobs, make_policy("br"), src.processors))
    return window.player


def test_after_fast_play_every_panel_and_the_log_catch_up(window, qtbot):
    from gangviz.gui.playback.player import SPEEDS

    p = _long_run(window)
    p.set_speed_level(len(SPEEDS) - 1)
    with qtbot.waitSignal(p.finished, timeout=60000):
        p.play()
    # Panels refresh one at a time while playing; once the player rests all show every sample
    # (a curve of the figures' running values, every one of its points).
    from gangviz.factory import measures_of

    n = len(p.sim.samples)
    series = measures_of(p.sim).series()

    def every(plot) -> int:
        return next((len(series[f][0]) for f in plot.curves if f in series), n)

    qtbot.waitUntil(lambda: all(plot.shown == every(plot) for plot in window.metrics.plots), timeout=5000)
    # The log holds every step and shows the last one, not the first.
    log = window.narration
    model = log.model_
    qtbot.waitUntil(lambda: len(model.first_row) == p.position, timeout=5000)
    last = log.visualRect(model.index(model.first_row[p.position - 1]))
    assert log.viewport().rect().intersects(last)
    assert not log.viewport().rect().intersects(log.visualRect(model.index(0)))


def test_timeline_draws_at_most_one_marker_per_pixel_column(window):
    p = _long_run(window, jobs=300)
    p.go_to(10**6, now=True)
    tl = window.board.timeline
    tl.resize(200, tl.height())
    markers = list(range(0, p.position, 2))  # more markers than pixel columns
    assert len(markers) > tl.width()
    xs = tl._marker_xs(markers)
    columns = [int(x) for x in xs]
    assert len(columns) == len(set(columns))  # one line per pixel column
    # and every column that holds a marker keeps one
    every = {int(tl.x_of(m + 1)) for m in markers}
    assert set(columns) == every


def test_the_timeline_spans_a_space_sharing_trace_run_from_its_first_step(window):
    # EASY on a trace decides everything up front: the timeline knows the run's length at once,
    # so the handle moves along the bar instead of sitting at its right end
    from gangviz.resources import RESOURCES

    trace = RESOURCES / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    assert window.open_source(str(trace), "easy", remember=False)
    sim = window.player.sim
    assert window.board.timeline.total == sim.steps_known() == len(sim.result.decisions) > 300
    assert window.board.timeline.x_of(1) < window.board.timeline.width() / 10


def test_the_timeline_spans_a_small_workload_under_a_built_in_from_its_first_step(window):
    # a small model under repack is counted ahead when it opens: the bar spans its whole run
    assert window.open_source("downey", "repack", remember=False, jobs=30, procs=16, load=0.7, seed=2)
    total = window.board.timeline.total
    assert total > 30
    sim = window.player.sim
    steps = 0
    while sim.step() is not None:
        steps += 1
    assert steps == total


def test_the_policy_panel_shows_the_parameters_the_spec_gives(window):
    # "gs:mpl=2" runs MPL 2: the panel names gs and shows 2 in its field, so Apply restarts it
    assert window.open_source("downey", "gs:mpl=2", remember=False, jobs=20, procs=16, seed=1)
    panel = window.policy_panel
    assert panel.policy() == "gs"
    assert panel.chosen_params() == {"mpl": 2}


def test_a_long_run_is_counted_in_a_worker_and_the_timeline_then_spans_it(window, qtbot):
    # 1,500 jobs is too many to count ahead when the window opens: a worker process counts the
    # run's steps, and the timeline spans them once it has
    from gangviz.experiments.schedule import count_task
    from gangviz.workloads.source import load_source

    assert window.open_source("downey", "gs", remember=False, jobs=1500, procs=32, load=0.6, seed=4)
    assert window.board.timeline.total == 0
    qtbot.waitUntil(lambda: window.board.timeline.total > 0, timeout=120_000)
    src = load_source("downey", jobs=1500, procs=32, load=0.6, seed=4)
    steps = count_task((src.origin, src.ring, src.processors, src.absent_from), "gs", {}, None)
    assert window.board.timeline.total == steps > 1500
    sim = window.player.sim
    walked = 0
    while sim.step() is not None:
        walked += 1
    assert walked == steps  # the window's own run has exactly that many
