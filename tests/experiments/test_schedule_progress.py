"""A run in the compare window's worker reports how far it is, compiled loops included."""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import numpy as np

from gangviz.experiments import schedule
from gangviz.workloads.source import load_source

TRACE = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def test_the_watcher_reports_the_share_a_compiled_loop_wrote_and_ends_with_the_block(monkeypatch):
    q: queue.Queue = queue.Queue()
    monkeypatch.setattr(schedule, "_progress", q)
    monkeypatch.setattr(schedule, "PROGRESS_SECONDS", 0.01)
    threads = threading.active_count()
    with schedule._watched("k", 200.0) as cell:
        assert q.empty()  # nothing told while the cell stays at 0 (a loop that never writes it)
        cell[0] = 50.0
        key, what, value = q.get(timeout=60)
        assert (key, what, value) == ("k", "simulated", 0.25)
        cell[0] = 400.0  # past the last arrival: the share stops at the whole trace
        while (told := q.get(timeout=60))[2] != 1.0:
            assert told[2] <= 1.0
    assert threading.active_count() == threads  # the watcher ended with the block


def test_a_worker_s_run_is_the_in_process_run(monkeypatch):
    """schedule_task (with its progress cell) gives the schedule run_schedule gives."""
    q: queue.Queue = queue.Queue()
    monkeypatch.setattr(schedule, "_progress", q)
    src = load_source(str(TRACE))
    for spec in ("gs", "brmms", "easy"):
        got = schedule.schedule_task(("g", spec), src if spec != "brmms" else _power_of_two(src), spec)
        want = schedule.run_schedule(src if spec != "brmms" else _power_of_two(src), spec)
        assert np.array_equal(got.start, want.start, equal_nan=True)
        assert np.array_equal(got.finish, want.finish, equal_nan=True) and got.end == want.end
        if want.placement is not None:
            assert np.array_equal(got.placement.entries, want.placement.entries)
    assert q.get_nowait()[1] == "started"


def _power_of_two(src):
    from dataclasses import replace

    return replace(src, processors=128, absent_from=src.processors)
