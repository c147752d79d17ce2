"""The compare window's worker processes started ahead of the window, as the command does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gangviz.gui.compare import ahead
from gangviz.gui.compare.window import CompareWindow
from gangviz.workloads.source import load_source

TRACE = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
SCENARIO = Path(__file__).resolve().parents[2] / "resources" / "scenarios" / "fig2-repacking.toml"
BIG = {"jobs": ahead.SCHEDULE_JOBS + 1, "procs": 64, "load": 0.5, "seed": 1}


@pytest.fixture(autouse=True)
def _none_waiting():
    ahead.discard_waiting()
    yield
    ahead.discard_waiting()


def _processes(pool):
    return list(pool._processes.values())


@pytest.mark.slow
def test_the_window_runs_its_comparison_on_the_workers_started_ahead(qtbot):
    from gangviz.experiments.schedule import run_schedule

    ahead.prestart("downey", 2, **BIG)
    assert ahead._waiting is not None
    pool = ahead._waiting.pool
    assert len(_processes(pool)) == ahead.worker_count(2)  # spawned at once, before any run
    src = load_source("downey", **BIG)
    win = CompareWindow(src, ["gs", "easy"])
    qtbot.addWidget(win)
    assert win.uses_schedules() and win.runner is not None
    assert win.runner._pool is pool and ahead._waiting is None  # taken, not started again
    qtbot.waitUntil(lambda: win.pending == 0, timeout=120_000)
    assert not win.failures, win.failures
    for spec in ("gs", "easy"):  # the runs are those made here
        here = run_schedule(src, spec)
        np.testing.assert_array_equal(win.schedules[spec].finish, here.finish)
        assert win.schedules[spec].end == here.end
    win.close()


@pytest.mark.parametrize("workload, options, runs", [
    ("downey", {"jobs": ahead.SCHEDULE_JOBS, "procs": 64}, 2),  # small: stepped in the window
    (str(TRACE), {}, 1),  # one run: no comparison
    (str(TRACE), {}, 2),  # a trace too small to hold more jobs than the window steps itself
    ("nosuch.swf", {}, 2),  # no such file: the command reports it
])
def test_no_worker_starts_for_a_comparison_the_window_makes_itself(workload, options, runs):
    ahead.prestart(workload, runs, **options)
    assert ahead._waiting is None


def test_a_scenario_starts_no_worker():
    ahead.prestart(str(SCENARIO), 2)
    assert ahead._waiting is None


@pytest.mark.slow
def test_workers_no_comparison_takes_are_ended(qtbot):
    ahead.prestart("downey", 2, **BIG)
    assert ahead._waiting is not None
    procs = _processes(ahead._waiting.pool)
    src = load_source(str(TRACE))
    assert not ahead.uses_workers(src)  # 300 jobs: the window steps them itself
    win = CompareWindow(src, ["gs", "easy"])
    qtbot.addWidget(win)
    assert ahead._waiting is None and win.runner is None
    qtbot.waitUntil(lambda: not any(p.is_alive() for p in procs), timeout=30_000)
    win.close()


def test_a_big_or_compressed_trace_starts_its_workers_before_its_jobs_are_counted(tmp_path):
    import gzip

    packed = tmp_path / "small.swf.gz"
    packed.write_bytes(gzip.compress(TRACE.read_bytes()))
    for path in (packed, TRACE):
        assert ahead._may_use_workers(str(path), {}) is (path is packed)  # 300 jobs in a few kB
    big = tmp_path / "big.swf"
    big.write_bytes(TRACE.read_bytes() + b"\n" * (ahead.SCHEDULE_JOBS * ahead.SWF_LINE_BYTES))
    assert ahead._may_use_workers(str(big), {})


@pytest.mark.slow
def test_a_pool_of_another_size_is_ended_not_taken(qtbot):
    ahead.prestart("downey", 2, **BIG)
    assert ahead._waiting is not None
    workers = ahead._waiting.workers
    procs = _processes(ahead._waiting.pool)
    assert ahead.take_waiting(workers + 1) is None and ahead._waiting is None
    qtbot.waitUntil(lambda: not any(p.is_alive() for p in procs), timeout=30_000)


@pytest.mark.slow
def test_the_runs_the_command_starts_before_the_window_are_those_the_window_shows(qtbot):
    from gangviz.experiments.schedule import run_schedule

    src = ahead.load_started("downey", BIG, ["gs", "easy"], gamma=5.0)
    waiting = ahead._waiting
    assert waiting is not None and waiting.batch is not None
    assert [t.label for t in waiting.batch.tasks] == ["gs", "easy"]
    submitted = waiting.pool._queue_count  # the workers' start-up tasks and the two runs
    win = CompareWindow(src, ["gs", "easy"], bsld_threshold=5.0)
    qtbot.addWidget(win)
    assert win.runner is not None and win.runner._pool is waiting.pool and ahead._waiting is None
    assert win.runner.generation == ahead.FIRST_GENERATION
    assert waiting.pool._queue_count == submitted  # taken, not submitted again
    qtbot.waitUntil(lambda: win.pending == 0, timeout=120_000)
    assert not win.failures, win.failures
    for spec in ("gs", "easy"):
        here = run_schedule(src, spec)
        np.testing.assert_array_equal(win.schedules[spec].finish, here.finish)
    win.close()


@pytest.mark.slow
def test_runs_started_for_another_comparison_are_ended_and_the_window_runs_its_own(qtbot):
    src = ahead.load_started("downey", BIG, ["gs", "easy"])
    waiting = ahead._waiting
    assert waiting is not None and waiting.batch is not None
    procs = _processes(waiting.pool)
    win = CompareWindow(src, ["gs", "fcfs"])  # not the runs submitted: they are not shown
    qtbot.addWidget(win)
    assert win.runner is not None and win.runner._pool is not waiting.pool and ahead._waiting is None
    qtbot.waitUntil(lambda: not any(p.is_alive() for p in procs), timeout=30_000)
    qtbot.waitUntil(lambda: win.pending == 0, timeout=120_000)
    assert set(win.schedules) == {"gs", "fcfs"} and not win.failures
    win.close()


def test_runs_the_window_would_refuse_are_not_started():
    assert not ahead.start_runs(load_source("downey", **BIG), ["gs"])  # no workers waiting
    ahead.prestart("downey", 2, **BIG)
    src = load_source("downey", **BIG)
    assert not ahead.start_runs(src, ["gs", "gs"])  # the same run twice: the window says why
    assert not ahead.start_runs(src, ["gs", "nosuch"])
    assert ahead._waiting is not None and ahead._waiting.batch is None


@pytest.mark.slow
def test_the_workers_ignore_the_terminal_s_ctrl_c_and_this_process_keeps_its_handler():
    """Ctrl-C goes to every process of the terminal's group: the window ends its workers
    itself, and a worker that took it would print a traceback from whatever it was doing."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    ahead.prestart("downey", 2, **BIG)
    assert ahead._waiting is not None and signal.getsignal(signal.SIGINT) is before
    for proc in _processes(ahead._waiting.pool):
        status = Path(f"/proc/{proc.pid}/status")
        if not status.exists():
            pytest.skip("no /proc to read a process's ignored signals from")
        ignored = int(next(line for line in status.read_text().splitlines() if line.startswith("SigIgn:"))
                      .split()[1], 16)
        assert ignored & (1 << (signal.SIGINT - 1)), proc.pid


def test_a_compare_window_that_cannot_open_starts_no_worker(monkeypatch, capsys):
    from gangviz import display_check
    from gangviz.cli import main

    monkeypatch.setattr(display_check, "problem", lambda: "gangviz: no display here")
    started = []
    monkeypatch.setattr(ahead, "prestart", lambda *a, **k: started.append(a))
    code = main(["compare", "downey", "--jobs", str(ahead.SCHEDULE_JOBS + 1), "--procs", "64",
                 "--policy", "gs", "--policy", "easy", "--window"])
    assert code == 1 and not started and ahead._waiting is None
    assert "no display here" in capsys.readouterr().err
