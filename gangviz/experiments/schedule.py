"""A finished run kept as its schedule: per job, when it arrived, started and finished.

The compare window on a real trace (a hundred thousand jobs) cannot keep every step of four
step-able simulations: it runs each policy once, headless, on the loop ``gangviz run`` uses
(:func:`gangviz.factory.run`: compiled, backfilling or reference), and keeps only four numpy
columns per run. The state at any time ``t`` then follows from them by binary search: a job
*waits* from its arrival until its start, *runs* (holds its processors, time-shared in a slot of
the matrix under gang scheduling [Zhang01 §2]) from its start until its finish, and is *done*
after. A run of a compiled time-slot loop also keeps where the policy put its jobs, a
:class:`~gangviz.fast.placement.PlacementLog`: the matrix at any ``t`` (slots x processors),
read back by binary search from a compact log. Everything here is Qt-free;
:mod:`gangviz.gui.compare.overview` draws it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Schedule", "schedule_of", "run_schedule"]

#: the most points a curve of :meth:`Schedule.curves` holds
CURVE_POINTS = 2000


@dataclass
class Schedule:
    """One policy's run as columns, each in the order of the jobs sorted by (arrival, id).

    ``start`` is when the policy placed the job (``nan`` if never), ``finish`` when it ended
    (``nan`` if never), both in slices; ``end`` the run's end time; ``figures`` the
    :class:`~gangviz.results.figures.Figures` ``gangviz run`` prints for it; ``engine`` the loop;
    ``placement`` the run's :class:`~gangviz.fast.placement.PlacementLog` (jobs numbered by
    position here) when the loop kept one, else ``None``.
    """

    label: str
    family: str
    processors: int
    ids: np.ndarray
    arrival: np.ndarray
    size: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    end: float
    engine: str = ""
    figures: Any = None
    placement: Any = None
    _sorted: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        inf = np.inf
        start = np.where(np.isnan(self.start), inf, self.start)
        finish = np.where(np.isnan(self.finish), inf, self.finish)
        self._sorted = {"arrival": np.sort(self.arrival), "start": np.sort(start),
                        "finish": np.sort(finish)}
        self._start, self._finish = start, finish
        times = np.concatenate([self.arrival, start, finish])
        self._events = np.unique(times[np.isfinite(times)])

    def counts(self, t: float) -> tuple[int, int, int]:
        """Return ``(waiting, running, done)`` job counts at time ``t`` (after every event
        at or before ``t``)."""
        s = self._sorted
        arrived = int(np.searchsorted(s["arrival"], t, side="right"))
        started = int(np.searchsorted(s["start"], t, side="right"))
        done = int(np.searchsorted(s["finish"], t, side="right"))
        return arrived - started, started - done, done

    def running(self, t: float) -> np.ndarray:
        """Return the positions of the jobs running at ``t``, in start order."""
        idx = np.flatnonzero((self._start <= t) & (self._finish > t))
        return idx[np.argsort(self._start[idx], kind="stable")]

    def matrix_at(self, t: float) -> np.ndarray | None:
        """Return where the policy had placed the jobs at ``t`` (after every decision at or
        before it): a ``(slots, processors)`` array of job positions (-1 idle), or ``None``
        when the run kept no placement (a space-sharing or reference run)."""
        return None if self.placement is None else self.placement.matrix_at(t)

    def waiting(self, t: float) -> np.ndarray:
        """Return the positions of the jobs waiting at ``t`` (arrived, not started), oldest first."""
        return np.flatnonzero((self.arrival <= t) & (self._start > t))

    def next_event(self, t: float) -> float:
        """Return the first arrival, start or finish after ``t`` (``inf`` when there is none)."""
        i = int(np.searchsorted(self._events, t, side="right"))
        return float(self._events[i]) if i < len(self._events) else float("inf")

    def previous_event(self, t: float) -> float:
        """Return the last event strictly before ``t`` (``0.0`` when there is none)."""
        i = int(np.searchsorted(self._events, t, side="left"))
        return float(self._events[i - 1]) if i > 0 else 0.0

    def curves(self, points: int = CURVE_POINTS) -> dict[str, np.ndarray]:
        """Return step curves over ``points`` times from 0 to :attr:`end`: ``time`` (slices),
        ``waiting`` and ``running`` (jobs), ``demand`` (processors held by running jobs over
        the machine's, above 1 when gang scheduling time-shares them) and
        ``mean_response`` (slices, of the jobs finished by then; ``nan`` before the first)."""
        t = np.linspace(0.0, max(self.end, 1.0), points)
        s = self._sorted
        arrived = np.searchsorted(s["arrival"], t, side="right")
        started = np.searchsorted(s["start"], t, side="right")
        done = np.searchsorted(s["finish"], t, side="right")
        by_start = np.argsort(self._start, kind="stable")
        by_finish = np.argsort(self._finish, kind="stable")
        size = self.size.astype(float)
        held = np.concatenate([[0.0], np.cumsum(size[by_start])])[started] \
            - np.concatenate([[0.0], np.cumsum(size[by_finish])])[done]
        resp = np.where(np.isfinite(self._finish), self._finish - self.arrival, 0.0)[by_finish]
        total = np.concatenate([[0.0], np.cumsum(resp)])[done]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(done > 0, total / np.maximum(done, 1), np.nan)
        return {"time": t, "waiting": (arrived - started).astype(float),
                "running": (started - done).astype(float), "demand": held / self.processors,
                "mean_response": mean}


def schedule_of(done: Any, gamma: float = 10.0) -> Schedule:
    """Return the :class:`Schedule` of a :class:`~gangviz.factory.FinishedRun` of the matrix
    or space-sharing family, its figures' bounded slowdown with threshold ``gamma`` (in the
    run's clock). Raises ``ValueError`` for another family."""
    from gangviz.results.figures import run_figures

    source = done.source
    specs = sorted(source.jobs, key=lambda j: (j.arrival, j.id))
    if done.engine.startswith("compiled:"):
        start = np.asarray(done.result.raw.start, dtype=float)
        finish = np.asarray(done.result.raw.finish, dtype=float)
        end = float(done.result.time)
        placement = getattr(done.result.raw, "placement", None)
    else:
        placement = None
        if done.backfill is not None:
            records, end = done.backfill.records, float(done.backfill.end)
        elif done.kind.matrix:
            records, end = done.simulation.records(), float(done.simulation.time)
        else:
            raise ValueError(f"a {done.family} run has no per-job schedule")
        by_id = {r.spec.id: r for r in records}
        nan = float("nan")
        start = np.array([nan if by_id[j.id].start is None else by_id[j.id].start for j in specs])
        finish = np.array([nan if by_id[j.id].finish is None else by_id[j.id].finish for j in specs])
    return Schedule(done.label, done.family, int(source.processors),
                    np.array([j.id for j in specs], dtype=np.int64),
                    np.array([j.arrival for j in specs], dtype=float),
                    np.array([j.size for j in specs], dtype=np.int64), start, finish, end,
                    engine=done.engine, figures=run_figures(done, gamma), placement=placement)


def run_schedule(source: Any, spec: str) -> Schedule:
    """Run ``spec`` on ``source`` once with :func:`gangviz.factory.run` (the loop of
    ``gangviz run``, keeping the placement when the loop is compiled) and return its
    :class:`Schedule`. Raises ``ValueError`` as that does."""
    from gangviz.factory import run

    return schedule_of(run(source, spec, placement=True))


# ----------------------------------------------------------------- runs in worker processes
#: the worker's queue for progress messages (set by :func:`init_worker`), and the sources it
#: has loaded, by origin: a worker that runs a second policy on the same trace reads it once
_progress: Any = None
_loaded: dict[str, Any] = {}


def init_worker(parent: int, progress: Any, load: tuple[str, dict[str, Any]] | None = None) -> None:
    """Pool initializer of a worker process that runs schedules: exit when ``parent`` dies (as
    :mod:`gangviz.experiments.runner`'s workers do) and send progress messages to the queue
    ``progress``. With ``load`` (a workload's name and the options of
    :func:`~gangviz.workloads.source.load_source`), import the simulator and load that workload
    now, while the parent still prepares its runs: a run on it (a source given by the same
    origin) then starts at once. A workload that does not load here is left for the parent to
    report."""
    from gangviz.experiments.runner import _watch_parent

    global _progress
    _progress = progress
    _watch_parent(parent)
    if load is not None:
        with contextlib.suppress(Exception):  # an initializer that raises breaks the pool
            import gangviz.factory  # noqa: F401  (the runs' imports, ahead of the first run)
            from gangviz.workloads.source import load_source

            name, options = load
            source = load_source(name, **options)
            if source.origin is not None:
                _loaded.clear()
                _loaded[_key(source.origin)] = source


def ready() -> None:
    """Do nothing: a task whose submission starts a worker process of a pool ahead of its runs."""


def _tell(key: Any, what: str, value: float = 0.0) -> None:
    if _progress is not None:
        _progress.put((key, what, value))


def schedule_task(key: Any, source: Any, spec: str, order: str | None = None, gamma: float = 10.0) -> Schedule:
    """Run ``spec`` on ``source`` in a worker process and return its :class:`Schedule`.

    ``order`` is the run's queue order (``file.py:function``, loaded again here) or ``None``;
    ``gamma`` the bounded slowdown's threshold of its figures, in the source's clock.

    ``source`` is a :class:`~gangviz.workloads.source.Source`, or ``(origin, ring, processors,
    absent_from)``: the source's :attr:`~gangviz.workloads.source.Source.origin`, loaded again
    here (once per worker), and the ring flag and machine the comparison gives it. Progress goes
    to the queue of :func:`init_worker` as ``(key, what, value)``: ``("started", 0)`` when the
    run begins (it may have waited for a free worker), ``("simulated", fraction)`` every
    :data:`PROGRESS_SECONDS` while it goes (the simulated time over the last arrival): a run on
    the reference engine tells it every thousand steps, a compiled loop (one call) writes its
    time to a cell a thread of this process reads. Raises ``ValueError`` as
    :func:`run_schedule` does.
    """
    import time

    from gangviz.factory import run

    _tell(key, "started", time.time())
    if isinstance(source, tuple):
        source = _reloaded(source)
    last = max((j.arrival for j in source.jobs), default=0.0) or 1.0
    state = {"at": 0.0}

    def tick(sim: Any) -> None:
        now = time.monotonic()
        if now - state["at"] >= PROGRESS_SECONDS:
            state["at"] = now
            _tell(key, "simulated", min(float(sim.time) / last, 1.0))

    with _watched(key, last) as cell:
        return schedule_of(run(source, spec, placement=True, tick=tick, progress=cell, order=order), gamma)


def spilled_schedule_task(folder: str, key: Any, source: Any, spec: str, order: str | None = None,
                          gamma: float = 10.0) -> Any:
    """Return :func:`schedule_task`'s :class:`Schedule` as a
    :class:`~gangviz.experiments.spill.Spilled`, with its placement log's copies of the matrix
    made (:meth:`~gangviz.fast.placement.PlacementLog.copies`): its arrays' bytes in a file in ``folder``,
    for the parent to read back with :func:`~gangviz.experiments.spill.unspill` (faster than
    through the pool's pipe, which blocks this worker until the parent has read them). Raises
    as :func:`schedule_task` does, and ``OSError`` when the file cannot be written."""
    from gangviz.experiments.spill import spill

    schedule = schedule_task(key, source, spec, order, gamma)
    if schedule.placement is not None:
        schedule.placement.copies()  # made here, on the compiled loop: the parent only replays them
    return spill(schedule, folder)


#: seconds between two progress reports of a run
PROGRESS_SECONDS = 0.25


def _reloaded(source: tuple[Any, ...]) -> Any:
    """Return the source ``(origin, ring, processors, absent_from)`` names: its origin loaded
    again (once per worker process, one workload at a time), on the machine given."""
    from dataclasses import replace

    origin, ring, processors, absent_from = source
    return replace(_load(origin), processors=processors, absent_from=absent_from, ring=ring)


def _load(origin: tuple[str, dict[str, Any]]) -> Any:
    """Return the source ``origin`` names, loaded once per worker process (one workload at a
    time). Raises as :func:`~gangviz.workloads.source.load_source` does."""
    name, options = origin
    cache = _key(origin)
    if cache not in _loaded:
        from gangviz.workloads.source import load_source

        _loaded.clear()
        _loaded[cache] = load_source(name, **options)
    return _loaded[cache]


def _key(origin: tuple[str, dict[str, Any]]) -> str:
    """Return the key of the sources loaded in this process for a source's ``origin``."""
    name, options = origin
    return repr((name, sorted(options.items())))


def count_task(source: tuple[Any, ...], spec: str | None, params: dict[str, Any] | None,
               watch: bool | None) -> int:
    """Return how many steps the step-able simulation of ``spec`` (with ``params`` and
    ``watch`` as :func:`gangviz.factory.build` takes them) takes from its start to its end, in
    a worker process, on the source ``(origin, ring, processors, absent_from)`` loaded again
    (as :func:`schedule_task` takes it): the length of a long run the window shows before it has
    run it. Raises ``ValueError`` as :func:`gangviz.factory.build` does."""
    from gangviz.factory import build

    sim = build(_reloaded(source), spec, params=params or None, watch=watch, record=False)
    steps = 0
    while sim.step() is not None:
        steps += 1
    return steps


def count_into(conn: Any, parent: int, source: tuple[Any, ...], spec: str | None,
               params: dict[str, Any] | None, watch: bool | None) -> None:
    """Send :func:`count_task`'s steps (``None`` when the run cannot be built) through the pipe
    end ``conn``: the body of a worker process, which ends when ``parent`` does."""
    init_worker(parent, None)
    try:
        steps: int | None = count_task(source, spec, params, watch)
    except Exception:  # the window already shows the run; its length is only a nicety
        steps = None
    conn.send(steps)
    conn.close()


@contextlib.contextmanager
def _watched(key: Any, last: float) -> Iterator[np.ndarray]:
    """Yield a one-element cell for a compiled loop's simulated time, reported as
    ``("simulated", time / last)`` every :data:`PROGRESS_SECONDS` by a thread while the block
    runs (the loop holds no GIL, so the thread runs beside it; it reports nothing while the
    cell stays at 0, as under a loop that never writes it)."""
    import threading

    cell = np.zeros(1)
    done = threading.Event()

    def watch() -> None:
        told = 0.0
        while not done.wait(PROGRESS_SECONDS):
            at = float(cell[0])
            if at > told:
                told = at
                _tell(key, "simulated", min(at / last, 1.0))

    watcher = threading.Thread(target=watch, name="progress", daemon=True)
    watcher.start()
    try:
        yield cell
    finally:
        done.set()
        watcher.join()
