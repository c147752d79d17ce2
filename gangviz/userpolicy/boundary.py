"""A user's policy or queue order run in its own process, from the engine's side.

The engine's process keeps the workload, the engine, the rule checker, stdout, the working
directory and every output file; the policy's process (:mod:`gangviz.userpolicy.worker`)
receives what the policy may see and returns the actions it asked for, which are checked and
applied here as if the policy had called them (as Batsim runs a scheduler, Dutot16 §3). One
round trip per decision: the matrix goes over as the change records since the last decision
(the whole matrix only when the two sides disagree), the actions come back as plain numbers.

The limits are kept from here, where the user's code cannot reach them: a call past its limit
is reported by the policy's watchdog with the line it was at, and the process is ended (ended
anyway :data:`GRACE` seconds later, whatever the code does); so is a process that exits, dies
or runs out of memory. Each ends in one :class:`UserPolicyError` naming the user's file.
Ctrl-C and SIGTERM reach this process only: the policy's process is in a process group of its
own, ended with it.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import weakref
from functools import partial
from typing import Any

from gangviz.sim.policy import Policy
from gangviz.userpolicy.errors import RULES, Declared, RuleViolation, UserPolicyError, printable

__all__ = ["Child", "IsolatedPolicy", "IsolatedSpaceEngine", "isolated_order", "fetch_declarations",
           "fetch_listing",
           "GRACE", "MEMORY_MB"]

#: Seconds past a limit before the policy's process is ended without its watchdog's word.
GRACE = 2.0
#: The memory (MB) a policy's process may take beyond what it starts with.
MEMORY_MB = 4096
#: The longest the import of a policy file may take, in seconds.
IMPORT_LIMIT = 30.0
_DEADLOCK = RULES[6]

_CONTEXT: Any = None

#: The modules every policy process needs, imported once by the fork server so that each
#: process starts with them (an import in each process took about 0.4 s on a busy machine).
PRELOAD = ["gangviz.userpolicy.worker", "gangviz.userpolicy.mirror", "gangviz.userpolicy.imports",
           "gangviz.userpolicy.policy", "gangviz.sim.engine", "numpy.random"]


def _context() -> Any:
    """The process start method: a fork server that has imported the worker once
    (:data:`PRELOAD`; each policy process is then a fork of it: about 20 ms), so no thread of this process (the window's) is
    copied into the child."""
    global _CONTEXT
    if _CONTEXT is None:
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        _CONTEXT = multiprocessing.get_context(method)
        if method == "forkserver":
            _CONTEXT.set_forkserver_preload(PRELOAD)
            os.register_at_fork(after_in_child=_forget_fork_server)
    return _CONTEXT


def _forget_fork_server() -> None:
    """In a process forked from this one (a worker of a comparison's or a sweep's pool), forget
    the fork server this one started: it is not the new process's child, so multiprocessing's
    check that it is still running (``waitpid``) fails with ``ChildProcessError``. The new
    process starts a fork server of its own when it first runs a policy."""
    from multiprocessing import forkserver

    server: Any = getattr(forkserver, "_forkserver", None)
    if server is None or getattr(server, "_forkserver_pid", None) is None:
        return
    alive = server._forkserver_alive_fd
    server._forkserver_pid = server._forkserver_address = server._forkserver_alive_fd = None
    server._lock = threading.Lock()  # another thread may have held it at the fork
    if alive is not None:
        try:
            os.close(alive)
        except OSError:
            pass


def _start(process: Any) -> None:
    """Start ``process`` without the fork server running the caller's main script again
    (multiprocessing re-imports ``__main__`` in a new process; a script without a
    ``__name__ == "__main__"`` guard would run twice)."""
    import types

    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        process.start()
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _kill(process: Any) -> None:
    pid = process.pid
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGKILL)  # the process and anything it started
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGKILL)  # not yet in its own group
    except OSError:
        pass
    process.join(5)


class Child:
    """One policy process: :meth:`ask` sends a request and returns the reply, or raises
    :class:`UserPolicyError` when the process overran, ended or died.

    ``label`` names the policy in messages (``policy NAME``), ``origin`` its file.
    """

    def __init__(self, request: dict[str, Any], label: str, origin: str) -> None:
        self.label, self.origin = label, origin
        self.run_limit = math.inf
        self.used = 0.0
        ctx = _context()
        here, there = ctx.Pipe()
        request = {**request, "cwd": os.getcwd(), "origin": origin}
        request.setdefault("memory", MEMORY_MB)
        request.setdefault("limit", IMPORT_LIMIT)
        self.process: Any = ctx.Process(target=_serve, args=(there, request), daemon=True,
                                   name="gangviz-policy")
        _start(self.process)
        there.close()
        self.conn = here
        self._finalizer = weakref.finalize(self, _kill, self.process)
        self.ready = self._wait(float(request["limit"]), "its import")

    def ask(self, message: tuple[Any, ...], limit: float, what: str,
            answer: Any = None) -> tuple[Any, ...]:
        """Send ``message``; return the reply (without the printed output, shown on stderr).
        ``limit`` is the call's own limit; ``what`` names the call in messages; ``answer``
        answers the process's questions on the way (``("remaining",)``)."""
        if self.conn is None:
            raise UserPolicyError(f"{self.label} ({self.origin}): its process has ended")
        try:
            self.conn.send_bytes(pickle.dumps(message, 5))
        except (OSError, ValueError):
            self.close()
            raise UserPolicyError(self._ended(what)) from None
        start = time.monotonic()
        while True:
            reply = self._wait(limit - (time.monotonic() - start), what)
            if reply[0] != "remaining" or answer is None:
                return reply
            self.conn.send_bytes(pickle.dumps(("remaining", answer()), 5))

    def _wait(self, limit: float, what: str) -> tuple[Any, ...]:
        start = time.monotonic()
        budget = min(limit + GRACE, max(self.run_limit - self.used, 0.0) + GRACE, 1e6)
        try:
            ready = self.conn.poll(budget)
            data = self.conn.recv_bytes() if ready else None
        except (EOFError, OSError):
            self.close()
            raise UserPolicyError(self._ended(what)) from None
        except BaseException:  # Ctrl-C, SIGTERM: end the policy's process with this one
            self.close()
            raise
        finally:
            self.used += time.monotonic() - start
        if data is None:
            self.close()
            if self.used >= self.run_limit:
                raise UserPolicyError(f"{self.label} ({self.origin}) was stopped after its whole-run "
                                      f"limit of {self.run_limit:g} s (run_limit)")
            raise UserPolicyError(f"{self.label}: {what} ({self.origin}) was stopped after its limit of "
                                  f"{limit:g} s (decision_limit); its process did not answer")
        try:
            reply = pickle.loads(data) if data is not None else None
        except Exception:
            self.close()
            raise UserPolicyError(f"{self.label} ({self.origin}): its answer to {what} holds an object "
                                  "this process cannot read (return plain numbers, text and tuples)") from None
        if not isinstance(reply, tuple) or not reply:
            self.close()
            raise UserPolicyError(f"{self.label} ({self.origin}): no answer to {what}")
        if reply[0] == "timeout":
            _, called, lim, line = reply
            self.close()
            at = f" at {line}" if line else f" ({self.origin})"
            raise UserPolicyError(f"{printable(called)} was stopped{at} after its limit of {lim:g} s "
                                  "(decision_limit)")
        printed = reply[-1]
        if isinstance(printed, tuple) and len(printed) == 2:
            _show(self.label, *printed)
            reply = reply[:-1]
        return reply

    def _ended(self, what: str) -> str:
        p = self.process
        p.join(1)
        code = p.exitcode
        if code is None:
            how = "stopped answering"
        elif code < 0:
            sig = -code
            name = signal.Signals(sig).name if sig in signal.Signals.__members__.values() else str(sig)
            how = f"was killed by {name}" + (" (out of memory?)" if sig == signal.SIGKILL else "")
        else:
            how = f"ended with exit code {code}"
        return (f"{self.label} ({self.origin}): its process {how} during {what} (os._exit, "
                "sys.exit in a thread, or a crash)")

    def close(self) -> None:
        """End the process (at once: it may be looping)."""
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
            self.conn = None
        self._finalizer()


def _serve(conn: Any, request: dict[str, Any]) -> None:
    from gangviz.userpolicy.worker import serve

    serve(conn, request)


def _show(label: str, text: str, dropped: int) -> None:
    """Show what the policy printed on stderr (never stdout: a ``--json`` document stays whole),
    its control characters escaped."""
    if not text and not dropped:
        return
    lines = text.splitlines() or [""]
    out = "".join(f"{label} printed: {printable(line)}\n" for line in lines[:200])
    if dropped or len(lines) > 200:
        out += f"{label} printed more ({dropped:,} characters not shown)\n"
    try:
        sys.stderr.write(out)
    except (OSError, ValueError):
        pass


def _raise(reply: tuple[Any, ...], label: str, what: str) -> None:
    """Raise what an ``error`` or ``refused`` reply says."""
    if reply[0] == "error":
        raise UserPolicyError(printable(reply[1]))
    if reply[0] == "refused":
        raise ValueError(printable(reply[1]))
    raise UserPolicyError(f"{label}: unexpected answer to {what}: {printable(repr(reply[0]))[:60]}")


def fetch_declarations(target: str, cls_name: str | None, origin: str) -> dict[str, Any]:
    """Import the policy file (or module) ``target`` in a process of its own; return what its
    class ``cls_name`` (the one class when ``None``) declares. Raises
    :class:`UserPolicyError` as the import would."""
    child = Child({"role": "declare", "target": target, "cls": cls_name}, f"policy file {origin}", origin)
    try:
        reply = child.ready
        if reply[0] != "ready":
            _raise(reply, f"policy file {origin}", "its import")
        return dict(reply[1])
    finally:
        child.close()


def fetch_listing(path: str) -> dict[str, list[str]]:
    """Import the policy file ``path`` in a process of its own; return the names of the policy
    classes and the public functions it defines (:func:`gangviz.userpolicy.imports.listing`)."""
    child = Child({"role": "list", "target": path, "cls": None}, f"policy file {path}", path)
    try:
        reply = child.ready
        if reply[0] != "ready":
            _raise(reply, f"policy file {path}", "its import")
        return {k: [str(x) for x in v] for k, v in dict(reply[1]).items()}
    finally:
        child.close()


class _InItsProcess:
    """What both engines of a user's class in its own process take from the class's
    declaration and the run's parameters: names, limits and the request that starts the
    policy's process."""

    def _declare(self, role: str, decl: dict[str, Any], target: str, cls_name: str | None, origin: str,
                 spec: str, params: dict[str, Any]) -> None:
        self.origin = origin
        self.spec = spec or origin
        self.check = bool(params.get("check", True))
        self.limit = float(params.get("decision_limit", 5.0))
        self.run_limit = float(params.pop("run_limit", math.inf) or math.inf)
        self.memory = params.pop("memory_limit", MEMORY_MB)
        self.name = str(decl.get("name") or decl["__name__"])
        self.paper = str(decl.get("paper") or origin)
        self._request = {"role": role, "target": target, "cls": cls_name, "spec": self.spec,
                         "params": params, "memory": self.memory}


class IsolatedPolicy(_InItsProcess, Policy):
    """The engine's policy for a user's :class:`~gangviz.userpolicy.MatrixPolicy` run in its own
    process: ``decl`` is what the class declares, ``target``/``cls_name`` where it is."""

    def __init__(self, decl: dict[str, Any], target: str, cls_name: str | None, origin: str, *,
                 spec: str = "", **params: Any) -> None:
        self._declare("matrix", decl, target, cls_name, origin, spec, params)
        at = decl.get("decides_at")
        self.decides_at = at if at in ("boundary", "event") else "boundary"
        self.declared = Declared(bool(decl.get("buddy")), bool(decl.get("migrates")))
        self._child: Child | None = None
        self._ahead_queue: Any = None
        self._ahead_done = False
        self._sent: set[int] = set()
        self._last = -math.inf
        self._sim_id = 0

    @property
    def label(self) -> str:
        """How messages name the policy."""
        return f"policy {printable(self.name)}"

    def _process(self) -> Child:
        if self._child is None:
            child = Child(self._request, self.label, self.origin)
            child.run_limit = self.run_limit
            if child.ready[0] != "ready":
                child.close()
                _raise(child.ready, self.label, "its import")
            self._child = child
        return self._child

    @property
    def process_id(self) -> int | None:
        """The id of the policy's process while one runs (a benchmark reads its CPU time), else
        ``None``."""
        child = self._child
        return None if child is None or child.conn is None else child.process.pid

    def close(self) -> None:
        """End the policy's process (a later call starts a new one)."""
        if self._child is not None:
            self._child.close()
            self._child = None
        self._ahead_queue = None

    def get_state(self) -> Any:
        """Nothing to keep for stepping back: the policy's own state lives in its process."""
        return None

    def set_state(self, state: Any) -> None:
        """After a step back, send the whole matrix at the next decision."""
        self._sim_id = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> IsolatedPolicy:
        # a copy shares nothing with this one's process: it starts its own when it decides
        other = IsolatedPolicy.__new__(IsolatedPolicy)
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("_child", "_sent")})
        other._child, other._sent, other._sim_id, other._ahead_queue = None, set(), 0, None
        return other

    def check_machine(self, processors: int, ring: bool) -> None:
        """Run the user's ``setup`` in the policy's process: its ``ValueError`` refuses the
        machine (``ValueError``), anything else is the policy's failure."""
        self.close()  # a new run: a fresh process
        reply = self._process().ask(("setup", processors, ring), self.limit, f"{self.name}.setup")
        if reply[0] != "ok":
            _raise(reply, self.label, "setup")

    def schedule(self, sim: Any, completed: list[int], arrived: list[int]) -> None:
        """One decision: send the state, apply the actions it returns through the checker (or
        take the next decision of a run simulated ahead, see :meth:`_ahead`)."""
        if self._ahead_queue is None and id(sim) != self._sim_id and _can_run_ahead(sim):
            self._start_ahead(sim)
        if self._ahead_queue is not None:
            self._take_ahead(sim, completed, arrived)
            return
        child = self._process()
        full = id(sim) != self._sim_id or sim.time < self._last
        answer = partial(_remaining, sim)
        reply = child.ask(("decide", self._state(sim, completed, arrived, full)), self.limit,
                          f"{self.name}.decide", answer)
        if reply[0] == "resync":
            reply = child.ask(("decide", self._state(sim, completed, arrived, True)), self.limit,
                              f"{self.name}.decide", answer)
        self._sim_id, self._last = id(sim), sim.time
        if reply[0] != "done":
            _raise(reply, self.label, "decide")
        _, log, error, _fp = reply
        apply_actions(sim, log, origin=self.origin, check=self.check, declared=self.declared)
        if error:
            raise UserPolicyError(printable(error))
        idle_check(sim, self.check, self.origin, self.name)

    def _start_ahead(self, sim: Any) -> None:
        """Have the policy's process simulate the whole run on its own engine and send its
        decisions in batches: one round trip per batch instead of per decision. Each is checked
        and applied here at the same decision of this run, which must find the same time,
        arrivals and completions (else the run stops: the policy changed its copy)."""
        from collections import deque

        child = self._process()
        jobs = [rec.spec for rec in sim.jobs.values()]
        child.conn.send_bytes(pickle.dumps(("ahead", type(sim), jobs, sim.processors, bool(sim.matrix.ring),
                                            float(sim.overhead)), 5))
        self._ahead_queue = deque()
        self._ahead_done = False
        self._sim_id = id(sim)

    def _take_ahead(self, sim: Any, completed: list[int], arrived: list[int]) -> None:
        queue = self._ahead_queue
        assert queue is not None
        child = self._process()
        while not queue:
            if self._ahead_done:
                raise UserPolicyError(f"{self.label} ({self.origin}): its process ended its run before "
                                      f"this one (t={sim.time:g})")
            reply = child._wait(self.limit, f"{self.name}.decide")
            if reply[0] == "ahead":
                queue.extend(reply[1])
            elif reply[0] == "end":
                self._ahead_done = True
            else:
                _raise(reply, self.label, "decide")
        t, done, came, log, error = queue.popleft()
        if t != sim.time or done != sorted(completed) or came != sorted(arrived):
            raise UserPolicyError(f"{self.label} ({self.origin}): its process decided at t={t:g} with other "
                                  f"arrivals or completions than the engine's at t={sim.time:g} (the policy "
                                  "changed its copy of the engine's state)")
        apply_actions(sim, log, origin=self.origin, check=self.check, declared=self.declared)
        if error:
            raise UserPolicyError(printable(error))
        idle_check(sim, self.check, self.origin, self.name)

    def _state(self, sim: Any, completed: list[int], arrived: list[int], full: bool) -> tuple[Any, ...]:
        from gangviz.userpolicy.mirror import fingerprint

        m = sim.matrix
        if full:
            self._sent = set()
        sent = self._sent
        waiting = sim.waiting
        running = m.jobs()
        new = [j for j in waiting if j not in sent] + [j for j in running if j not in sent]
        specs = [sim.jobs[j].spec for j in new]
        sent.update(new)
        delta = [c for c in sim.current_changes if c.kind != "row_activated"]
        return (sim.time, m.snapshot() if full else None, delta, specs, waiting, fingerprint(m),
                list(arrived), list(completed))


