"""The compare window on a trace: panes drawn from each run's schedule, filled as runs end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.gui.compare.overview import LABEL_GAP, job_colour, label_step, matrix_rows, pack_rows
from gangviz.gui.compare.window import CompareWindow
from gangviz.workloads.source import load_source

TRACE = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


@given(st.lists(st.integers(1, 64), max_size=60), st.integers(1, 64))
@settings(max_examples=60, deadline=None)
def test_packed_rows_never_overfill_and_hold_every_job(sizes, procs):
    rows = pack_rows(np.array(sizes, dtype=np.int64), procs)
    placed = sorted(i for row in rows for i, _f, _s in row)
    assert placed == list(range(len(sizes)))
    for row in rows:
        used = 0
        for _i, first, size in row:
            assert first == used  # blocks sit side by side from processor 0
            used += size
        assert used <= procs


@given(st.lists(st.lists(st.integers(-1, 4), min_size=6, max_size=6), max_size=4))
@settings(max_examples=80, deadline=None)
def test_matrix_rows_give_back_the_matrix(cells):
    matrix = np.array(cells, dtype=np.int32).reshape(len(cells), 6)
    rows = matrix_rows(matrix)
    back = np.full(matrix.shape, -1, np.int32)
    for r, row in enumerate(rows):
        for job, first, width in row:
            assert width >= 1 and (back[r, first:first + width] == -1).all()
            back[r, first:first + width] = job
    assert (back == matrix).all()


def test_gang_panes_draw_the_policy_s_own_matrix(qtbot):
    """gs and mgs on a trace: each pane shows the run's slots, each job on the processors the
    policy gave it (read from the run's placement log), not a first-fit packing."""
    src = load_source(str(TRACE))
    win = CompareWindow(src, ["gs", "mgs", "easy"], schedules=True)
    qtbot.addWidget(win)
    qtbot.waitUntil(lambda: win.pending == 0, timeout=300_000)
    assert not win.failures, win.failures
    win.resize(1400, 900)
    win.show()
    seen = 0
    for t in np.linspace(0, win.end, 9)[1:-1]:
        win.set_time(float(t))
        for pane in win.panes:
            s = win.schedules[pane.spec]
            if pane.spec == "easy":
                assert s.placement is None and not pane.view.placed
                continue
            matrix = s.matrix_at(float(t))
            assert pane.view.placed and pane.view.rows == matrix_rows(matrix)
            held = set(matrix[matrix >= 0].tolist())
            running = set(s.running(float(t)).tolist())
            assert held <= running  # a job in the matrix has started and not finished
            assert "as the policy placed" in _caption(pane.view)  # (elided in a narrow pane)
            if not len(matrix):
                continue
            # the widest run of the first slot is painted in its job's colour
            job, first, width = max(pane.view.rows[0], key=lambda run: run[2])
            view = pane.view
            img = view.grab().toImage()
            w = view.width() - 40 - 4
            x = int(40 + w * (first + width / 2) / s.processors)
            rows_h = (view.height() - 22 - 20) / len(matrix)
            colour = img.pixelColor(x, int(2 + rows_h / 2))
            assert colour.name() == job_colour(s.ids[job]).name(), pane.spec
            seen += 1
    assert seen > 4
    win.close()


def _caption(view) -> str:
    import gangviz.gui.compare.overview as co

    texts = []

    class Painter(co.QPainter):
        def drawText(self, *args):
            if args and isinstance(args[-1], str):
                texts.append(args[-1])
            return super().drawText(*args)

    real = co.QPainter
    co.QPainter = Painter
    try:
        view.grab()
    finally:
        co.QPainter = real
    return " ".join(texts)


@given(st.integers(1, 2000), st.floats(50, 2000))
def test_row_labels_stand_apart_however_many_rows(rows, height):
    step = label_step(rows, height)
    assert step * height / rows >= LABEL_GAP or step == 1000


def test_a_trace_opens_with_its_panes_then_fills_each_from_its_run(qtbot):
    src = load_source(str(TRACE))
    win = CompareWindow(src, ["gs", "easy", "mgs"], schedules=True)
    qtbot.addWidget(win)
    assert win.uses_schedules()
    assert not win.sims  # no step-able simulation is kept
    qtbot.waitUntil(lambda: win.pending == 0, timeout=120_000)
    assert not win.failures, win.failures
    assert set(win.schedules) == {"gs", "easy", "mgs"}
    assert win.comparison is not None and set(win.comparison.labels) == {"gs", "easy", "mgs"}
    win.resize(1400, 900)
    win.show()
    mid = win.end / 2
    win.set_time(mid)
    for pane in win.panes:
        s = win.schedules[pane.spec]
        waiting, running, _done = s.counts(mid)
        assert f"{running:,} running" in pane.state.text().replace("\u00a0", " ")
        assert f"{waiting:,} waiting" in pane.state.text().replace("\u00a0", " ")
        assert "t = " in pane.state.text().replace("\u00a0", " ") and " d " in pane.state.text().replace("\u00a0", " ") or ":" in pane.state.text().replace("\u00a0", " ")
        img = pane.view.grab().toImage()
        if running:  # a running job is drawn as a coloured block left of the middle
            colours = {img.pixelColor(x, img.height() // 4).name() for x in range(45, img.width() // 2)}
            assert colours - {"#ffffff"}, pane.spec
    # Step moves to the next event of any run
    before = win.time
    win.step_forward()
    assert win.time > before
    assert win.time == min(s.next_event(before) for s in win.schedules.values())
    win.close()


def test_a_small_trace_keeps_the_step_by_step_panes_and_a_big_one_draws_schedules(qtbot):
    from gangviz.gui.compare.ahead import SCHEDULE_JOBS

    small = CompareWindow(load_source(str(TRACE)), ["gs", "easy"])
    qtbot.addWidget(small)
    assert not small.uses_schedules() and set(small.sims) == {"gs", "easy"}
    big = load_source("downey", jobs=SCHEDULE_JOBS + 1, procs=64, load=0.5, seed=1)
    win = CompareWindow(big, [])
    qtbot.addWidget(win)
    assert win.uses_schedules()


def test_an_unknown_policy_on_a_trace_keeps_the_chooser_message(qtbot):
    win = CompareWindow(load_source(str(TRACE)), ["gs", "nosuch"], schedules=True)
    qtbot.addWidget(win)
    assert win.error is not None and "nosuch" in win.error
    assert not win.panes


def test_table_cells_write_big_figures_in_full():
    from gangviz.gui.compare.table import cell_text

    assert cell_text(62_293_404.0, False) == "62,293,404"
    assert cell_text(62_293_404.0, True).startswith("62,293,404 ")
    assert cell_text(17221.7, False) == "17,222"
    assert cell_text(float("nan"), False) == "-"


def test_a_pane_waiting_for_its_run_says_how_far_it_is_and_that_t_is_not_simulated(qtbot):
    from gangviz.gui.compare.overview import SchedulePane

    pane = SchedulePane("gs", 0, slice_seconds=1.0)
    qtbot.addWidget(pane)
    pane.show_at(7200.0)
    assert "queued" in pane.state.text().replace("\u00a0", " ")
    assert "not simulated yet" in pane.view.message
    pane.set_progress("started", 0.0)
    assert pane.state.text().replace("\u00a0", " ").startswith("simulating in a worker process")
    assert pane.bar.maximum() == 0  # busy until the run tells a share
    pane.set_progress("simulated", 0.4)
    assert "40% of the trace" in pane.state.text().replace("\u00a0", " ") and pane.bar.value() == 400
    src = load_source(str(TRACE))
    from gangviz.experiments.schedule import run_schedule

    pane.set_schedule(run_schedule(src, "gs"))
    pane.show_at(7200.0)
    assert pane.bar.isHidden() and "running" in pane.state.text().replace("\u00a0", " ") and not pane.view.message
    pane.fail("gs: broken")
    pane.tick()  # a failed run's message stays
    assert pane.view.message == "gs: broken"


def test_every_control_works_while_the_runs_go_on_in_worker_processes(qtbot):
    src = load_source(str(TRACE))
    win = CompareWindow(src, ["gs", "easy"], schedules=True)
    qtbot.addWidget(win)
    win.show()
    assert win.pending == 2 and win.runner is not None and win.runner.workers >= 1
    # a seek past the simulated time waits with a message; play, pause and step work meanwhile
    win.set_time(win.end / 3)
    assert all("not simulated yet" in p.view.message for p in win.panes)
    win.play()
    assert win.playing
    win.pause()
    win.step_back()
    win.rate.setCurrentIndex(0)
    qtbot.waitUntil(lambda: win.pending == 0, timeout=120_000)
    assert not win.failures, win.failures
    at = win.time
    for pane in win.panes:  # the pane now shows the time the clock stayed at
        s = win.schedules[pane.spec]
        assert not pane.view.message and f"{s.counts(at)[1]:,} running" in pane.state.text().replace("\u00a0", " ")
    win.close()


def test_closing_the_window_ends_the_runs_still_going(qtbot):
    src = load_source(str(TRACE))
    win = CompareWindow(src, ["gs", "mgs"], schedules=True)
    qtbot.addWidget(win)
    assert win.runner is not None and win.runner._pool is not None
    procs = list(win.runner._pool._processes.values())
    assert procs  # spawned at once, one per core at most
    folder = win.runner._folder
    assert folder is not None and Path(folder).is_dir()
    win.close()
    qtbot.waitUntil(lambda: not any(p.is_alive() for p in procs), timeout=30_000)
    assert not win.runner.running
    assert not Path(folder).exists()  # the files of the runs' arrays went with them


def test_the_runs_arrays_are_read_back_off_the_gui_thread_and_their_folder_removed(qtbot, monkeypatch):
    import threading

    from gangviz.gui.compare import runs

    readers = []

    def unspill(spilled):
        readers.append(threading.current_thread())
        assert Path(spilled.path).parent == Path(folder)
        return real(spilled)

    real = runs.unspill
    monkeypatch.setattr(runs, "unspill", unspill)
    src = load_source("downey", jobs=300, procs=64, load=0.8, seed=3)
    win = CompareWindow(src, ["gs", "easy"], schedules=True)
    qtbot.addWidget(win)
    assert win.runner is not None
    folder = win.runner._folder
    qtbot.waitUntil(lambda: win.pending == 0, timeout=300_000)
    assert not win.failures and set(win.schedules) == {"gs", "easy"}
    assert len(readers) == 2 and threading.main_thread() not in readers
    assert win.schedules["gs"].placement is not None  # the placement log came back with its run
    assert not Path(folder).exists()
    win.close()


def test_the_finished_view_of_the_worker_runs_is_that_of_runs_in_this_process(qtbot, tmp_path):
    """Runs in worker processes (with their progress reports) fill the panes, curves and table
    exactly as the same runs made here, ended in the same order: the same pixels and the same
    CSV."""
    from gangviz.experiments.schedule import run_schedule

    src = load_source("downey", jobs=300, procs=64, load=0.8, seed=3)
    specs = ["gs", "mgs", "easy", "brmms"]
    windows = []
    for _ in range(2):
        win = CompareWindow(src, specs, schedules=True)
        qtbot.addWidget(win)
        win.resize(1400, 900)
        win.show()
        windows.append(win)
    workers, here = windows
    assert workers.runner is not None and here.runner is not None
    # the order the runs end in, in the batches one look at the runs delivers them (the plots'
    # axes follow the curves shown so far, and the window is drawn between two looks, not
    # between two runs a look finds ended)
    batches: list[list[str]] = [[]]
    workers.runner.ready.connect(lambda _gen, spec, _schedule: batches[-1].append(spec))
    workers.runner.timer.timeout.connect(lambda: batches[-1] and batches.append([]))
    here.runner.stop()
    qtbot.waitUntil(lambda: workers.pending == 0, timeout=300_000)
    from PySide6.QtWidgets import QApplication

    for batch in batches:
        for spec in batch:
            here._schedule_ready(here._generation, spec, run_schedule(src, spec))
        QApplication.processEvents()  # drawn after each look, as the other window was
    assert sorted(s for batch in batches for s in batch) == sorted(specs)
    assert not workers.failures and here.pending == 0
    assert workers.end == here.end
    for t in (0.0, here.end * 0.3, here.end * 0.7):
        workers.set_time(t)
        here.set_time(t)
        QApplication.processEvents()  # both laid out before the pictures are taken
        assert workers.grab().toImage() == here.grab().toImage(), t
    a, b = workers.export_table(tmp_path / "a.csv"), here.export_table(tmp_path / "b.csv")
    assert a.read_text() == b.read_text() and "brmms" in a.read_text()
    for win in windows:
        win.close()


def test_a_waiting_pane_told_the_same_text_again_is_not_repainted(qtbot, monkeypatch):
    from gangviz.gui.compare.overview import ScheduleView

    view = ScheduleView()
    qtbot.addWidget(view)
    updates = []
    monkeypatch.setattr(view, "update", lambda: updates.append(view.message))
    for text in ("simulating · 1 s", "simulating · 1 s", "simulating · 2 s"):
        view.show_message(text)
    assert updates == ["simulating · 1 s", "simulating · 2 s"]
    view.show_rows(8, [[(0, 0, 4)]], np.array([7]), np.array([], dtype=np.int64), placed=True)
    view.show_message("simulating · 2 s")  # the same text, but rows were shown meanwhile
    assert updates[-1] == "simulating · 2 s" and len(updates) == 4 and view.rows == []
