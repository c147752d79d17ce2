"""A user's time-slot policy (:class:`MatrixPolicy`) and the engine policy that runs it.

The user subclasses :class:`MatrixPolicy` and writes :meth:`MatrixPolicy.decide`;
:class:`EnginePolicy` is what the engine (:class:`gangviz.sim.engine.Simulation`) calls at each
decision point: it hands the user a read-only :class:`~gangviz.userpolicy.view.MatrixView` and
the :class:`~gangviz.userpolicy.actions.MatrixActions`, holds the user's code to its time limit,
turns its exceptions into one line naming the user's file and line, and checks that no job is
left waiting on an idle machine.
"""

from __future__ import annotations

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
    RuleViolation,
    UserPolicyError,
    def_line,
    describe_exception,
)
from gangviz.userpolicy.view import MatrixView

__all__ = ["MatrixPolicy", "EnginePolicy", "ENGINE_PARAMS"]

#: Parameters every user policy takes, whatever it declares: the seed of its random generator,
#: whether its actions are checked against the rules, and its per-decision time limit.
ENGINE_PARAMS = (
    Param("seed", "int", 0, "seed of the random generator the policy is handed", low=0,
          high=(1 << 63) - 1),
    Param("check", "bool", True, "check every action against the family's rules"),
    Param("decision_limit", "float", 5.0, "longest one decision may take", low=0.001,
          high=3600.0, unit="seconds"),
)


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
        self._buddy, self._migrates = bool(cls.buddy), bool(cls.migrates)
        self.rng = np.random.default_rng(seed)
        self.user = _call(lambda: cls(), origin, f"{self.name}()", self.limit)
        self.user.rng = self.rng
        for key, value in {**{p.name: p.default for p in cls.params}, **params}.items():
            setattr(self.user, key, value)

    def check_machine(self, processors: int, ring: bool) -> None:
        """Run the user's :meth:`MatrixPolicy.setup`; a ``ValueError`` it raises is the
        machine's refusal, anything else is reported with the user's file and line."""
        try:
            self.user.setup(processors)
        except ValueError as exc:
            if isinstance(exc, UserPolicyError):
                raise
            raise ValueError(f"policy {self.name}: {exc}") from None
        except Exception as exc:
            raise UserPolicyError(describe_exception(exc, self.origin, f"policy {self.name}")) from None

    def schedule(self, sim: Any, completed: list[int], arrived: list[int]) -> None:
        """Let the user's policy decide; then check no job waits on an idle machine."""
        view = MatrixView(sim, arrived, completed, self.rng)
        act = MatrixActions(sim, origin=self.origin, check=self.check, buddy=self._buddy,
                            migrates=self._migrates)
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

    @classmethod
    def fire(cls, _signum: int, frame: Any) -> None:
        if cls.armed:
            message = f"took longer than its limit of {cls.limit:g} s (decision_limit)"
            escape.start(frame, _call.__code__, lambda: DecisionTimeout(message),
                         own=(cls.fire.__code__,))
            raise DecisionTimeout(message)

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


def _call(fn: Callable[[], Any], origin: str, what: str, limit: float, kind: str = "policy") -> Any:
    """Run user code ``fn`` within ``limit`` seconds; raise :class:`UserPolicyError` naming the
    user's file and line for anything it raises (a :class:`RuleViolation` passes as it is)."""
    timer = _Alarm.usable()
    if timer:
        _Alarm.limit, _Alarm.armed = limit, True
        signal.setitimer(signal.ITIMER_REAL, limit, _Alarm.REPEAT)
    start = time.perf_counter()
    try:
        try:
            result = fn()
        finally:  # first, before any other code runs: the limit is for the user's code only
            if timer:
                _Alarm.armed = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                escape.stop()
    except (RuleViolation, UserPolicyError):
        raise
    except (Exception, SystemExit) as exc:  # sys.exit() in a decision is the policy's failure
        raise UserPolicyError(describe_exception(exc, origin, f"{kind} {what}")) from None
    if time.perf_counter() - start > limit:
        raise UserPolicyError(f"{kind} {what} ({origin}) took longer than its limit of {limit:g} s "
                              "(decision_limit)")
    return result
