"""A user's time-slot policy (:class:`MatrixPolicy`) and the engine policy that runs it.

The user subclasses :class:`MatrixPolicy` and writes :meth:`MatrixPolicy.decide`;
:class:`EnginePolicy` is what the engine (:class:`gangviz.sim.engine.Simulation`) calls at each
decision point: it hands the user a read-only :class:`~gangviz.userpolicy.view.MatrixView` and
the :class:`~gangviz.userpolicy.actions.MatrixActions`, holds the user's code to its time limit,
turns its exceptions into one line naming the user's file and line, and checks that no job is
left waiting on an idle machine.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from gangviz.core.params import Param
from gangviz.sim.policy import Policy
from gangviz.userpolicy import escape
from gangviz.userpolicy.actions import DEADLOCK, MatrixActions
from gangviz.userpolicy.errors import (
    DecisionTimeout,
    Declared,
    RuleViolation,
    UserPolicyError,
    def_line,
    describe_exception,
    printable,
)
from gangviz.userpolicy.view import MatrixView

__all__ = ["MatrixPolicy", "EnginePolicy", "ENGINE_PARAMS", "PROCESS_PARAMS"]

#: Parameters every user policy takes, whatever it declares: the seed of its random generator,
#: whether its actions are checked against the rules, and its per-decision time limit.
ENGINE_PARAMS = (
    Param("seed", "int", 0, "seed of the random generator the policy is handed", low=0,
          high=(1 << 63) - 1),
    Param("check", "bool", True, "check every action against the family's rules"),
    Param("decision_limit", "float", 5.0, "longest one decision may take", low=0.001,
          high=3600.0, unit="seconds"),
    Param("isolated", "bool", True, "run the policy in a process of its own (false: in the "
          "engine's, faster, for code one trusts)"),
    Param("run_limit", "float", None, "longest the whole run may spend in the policy's code",
          low=0.01, high=1e6, none="none", unit="seconds"),
    Param("memory_limit", "int", 4096, "most memory the policy's process may take",
          low=16, high=1 << 20, unit="MB"),
)
#: The parameters of the policy's process, which a policy run in the engine's process ignores.
PROCESS_PARAMS = ("isolated", "run_limit", "memory_limit")


class _UserPolicy:
    """What a user's policy of either family declares: ``name``, ``paper``, ``params``, when it
    decides, whether it takes buddy blocks or migrates, and the seeded ``rng``."""

    family: ClassVar[str] = ""
    name: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    decides_at: ClassVar[str] = "boundary"
    buddy: ClassVar[bool] = False
    migrates: ClassVar[bool] = False
    rng: np.random.Generator


class MatrixPolicy(_UserPolicy):
    """Base class of a user's time-slot (Ousterhout matrix) policy.

    Class attributes a subclass may set: ``name`` (default: the class's name), ``paper`` (the
    section it follows), ``params`` (a tuple of :class:`~gangviz.core.params.Param`; each value
    is set as an attribute of the same name before :meth:`setup`), ``decides_at``
    (``"boundary"``: at the slice boundary after arrivals and completions; ``"event"``: at
    once), ``buddy`` (``True``: every job must take an aligned power-of-two block, and the
    checker holds it to that) and ``migrates`` (``True`` to allow :meth:`act.migrate`).
    ``self.rng`` is the seeded random generator to use for any random choice.
    """

    family: ClassVar[str] = "matrix"

    def setup(self, processors: int) -> None:
        """Called once before the run; raise ``ValueError`` for a machine the policy cannot
        use (default: any)."""

    def decide(self, view: MatrixView, act: MatrixActions) -> None:
        """React to a decision point (``view.arrived``, ``view.completed``): place waiting jobs
        with ``act.place``, open and delete slots, shift or migrate running jobs. Return
        ``None``."""
        raise NotImplementedError("a MatrixPolicy must define decide(self, view, act)")


class EnginePolicy(Policy):
    """The engine's policy for a user's :class:`MatrixPolicy` class ``cls`` from file
    ``origin``, built with the typed ``params`` (its own and :data:`ENGINE_PARAMS`)."""

    def __init__(self, cls: type[MatrixPolicy], origin: str, *, spec: str = "", **params: Any) -> None:
        self.origin = origin
        #: The spec that names the policy (its file, or module:Class): how to build it again.
        self.spec = spec or origin
        self.check = bool(params.pop("check", True))
        self.limit = float(params.pop("decision_limit", 5.0))
        seed = int(params.pop("seed", 0))
        self.name = cls.name or cls.__name__
        self.paper = cls.paper or origin
        self.decides_at = cls.decides_at if cls.decides_at in ("boundary", "event") else "boundary"
        self.declared = Declared(bool(cls.buddy), bool(cls.migrates))
        self.rng = np.random.default_rng(seed)
        self.user = _call(lambda: cls(), origin, f"{self.name}()", self.limit)
        self.user.rng = self.rng
        for key, value in {**{p.name: p.default for p in cls.params}, **params}.items():
            setattr(self.user, key, value)

    def check_machine(self, processors: int, ring: bool) -> None:
        """Run the user's :meth:`MatrixPolicy.setup`; a ``ValueError`` it raises is the
        machine's refusal, anything else is reported with the user's file and line."""
        setup_or_refuse(self.user, processors, self.origin, self.name, self.limit)

    def schedule(self, sim: Any, completed: list[int], arrived: list[int]) -> None:
        """Let the user's policy decide; then check no job waits on an idle machine."""
        view = MatrixView(sim, arrived, completed, self.rng)
        act = MatrixActions(sim, origin=self.origin, check=self.check, declared=self.declared)
        self.user.rng = self.rng
        result = _call(lambda: self.user.decide(view, act), self.origin, f"{self.name}.decide", self.limit)
        if result is not None:
            raise UserPolicyError(f"policy {self.name} ({def_line(self.user.decide, self.origin)}): decide returned "
                                  f"{result!r:.60}; it must return None and act through act.place, "
                                  f"act.open_slot, ...")
        m = sim.matrix
        if self.check and m.n_jobs == 0:
            left = [j for j in sim.waiting if j not in m]
            if left:
                raise RuleViolation(sim.time, m.name(left[0]), DEADLOCK,
                                    "the machine is idle after the decision and the job was not placed",
                                    f"{self.origin} ({self.name}.decide)")


