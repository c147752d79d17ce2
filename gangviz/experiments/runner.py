"""Run many independent tasks on one process, a local process pool, or a Dask cluster.

One code path serves all three: every backend is a :class:`concurrent.futures.Executor`
(in-process for ``workers=1``, :class:`~concurrent.futures.ProcessPoolExecutor` for
``workers=N``, and ``distributed.Client(address).get_executor()`` for ``scheduler=ADDRESS``, since
a Dask client is a ``concurrent.futures`` executor). Paper reproductions
(``gangviz/experiments/repro/*.py``) and ``gangviz sweep`` both go through :func:`map_runs`::

    from gangviz.experiments.runner import map_runs, RunFailed

    for index, result in map_runs(run_task, tasks, workers=args.workers,
                                  scheduler=args.scheduler, errors="return"):
        if isinstance(result, RunFailed):
            print(f"task {index} failed: {result.message}")
        else:
            rows[index] = result

Contract:

* ``fn`` must be a module-level function (picklable by reference) and *pure*: its result depends
  only on its task, so it does not matter which process or machine runs it. Derive random seeds
  from the task (:mod:`gangviz.experiments.seeds`), never from the process.
* Results come back **as they complete**, each as ``(task index, result)``; sort by index if
  order matters.
* ``errors="raise"`` (default): the first failure raises :class:`RunError` (naming the task
  index) after the executor is shut down. ``errors="return"``: a failure is yielded in place of the
  result as a :class:`RunFailed` with a one-line message, and every other task still runs.
* A worker process that dies (``os._exit``, a segfault, the OOM killer) breaks a
  ``ProcessPoolExecutor``. At most ``workers`` tasks are in flight at once, so the suspects are
  known: each is re-run alone in a fresh one-worker pool; the one that kills its worker again
  fails ("the worker process died while running it"), the innocent ones succeed, and the
  remaining tasks continue on a fresh pool. On Dask, the scheduler retries a task whose worker
  died and reports ``KilledWorker`` after its allowed failures; a scheduler that disappears fails
  the tasks not yet finished with a message naming its address.
* ``progress(done, total)`` is called in the consuming thread after each finished task.

Local workers are capped to the tasks and the cores (:func:`cap_workers`; the caller says so
to the user), and every worker process watches its parent: when the parent dies (even by
SIGKILL, which leaves it no chance to clean up) the worker exits within a second instead of
lingering as an orphan waiting on a pipe, whatever the start method.

Pools use the platform's default start method, except that ``spawn`` is used when Qt is loaded
in this process (forking a process that runs a Qt event loop is unsafe); ``mp_context`` chooses
explicitly.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pragma: no cover  (annotations only: Dask is optional)
    from multiprocessing.context import BaseContext

    from distributed import Client

__all__ = ["RunFailed", "RunError", "map_runs", "open_client", "cap_workers"]

WORKER_DIED = "the worker process died while running it"
#: A task function: one task in, its result out (module level, so that it pickles).
_Task = Callable[[Any], Any]
_R = TypeVar("_R")
#: Seconds a Dask client may stay disconnected before its unfinished tasks fail.
GONE_AFTER = 5.0


@dataclass(frozen=True)
class RunFailed:
    """A task that did not produce a result; ``message`` is one line for the user."""

    message: str

    def __bool__(self) -> bool:  # a failure is never a truthy result
        return False


class RunError(RuntimeError):
    """A task failed under ``errors="raise"``; ``index`` is the task's position."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"task {index}: {message}")
        self.index = index
        self.message = message


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def open_client(scheduler: Any, timeout: float = 10.0) -> tuple[Client, bool]:
    """Return ``(client, owned)`` for a Dask scheduler address (or an existing ``Client``).

    ``timeout`` is how many seconds to try to connect.
    ``owned`` is True when this function made the client (the caller closes it). Raises
    ``ValueError`` when ``distributed`` is not installed or the scheduler cannot be reached.
    """
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("--scheduler needs Dask: pip install 'gangviz[cluster]' "
                         "(dask[distributed])") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        # distributed's Client.__init__ carries no annotations; where distributed is not
        # installed (it is the optional cluster extra) mypy sees Any and the ignore is unused
        client = Client(str(scheduler), timeout=timeout,  # type: ignore[no-untyped-call, unused-ignore]
                        set_as_default=False)
        return client, True
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: {_describe(exc)}") from None


def cores() -> int:
    """Return the number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cap_workers(requested: int, tasks: int) -> tuple[int, str | None]:
    """Return ``(workers, note)``: ``requested`` lowered to the number of tasks and of cores
    (at least 1), and a one-line note for the user when it was lowered (else ``None``)."""
    limit = max(1, min(tasks, cores()))
    if requested <= limit:
        return requested, None
    why = f"{tasks} run{'s' if tasks != 1 else ''}" if tasks <= cores() else f"{cores()} cores"
    return limit, f"using {limit} worker{'s' if limit != 1 else ''}, not {requested}: there {'is' if limit == 1 else 'are'} only {why}"


#: Seconds between a worker's checks that its parent is alive.
PARENT_POLL = 0.5


def _watch_parent(parent: int) -> None:
    """Pool initializer: exit this worker as soon as ``parent`` is no longer its parent (the
    parent died and the worker was adopted), checked every :data:`PARENT_POLL` seconds. A
    worker forked from the command line drops its SIGTERM handler: terminated, it just ends."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(PARENT_POLL)

    threading.Thread(target=watch, name="gangviz-parent-watch", daemon=True).start()


