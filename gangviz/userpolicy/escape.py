"""Ending user code that swallows its own time limit, without a process boundary.

The decision limit is a ``SIGALRM`` that raises :class:`~gangviz.userpolicy.errors.DecisionTimeout`
inside the user's code. A retry loop such as ``while True: try: ... except: pass`` catches it
and goes on for ever; raising again at the next signal lands in the same ``try`` most of the
time. Once the limit has passed, :func:`start` therefore traces the user's frames instruction by
instruction and raises the timeout again only at an instruction where no handler of that frame
can catch it (:func:`caught_at`, read from the code's exception table), so the exception leaves
the frame; a profile hook notices the frame leaving and traces its caller the same way, up to
the frame of the caller that set the limit. Each frame is left at its first uncaught
instruction, however its ``try`` blocks nest, whether the loop is in the decision itself or in
a helper it calls.

What this cannot end: a loop inside one C call (``sum(range(10**12))``, a regex that
backtracks) holds the interpreter until the call returns, and a ``with`` block whose context
manager suppresses exceptions around a loop is treated as a handler (its loop ends at the next
signal only if the signal lands outside it). Tracing costs nothing before the limit: it starts
only once user code has overrun it.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

__all__ = ["start", "stop", "active", "caught_at"]

#: the instruction sequence of a handler that only cleans up and re-raises
_CLEANUP = ("COPY", "POP_EXCEPT", "RERAISE")
#: code object -> offsets of its instructions where an exception is caught within the frame
_CAUGHT: dict[CodeType, frozenset[int]] = {}


class _State:
    on = False
    boundary: CodeType | None = None  # the code of the frame that set the limit: never traced
    error: Callable[[], BaseException] = Exception
    own: frozenset[CodeType] = frozenset()
    previous: tuple[Any, Any] = (None, None)  # a debugger's or coverage's hooks, given back


def caught_at(code: CodeType) -> frozenset[int]:
    """Return the offsets of the instructions of ``code`` where an exception raised would be
    caught by a handler of the same frame (a cleanup handler that only re-raises does not
    count: the exception goes on from its ``RERAISE``), and of those that have no line of
    their own (not a place to stop at)."""
    found = _CAUGHT.get(code)
    if found is not None:
        return found
    ins = list(dis.get_instructions(code))
    index = {i.offset: k for k, i in enumerate(ins)}
    parse = getattr(dis, "_parse_exception_table", None)
    table = list(parse(code)) if parse is not None else []

    def caught(offset: int) -> bool:
        for _ in range(64):  # a chain of cleanups ends well before
            entry = next((e for e in table if e.start <= offset < e.end), None)
            if entry is None:
                return False
            k = index.get(entry.target)
            if k is None or tuple(i.opname for i in ins[k:k + 3]) != _CLEANUP:
                return True
            offset = ins[k + 2].offset  # re-raised from there
        return True

    # no table to read: assume every instruction may be caught; an instruction without a line
    # (the compiler's own) counts as caught too, so the message always names a line
    found = frozenset(i.offset for i in ins if parse is None or caught(i.offset)
                      or i.positions is None or i.positions.lineno is None)
    if len(_CAUGHT) > 4096:
        _CAUGHT.clear()
    _CAUGHT[code] = found
    return found


def _tracer(frame: FrameType, event: str, _arg: Any) -> Any:
    if not _State.on:
        return None
    if event == "call":
        back = frame.f_back
        if frame.f_code in _State.own or (back is not None and back.f_code is _State.boundary):
            return None
        frame.f_trace_opcodes = True
        return _tracer
    if event == "opcode" and frame.f_lasti not in caught_at(frame.f_code):
        raise _State.error()  # leaves this frame: the profile hook traces the caller
    return _tracer


def _profile(frame: FrameType, event: str, _arg: Any) -> None:
    if _State.on and event == "return" and frame.f_code not in _State.own:
        _trace_from(frame.f_back)


def _trace_from(frame: FrameType | None) -> None:
    """Trace ``frame`` and its callers up to the boundary (a raise in the tracer switches
    tracing off: switch it on again)."""
    while frame is not None and frame.f_code is not _State.boundary:
        if frame.f_code not in _State.own:
            frame.f_trace = _tracer
            frame.f_trace_opcodes = True
        frame = frame.f_back
    sys.settrace(_tracer)


def start(frame: FrameType | None, boundary: CodeType, error: Callable[[], BaseException],
          own: tuple[CodeType, ...] = ()) -> None:
    """Make the user code running in ``frame`` (and its callers up to the frame running
    ``boundary``) raise ``error()`` at the first instruction no handler of theirs catches.

    Called from the limit's signal handler (``own``: the codes of that handler and its
    helpers, never traced). Lasts until :func:`stop`.
    """
    if not _State.on:
        _State.previous = (sys.gettrace(), sys.getprofile())
    _State.on, _State.boundary, _State.error = True, boundary, error
    _State.own = frozenset(own) | {_tracer.__code__, _profile.__code__, _trace_from.__code__,
                                   start.__code__, stop.__code__}
    _trace_from(frame)
    sys.setprofile(_profile)


def stop() -> None:
    """End what :func:`start` began (call it before running any other code past the limit)."""
    if _State.on:
        _State.on = False
        trace, profile = _State.previous
        sys.setprofile(profile)
        sys.settrace(trace)


def active() -> bool:
    """Whether user code is being ended (:func:`start` ran and :func:`stop` has not)."""
    return _State.on
