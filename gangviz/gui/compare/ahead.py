"""The compare window's worker processes, started ahead of the window.

A comparison on a trace runs each policy in a worker process (:mod:`gangviz.gui.compare.runs`).
A spawned worker takes a while to be ready: a new interpreter imports the simulator and loads
the trace. ``gangviz compare --window`` therefore starts the pool first, before it loads the
trace itself and builds the window: both happen meanwhile, on the other cores, and the window's
runs start at once on workers that hold the trace. Nothing here imports Qt.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gangviz.gui.kit.spawning import main_not_imported

if TYPE_CHECKING:
    from gangviz.workloads.source import Source

__all__ = ["SCHEDULE_JOBS", "uses_workers", "worker_count", "new_pool", "prestart", "discard_waiting",
           "take_waiting"]

#: a workload of more jobs than this is compared as finished runs in worker processes (the
#: window's panes then draw schedules); a smaller one steps its simulations in the window
SCHEDULE_JOBS = 5000

#: a pool started by :func:`prestart`, its progress queue and its number of processes,
#: until a runner takes them
_waiting: tuple[cf.ProcessPoolExecutor, Any, int] | None = None


def uses_workers(source: Source) -> bool:
    """Return whether a comparison on ``source`` runs in worker processes: a workload of the
    matrix model with more than :data:`SCHEDULE_JOBS` jobs."""
    return source.model == "matrix" and len(source.jobs or ()) > SCHEDULE_JOBS


def worker_count(runs: int) -> int:
    """Return the worker processes a comparison of ``runs`` runs uses: one per core, at most one
    per run, at least one."""
    from gangviz.experiments.runner import cores

    return max(1, min(cores(), runs))


def new_pool(workers: int, load: tuple[str, dict[str, Any]] | None = None) -> tuple[cf.ProcessPoolExecutor, Any]:
    """Return a pool of ``workers`` spawned processes that run schedules, and its progress
    queue; with ``load`` (a workload's name and the options of
    :func:`~gangviz.workloads.source.load_source`), each process loads it as it starts
    (:func:`~gangviz.experiments.schedule.init_worker`). The processes start with the pool's
    first tasks."""
    from gangviz.experiments.schedule import init_worker

    ctx = multiprocessing.get_context("spawn")  # never forked: the window runs a Qt event loop
    queue = ctx.Queue()
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=init_worker,
                                  initargs=(os.getpid(), queue, load))
    return pool, queue


#: the fewest bytes an SWF job line takes (18 one-character fields and their separators)
SWF_LINE_BYTES = 36


def _may_use_workers(workload: str, options: dict[str, Any]) -> bool:
    """Return whether a comparison on ``workload`` may run in worker processes, before it is
    loaded: a model of more than :data:`SCHEDULE_JOBS` jobs, or an SWF trace that may hold
    that many (a compressed one, or one of :data:`SWF_LINE_BYTES` bytes a job or more; its jobs
    are counted once it is read, and a smaller one gives its workers back at once)."""
    from gangviz.inputs import compression
    from gangviz.workloads.files import sniff
    from gangviz.workloads.source import MODEL_DEFAULTS, MODELS

    if workload.lower() in MODELS:
        jobs = options.get("jobs")
        return (MODEL_DEFAULTS["jobs"] if jobs is None else jobs) > SCHEDULE_JOBS
    path = Path(workload)
    try:
        if not path.is_file() or sniff(path) != "swf":
            return False
        with open(path, "rb") as fh:
            packed = compression(fh.read(8)) is not None
        return packed or path.stat().st_size > SCHEDULE_JOBS * SWF_LINE_BYTES
    except (OSError, ValueError):
        return False


def prestart(workload: str, runs: int, **options: Any) -> None:
    """Start the worker processes of a comparison of ``runs`` runs on ``workload`` now, before
    this process loads it and builds the window: each worker imports the simulator and loads
    ``load_source(workload, **options)`` meanwhile, and the window's first runs go to them
    (:func:`take_waiting`). Nothing for fewer than two runs or a workload the window compares
    in its own process (a scenario, a small model); a workload that does not load is left for
    this process to report (its workers then go unused: :func:`discard_waiting`)."""
    from gangviz.experiments.schedule import ready

    global _waiting
    if _waiting is not None or runs < 2 or not _may_use_workers(workload, options):
        return
    workers = worker_count(runs)
    pool, queue = new_pool(workers, (workload, options))
    with main_not_imported():  # a pool spawns its processes as tasks are submitted
        for _ in range(workers):
            pool.submit(ready)
    _waiting = pool, queue, workers


def discard_waiting() -> None:
    """End the processes :func:`prestart` started when no comparison took them."""
    global _waiting
    waiting, _waiting = _waiting, None
    if waiting is not None:
        end_pool(waiting[0], waiting[1], terminate=True)


def take_waiting(workers: int) -> tuple[cf.ProcessPoolExecutor, Any] | None:
    """Return the pool :func:`prestart` started and its progress queue when it has ``workers``
    processes (it is then no longer waiting); end it and return ``None`` when it has another
    number, or return ``None`` when there is none."""
    global _waiting
    waiting = _waiting
    if waiting is None or waiting[2] != workers:
        discard_waiting()
        return None
    _waiting = None
    return waiting[0], waiting[1]


def end_pool(pool: cf.ProcessPoolExecutor, queue: Any, *, terminate: bool) -> None:
    """Shut ``pool`` down without waiting for its processes to exit (the pool's own thread
    reaps them), ending them first when ``terminate`` (a worker in a compiled loop cannot be
    interrupted), and close its progress ``queue``."""
    if terminate:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    if queue is not None:
        queue.close()
        queue.cancel_join_thread()
