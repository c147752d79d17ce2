"""What goes wrong in a user's policy, told in one line that names the user's file and line.

:class:`UserPolicyError` is raised for a policy file that does not load (a syntax error, a
failed import, no policy class or two of them) and for user code that raises, returns something
other than ``None`` or runs past its decision limit; :class:`RuleViolation` for an action that
breaks a rule of the policy's family. Both are ``ValueError``s, so every command reports them as
its other bad input: one line on stderr, no traceback. The line shows the user's own frames
only (:func:`user_frames`), never gangviz's.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

__all__ = ["UserPolicyError", "RuleViolation", "DecisionTimeout", "user_frames", "describe_exception",
           "caller_line", "def_line", "RULES", "Declared", "printable", "frame_line"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the Python installation and its environment: its launchers (``bin/gangviz``) are not user code
_PYTHON = tuple({os.path.abspath(p) + os.sep for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})

#: The rules a user's policy is held to (``check-policy`` reports a verdict for each).
RULES = (
    "no processor holds two processes in one slot",
    "a gang's processes share one slot",
    "a re-pack never moves a process to another processor",
    "buddy blocks are aligned",
    "no job starts before it arrives",
    "work is conserved",
    "no job waits forever while the machine is idle",
    "every action names a job, slot and processors that exist",
    "never more processors in use than the machine has",
    "the matrix changes only through the policy's actions",
)


@dataclass(frozen=True, slots=True)
class Declared:
    """The rules a user's time-slot policy takes on by declaring them: ``buddy`` (every job
    takes an aligned block of the next power of two, and the checker holds it to that) and
    ``migrates`` (it may move a running job to other processors)."""

    buddy: bool = False
    migrates: bool = False


class UserPolicyError(ValueError):
    """A user's policy that does not load or fails while deciding (the message names the
    user's file and line)."""


class RuleViolation(ValueError):
    """An action of a user's policy that breaks a rule of its family.

    ``time``, ``job`` (its name), ``rule`` (one of :data:`RULES`) and ``where`` (the policy's
    ``file:line``) make up the one-line message. ``slot`` and ``processors`` are the cells of
    the matrix the refused action asked for, when it named them (the window outlines them),
    else ``None`` and ``()``.
    """

    def __init__(self, time: float, job: str, rule: str, detail: str, where: str, *,
                 slot: int | None = None, processors: tuple[int, ...] = ()) -> None:
        self.time, self.job, self.rule, self.detail, self.where = time, job, rule, detail, where
        self.slot, self.processors = slot, tuple(processors)
        super().__init__(f"t={time:g}: {printable(job)}: breaks the rule \"{rule}\" ({printable(detail)}) "
                         f"at {where}")

    def __reduce__(self) -> tuple[Any, ...]:
        # the keyword fields are not in ``args``: pickle (a worker process's report) by fields
        return (_violation, (self.time, self.job, self.rule, self.detail, self.where, self.slot,
                             self.processors))


def _violation(time: float, job: str, rule: str, detail: str, where: str, slot: int | None,
               processors: tuple[int, ...]) -> RuleViolation:
    return RuleViolation(time, job, rule, detail, where, slot=slot, processors=processors)


def printable(text: object) -> str:
    """Return ``text`` with every control character escaped (``\\n``, ``\\x1b``, ...), so a name
    or a message from user code cannot clear the terminal or split a line of output."""
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class DecisionTimeout(Exception):
    """Raised inside user code that runs past its per-decision limit (an ``Exception``, so the
    user's own ``except Exception`` could catch it; the engine checks the clock again)."""


@functools.lru_cache(maxsize=1024)
def _abspath(path: str) -> str:
    return os.path.abspath(path)


def _is_user(filename: str, origin: str | None) -> bool:
    if origin is not None and (filename == origin or _abspath(filename) == _abspath(origin)):
        return True
    path = _abspath(filename)
    return not path.startswith(_PACKAGE) and not path.startswith(_PYTHON) and not path.startswith(os.path.dirname(os.__file__)) \
        and "site-packages" not in path and not filename.startswith("<")  # <frozen ...>, <string>


def user_frames(tb: TracebackType | None, origin: str | None) -> list[traceback.FrameSummary]:
    """Return the frames of ``tb`` in the user's code (``origin``, or any file outside gangviz,
    the standard library and installed packages), outermost first."""
    return [f for f in traceback.extract_tb(tb) if _is_user(f.filename, origin)]


def describe_exception(exc: BaseException, origin: str | None, what: str = "") -> str:
    """Return ``file:line in function: Type: message`` for ``exc`` raised in user code (its
    innermost user frame; a syntax error's own file and line), with ``what`` in front."""
    lead = f"{printable(what)}: " if what else ""
    if isinstance(exc, SyntaxError):
        return printable(f"{lead}{exc.filename}:{exc.lineno}: SyntaxError: {exc.msg}")
    where = _innermost_user_frame(exc.__traceback__, origin)
    name = printable(type(exc).__name__)
    try:
        text = str(exc)
    except BaseException:
        text = "(its message could not be shown)"
    if len(text) > 200:
        text = text[:197] + "..."
    text = printable(text)
    if where is None:
        return f"{lead}{origin or 'the policy'}: {name}: {text}"
    return f"{lead}{where}: {name}: {text}"


def _innermost_user_frame(tb: TracebackType | None, origin: str | None) -> str | None:
    """``file:line in function`` of the innermost user frame of ``tb``: walks the frames
    without reading source lines (a deep recursion's traceback is formatted in a blink)."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if _is_user(code.co_filename, origin):
            found = f"{code.co_filename}:{tb.tb_lineno} in {code.co_name}"
        tb = tb.tb_next
    return found


def def_line(fn: object, origin: str | None) -> str:
    """Return ``file:line`` where the function (or bound method) ``fn`` is defined, or
    ``origin`` (the file alone) when that is not known."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is None:
        return origin or "the policy"
    return f"{code.co_filename}:{code.co_firstlineno}"


def caller_line(origin: str | None) -> str:
    """Return ``file:line`` of the innermost user frame on the current stack (the line of the
    user's policy that made the call in progress), or the file alone."""
    frame: FrameType | None = sys._getframe(1)
    mine = _abspath(origin) if origin is not None else None
    while frame is not None:
        name = frame.f_code.co_filename
        # with the policy's file known, only its frames count: the program that started the
        # run (a launcher, a script calling the API) is not the policy
        if (name == origin or _abspath(name) == mine) if mine is not None else _is_user(name, None):
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return origin or "the policy"


def frame_line(frame: Any, origin: str | None) -> str:
    """``file:line in function`` of the innermost user frame from ``frame`` outwards, or ``""``."""
    while frame is not None:
        name = frame.f_code.co_filename
        if _is_user(name, origin):
            return f"{name}:{frame.f_lineno} in {frame.f_code.co_name}"
        frame = frame.f_back
    return ""
