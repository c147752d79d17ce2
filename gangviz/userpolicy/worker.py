"""The process a user's policy runs in: it imports the user's file, receives what the policy may
see, runs the user's code and returns the actions it asked for (as Batsim runs a scheduler
beside the simulator, Dutot16 §3).

The parent (:mod:`gangviz.userpolicy.boundary`) owns the workload, the engine, the rule checker,
stdout, the working directory and every output file: what the user's code does here (changes a
job, patches a checker, writes a private attribute, prints, calls ``os._exit``, starts a thread,
changes directory) stays in this process. This side keeps a mirror of the matrix so the policy
sees the effect of its own actions within a decision; the parent checks and applies each action
again on its own state.

A watchdog thread reports the line the user's code was at when a call runs past its limit; the
parent then ends the process (and ends it anyway a grace period later, whatever the code does).
"""

from __future__ import annotations

import io
import math
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from functools import partial
from typing import Any

from gangviz.userpolicy.errors import frame_line
from gangviz.userpolicy.mirror import Opaque

__all__ = ["serve", "Watchdog", "declarations"]

#: Characters of the policy's printed output forwarded per run (the rest is counted).
PRINT_CAP = 16_384
#: Seconds a process that reported a call past its limit waits to be ended before it ends
#: itself (the engine's process ends it within its grace of 2 s).
SELF_END = 10.0


def _plain(value: Any, depth: int = 0) -> Any:
    from dataclasses import fields

    from gangviz.core.params import Param

    if value is None or type(value) in (str, int, float, bool):
        return value
    if type(value) in (tuple, list) and depth < 3:
        return tuple(_plain(v, depth + 1) for v in value)
    if type(value) is Param:
        parts = {f.name: _plain(getattr(value, f.name), depth + 1) for f in fields(Param)}
        if not any(isinstance(v, Opaque) for v in parts.values()):
            return Param(**parts)
    try:
        text = repr(value)
    except BaseException:
        text = f"<{type(value).__name__}>"
    return Opaque(text[:200])


#: The class attributes a policy declares, read by the parent to build its registry entry.
DECLARED = ("name", "paper", "params", "family", "decides_at", "buddy", "migrates", "follows")


def _text(value: Any) -> str:
    try:
        return repr(value)[:200]
    except BaseException:
        return f"<{type(value).__name__}>"


def declarations(cls: type) -> dict[str, Any]:
    """Return the plain data a policy class declares (:data:`DECLARED`, its name and the first
    line of its docstring); anything else comes as :class:`Opaque`."""
    out = {key: _plain(getattr(cls, key, None)) for key in DECLARED}
    out["__name__"] = str(cls.__name__)
    out["__doc__"] = _plain(cls.__doc__) if isinstance(cls.__doc__, str) else None
    return out


class Watchdog:
    """Reports the user's line when a call runs past its limit (a daemon thread: the user's
    code cannot catch what it does, only the parent ends the process)."""

    def __init__(self, send: Any, origin: str | None) -> None:
        self.send = send
        self.origin = origin
        self.lock = threading.Lock()
        self.deadline = 0.0
        self.what = ""
        self.limit = 0.0
        self.main = threading.get_ident()
        #: called before the timeout is reported (sends what was decided until then)
        self.before_timeout: Any = None
        # The thread sleeps until the deadline it last saw (``wake``), not in short polls: a
        # call armed after that deadline needs no wake-up (the thread then sleeps on to it), so
        # a run of short calls wakes it about once per limit. ``gate`` orders an arm against
        # the thread's choice of ``wake``.
        self.gate = threading.Lock()
        self.wake = math.inf
        self.bell = threading.Event()
        threading.Thread(target=self._loop, name="gangviz-watchdog", daemon=True).start()

    def arm(self, what: str, limit: float) -> None:
        """Start timing a call named ``what`` of at most ``limit`` seconds."""
        self.what, self.limit = what, limit
        with self.gate:
            self.deadline = deadline = time.monotonic() + limit
            if deadline < self.wake:  # the thread would sleep past it
                self.bell.set()

    def disarm(self) -> bool:
        """Stop timing; return ``False`` when the watchdog already fired."""
        with self.lock:
            fired = self.deadline < 0
            self.deadline = 0.0
            return not fired

    def _loop(self) -> None:
        while True:
            d = self.deadline
            now = time.monotonic()
            if d > 0 and now >= d:
                with self.lock:
                    fired = self.deadline > 0 and time.monotonic() >= self.deadline
                    if fired:
                        self.deadline = -1.0
                        if self.before_timeout is not None:
                            try:
                                self.before_timeout()
                            except Exception:
                                pass
                        frame = sys._current_frames().get(self.main)
                        try:
                            self.send(("timeout", self.what, self.limit, frame_line(frame, self.origin)))
                        except OSError:  # the engine's process no longer listens
                            os._exit(1)
                if fired:
                    # The engine's process ends this one as soon as it reads the report; should
                    # it no longer be there to do so, this process ends itself rather than loop.
                    time.sleep(SELF_END)
                    os._exit(1)
            with self.gate:
                d = self.deadline
                self.wake = d if d > 0 else math.inf
                self.bell.clear()
            self.bell.wait(max(d - time.monotonic(), 0.0) if d > 0 else None)