def setup_or_refuse(user: Any, processors: int, origin: str, name: str, limit: float) -> None:
    """Run ``user.setup(processors)`` within ``limit``: a ``ValueError`` it raises refuses the
    machine (raised as a plain ``ValueError``); anything else is the policy's failure
    (:class:`UserPolicyError`)."""

    def setup() -> ValueError | None:
        try:
            user.setup(processors)
        except UserPolicyError:
            raise
        except ValueError as exc:
            return exc
        return None

    refusal = _call(setup, origin, f"{name}.setup", limit)
    if refusal is not None:
        try:
            text = str(refusal)
        except BaseException:
            text = type(refusal).__name__
        raise ValueError(f"policy {printable(name)}: {printable(text)}") from None


class _Alarm:
    """The SIGALRM handler that ends user code past its limit: installed once, armed only while
    a decision runs (installing a handler per decision would cost more than many decisions).

    Past the limit it fires again every :attr:`REPEAT` seconds, and from the first time on
    :mod:`gangviz.userpolicy.escape` raises the timeout where the user's own ``try`` cannot
    catch it, so a retry loop with a bare ``except`` ends too."""

    armed = False
    limit = 0.0
    installed = False
    REPEAT = 0.05
    #: when the first stop was raised (``perf_counter``), ``None`` before; the call has not
    #: returned since
    stopped_at: float | None = None
    what, origin = "", ""
    #: seconds the user's code has to give up after the first stop before the process is ended
    #: (only code the stop cannot reach is still running then: a long C call, a ``with`` block
    #: that suppresses exceptions)
    GRACE = 2.0

    @classmethod
    def fire(cls, _signum: int, frame: Any) -> None:
        if cls.armed:
            now = time.perf_counter()
            if cls.stopped_at is None:
                cls.stopped_at = now
            elif now - cls.stopped_at > cls.GRACE:
                cls._end_process(frame)
            message = f"took longer than its limit of {cls.limit:g} s (decision_limit)"
            escape.start(frame, _call.__code__, lambda: DecisionTimeout(message),
                         own=(cls.fire.__code__,))
            raise DecisionTimeout(message)

    @classmethod
    def _end_process(cls, frame: Any) -> None:
        """The stop has not ended the user's code within :attr:`GRACE`: end the process, in
        one line naming where that code was."""
        from gangviz.userpolicy.errors import frame_line

        where = frame_line(frame, cls.origin) or cls.origin
        os.write(2, printable(f"gangviz: {cls.what} was stopped at {where} after its limit of "
                              f"{cls.limit:g} s (decision_limit); it did not give up the stop, "
                              "so the process ends").encode("utf-8", "replace") + b"\n")
        os._exit(1)

    @classmethod
    def usable(cls) -> bool:
        if cls.installed and threading.current_thread() is threading.main_thread():
            return True
        if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
            return False
        if not cls.installed:
            current = signal.getsignal(signal.SIGALRM)
            if current not in (signal.SIG_DFL, signal.SIG_IGN, None):
                return False  # someone else's alarm: check the clock afterwards only
            signal.signal(signal.SIGALRM, cls.fire)
            cls.installed = True
        return True