def _can_run_ahead(sim: Any) -> bool:
    """Whether the policy's process can simulate ``sim``'s run ahead of it: a headless run (no
    history to step back in, no window), from an empty matrix, without a script or a queue
    order (each of which only this process holds), not yet started."""
    return (not getattr(sim, "record", True) and not getattr(sim, "watch", True) and sim.order is None
            and not sim.script and sim.matrix.n_rows == 0 and sim.matrix.n_jobs == 0
            and type(sim).__name__ == "Simulation")


def _remaining(sim: Any) -> dict[int, float]:
    """The service each running job of ``sim`` still needs."""
    return {j: sim.remaining(j) for j in sim.matrix.jobs()}


def apply_actions(sim: Any, log: Any, *, origin: str, check: bool, declared: Declared) -> None:
    """Check and apply the actions a policy's process recorded, in order, as the policy would
    have called them here; the first that breaks a rule raises its :class:`RuleViolation`
    (naming the line the policy called it from)."""
    from gangviz.userpolicy.actions import MatrixActions
    from gangviz.userpolicy.mirror import ACTIONS

    act = MatrixActions(sim, origin=origin, check=check, declared=declared)
    if not isinstance(log, list):
        raise UserPolicyError(f"{origin}: the policy's process answered with no list of actions")
    for entry in log:
        try:
            name, args, reason, line, _refused = entry
        except (TypeError, ValueError):
            raise UserPolicyError(f"{origin}: the policy's process answered with a malformed action") from None
        if name not in ACTIONS or not isinstance(args, tuple) or not isinstance(reason, str):
            raise UserPolicyError(f"{origin}: the policy's process answered with an unknown action "
                                  f"{printable(repr(name))[:40]}")
        act._where = line if isinstance(line, str) else origin  # escaped if a rule is broken
        getattr(act, name)(*args, reason=reason)