class _Capture(io.TextIOBase):
    """``sys.stdout`` and ``sys.stderr`` of the policy's process: keeps the first
    :data:`PRINT_CAP` characters for the parent to show on its stderr, counts the rest."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = PRINT_CAP - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self) -> tuple[str, int]:
        """Return the text kept since the last call and how many characters were dropped."""
        text, dropped = "".join(self.parts), self.dropped
        self.parts, self.dropped = [], 0
        return text, dropped


def _isolate(request: dict[str, Any]) -> _Capture:
    """Cut the process off from the parent's terminal and limit its memory."""
    try:
        os.setpgid(0, 0)  # Ctrl-C in the terminal reaches the parent, which ends this process
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    capture = _Capture()
    sys.stdout = sys.stderr = capture
    sys.stdin = io.StringIO()
    try:
        os.chdir(request["cwd"])
    except OSError:
        pass
    memory = request.get("memory")
    if memory:
        try:
            import resource

            used = _address_space()
            cap = used + int(memory) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        except (ImportError, ValueError, OSError):
            pass
    return capture


def _address_space() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _die_with_parent() -> None:
    """On Linux, have the kernel end this process when the parent dies (even by SIGKILL)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def serve(conn: Any, request: dict[str, Any]) -> None:
    """The process's main function: answer the parent's requests on ``conn`` until it closes.

    ``request`` holds ``role`` (``"declare"``, ``"matrix"``, ``"space"`` or ``"order"``), the
    ``target`` file or module, ``cls`` (the class or function name, or ``None``), the parent's
    ``cwd``, the ``memory`` limit in MB and, for a policy, its ``params``."""
    capture = _isolate(request)
    lock = threading.Lock()

    def send(message: Any) -> None:
        data = pickle.dumps(message, 5)
        with lock:
            conn.send_bytes(data)

    origin = request.get("origin")
    dog = Watchdog(send, origin)
    from gangviz.userpolicy import policy as policy_module

    policy_module.WATCH = dog  # every call of user code here is timed by the watchdog
    try:
        _Server(conn, send, dog, capture, request).run()
    except (EOFError, OSError):
        pass
    except BaseException:
        try:
            send(("error", "internal error in the policy's process: "
                  + traceback.format_exc(limit=-1).strip().splitlines()[-1][:300]))
        except BaseException:
            pass
    os._exit(0)  # no atexit handler, no thread of the user's keeps this process alive


class _Server:
    """One policy's requests, answered in turn."""

    def __init__(self, conn: Any, send: Any, dog: Watchdog, capture: _Capture, request: dict[str, Any]) -> None:
        self.conn, self.send, self.dog, self.capture, self.request = conn, send, dog, capture, request
        self.user: Any = None
        self.engine: Any = None
        self.mirror: Any = None
        self.fn: Any = None

    def run(self) -> None:
        if not self._load():
            return
        while True:
            message = pickle.loads(self.conn.recv_bytes())
            kind = message[0]
            if kind == "quit":
                return
            reply = getattr(self, "_on_" + kind)(*message[1:])
            text, dropped = self.capture.take()
            self.send(reply + ((text, dropped),))

    def _load(self) -> bool:
        from gangviz.userpolicy.errors import UserPolicyError
        from gangviz.userpolicy.imports import check_declarations, load_class, load_function
        from gangviz.userpolicy.policy import _call

        r = self.request
        role = r["role"]
        try:
            if role == "list":
                from gangviz.userpolicy.imports import listing

                found = _call(lambda: listing(r["target"]), r["origin"], "import", r["limit"], kind="policy file")
                self.send(("ready", found, self.capture.take()))
                return False
            if role == "order":
                self.fn, _ = _call(lambda: load_function(r["target"]), r["origin"], "import", r["limit"],
                                   kind="order")
                self.send(("ready", {}, self.capture.take()))
                return True
            cls, origin = _call(lambda: load_class(r["target"], r["cls"]), r["origin"], "import", r["limit"],
                                kind="policy file")
            check_declarations(cls, origin)  # on the class itself: its base, not a stand-in's
            decl = declarations(cls)
            decl["__origin__"] = str(origin)
            if role == "declare":
                self.send(("ready", decl, self.capture.take()))
                return False
            if role == "space":
                from gangviz.userpolicy.space import SpaceEngine

                self.engine = SpaceEngine(cls, r["origin"], spec=r["spec"], **r["params"])
            else:
                from gangviz.userpolicy.policy import EnginePolicy

                self.engine = EnginePolicy(cls, r["origin"], spec=r["spec"], **r["params"])
        except UserPolicyError as exc:
            self.send(("error", str(exc), self.capture.take()))
            return False
        self.send(("ready", decl, self.capture.take()))
        return True

    # ------------------------------------------------------------------ requests
    def ask_remaining(self) -> dict[int, float]:
        """Ask the parent, mid-decision, for the service each running job still needs."""
        self.send(("remaining",))
        reply = pickle.loads(self.conn.recv_bytes())
        return dict(reply[1])

    def _on_setup(self, processors: int, ring: bool) -> tuple[Any, ...]:
        from gangviz.userpolicy.errors import RuleViolation, UserPolicyError

        try:
            self.engine.check_machine(processors, ring)
        except (UserPolicyError, RuleViolation) as exc:
            return ("error", str(exc))
        except ValueError as exc:
            return ("refused", str(exc))
        return ("ok",)

    def _on_decide(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        from gangviz.userpolicy.mirror import decide

        return decide(self, state)

    def _on_ahead(self, engine_class: Any, jobs: list[Any], processors: int, ring: bool,
                  overhead: float) -> tuple[Any, ...]:
        from gangviz.userpolicy.mirror import run_ahead

        return run_ahead(self, engine_class, jobs, processors, ring, overhead)

    def _on_simulate(self, jobs: list[Any], processors: int, log: bool) -> tuple[Any, ...]:
        from gangviz.userpolicy.errors import RuleViolation, UserPolicyError

        try:
            result = self.engine.simulate(jobs, processors, log=log)
        except RuleViolation as exc:
            return ("violation", exc)
        except UserPolicyError as exc:
            return ("error", str(exc))
        except ValueError as exc:
            return ("refused", str(exc))
        return ("result", result)

    def _on_keys(self, jobs: list[Any]) -> tuple[Any, ...]:
        from gangviz.userpolicy.errors import UserPolicyError
        from gangviz.userpolicy.policy import _call

        r = self.request
        keys = []
        try:
            from gangviz.userpolicy.imports import key_kind

            for job in jobs:
                key = _call(partial(self.fn, job), r["origin"], r["spec"], r["limit"], kind="order")
                keys.append(key if key_kind(key) is not None else Opaque(_text(key)))
            data = pickle.dumps(keys, 5)
        except UserPolicyError as exc:
            return ("error", str(exc))
        except BaseException as exc:
            from gangviz.userpolicy.errors import describe_exception

            return ("error", describe_exception(exc, r["origin"], f"order {r['spec']}: its key"))
        return ("keys", pickle.loads(data))
