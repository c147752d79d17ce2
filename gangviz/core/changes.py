"""Change records of the Ousterhout matrix (docs/architecture.md: what a step hands a view).

Each record is frozen, applies itself to an :class:`~gangviz.core.matrix.OusterhoutMatrix`,
inverts itself exactly, and describes itself in one sentence. The optional ``reason`` says which
rule allowed the move ("legal cut between P4 and P5", "Property 2: every processor has an idle
slot"); it is composed when the record is made, so the narration stays true after the state
moves on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from gangviz.core.matrix import OusterhoutMatrix, processor_label, slot_label
from gangviz.core.record import Change, job_label

__all__ = [
    "MatrixChange",
    "SlotAdded",
    "SlotRemoved",
    "JobPlaced",
    "JobRemoved",
    "JobShifted",
    "RegionSwapped",
    "JobReplicated",
    "JobUnreplicated",
    "JobMigrated",
    "RowActivated",
    "cols_label",
    "rows_label",
    "MOVE_KINDS",
    "STILL_KINDS",
    "cost_label",
    "move_ends",
]


#: at most this many runs of processors are named in one label; the rest are counted
MAX_RUNS = 6


def _runs(ordered: Sequence[int]) -> list[list[int]]:
    """Return the runs of consecutive numbers of ``ordered`` (ascending) as ``[first, last]``."""
    runs: list[list[int]] = []
    for c in ordered:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return runs


def cols_label(cols: Iterable[int]) -> str:
    """Return the processors ``cols`` in words: ``"P3..P7"`` for a contiguous run, runs
    separated by commas (``"P1..P4, P9, P12..P15"``), and past :data:`MAX_RUNS` runs the first
    ones and a count (``"P1..P4, ... and 37 more runs (512 processors in all)"``), so a label
    stays short whatever the machine's size."""
    ordered = sorted({int(c) for c in cols})
    if not ordered:
        return "no processor"
    runs = _runs(ordered)

    def run_label(lo: int, hi: int) -> str:
        if lo == hi:
            return processor_label(lo)
        return f"{processor_label(lo)}..{processor_label(hi)}"

    shown = ", ".join(run_label(lo, hi) for lo, hi in runs[:MAX_RUNS])
    if len(runs) <= MAX_RUNS:
        return shown
    rest = len(runs) - MAX_RUNS
    return (f"{shown} and {rest:,} more run{'s' if rest != 1 else ''} "
            f"({len(ordered):,} processors in all)")


def _suffix(reason: str) -> str:
    return f" ({reason})" if reason else ""


class MatrixChange(Change):
    """Base of the records that act on an :class:`OusterhoutMatrix`."""

    reason: str

    def apply(self, state: OusterhoutMatrix) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class _SlotRecord(MatrixChange):
    """The fields of a slot's creation and elimination, each the other's inverse."""

    row: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class _HomeRecord(MatrixChange):
    """The fields of a job's placement in its home row and its removal, each the other's inverse."""

    job: int
    row: int
    cols: tuple[int, ...] | range
    reason: str = ""


@dataclass(frozen=True, slots=True)
class _ExtraRecord(MatrixChange):
    """The fields of a job's taking extra slots and giving them up, each the other's inverse."""

    job: int
    rows: tuple[int, ...]
    cols: tuple[int, ...] | range
    reason: str = ""