def idle_check(sim: Any, check: bool, origin: str, name: str) -> None:
    """Raise the :class:`RuleViolation` of a job left waiting on an idle machine."""
    m = sim.matrix
    if check and m.n_jobs == 0:
        left = [j for j in sim.waiting if j not in m]
        if left:
            raise RuleViolation(sim.time, m.name(left[0]), _DEADLOCK,
                                "the machine is idle after the decision and the job was not placed; "
                                "place a waiting job that fits (open a slot if none has room)",
                                f"{origin} ({printable(name)}.decide)")


class IsolatedSpaceEngine(_InItsProcess):
    """A user's :class:`~gangviz.userpolicy.SpacePolicy` run in its own process: the whole run
    is simulated there (each ``decide`` under its limit), and the schedule it returns is
    audited here against the workload this process owns before it is used."""

    def __init__(self, decl: dict[str, Any], target: str, cls_name: str | None, origin: str, *,
                 spec: str = "", **params: Any) -> None:
        from gangviz.spacesharing.policy import MODES

        self.estimates = params.get("estimates", "requested")
        self.kill = bool(params.get("kill", True))
        self._declare("space", decl, target, cls_name, origin, spec, params)
        follows = decl.get("follows") or ""
        if follows and follows not in MODES:
            raise UserPolicyError(f"{origin}: {decl['__name__']}.follows must be one of {', '.join(MODES)} "
                                  f"or empty, got {printable(repr(follows))}")
        self.follows = follows
        self.mode = self.follows or "conservative"

    def label(self) -> str:
        """The spec that names the policy."""
        return self.spec

    def check_machine(self, processors: int, ring: bool) -> None:
        """Nothing to check before the run: ``setup`` runs in the policy's process with it."""

    def check_source(self, source: Any) -> None:
        """Raise ``ValueError`` for a scenario that starts from a matrix or scripts events."""
        if source.matrix is not None or source.script:
            raise ValueError(f"{printable(self.name)} is a space-sharing policy: it runs traces and models, "
                             "not a scenario that starts from a matrix or scripts events")

    def simulate(self, jobs: Any, processors: int, *, log: bool = False) -> Any:
        """Run the policy on ``jobs`` in its process; return the audited
        :class:`~gangviz.spacesharing.backfill.BackfillResult`."""
        label = f"policy {printable(self.name)}"
        child = Child(self._request, label, self.origin)
        child.run_limit = self.run_limit
        try:
            if child.ready[0] != "ready":
                _raise(child.ready, label, "its import")
            limit = self.run_limit if math.isfinite(self.run_limit) else 1e6
            reply = child.ask(("simulate", list(jobs), processors, log), limit, f"{self.name}'s run")
        finally:
            child.close()
        if reply[0] == "violation" and isinstance(reply[1], RuleViolation):
            raise reply[1]
        if reply[0] != "result":
            _raise(reply, label, "its run")
        return audit_space(reply[1], jobs, processors, self)


