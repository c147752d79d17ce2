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
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gangviz.gui.kit.spawning import main_not_imported

if TYPE_CHECKING:
    from gangviz.gui.compare.plan import RunTask
    from gangviz.workloads.source import Source

__all__ = ["SCHEDULE_JOBS", "Pool", "Batch", "uses_workers", "worker_count", "new_pool", "submit",
           "prestart", "start_runs", "discard_waiting", "take_waiting"]

#: a workload of more jobs than this is compared as finished runs in worker processes (the
#: window's panes then draw schedules); a smaller one steps its simulations in the window
SCHEDULE_JOBS = 5000


@dataclass
class Batch:
    """Runs submitted to a pool: their ``tasks``, the ``generation`` their progress messages
    and results carry (as ``(generation, label)``), the ``folder`` their arrays come back
    through (:mod:`gangviz.experiments.spill`) and each run's future (of a
    :class:`~gangviz.experiments.spill.Spilled` schedule), by label."""

    tasks: list[RunTask]
    generation: int
    folder: str
    futures: dict[str, cf.Future[Any]] = field(default_factory=dict)


@dataclass
class Pool:
    """A pool of worker processes, its progress queue, its number of processes and the runs
    already submitted to it (``None``: none)."""

    pool: cf.ProcessPoolExecutor
    queue: Any
    workers: int
    batch: Batch | None = None


#: a pool started by :func:`prestart` (with the runs :func:`start_runs` submitted to it),
#: until a runner takes it
_waiting: Pool | None = None


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
    (:func:`start_runs`, :func:`take_waiting`). Nothing for fewer than two runs or a workload the
    window compares in its own process (a scenario, a small model); a workload that does not
    load is left for this process to report (its workers then go unused:
    :func:`discard_waiting`)."""
    from gangviz.experiments.schedule import ready

    global _waiting
    if _waiting is not None or runs < 2 or not _may_use_workers(workload, options):
        return
    workers = worker_count(runs)
    pool, queue = new_pool(workers, (workload, options))
    with main_not_imported():  # a pool spawns its processes as tasks are submitted
        for _ in range(workers):
            pool.submit(ready)
    _waiting = Pool(pool, queue, workers)


def _quick(task: RunTask) -> bool:
    """Return whether ``task`` runs a policy of a family whose runs are one pass over the jobs
    (space sharing: no time slots, :attr:`gangviz.core.registry.Family.matrix`), far shorter than
    a time-slot run on the same trace; a user's policy or a spec that does not parse counts as
    long."""
    from gangviz.core import registry

    try:
        entry, _ = registry.parse(task.policy)
        return not registry.family(entry.family).matrix
    except (ValueError, KeyError, TypeError):
        return False


def submit(pool: cf.ProcessPoolExecutor, tasks: list[RunTask], generation: int) -> Batch:
    """Submit one run per task to ``pool`` (:func:`~gangviz.experiments.schedule.spilled_schedule_task`,
    its arrays coming back through a new temporary folder) and return the :class:`Batch`.

    The time-slot runs are submitted first and the short space-sharing runs last, each kind in
    the order given: the pool's workers take runs in that order, and the short ones fill in
    after the long ones, as longest-first list scheduling does, so that the workers end
    together rather than one of them starting a long run last."""
    from gangviz.experiments.schedule import spilled_schedule_task

    batch = Batch(list(tasks), generation, tempfile.mkdtemp(prefix="gangviz-runs-"))
    with main_not_imported():  # the workers are spawned here, by the submits (unless started ahead)
        for t in sorted(tasks, key=_quick):
            batch.futures[t.label] = pool.submit(spilled_schedule_task, batch.folder, (generation, t.label),
                                                 t.source, t.policy, t.order, t.gamma)
    return batch


#: the generation of a compare window's first runs (:class:`~gangviz.gui.compare.runs.ScheduleRunner`)
FIRST_GENERATION = 1


def start_runs(source: Source, policies: Sequence[str], orders: Sequence[str] = (),
               padding: str | None = None, gamma: float = 10.0) -> bool:
    """Submit the runs a compare window of ``policies`` (with queue ``orders``, ``padding`` and
    bounded slowdown threshold ``gamma``) on ``source`` starts first to the workers
    :func:`prestart` started, now, before the window is built: the window takes them when they
    are the runs it asks for (:func:`take_waiting`). Return whether they were submitted: not
    when no workers wait, runs were submitted already, or the comparison is one the window
    refuses (it reports why)."""
    from gangviz.gui.compare.plan import Plan, run_tasks

    waiting = _waiting
    if waiting is None or waiting.batch is not None or not uses_workers(source):
        return False
    try:
        plan = Plan.of(policies, orders)
        tasks = run_tasks(source, plan.runs_of(plan.labels), padding, gamma)
    except Exception:  # (a user's policy file that fails to load, say): the window says why, as ever
        return False
    waiting.batch = submit(waiting.pool, tasks, FIRST_GENERATION)
    return True


def discard_waiting() -> None:
    """End the processes :func:`prestart` started (and the runs :func:`start_runs` gave them)
    when no comparison took them."""
    global _waiting
    waiting, _waiting = _waiting, None
    if waiting is not None:
        end_pool(waiting.pool, waiting.queue, terminate=True)
        if waiting.batch is not None:
            shutil.rmtree(waiting.batch.folder, ignore_errors=True)


def take_waiting(workers: int, tasks: list[RunTask] | None = None, generation: int = 0) -> Pool | None:
    """Return the pool :func:`prestart` started when it has ``workers`` processes and the runs
    submitted to it, if any, are ``tasks`` of ``generation`` (it is then no longer waiting);
    end it and return ``None`` otherwise, or return ``None`` when there is none."""
    global _waiting
    waiting = _waiting
    batch = None if waiting is None else waiting.batch
    if (waiting is None or waiting.workers != workers
            or (batch is not None and (batch.tasks != tasks or batch.generation != generation))):
        discard_waiting()
        return None
    _waiting = None
    return waiting


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


def load_started(workload: str, options: dict[str, Any], policies: Sequence[str], orders: Sequence[str] = (),
                 padding: str | None = None, gamma: float = 10.0, ring: bool = False) -> Source:
    """Load ``workload`` for a compare window of ``policies`` (as ``gangviz compare --window``
    does) and return it, its runs going already when they go in worker processes: the workers
    start first (:func:`prestart`) and load it while this process does, then the window's
    first runs are submitted to them (:func:`start_runs`), before the window is built.
    ``options`` are :func:`~gangviz.workloads.source.load_source`'s, ``ring`` marks the source
    a ring of processors. Raises as :func:`~gangviz.workloads.source.load_source` does (the
    workers started are then ended)."""
    from gangviz.gui.compare.plan import Plan
    from gangviz.workloads.source import load_source

    try:
        labels = Plan.of(policies, orders).labels
    except ValueError:
        labels = list(policies)  # the window reports it
    prestart(workload, len(labels), **options)
    try:
        source = load_source(workload, **options)
    except BaseException:
        discard_waiting()
        raise
    if ring:
        source.ring = True  # as compare(ring=True) does for the printed table
    if not start_runs(source, policies, orders, padding, gamma) and not uses_workers(source):
        discard_waiting()
    return source
