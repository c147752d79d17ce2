"""The protocol every change record follows, and the step that groups them.

A simulation never hands a view a bare new state. Every mutation is a small, frozen, invertible
record; a *step* is the list of records one scheduling event caused. The same stream drives the
animation, the narration log, stepping back, the metrics and the tests
(docs/architecture.md follows a step from the source file to a pixel). Models other than the Ousterhout matrix (the multi-site queues, the epoch
rectangle) define their own records on this same base.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


class Change:
    """Base of all change records.

    Subclasses are ``@dataclass(frozen=True, slots=True)`` and set ``kind`` (a short snake-case
    name used in JSON and by views to pick an animation). They implement:

    * ``apply(state)``: mutate ``state`` (the model the record belongs to); raises
      ``ValueError`` when the record does not fit the state (for example placing a job on busy
      cells), leaving the state unchanged.
    * ``invert()``: return the record that undoes this one, so ``c.invert().apply(s)`` after
      ``c.apply(s)`` restores ``s`` exactly.
    * ``describe(names)``: one plain sentence that says what happened and which rule allowed it;
      ``names`` maps job ids to labels.
    """

    kind: ClassVar[str] = "change"

    def apply(self, state: Any) -> None:  # pragma: no cover - abstract
        """Mutate ``state``; raise ``ValueError`` if the change does not fit it."""
        raise NotImplementedError

    def invert(self) -> Change:  # pragma: no cover - abstract
        """Return the change that undoes this one."""
        raise NotImplementedError

    def describe(self, names: Mapping[int, str] | None = None) -> str:  # pragma: no cover
        """Return one plain sentence narrating this change."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict: ``{"kind": ..., <fields>}`` (ranges become lists)."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if isinstance(value, (range, tuple)):
                value = list(value)
            out[f.name] = value
        return out


def job_label(job: int, names: Mapping[int, str] | None) -> str:
    """Return the display name of job ``job`` (``"J<id>"`` when no name is known)."""
    if names is not None and job in names:
        return names[job]
    return f"J{job}"


@dataclass(slots=True)
class Step:
    """What one scheduling event did.

    Attributes:
        index: position of the step in its simulation's history (0-based).
        time: simulated time at which the step happened (slices, or the model's unit).
        cause: a short tag: ``"arrival"``, ``"completion"``, ``"slice"``, ``"script"``, ...
        changes: the change records, in the order they were applied.
        narration: one sentence per change, plus any summary lines of the policy.
    """

    index: int
    time: float
    cause: str
    changes: list[Change] = field(default_factory=list)
    narration: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict with time, cause, changes and narration."""
        return {
            "time": self.time,
            "cause": self.cause,
            "changes": [c.to_dict() for c in self.changes],
            "narration": list(self.narration),
        }


class ToldStep(Step):
    """A :class:`Step` whose narration is told from its change records when asked.

    A long run records hundreds of thousands of steps; keeping each step's sentences as strings
    cost about a third of the history's memory. The sentences are exactly what
    ``change.describe(names)`` says for each change, followed by ``extra`` (the policy's summary
    lines, usually none), so they are made again on each access; ``names`` is the simulation's
    shared, only-growing name table. Setting ``narration`` stores a list as for any step.
    """

    __slots__ = ("names", "extra")

    def __init__(self, index: int, time: float, cause: str, changes: list[Change], names: Mapping[int, str],
                 extra: list[str] | None = None):
        Step.__init__(self, index, time, cause, changes, None)  # type: ignore[arg-type]
        self.names = names
        self.extra = tuple(extra) if extra else ()

    @property
    def narration(self) -> list[str]:
        told: list[str] | None = _STEP_NARRATION.__get__(self)
        if told is not None:
            return told
        return [c.describe(self.names) for c in self.changes] + list(self.extra)

    @narration.setter
    def narration(self, lines: list[str] | None) -> None:
        _STEP_NARRATION.__set__(self, lines)


_STEP_NARRATION = Step.__dict__["narration"]  # the slot ToldStep's property stands in front of


def undo(step: Step, state: Any) -> None:
    """Apply the inverse of every change of ``step`` to ``state``, last change first: how each
    model family (matrix, multi-site, epoch, space sharing) steps back."""
    for change in reversed(step.changes):
        change.invert().apply(state)