def _pool(workers: int, ctx: BaseContext | None) -> cf.ProcessPoolExecutor:
    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_watch_parent,
                                  initargs=(os.getpid(),))


def _mp_context(mp_context: str | None) -> BaseContext | None:
    if mp_context is None and any(m in sys.modules for m in ("PySide6.QtCore", "PyQt5.QtCore")):
        mp_context = "spawn"
    return multiprocessing.get_context(mp_context) if mp_context else None


class _InProcess(cf.Executor):
    """Runs each task when submitted, in the calling thread (``workers=1``)."""

    def submit(self, fn: Callable[..., _R], /, *args: Any, **kwargs: Any) -> cf.Future[_R]:
        fut: cf.Future[_R] = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # reported per task
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            fut.set_exception(exc)
        return fut


def _failure_message(exc: BaseException, scheduler: Any) -> str:
    name = type(exc).__name__
    if name == "KilledWorker":
        return f"{WORKER_DIED} (the Dask scheduler gave up on it: {_describe(exc)})"
    if scheduler is not None and (isinstance(exc, (cf.CancelledError, OSError, TimeoutError))
                                  or name in ("CommClosedError", "FutureCancelledError")):
        return f"lost the Dask scheduler at {scheduler}: {_describe(exc)}"
    return _describe(exc)


