"""The compare window's runs on a trace, in worker processes, watched from the GUI thread.

Each policy of a comparison runs once, headless, in a process of a pool of as many workers as
there are cores (at most one per policy). In threads the runs would share Python's lock with
the window: only the compiled loops' kernels release it, and the rest of a run (the reference
engine, backfilling, preparing the jobs, measuring them) would take turns with the window's
drawing and with the other runs; in processes the runs use every core and the window keeps its
own. A trace loaded from a file (or a synthetic model) is loaded
again in each worker from its :attr:`~gangviz.workloads.source.Source.origin` (pickling a
hundred thousand job objects takes longer than reading the trace); another source is sent
whole. Workers are spawned, never forked (this process runs a Qt event loop). The first runs go
to the workers ``gangviz compare --window`` started before it loaded the trace
(:func:`gangviz.gui.compare.ahead.prestart`), which hold it by then; the command submits
them too, before it builds the window (:func:`gangviz.gui.compare.ahead.start_runs`). A run's schedule comes
back with its arrays in a file of a folder of the runner's (:mod:`gangviz.experiments.spill`),
read back in the pool's own thread (:func:`read_back`). When every run has ended the workers
exit without being waited for: the window's last frame does not wait for them.

Nothing here runs off the GUI thread but the workers themselves: a :class:`QTimer` polls the
futures and the workers' progress queue, and the signals fire from that timer, on the GUI
thread. Nothing here touches a widget.
"""

from __future__ import annotations

import concurrent.futures as cf
import shutil
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from gangviz.experiments.spill import unspill
from gangviz.gui.compare.ahead import end_pool, new_pool, submit, take_waiting, worker_count
from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from gangviz.gui.compare.plan import RunTask

#: milliseconds between two looks at the runs
POLL_MS = 100


def read_back(fut: cf.Future[Any]) -> cf.Future[Any]:
    """Return a future of the value ``fut`` (a worker's run) spilled, read back
    (:func:`~gangviz.experiments.spill.unspill`) in the thread that completes ``fut``, the pool's
    own: the GUI thread never reads a run's arrays nor imports what unpickling them needs. The
    future fails as ``fut`` does, or with the ``OSError`` of a file that cannot be read."""
    out: cf.Future[Any] = cf.Future()

    def deliver(done: cf.Future[Any]) -> None:
        if done.cancelled():
            out.cancel()
            return
        exc = done.exception()
        if exc is not None:
            out.set_exception(exc)
            return
        try:
            out.set_result(unspill(done.result()))
        except BaseException as err:  # (a callback's own exception would be lost)
            out.set_exception(err)

    fut.add_done_callback(deliver)
    return out


class ScheduleRunner(QObject):
    """Runs each policy of a comparison once in a worker process.

    ``ready(generation, spec, schedule)`` or ``failed(generation, spec, message)`` when a run
    ends; ``progress(generation, spec, what, value)`` when a worker reports (``"started"``, or
    ``"simulated"`` with the fraction of the trace simulated). A later :meth:`start` or
    :meth:`stop` ends the runs still going (their workers are terminated).
    """

    ready = Signal(int, str, object)
    failed = Signal(int, str, str)
    progress = Signal(int, str, str, float)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.generation = 0
        self.workers = 0
        self._pool: cf.ProcessPoolExecutor | None = None
        self._queue: Any = None
        self._futures: dict[cf.Future[Any], str] = {}
        self._folder: str | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self._poll)

    def start(self, tasks: list[RunTask]) -> int:
        """Start one run per task (:func:`gangviz.gui.compare.plan.run_tasks`); return the
        generation the signals carry (a later :meth:`start` ends the earlier runs and makes
        their results stale). The first runs go to the workers ``gangviz compare --window``
        started (:func:`gangviz.gui.compare.ahead.prestart`), and are those runs when it
        submitted them already (:func:`gangviz.gui.compare.ahead.start_runs`)."""
        self.stop()
        self.generation += 1
        gen = self.generation
        if not tasks:
            return gen
        self.workers = worker_count(len(tasks))
        waiting = take_waiting(self.workers, tasks, gen)
        if waiting is None:
            self._pool, self._queue = new_pool(self.workers)
            batch = None
        else:
            self._pool, self._queue, batch = waiting.pool, waiting.queue, waiting.batch
        batch = batch or submit(self._pool, tasks, gen)
        self._folder = batch.folder
        self._futures = {read_back(fut): label for label, fut in batch.futures.items()}
        self.timer.start()
        return gen

    @property
    def running(self) -> bool:
        """Return whether runs of the current generation are still going."""
        return bool(self._futures)

    def _poll(self) -> None:
        gen = self.generation
        while self._queue is not None:
            try:
                (g, spec), what, value = self._queue.get_nowait()
            except Exception:  # queue.Empty, or a queue closed meanwhile
                break
            if g == gen:
                self.progress.emit(gen, spec, what, float(value))
        for fut in [f for f in self._futures if f.done()]:
            spec = self._futures.pop(fut)
            exc = fut.exception()
            shown = printable(spec)
            if exc is None:
                self.ready.emit(gen, spec, fut.result())
            elif isinstance(exc, (ValueError, KeyError, TypeError, MemoryError)):
                self.failed.emit(gen, spec, f"{shown}: {printable(str(exc).strip(chr(39) + chr(34)))}")
            else:
                self.failed.emit(gen, spec, f"{shown}: the run stopped ({type(exc).__name__}: {printable(exc)})")
        if not self._futures:  # every run ended: the workers exit on their own, unwaited
            self._close(terminate=False)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every run of the current generation has ended (their signals fired),
        or ``timeout`` seconds passed; return whether they all ended. For a caller without an
        event loop (a screenshot); the window itself never blocks."""
        end = None if timeout is None else time.monotonic() + timeout
        while self._futures:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return False
            cf.wait(list(self._futures), timeout=min(POLL_MS / 1000, left) if left is not None else POLL_MS / 1000,
                    return_when=cf.FIRST_COMPLETED)
            self._poll()
        return True

    def stop(self) -> None:
        """End every run still going: queued ones are cancelled, running workers terminated."""
        self._futures.clear()
        self.timer.stop()
        self._close(terminate=True)

    def _close(self, *, terminate: bool) -> None:
        pool, self._pool = self._pool, None
        queue, self._queue = self._queue, None
        folder, self._folder = self._folder, None
        self.timer.stop()
        if pool is not None:
            end_pool(pool, queue, terminate=terminate)
        if folder is not None:  # (a worker ended mid-run may have left its file there)
            shutil.rmtree(folder, ignore_errors=True)