def audit_space(result: Any, jobs: Any, processors: int, engine: Any) -> Any:
    """Rebuild a space-sharing run's records on this process's own job specs from the start
    times the policy's process reported, and hold them to the rules: every job started once, at
    or after its arrival; never more processors in use than the machine has; the reservation
    rule the policy declares. Raises :class:`RuleViolation` at the first that fails."""
    from gangviz.spacesharing.backfill import BackfillRecord, _estimates_and_runs

    specs = sorted(jobs, key=lambda j: (j.arrival, j.id))
    try:
        starts = {int(r.spec.id): float(r.start) for r in result.records}
    except (AttributeError, TypeError, ValueError):
        raise UserPolicyError(f"{engine.origin}: the policy's process answered with no schedule") from None
    where = f"{engine.origin} ({printable(engine.name)}.decide)"
    size = [s.size for s in specs]
    work = [s.work for s in specs]
    requested = None if engine.estimates == "exact" else [s.estimate for s in specs]
    _est, run = _estimates_and_runs(size, work, requested, processors, "easy", engine.kill,
                                    lambda k: specs[k].name)
    events = []
    records = []
    first_res = {int(r.spec.id): r.reservation for r in result.records}
    for k, s in enumerate(specs):
        t = starts.get(s.id)
        if t is None or not math.isfinite(t):
            raise RuleViolation(float(result.end), s.name, _DEADLOCK, "it never started", where)
        if t < s.arrival:
            raise RuleViolation(t, s.name, RULES[4], f"started at {t:g} before it arrived at {s.arrival:g}", where)
        events += [(t, 1, s.size), (t + run[k], 0, -s.size)]
        records.append(BackfillRecord(s, t, t + run[k], first_res.get(s.id)))
    busy = 0
    for t, _, delta in sorted(events):
        busy += delta
        if busy > processors:
            raise RuleViolation(t, "the machine", RULES[8], f"{busy} processors in use on a machine of {processors}",
                                where)
    if engine.check and engine.follows:
        from gangviz.spacesharing.checker import check_schedule

        bad = check_schedule(specs, {s.id: starts[s.id] for s in specs}, processors, engine.follows,
                             estimates=engine.estimates, kill=engine.kill)
        if bad:
            from gangviz.userpolicy.space import RESERVATION_RULE

            v = bad[0]
            name = next((s.name for s in specs if s.id == v.job), str(v.job))
            raise RuleViolation(v.time, name, f"{RESERVATION_RULE} ({engine.follows}: {v.rule})", v.detail, where)
    from dataclasses import replace

    return replace(result, records=sorted(records, key=lambda rec: rec.spec.id), order=specs,
                   end=max((r.finish for r in records if r.finish is not None), default=0.0))


def isolated_order(spec: str, origin: str, limit: float) -> Any:
    """Return the queue order ``spec`` as a sort key computed in its own process (one round
    trip per batch of jobs not seen before; a job's key is kept: an order is a function of the
    job), each call within ``limit`` seconds. The key raises :class:`UserPolicyError` as
    :func:`gangviz.userpolicy.loader.order_key` says."""
    child = Child({"role": "order", "target": spec, "cls": None, "spec": spec, "limit": limit},
                  f"order {printable(spec)}", origin)
    if child.ready[0] != "ready":
        child.close()
        _raise(child.ready, f"order {spec}", "its import")
    keys: dict[Any, Any] = {}  # by job spec (hashable: its fields, its extras left out)

    def compute(job: Any) -> Any:
        got = keys.get(job)
        if got is None and job not in keys:
            reply = child.ask(("keys", [job]), limit, f"order {spec}")
            if reply[0] != "keys":
                child.close()
                _raise(reply, f"order {spec}", "its key")
            got = keys[job] = reply[1][0]
        return got

    compute.child = child  # type: ignore[attr-defined]  # kept alive as long as the key
    return compute