def map_runs(
    fn: Callable[[Any], Any],
    tasks: Iterable[Any],
    *,
    workers: int = 1,
    scheduler: Any = None,
    progress: Callable[[int, int], None] | None = None,
    errors: str = "raise",
    mp_context: str | None = None,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, fn(tasks[index]))`` for every task, in order of completion.

    ``workers`` = 1 runs in this process; N > 1 uses N local processes; ``scheduler`` (a Dask
    address such as ``tcp://127.0.0.1:8786``, or a ``distributed.Client``) runs on that cluster
    and ignores ``workers``. See the module docstring for ``errors`` and failure handling.
    Raises ``ValueError`` for workers < 1, an unknown ``errors`` mode, a missing Dask or an
    unreachable scheduler, and :class:`RunError` for a failed task under ``errors="raise"``.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    if errors not in ("raise", "return"):
        raise ValueError(f"errors must be 'raise' or 'return', got {errors!r}")
    tasks = list(tasks)
    total = len(tasks)
    if scheduler is None:
        workers = cap_workers(workers, total)[0]
    done = 0
    for index, result in _dispatch(fn, tasks, workers, scheduler, mp_context):
        done += 1
        if progress is not None:
            progress(done, total)
        if isinstance(result, RunFailed) and errors == "raise":
            raise RunError(index, result.message)
        yield index, result


def _dispatch(fn: _Task, tasks: list[Any], workers: int, scheduler: Any,
              mp_context: str | None) -> Iterator[tuple[int, Any]]:
    if scheduler is not None:
        yield from _run_dask(fn, tasks, scheduler)
    elif workers == 1:
        yield from _run_executor(_InProcess(), fn, deque(range(len(tasks))), tasks, 1, None)
    else:
        yield from _run_pool(fn, tasks, workers, _mp_context(mp_context))


def _exception(fut: cf.Future[Any]) -> BaseException | None:
    """The future's exception, with cancellation (a lost Dask scheduler) as an exception too."""
    if fut.cancelled():
        return cf.CancelledError("the task was cancelled")
    return fut.exception()


class _Flight:
    """The tasks of one executor: which are queued, which are in flight, and how each ended."""

    def __init__(self, executor: cf.Executor, fn: _Task, tasks: list[Any], queue: deque[int],
                 cap: int, scheduler: Any, broken: list[int] | None,
                 alive: Callable[[], bool] | None) -> None:
        self.executor, self.fn, self.tasks, self.queue = executor, fn, tasks, queue
        self.cap, self.scheduler, self.broken, self.alive = cap, scheduler, broken, alive
        self.inflight: dict[cf.Future[Any], int] = {}
        self.lost_since: float | None = None

    def fill(self) -> list[tuple[int, RunFailed]]:
        """Submit queued tasks until ``cap`` are in flight; return the ones refused for good.

        A broken pool refuses a task with :class:`BrokenProcessPool`: it goes back to the
        front of the queue for the next pool. A closed Dask client refuses with
        ``RuntimeError``: that task fails.
        """
        refused: list[tuple[int, RunFailed]] = []
        while self.queue and len(self.inflight) < self.cap:
            index = self.queue.popleft()
            try:
                self.inflight[self.executor.submit(self.fn, self.tasks[index])] = index
            except BrokenProcessPool:
                self.queue.appendleft(index)
                break
            except RuntimeError as exc:
                refused.append((index, RunFailed(_failure_message(exc, self.scheduler))))
        return refused

    def wait(self) -> set[cf.Future[Any]]:
        """Return the futures finished now (empty only when polling a Dask scheduler)."""
        finished, _ = cf.wait(self.inflight, timeout=None if self.alive is None else 0.5,
                              return_when=cf.FIRST_COMPLETED)
        return finished

    def scheduler_gone(self) -> bool:
        """Whether the Dask scheduler has been unreachable for :data:`GONE_AFTER` seconds."""
        if self.alive is None or self.alive():
            self.lost_since = None
            return False
        self.lost_since = self.lost_since or time.monotonic()
        return time.monotonic() - self.lost_since >= GONE_AFTER

    def outcome(self, fut: cf.Future[Any]) -> tuple[int, Any] | None:
        """Return ``(index, result or RunFailed)`` of a finished future, or None when its
        process pool broke (the index is then a suspect, in ``broken``)."""
        index = self.inflight.pop(fut)
        exc = _exception(fut)
        if exc is None:
            return index, fut.result()
        if isinstance(exc, BrokenProcessPool) and self.broken is not None:
            self.broken.append(index)
            return None
        if self.alive is not None and not self.alive():
            # While a client loses its scheduler, Dask's own code can fail in any way;
            # the lost connection is the cause the user needs to hear about.
            return index, RunFailed(f"lost the Dask scheduler at {self.scheduler}: {_describe(exc)}")
        return index, RunFailed(_failure_message(exc, self.scheduler))


def _run_executor(executor: cf.Executor, fn: _Task, queue: deque[int], tasks: list[Any],
                  cap: int, scheduler: Any, broken: list[int] | None = None,
                  alive: Callable[[], bool] | None = None) -> Iterator[tuple[int, Any]]:
    """Keep at most ``cap`` tasks of ``queue`` in flight on ``executor``; yield what completes.

    A :class:`BrokenProcessPool` stops the loop; the indices then in flight go to ``broken``.
    ``alive`` (Dask) says whether the scheduler is still connected; once it has said no for
    ``GONE_AFTER`` seconds, every unfinished task fails instead of waiting for ever.
    """
    flight = _Flight(executor, fn, tasks, queue, cap, scheduler, broken, alive)
    while flight.queue or flight.inflight:
        yield from flight.fill()
        if not flight.inflight:
            if flight.queue and broken is not None:
                return  # the pool broke before taking any of the queue: a fresh one will
            continue
        finished = flight.wait()
        if not finished:
            if flight.scheduler_gone():
                gone = RunFailed(f"the Dask scheduler at {scheduler} went away before the task finished")
                for index in list(flight.inflight.values()) + list(flight.queue):
                    yield index, gone
                return
            continue
        outcomes = [flight.outcome(fut) for fut in finished]
        yield from (o for o in outcomes if o is not None)
        if None in outcomes:
            # Every task still in flight dies with the pool; collect them as suspects too.
            for fut in cf.as_completed(list(flight.inflight)):
                got = flight.outcome(fut)
                if got is not None:
                    yield got
            return


def _run_pool(fn: _Task, tasks: list[Any], workers: int,
              ctx: BaseContext | None) -> Iterator[tuple[int, Any]]:
    queue = deque(range(len(tasks)))
    while queue:
        broken: list[int] = []
        before = len(queue)
        pool = _pool(workers, ctx)
        try:
            yield from _run_executor(pool, fn, queue, tasks, workers, None, broken)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        for index in sorted(broken):
            yield index, _run_alone(fn, tasks[index], ctx)
        if queue and len(queue) == before and not broken:
            # A fresh pool that accepts no work at all (no processes can be started).
            while queue:
                yield queue.popleft(), RunFailed("could not start worker processes")


def _run_alone(fn: _Task, task: Any, ctx: BaseContext | None) -> Any:
    """Run one suspect of a broken pool in a fresh one-worker pool."""
    pool = _pool(1, ctx)
    try:
        return pool.submit(fn, task).result()
    except BrokenProcessPool:
        return RunFailed(WORKER_DIED)
    except Exception as exc:  # reported per task
        return RunFailed(_describe(exc))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_dask(fn: _Task, tasks: list[Any], scheduler: Any) -> Iterator[tuple[int, Any]]:
    opened, owned = open_client(scheduler)
    # distributed is only partly annotated (get_executor and close are not): used untyped here
    client: Any = opened
    address = getattr(client, "scheduler", None) and client.scheduler.address
    executor = client.get_executor(pure=False)
    try:
        yield from _run_executor(executor, fn, deque(range(len(tasks))), tasks, len(tasks),
                                 address or scheduler, alive=lambda: client.status == "running")
    finally:
        try:
            executor.shutdown(wait=False)
            if owned:
                client.close(timeout=5)
        except Exception:  # the cluster may already be gone
            pass