@dataclass(frozen=True, slots=True)
class SlotAdded(_SlotRecord):
    """An empty time slot appears at index ``row`` (rows at and above it move up)."""

    kind: ClassVar[str] = "slot_added"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.insert_row(self.row)

    def invert(self) -> SlotRemoved:
        return SlotRemoved(self.row, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return f"New slot {slot_label(self.row)} is created{_suffix(self.reason)}."


@dataclass(frozen=True, slots=True)
class SlotRemoved(_SlotRecord):
    """The empty slot ``row`` is eliminated (rows above it move down)."""

    kind: ClassVar[str] = "slot_removed"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.delete_row(self.row)

    def invert(self) -> SlotAdded:
        return SlotAdded(self.row, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return f"Empty slot {slot_label(self.row)} is eliminated{_suffix(self.reason)}."


@dataclass(frozen=True, slots=True)
class JobPlaced(_HomeRecord):
    """``job`` is allocated ``cols`` in ``row`` (its home row)."""

    kind: ClassVar[str] = "job_placed"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.put(self.job, self.row, self.cols, home=True)

    def invert(self) -> JobRemoved:
        return JobRemoved(self.job, self.row, self.cols, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return (
            f"{job_label(self.job, names)} is placed on {cols_label(self.cols)} "
            f"in {slot_label(self.row)}{_suffix(self.reason)}."
        )


@dataclass(frozen=True, slots=True)
class JobRemoved(_HomeRecord):
    """``job`` leaves its home row ``row`` (it terminated); it holds no extra rows."""

    kind: ClassVar[str] = "job_removed"

    def apply(self, state: OusterhoutMatrix) -> None:
        if self.job not in state or state.home_row(self.job) != self.row:
            raise ValueError(f"{state.name(self.job)} does not have its home in {slot_label(self.row)}")
        state.clear(self.job, self.row)

    def invert(self) -> JobPlaced:
        return JobPlaced(self.job, self.row, self.cols, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return (
            f"{job_label(self.job, names)} leaves {cols_label(self.cols)} "
            f"in {slot_label(self.row)}{_suffix(self.reason)}."
        )


@dataclass(frozen=True, slots=True)
class JobShifted(MatrixChange):
    """A legal shift: all of ``job``'s processes move from ``src_row`` to ``dst_row``.

    Zhou99 §3: a shift is legal if all processes of a job are shifted to the
    same slot at the same time; the job keeps its processors.
    """

    job: int
    src_row: int
    dst_row: int
    reason: str = ""
    kind: ClassVar[str] = "job_shifted"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.move(self.job, self.src_row, self.dst_row)

    def invert(self) -> JobShifted:
        return JobShifted(self.job, self.dst_row, self.src_row, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return (
            f"{job_label(self.job, names)} shifts from {slot_label(self.src_row)} to "
            f"{slot_label(self.dst_row)} on the same processors{_suffix(self.reason or 'a legal shift')}."
        )


@dataclass(frozen=True, slots=True)
class RegionSwapped(MatrixChange):
    """The jobs of rows ``row_a`` and ``row_b`` between two legal cuts exchange their rows.

    Zhou99 §3 (proof of Property 1, Fig. 3 and 4): when neither cut splits a
    job in either slot, every job between the cuts can exchange its position with its
    counterpart in the other slot. The region is columns ``[lo, hi)``; on a ring ``hi`` may
    exceed the number of processors (the region wraps). ``moved_a``/``moved_b`` name the jobs
    that went from ``row_a`` to ``row_b`` and back, for the narration.
    """

    row_a: int
    row_b: int
    lo: int
    hi: int
    moved_a: tuple[int, ...] = ()
    moved_b: tuple[int, ...] = ()
    reason: str = ""
    kind: ClassVar[str] = "region_swapped"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.swap(self.row_a, self.row_b, self.lo, self.hi)

    def invert(self) -> RegionSwapped:
        return RegionSwapped(
            self.row_b, self.row_a, self.lo, self.hi, self.moved_b, self.moved_a, self.reason
        )

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        def who(jobs: tuple[int, ...]) -> str:
            return ", ".join(job_label(j, names) for j in jobs) or "nothing"

        a, b = slot_label(self.row_a), slot_label(self.row_b)
        return (
            f"Swap {a} and {b} on {cols_label(range(self.lo, self.hi))}: "
            f"{who(self.moved_a)} {a}→{b}, {who(self.moved_b)} {b}→{a}{_suffix(self.reason)}."
        )


def rows_label(rows: Iterable[int]) -> str:
    """Return ``"S2"``, ``"S2 and S5"`` or ``"S2, S5..S7 and S9"`` for a set of rows (ascending);
    past six runs the rest is counted: ``"S2, S4, ..., S97 (40 slots)"``."""
    rows = sorted(rows)
    if not rows:
        return "no slot"
    parts = [slot_label(a) if a == b else f"{slot_label(a)}..{slot_label(b)}" for a, b in _runs(rows)]
    if len(parts) > 6:
        return f"{', '.join(parts[:3])}, ..., {parts[-1]} ({len(rows)} slots)"
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _extra_slots(rows: tuple[int, ...]) -> str:
    return f"extra slot {slot_label(rows[0])}" if len(rows) == 1 else f"extra slots {rows_label(rows)}"


@dataclass(frozen=True, slots=True)
class JobReplicated(_ExtraRecord):
    """``job`` also runs in each of ``rows`` on its own processors (multi-slot running).

    One record holds all the extra slots a job takes at one moment: a job at high load may take
    hundreds at once, which then read as one sentence and appear together.
    """

    kind: ClassVar[str] = "job_replicated"

    def apply(self, state: OusterhoutMatrix) -> None:
        if self.job in state and tuple(state.job_cols(self.job)) != tuple(self.cols):
            raise ValueError(f"a replica of {state.name(self.job)} must use the same processors")
        state.put_extra(self.job, self.rows)

    def invert(self) -> JobUnreplicated:
        return JobUnreplicated(self.job, self.rows, self.cols, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return (
            f"{job_label(self.job, names)} also runs in {rows_label(self.rows)} on "
            f"{cols_label(self.cols)}{_suffix(self.reason)}."
        )


@dataclass(frozen=True, slots=True)
class JobUnreplicated(_ExtraRecord):
    """``job`` gives up its extra slots ``rows`` (all at one moment, in one record)."""

    kind: ClassVar[str] = "job_unreplicated"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.clear_extra(self.job, self.rows)

    def invert(self) -> JobReplicated:
        return JobReplicated(self.job, self.rows, self.cols, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return f"{job_label(self.job, names)} gives up its {_extra_slots(self.rows)}{_suffix(self.reason)}."


def cost_label(cost: float) -> str:
    """Return a migration's cost with its unit: ``"5.5 processor-slices"`` (the processor time
    the checkpoint and restart take [Zhang01 eq. 5])."""
    return f"{cost:g} processor-slice{'' if cost == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class JobMigrated(MatrixChange):
    """``job`` moves to other processors (and possibly another row), at a cost in
    processor-slices."""

    job: int
    src_row: int
    src_cols: tuple[int, ...] | range
    dst_row: int
    dst_cols: tuple[int, ...] | range
    cost: float = 0.0
    reason: str = ""
    kind: ClassVar[str] = "job_migrated"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.relocate(self.job, self.src_row, self.dst_row, self.dst_cols)

    def invert(self) -> JobMigrated:
        return JobMigrated(
            self.job, self.dst_row, self.dst_cols, self.src_row, self.src_cols, self.cost, self.reason
        )

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        return (
            f"{job_label(self.job, names)} migrates from {cols_label(self.src_cols)} in "
            f"{slot_label(self.src_row)} to {cols_label(self.dst_cols)} in "
            f"{slot_label(self.dst_row)} (cost {cost_label(self.cost)}){_suffix(self.reason)}."
        )


@dataclass(frozen=True, slots=True)
class RowActivated(MatrixChange):
    """The time slice moves from slot ``prev`` to slot ``row`` (``None``: no slot runs)."""

    row: int | None
    prev: int | None = None
    reason: str = ""
    kind: ClassVar[str] = "row_activated"

    def apply(self, state: OusterhoutMatrix) -> None:
        state.set_active(self.row)

    def invert(self) -> RowActivated:
        return RowActivated(self.prev, self.row, self.reason)

    def describe(self, names: Mapping[int, str] | None = None) -> str:
        if self.row is None:
            return "No slot runs: the machine is empty."
        return f"Slot {slot_label(self.row)} runs its time slice."


#: Change kinds that count as a re-pack, migration or slot deletion (timeline markers, "next").
MOVE_KINDS = frozenset({"region_swapped", "job_shifted", "job_migrated", "slot_removed"})


#: Change kinds that move nothing in the matrix: stepping by move passes over them (a slice
#: moving on is folded into the move after it, or into the step's last move).
STILL_KINDS = frozenset({"row_activated"})


def move_ends(changes: Sequence[Change]) -> list[int]:
    """Return where stepping by move stops in a step of ``changes``: for each move (every change
    but a slice moving on, :data:`STILL_KINDS`), how many of the step's changes are applied
    once it is shown, ascending; the last stop is the whole step (``len(changes)``), so a
    slice moving on after the last move is shown with it. A step in which nothing moves has no
    stop (``[]``); a move is one change record, so the list is as long as the step's moves."""
    ends = [i + 1 for i, c in enumerate(changes) if c.kind not in STILL_KINDS]
    if ends:
        ends[-1] = len(changes)
    return ends
