"""The guided exercise: which rows a held move involves and where their legal cuts are.

Guided exercise: the window pauses before each re-pack (the player's gate, see
:mod:`gangviz.gui.playback.player`), draws the legal cuts of the rows involved as dashed vertical lines,
and reveals the move on a key press. A legal cut is a vertical line that splits no job in either
slot (Zhou99 §3, Fig. 3 and 4); the jobs between two common legal cuts may
exchange rows, which is exactly the choice the audience is asked to make.

Qt-free: the window and the tests share these functions.

Choices of this module:

* The rows involved are those of the held change: source and destination of a shift or a
  migration, both rows of a region swap, the one row of a slot deletion (its cuts are then the
  cuts of that row alone).
* The cuts are computed on the matrix as it is just before the held change, with
  :func:`gangviz.core.repack.common_legal_cuts`; on a linear array that includes both ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gangviz.core.changes import (
    JobMigrated,
    JobPlaced,
    JobShifted,
    RegionSwapped,
    SlotRemoved,
)
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.core.record import Change
from gangviz.core.repack import common_legal_cuts

PROMPT = "Your move: which jobs change slots? Click a region, then Return reveals it."


def move_rows(change: Change) -> tuple[int, ...]:
    """Return the rows ``change`` involves, ascending, without repeats (empty for a change that
    does not move anything between rows)."""
    match change:
        case JobShifted() | JobMigrated():
            rows: tuple[int, ...] = (change.src_row, change.dst_row)
        case RegionSwapped():
            rows = (change.row_a, change.row_b)
        case SlotRemoved():
            rows = (change.row,)
        case _:
            rows = ()
    return tuple(sorted(set(int(r) for r in rows)))


def gate_cuts(state: OusterhoutMatrix, change: Change) -> tuple[tuple[int, ...], list[int]]:
    """Return ``(rows, cuts)``: the rows ``change`` involves in ``state`` (the matrix before the
    change) and the cuts legal in all of them, ascending (cut ``x`` lies just left of column
    ``x``; a linear array also has cut ``processors``). Rows outside the matrix are dropped."""
    rows = tuple(r for r in move_rows(change) if 0 <= r < state.n_rows)
    if not rows:
        return (), []
    cuts = set(common_legal_cuts(state, rows[0], rows[0]))
    for r in rows[1:]:
        cuts &= set(common_legal_cuts(state, rows[0], r))
    return rows, sorted(cuts)


def gate_caption(narration: list[str], gate: int) -> str:
    """Return the caption while a move waits: what the step did before it, then the prompt."""
    before = [s for s in narration[:gate] if not s.endswith("runs its time slice.")]
    return " ".join(before + [PROMPT])


@dataclass(frozen=True)
class GateInfo:
    """What the guided exercise knows about a held move.

    ``rows``/``cuts`` as :func:`gate_cuts`; ``answer`` the regions between neighbouring cuts
    that hold the moved columns (merged where they touch, ascending); ``answer_regions`` the
    same regions unmerged, one per pair of neighbouring cuts, to compare a pick with;
    ``arrival`` the ``(name, size, id)`` of the first job the step places after the move, if
    any (the job the re-pack makes room for).
    """

    rows: tuple[int, ...]
    cuts: list[int]
    answer: list[tuple[int, int]]
    answer_regions: frozenset[tuple[int, int]]
    arrival: tuple[str, int, int] | None


def moved_cols(state: OusterhoutMatrix, change: Change) -> list[int]:
    """Return the columns ``change`` moves between rows in ``state`` (ascending)."""
    match change:
        case JobShifted() | JobMigrated():
            return sorted(int(c) for c in state.job_cols(change.job))
        case RegionSwapped():
            n = state.processors
            return sorted({c % n for c in range(change.lo, change.hi)})
    return []


def region_of(cuts: list[int], col: int) -> tuple[int, int] | None:
    """Return the region ``(lo, hi)`` between the neighbouring cuts around column ``col``
    (``None`` outside the cuts)."""
    for lo, hi in zip(cuts, cuts[1:]):
        if lo <= col < hi:
            return lo, hi
    return None


def gate_info(state: OusterhoutMatrix, change: Change, rest: list[Change],
              name_of: Callable[[int], str] | None = None) -> GateInfo:
    """Return the :class:`GateInfo` of ``change`` held on ``state``; ``rest`` is the step's
    changes from the held one on (the arrival is the first job placed among them);
    ``name_of(job)`` names a job (default: the matrix's names)."""
    rows, cuts = gate_cuts(state, change)
    regions = sorted({r for c in moved_cols(state, change) if (r := region_of(cuts, c)) is not None})
    merged: list[tuple[int, int]] = []
    for lo, hi in regions:
        if merged and merged[-1][1] == lo:
            merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    arrival = None
    for c in rest:
        if isinstance(c, JobPlaced):
            arrival = ((name_of or state.name)(c.job), len(c.cols), int(c.job))
            break
    return GateInfo(rows, cuts, merged, frozenset(regions), arrival)
