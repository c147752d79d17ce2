"""The scenario editor's document, Qt-free: a matrix painted job by job, plus the rest of a
scenario (title, explanation, policy, works, scripted events).

A job is painted by a drag along one slot: the cells from where the drag started to where it
ends, inclusive, become one gang. What the papers' matrices allow is checked at once
([Zhou99 §3]: "all processes of the same job must be shifted together to the same time slot", so
a gang lives in one slot): a drag that leaves its slot, or that covers a cell another job
already holds, is refused with a :class:`PaintError` naming the cell where it went wrong.

:meth:`EditorDoc.to_scenario` goes through :func:`~gangviz.workloads.scenario.parse_scenario`,
so whatever the editor plays or saves is exactly what ``gangviz open`` would read.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from gangviz.core import registry
from gangviz.core.matrix import processor_label, slot_label
from gangviz.workloads.scenario import Scenario, parse_scenario
from gangviz.workloads.scenario_writer import InlineTable, dumps, matrix_options, scenario_data

#: Matrix policies a lecturer picks from, in the registry's order (the scenario's own policy is
#: kept even if not listed).
POLICY_CHOICES = tuple(e.name for e in registry.entries(registry.MATRIX))


class PaintError(ValueError):
    """A painting the matrix cannot hold; ``row``/``col`` is the cell to show the message at."""

    def __init__(self, row: int, col: int, message: str) -> None:
        super().__init__(message)
        self.row, self.col = row, col


@dataclass
class Event:
    """One scripted event: at time ``at`` either terminate ``name`` or submit ``name`` of
    ``size`` processors and ``work`` slices."""

    at: float
    kind: str  # "terminate" or "submit"
    name: str
    size: int = 1
    work: float = 1.0
    #: Events with the same group (and time) are written as one ``[[events]]`` table; events
    #: added in the editor have none and are grouped by time.
    group: int | None = None


@dataclass
class EditorDoc:
    """Everything the editor edits. ``cells[r][c]`` is the job name in slot ``r`` (0 = S1, the
    bottom row) on processor ``c``, or ``None``."""

    processors: int = 8
    cells: list[list[str | None]] = field(default_factory=lambda: [[None] * 8 for _ in range(2)])
    title: str = "My scenario"
    explanation: str = ""
    policy: str = "repack"
    works: dict[str, float] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    #: Keys kept as they were read (ring, allocation, guided, params, expect).
    extra: dict[str, Any] = field(default_factory=dict)
    #: A scenario of another family, kept whole (the editor paints matrices only).
    other: dict[str, Any] | None = None

    # ------------------------------------------------------------------ shape
    @property
    def slots(self) -> int:
        """Number of slots (rows)."""
        return len(self.cells)

    def resize(self, processors: int, slots: int) -> None:
        """Set the machine's shape. Raises :class:`PaintError` (at the first cell that would
        be lost) when a painted job lies outside the new shape, or ``ValueError`` for a size
        below 1."""
        if processors < 1 or slots < 1:
            raise ValueError("processors and slots must be at least 1")
        for r, row in enumerate(self.cells):
            for c, name in enumerate(row):
                if name is not None and (r >= slots or c >= processors):
                    raise PaintError(r, c, f"{name} on {processor_label(c)} in {slot_label(r)} "
                                     "would fall outside; erase it first")
        self.cells = [[(self.cells[r][c] if r < len(self.cells) and c < self.processors else None)
                       for c in range(processors)] for r in range(slots)]
        self.processors = processors

    # ------------------------------------------------------------------ painting
    def names(self) -> list[str]:
        """Job names in the matrix, in order of first appearance from the bottom row."""
        seen: dict[str, None] = {}
        for row in self.cells:
            for name in row:
                if name is not None:
                    seen.setdefault(name, None)
        return list(seen)

    def next_name(self) -> str:
        """The smallest ``J<k>`` not used by the matrix or by a scripted submit."""
        used = set(self.names()) | {e.name for e in self.events}
        k = 1
        while f"J{k}" in used:
            k += 1
        return f"J{k}"

    def check_drag(self, row0: int, col0: int, row1: int, col1: int) -> tuple[str, int]:
        """Return ``(name, size)`` the drag from cell ``(row0, col0)`` to ``(row1, col1)`` would
        paint. Raises :class:`PaintError` at the offending cell when it leaves its slot or
        covers a painted cell."""
        if row1 != row0:
            raise PaintError(row1, col1, f"a gang runs in one slot: {self.next_name()} cannot span "
                             f"{slot_label(min(row0, row1))} and {slot_label(max(row0, row1))}")
        lo, hi = sorted((col0, col1))
        step = 1 if col1 >= col0 else -1
        for c in range(col0, col1 + step, step):  # the first painted cell the drag meets
            held = self.cells[row0][c]
            if held is not None:
                raise PaintError(row0, c, f"{processor_label(c)} in {slot_label(row0)} is already "
                                 f"painted with {held}")
        return self.next_name(), hi - lo + 1

    def paint(self, row0: int, col0: int, row1: int, col1: int, name: str | None = None) -> str:
        """Paint the drag as one job (``name`` or the next free ``J<k>``); return its name.
        Raises :class:`PaintError` as :meth:`check_drag`, or when ``name`` already runs on other
        processors."""
        auto, _ = self.check_drag(row0, col0, row1, col1)
        name = name or auto
        lo, hi = sorted((col0, col1))
        cols = self.job_cols(name)
        if cols is not None and cols != (lo, hi):
            raise PaintError(row0, lo, f"{name} runs on other processors in another slot")
        for c in range(lo, hi + 1):
            self.cells[row0][c] = name
        return name

    def job_cols(self, name: str) -> tuple[int, int] | None:
        """First and last column of ``name`` in the matrix, or ``None`` if it is not painted."""
        for row in self.cells:
            cols = [c for c, n in enumerate(row) if n == name]
            if cols:
                return cols[0], cols[-1]
        return None

    def erase(self, row: int, col: int) -> str | None:
        """Erase the job painted at ``(row, col)`` from that slot; return its name (``None`` if
        the cell was idle). Its work is forgotten when no other slot holds it."""
        name = self.cells[row][col]
        if name is None:
            return None
        self.cells[row] = [None if n == name else n for n in self.cells[row]]
        if name not in self.names():
            self.works.pop(name, None)
        return name

    # ------------------------------------------------------------------ scenario
    def to_data(self) -> dict[str, Any]:
        """Return the scenario as TOML keys (see :mod:`gangviz.workloads.scenario`)."""
        if self.other is not None:
            return dict(self.other)
        width = max([1] + [len(n) for n in self.names()])
        rows = [" ".join((n or ".").ljust(width) for n in self.cells[r]).rstrip()
                for r in range(self.slots - 1, -1, -1)]
        data: dict[str, Any] = {"title": self.title}
        if self.explanation:
            data["explanation"] = self.explanation
        data["processors"] = self.processors
        data["policy"] = self.policy
        for key in ("ring", "allocation", "guided"):
            if key in self.extra:
                data[key] = self.extra[key]
        data["matrix"] = rows
        works = {n: InlineTable(work=_num(self.works[n])) for n in self.names() if n in self.works}
        if works:
            data["jobs"] = works
        if self.extra.get("params"):
            data["params"] = self.extra["params"]
        events = self._event_tables()
        if events:
            data["events"] = events
        if self.extra.get("expect"):
            data["expect"] = self.extra["expect"]
        return data

    def _event_tables(self) -> list[dict[str, Any]]:
        by_time: dict[tuple[float, int | None], dict[str, Any]] = {}
        for e in sorted(self.events, key=lambda e: e.at):
            t = by_time.setdefault((e.at, e.group), {"at": _num(e.at)})
            if e.kind == "terminate":
                t.setdefault("terminate", []).append(e.name)
            else:
                t.setdefault("submit", []).append(InlineTable(name=e.name, size=e.size, work=_num(e.work)))
        for t in by_time.values():
            if len(t.get("submit", [])) == 1:
                t["submit"] = t["submit"][0]
        return list(by_time.values())

    def toml(self) -> str:
        """Return the scenario TOML text."""
        return dumps(self.to_data())

    def to_scenario(self, where: str = "<editor>") -> Scenario:
        """Return the :class:`Scenario` as ``gangviz open`` would read the saved file; raises
        :class:`~gangviz.workloads.scenario.ScenarioError` naming the line for what the file
        format refuses (an unknown job terminated, a size beyond the machine, ...)."""
        text = self.toml()
        return parse_scenario(tomllib.loads(text), text, where)

    @classmethod
    def from_scenario(cls, sc: Scenario) -> EditorDoc:
        """Return a document holding ``sc``; a scenario of another family is kept whole and
        not painted."""
        if sc.model != "matrix":
            return cls(processors=sc.processors, cells=[], title=sc.title,
                       explanation=sc.explanation, policy=sc.policy or "", other=scenario_data(sc))
        m = sc.matrix
        cells = [[m.name(int(j)) if j >= 0 else None for j in m.cells[r].tolist()] for r in range(m.n_rows)]
        extra = matrix_options(sc)
        if sc.params:
            extra["params"] = sc.params
        if sc.expect:
            extra["expect"] = sc.expect
        events = []
        for i, e in enumerate(sc.script):
            events += [Event(e.at, "terminate", n, group=i) for n in e.terminate]
            events += [Event(e.at, "submit", n, s, w, group=i) for n, s, w in e.submit]
        return cls(processors=sc.processors, cells=cells or [[None] * sc.processors],
                   title=sc.title, explanation=sc.explanation, policy=sc.policy or "repack",
                   works={j.name: j.work for j in sc.jobs if math.isfinite(j.work)},
                   events=events, extra=extra)


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def slug(title: str) -> str:
    """A file name stem made of ``title`` (lower case, words joined by dashes)."""
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return s[:60] or "scenario"