#: In a policy's own process, the watchdog that times every call of user code
#: (:class:`gangviz.userpolicy.worker.Watchdog`); ``None`` in the engine's process, where the
#: SIGALRM timer does.
WATCH: Any = None


def _disarm() -> None:
    """Turn the SIGALRM timer off. The timer repeats past the limit, so its next stop can land
    here, before the handler is told: then turn it off again, or it stays armed and stops code
    that runs later (another run's wait for its policy's process)."""
    while True:
        try:
            _Alarm.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            escape.stop()
            return
        except DecisionTimeout:
            continue


def _call(fn: Callable[[], Any], origin: str, what: str, limit: float, kind: str = "policy") -> Any:
    """Run user code ``fn`` within ``limit`` seconds; raise :class:`UserPolicyError` naming the
    user's file and line for anything it raises, any ``BaseException`` included (a
    :class:`RuleViolation` passes as it is; so does Ctrl-C in the engine's own process)."""
    if WATCH is not None:
        return _watched(fn, origin, what, limit, kind)
    timer = _Alarm.usable()
    start = time.perf_counter()
    try:
        if timer:
            _Alarm.limit, _Alarm.armed, _Alarm.stopped_at = limit, True, None
            _Alarm.what, _Alarm.origin = f"{kind} {what}", origin
            signal.setitimer(signal.ITIMER_REAL, limit, _Alarm.REPEAT)
        try:
            result = fn()
        finally:  # first, before any other code runs: the limit is for the user's code only
            if timer:
                _disarm()
    except (RuleViolation, UserPolicyError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # sys.exit() or any exotic exception is the policy's failure
        # the timer is off: describing a deep recursion cannot be cut short by it
        raise UserPolicyError(describe_exception(exc, origin, f"{kind} {what}")) from None
    if time.perf_counter() - start > limit:
        raise UserPolicyError(f"{kind} {what} ({origin}) took longer than its limit of {limit:g} s "
                              "(decision_limit)")
    return result


def _watched(fn: Callable[[], Any], origin: str, what: str, limit: float, kind: str) -> Any:
    """:func:`_call` in a policy's own process: the watchdog reports a call past its limit to
    the parent, which ends the process; every exception is the policy's."""
    WATCH.arm(f"{kind} {what}", limit)
    try:
        result = fn()
    except (RuleViolation, UserPolicyError):
        WATCH.disarm()
        raise
    except BaseException as exc:
        message = describe_exception(exc, origin, f"{kind} {what}")
        WATCH.disarm()
        raise UserPolicyError(message) from None
    if not WATCH.disarm():  # it fired: the parent is ending this process
        time.sleep(3600)
    return result
