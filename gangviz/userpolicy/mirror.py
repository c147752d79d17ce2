"""The policy's side of one decision in its own process: a mirror of the matrix, and actions that
are checked here (so the policy sees its own effects and the rule it broke at once) and recorded
for the parent, which checks and applies them again on the state it owns.

A recorded action is ``(method, arguments, reason, line, refused)``; the arguments are plain
numbers (numpy integers taken through ``operator.index``), so the parent never unpickles an
object of the user's.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from gangviz.core.matrix import OusterhoutMatrix
from gangviz.userpolicy.actions import MatrixActions
from gangviz.userpolicy.errors import (
    RuleViolation,
    UserPolicyError,
    caller_line,
    def_line,
    describe_exception,
)
from gangviz.userpolicy.view import MatrixView

__all__ = ["Opaque", "Mirror", "RecordingActions", "decide", "ACTIONS", "fingerprint", "plain_arg"]

#: The actions a recorded entry may name (the parent replays only these).
ACTIONS = ("open_slot", "delete_slot", "place", "shift", "migrate")


class Opaque:
    """A value from user code that is not plain data, carried as its ``repr``: the engine's
    process never unpickles an object of the user's own."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class _Job:
    __slots__ = ("spec", "start")

    def __init__(self, spec: Any) -> None:
        self.spec = spec
        self.start = None


class Mirror:
    """What :class:`MatrixView` and :class:`MatrixActions` read of a simulation, rebuilt from the
    parent's messages: the matrix, the known jobs, the queue, the time."""

    def __init__(self) -> None:
        self.matrix: OusterhoutMatrix | None = None
        self.jobs: dict[int, _Job] = {}
        self.names: dict[int, str] = {}
        self.waiting: list[int] = []
        self.time = 0.0
        self._remaining: dict[int, float] | None = None
        #: asks the parent for the service each running job still needs (one round trip, made
        #: only when the policy looks at a running job)
        self.ask_remaining: Any = None

    def remaining(self, job: int) -> float:
        """The service ``job`` still needs (its work while it waits)."""
        assert self.matrix is not None
        if job not in self.matrix:
            return float(self.jobs[job].spec.work)
        if self._remaining is None:
            self._remaining = self.ask_remaining() if self.ask_remaining is not None else {}
        got = self._remaining.get(job)
        return self.jobs[job].spec.work if got is None else got

    def emit(self, change: Any) -> None:
        """Apply ``change`` to the mirrored matrix."""
        assert self.matrix is not None
        change.apply(self.matrix)


def fingerprint(m: OusterhoutMatrix) -> tuple[int, int]:
    """A cheap summary of a matrix both sides compute: rows and jobs."""
    return (int(m.n_rows), int(m.n_jobs))


def plain_arg(value: Any, depth: int = 0) -> Any:
    """Return ``value`` as plain data for the parent: ints (``operator.index``), floats, text,
    ``None`` and tuples of them; anything else as its ``repr`` in an ``Opaque``."""
    if value is None or type(value) in (int, float, bool, str):
        return value
    if isinstance(value, range):
        return value if value.step == 1 else tuple(value)
    if hasattr(value, "__index__") and not isinstance(value, bool):
        try:
            return operator.index(value)
        except Exception:
            pass
    if isinstance(value, float):
        return float(value)
    if depth == 0 and hasattr(value, "__iter__") and not isinstance(value, (str, bytes, dict)):
        try:
            items = []
            for k, v in enumerate(value):
                if k > 1 << 20:
                    break
                items.append(plain_arg(v, 1))
            return tuple(items)
        except Exception:
            pass
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return Opaque(text[:60])


class RecordingActions(MatrixActions):
    """The actions as the policy sees them in its process: checked on the mirror and recorded.
    After a refused action every further action is refused the same way: a policy that catches
    the refusal and tries again cannot turn a broken rule into a pass."""

    def __init__(self, sim: Any, log: list[tuple[Any, ...]], **kw: Any) -> None:
        super().__init__(sim, **kw)
        self._log = log
        self._refused: Exception | None = None

    def _record(self, name: str, args: tuple[Any, ...], reason: Any) -> Any:
        if self._refused is not None:
            raise self._refused
        line = caller_line(self._origin)
        why = reason if isinstance(reason, str) else ""
        try:
            out = getattr(MatrixActions, name)(self, *args, reason=why)
        except Exception as exc:
            # refused here (or the mirror could not hold it): the engine's checker says why
            self._refused = exc
            self._log.append((name, tuple(plain_arg(a) for a in args), why[:200], line, True))
            raise
        self._log.append((name, tuple(plain_arg(a) for a in args), why[:200], line, False))
        return out

    def open_slot(self, reason: str = "") -> int:
        """Add an empty slot on top of the matrix; return its index."""
        return int(self._record("open_slot", (), reason))

    def delete_slot(self, slot: int, reason: str = "") -> None:
        """Remove slot ``slot``, which must be empty."""
        self._record("delete_slot", (slot,), reason)

    def place(self, job: int, slot: int, processors: Any, reason: str = "") -> None:
        """Start waiting ``job`` on ``processors`` in ``slot``."""
        self._record("place", (job, slot, processors), reason)

    def shift(self, job: int, slot: int, reason: str = "") -> None:
        """Move running ``job`` to slot ``slot`` on the same processors."""
        self._record("shift", (job, slot), reason)

    def migrate(self, job: int, slot: int, processors: Any, reason: str = "") -> None:
        """Move running ``job`` to other ``processors`` (and ``slot``)."""
        self._record("migrate", (job, slot, processors), reason)


def sync(mirror: Mirror, state: tuple[Any, ...]) -> bool:
    """Bring ``mirror`` to the parent's state; return ``False`` when a delta left it out of step
    (the parent then sends the whole matrix)."""
    time, snap, delta, specs, waiting, fp = state[:6]
    for spec in specs:
        mirror.jobs[spec.id] = _Job(spec)
        mirror.names[spec.id] = spec.name
    if snap is not None:
        mirror.matrix = OusterhoutMatrix.from_snapshot(snap, mirror.names)
    else:
        assert mirror.matrix is not None
        for change in delta:
            change.apply(mirror.matrix)
    mirror.time, mirror.waiting, mirror._remaining = time, waiting, None
    return bool(fingerprint(mirror.matrix) == fp)


def decide(server: Any, state: tuple[Any, ...]) -> tuple[Any, ...]:
    """Run the user's ``decide`` on the parent's ``state``; return ``("done", actions, error,
    fingerprint)`` or ``("resync",)``."""
    if server.mirror is None:
        server.mirror = Mirror()
    mirror: Mirror = server.mirror
    try:
        in_step = sync(mirror, state)
    except (ValueError, KeyError, IndexError, AssertionError):
        in_step = False
    if not in_step:
        return ("resync",)
    arrived, completed = state[6], state[7]
    mirror.ask_remaining = server.ask_remaining
    log, error, _ = recorded_decision(server.engine, mirror, arrived, completed)
    assert mirror.matrix is not None
    return ("done", log, error, fingerprint(mirror.matrix))


def recorded_decision(engine: Any, host: Any, arrived: list[int], completed: list[int]
                      ) -> tuple[list[tuple[Any, ...]], str, RecordingActions]:
    """Run the user's ``decide`` once on ``host`` (the mirror of the engine's matrix, or this
    process's own engine) within its limit, recording its actions; return the log, the error
    the engine's process reports for it (``""``: none) and the recording actions."""
    from gangviz.userpolicy.policy import _call

    log: list[tuple[Any, ...]] = []
    view = MatrixView(host, arrived, completed, engine.rng)
    act = RecordingActions(host, log, origin=engine.origin, check=engine.check, declared=engine.declared)
    engine.user.rng = engine.rng
    error = ""
    try:
        result = _call(lambda: engine.user.decide(view, act), engine.origin, f"{engine.name}.decide",
                       engine.limit)
        if result is not None:
            error = (f"policy {engine.name} ({def_line(engine.user.decide, engine.origin)}): decide "
                     f"returned {plain_arg(result)!r:.60}; it must return None and act through "
                     "act.place, act.open_slot, ...")
    except RuleViolation as exc:
        if exc is not act._refused:  # raised by the user's code, not by a refused action
            error = describe_exception(exc, engine.origin, f"policy {engine.name}.decide")
    except UserPolicyError as exc:
        error = str(exc)
    return log, error, act


class AheadPolicy:
    """The engine policy of a run simulated ahead in the policy's own process: the user's
    ``decide`` on the process's own engine, each decision recorded as ``(time, completed,
    arrived, actions, error)`` for the engine's process, which checks and applies it at the same
    decision of its own run (and stops at the first that differs)."""

    name = "ahead"
    paper = ""

    def __init__(self, engine: Any, flush: Any) -> None:
        self.engine, self.flush = engine, flush
        self.decides_at = engine.decides_at
        self.records: list[tuple[Any, ...]] = []
        self.stopped = False

    def check_machine(self, processors: int, ring: bool) -> None:
        """The machine was checked already (``setup`` ran)."""

    def check_initial(self, matrix: Any) -> None:
        """Nothing to check."""

    def check_job(self, size: int, processors: int) -> None:
        """Nothing to check."""

    def get_state(self) -> Any:
        """No state to keep."""
        return None

    def set_state(self, state: Any) -> None:
        """No state to restore."""

    def schedule(self, sim: Any, completed: list[int], arrived: list[int]) -> None:
        """Run the user's decision on this process's engine and record it."""
        engine = self.engine
        log, error, act = recorded_decision(engine, sim, arrived, completed)
        self.records.append((float(sim.time), sorted(completed), sorted(arrived), log, error))
        if error or act._refused is not None or (engine.check and sim.matrix.n_jobs == 0
                                                  and any(j not in sim.matrix for j in sim.waiting)):
            self.stopped = True  # the engine's process fails at this decision: no need to go on
            raise _Stop
        self.flush(False)


class _Stop(Exception):
    """Ends a run simulated ahead at a decision the engine's process will refuse."""


def run_ahead(server: Any, engine_class: Any, jobs: list[Any], processors: int, ring: bool,
              overhead: float) -> tuple[Any, ...]:
    """Simulate the whole run in this process on a replica of the engine's process's engine
    (``engine_class``, the class the factory chose there, with the same workload and machine),
    sending the decisions in batches as they are made (``("ahead", records)``); return
    ``("end",)``."""
    import time as _time

    started = [_time.monotonic()]

    def flush(force: bool) -> None:
        if policy.records and (force or len(policy.records) >= 512 or _time.monotonic() - started[0] > 0.05):
            text, dropped = server.capture.take()
            server.send(("ahead", policy.records, (text, dropped)))
            policy.records = []
            started[0] = _time.monotonic()

    policy = AheadPolicy(server.engine, flush)
    server.dog.before_timeout = lambda: flush(True)
    try:
        sim = engine_class(jobs, policy, processors, ring=ring, overhead=overhead, record=False, stats=False)
        sim.run()
    except _Stop:
        pass
    except Exception as exc:
        policy.records.append((math.inf, [], [], [], f"the run simulated ahead stopped: {exc}"))
    flush(True)
    return ("end",)
