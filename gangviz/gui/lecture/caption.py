"""The caption under the matrix: the narration of the current step in plain sentences.

Presentation mode (the narration appears as a caption under the matrix) and "Export"
(the narration is burnt in as captions). The caption shows the sentences of the step the
player is at (the step being animated while it plays; step ``position``), without the "Slot Sn
runs its time slice." line unless the step did nothing else (as the narration log,
:func:`gangviz.gui.lecture.narration.step_lines`). While a change of the step is being animated, the
caption tells that change only (its sentence; the narration has one sentence per change), so
the words follow the picture. Before the first step it shows ``start_text`` (the
window sets the scenario's title). Stepping by move, it shows the move stopped on, its number
and the rule that allowed it (:func:`move_text`). While the guided exercise holds a move it shows what the
step did before the move and a prompt, never the move itself
(:func:`gangviz.gui.matrix.held_move.gate_caption`).

The caption is ``LINES`` lines of its font high for any text that fits, so the matrix above it
does not jump from step to step; a text that does not fit is drawn in a slightly smaller font
(never below ``MIN_SCALE`` of the set size, so it stays readable on a projector and in an
exported frame); if it still does not fit, the reasons in parentheses are left out
(:func:`short_text`); beyond that the caption wraps onto more lines (up to ``MAX_LINES``)
instead of shrinking further, and only a text longer still is cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import cast

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from gangviz.core.changes import JobShifted, SlotAdded, SlotRemoved
from gangviz.core.record import Change
from gangviz.gui.lecture.narration import step_lines
from gangviz.gui.matrix.held_move import gate_caption
from gangviz.gui.playback.player import Player
from gangviz.gui.playback.wiring import follow

START_TEXT = "The starting picture. Press Space to play, Right to see one move."
LINES = 3
MAX_LINES = 6
MIN_SCALE = 0.85


def short_text(text: str) -> str:
    """Return ``text`` without its parenthesised asides (the reasons behind each move); a
    slot's new name after a deletion ("S3 (now S2)") is no aside and stays."""
    return re.sub(r"\s*\((?!now S\d)[^()]*\)", "", text)


#: change kinds that bring a job or gang in; past MAX_ARRIVALS of them a caption counts them
ARRIVAL_KINDS = frozenset({"job_arrived", "gang_arrived"})
MAX_ARRIVALS = 3


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def merge_shifts(narration: list[str], changes: list[Change]) -> list[str]:
    """Return ``narration`` (one sentence per change, then any extra lines) with each run of
    two or more legal shifts [Zhou99 §3] told in one sentence that names the rule once: "J1
    and J2 shift from S1 to S2, J5 and J6 from S3 to S1 and J7 from S3 to S2, each keeping its
    processors (legal shifts: all of a job's processes move to one slot together)." A run whose
    sentences carry a slot's new name ("S3 (now S2)") is left as it is."""
    out: list[str] = []
    i = 0
    while i < len(narration):
        j = i
        while j < len(changes) and j < len(narration) and isinstance(changes[j], JobShifted):
            j += 1
        run = narration[i:j]
        if len(run) < 2 or any("(now S" in line for line in run):
            out.append(narration[i])
            i += 1
            continue
        groups: list[tuple[tuple[int, int], list[str]]] = []
        for k in range(i, j):
            c = cast(JobShifted, changes[k])
            key = (c.src_row, c.dst_row)
            name = narration[k].split(" ", 1)[0]
            if groups and groups[-1][0] == key:
                groups[-1][1].append(name)
            else:
                groups.append((key, [name]))
        parts = []
        for n, ((src, dst), names) in enumerate(groups):
            verb = ("shift" if len(names) > 1 else "shifts") + " " if n == 0 else ""
            parts.append(f"{_and(names)} {verb}from S{src + 1} to S{dst + 1}")
        out.append(f"{_and(parts)}, each keeping its processors (legal shifts: all of a job's "
                   f"processes move to one slot together).")
        i = j
    return out


def summarise_arrivals(narration: list[str], changes: list[Change]) -> list[str]:
    """Return ``narration`` (one sentence per change, then any extra lines) with the arrivals
    of a step that brings in more than :data:`MAX_ARRIVALS` jobs told in one sentence: "8 jobs
    arrive: J1, J2, J3 and 5 more (J4..J8)." in the place of the first; the presenter view and
    the narration log keep every sentence."""
    at = [i for i, c in enumerate(changes) if c.kind in ARRIVAL_KINDS and i < len(narration)]
    if len(at) <= MAX_ARRIVALS:
        return list(narration)
    names = [narration[i].split(" ", 1)[0] for i in at]
    n = len(names)
    noun = "gangs" if changes[at[0]].kind == "gang_arrived" else "jobs"
    summary = (f"{n} {noun} arrive: {', '.join(names[:MAX_ARRIVALS])} and {n - MAX_ARRIVALS} more "
               f"({names[MAX_ARRIVALS]}..{names[-1]}).")
    drop = set(at[1:])
    return [summary if i == at[0] else line for i, line in enumerate(narration) if i not in drop]


_SLOT = re.compile(r"\bS(\d+)\b")


def final_slot_names(narration: list[str], changes: list[Change]) -> list[str]:
    """Return ``narration`` (one sentence per change of one step) with each slot a sentence
    names before a later deletion or insertion of the same step followed by its number in the
    step's final picture: "J2 shifts from S1 to S3 (now S2)". A slot the step deletes later
    keeps its name (the deletion's own sentence follows); sentences that cannot be paired with
    their changes one to one are returned as they are."""
    moves = ("slot_removed", "slot_added")
    if len(narration) != len(changes) or not any(c.kind in moves for c in changes):
        return list(narration)
    out = []
    for i, line in enumerate(narration):
        later = [c for c in changes[i + 1:] if isinstance(c, (SlotRemoved, SlotAdded))]

        def final(row: int, later: list[SlotRemoved | SlotAdded] = later) -> int | None:
            for c in later:
                if isinstance(c, SlotRemoved):
                    if row == c.row:
                        return None
                    if row > c.row:
                        row -= 1
                elif row >= c.row:
                    row += 1
            return row

        seen: set[str] = set()

        def name(m: re.Match[str], final: Callable[[int], int | None] = final, seen: set[str] = seen) -> str:
            row = int(m.group(1)) - 1
            now = final(row)
            if now is None or now == row or m.group(0) in seen:
                return m.group(0)
            seen.add(m.group(0))
            return f"{m.group(0)} (now S{now + 1})"

        out.append(_SLOT.sub(name, line) if later else line)
    return out


def move_text(number: int, count: int, narration: list[str], index: int) -> str:
    """Return the caption of move ``number`` of ``count`` of a step whose narration is
    ``narration`` (one sentence per change) and whose change ``index`` is the move: "Move 3 of
    8: J1 shifts from S1 to S2 ... (legal shift: ...)." (a step of one move: its sentence)."""
    sentence = narration[index] if 0 <= index < len(narration) else ""
    return sentence if count == 1 else f"Move {number} of {count}: {sentence}"


def caption_text(player: Player | None, start_text: str = START_TEXT) -> str:
    """Return the caption for ``player``'s current position (see the module docstring)."""
    if player is None:
        return ""
    stop = player.move_stop
    if stop is not None and 0 < stop.step <= len(player.known):
        return move_text(stop.number, stop.count, player.known[stop.step - 1].narration, stop.index)
    gate = player.gate
    pos = player.position
    if gate is not None and 0 < pos <= len(player.known):
        return gate_caption(player.known[pos - 1].narration, gate.index)
    tr = player.transition
    if tr is not None and 0 < pos <= len(player.known):
        lines = player.known[pos - 1].narration
        if tr.count == len(lines) and tr.change.kind != "row_activated":
            return lines[tr.index]
    if pos == 0 or pos > len(player.known):
        return start_text
    known = player.known[pos - 1]
    try:
        changes = list(player.sim.step_at(pos - 1).changes)
    except (IndexError, AttributeError):
        changes = []
    told = final_slot_names(known.narration, changes)
    if sum(c.kind in ARRIVAL_KINDS for c in changes) > MAX_ARRIVALS:
        told = summarise_arrivals(told, changes)
    else:
        told = merge_shifts(told, changes)
    shown = replace(known, narration=told)
    return " ".join(step_lines(shown))


class Caption(QLabel):
    """A word-wrapped label that follows a player's position (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None, *, points: float = 11.0) -> None:
        super().__init__(parent)
        self.player: Player | None = None
        self.start_text = START_TEXT
        self.full_text = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setContentsMargins(14, 6, 14, 8)
        # At least LINES lines high; a longer text asks for more (up to MAX_LINES) without
        # raising the window's minimum size (the layout may keep it at LINES lines).
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._hint_h = 0
        self.setStyleSheet("QLabel { background: #FBF7EC; color: #222222; border-top: 1px solid #E4DFD2; }")
        self.points = points
        self.set_point_size(points)

    def set_point_size(self, points: float) -> None:
        """Draw the caption at ``points`` (and make it ``LINES`` lines of that size high)."""
        self.points = float(points)
        f = QFont(self.font())
        f.setPointSizeF(self.points)
        self.setFont(f)
        m = self.contentsMargins()
        self.setFixedHeight(QFontMetrics(f).lineSpacing() * LINES + m.top() + m.bottom() + 2)
        self._fit()

    def _fit(self) -> None:
        """Shrink the font a little, drop the asides, then wrap onto more lines until the text
        fits (see the module docstring)."""
        m = self.contentsMargins()
        width = max(self.width() - m.left() - m.right(), 50)
        f = QFont(self.font())
        f.setPointSizeF(self.points)
        spacing = QFontMetrics(f).lineSpacing()
        base = spacing * LINES
        text = self.full_text

        def height(candidate: str, points: float) -> int:
            f.setPointSizeF(points)
            box = QRect(0, 0, width, spacing * (MAX_LINES + 4))
            return QFontMetrics(f).boundingRect(box, int(Qt.TextFlag.TextWordWrap), candidate).height()

        floor = self.points * MIN_SCALE
        chosen = None
        for candidate in (text, short_text(text)):
            points = self.points
            while chosen is None:
                if height(candidate, points) <= base:
                    chosen = (candidate, points, base)
                elif points <= floor:
                    break
                else:
                    points = max(points * 0.92, floor)
            if chosen is not None:
                break
        if chosen is None:  # wrap onto more lines at the readable floor
            candidate = short_text(text)
            chosen = (candidate, floor, min(max(height(candidate, floor), base), spacing * MAX_LINES))
        candidate, points, box_h = chosen
        f.setPointSizeF(points)
        want = box_h + m.top() + m.bottom() + 2
        least = base + m.top() + m.bottom() + 2
        if (self.minimumHeight(), self.maximumHeight(), self._hint_h) != (least, want, want):
            self._hint_h = want
            self.setMinimumHeight(least)
            self.setMaximumHeight(want)
            self.updateGeometry()
        if abs(self.font().pointSizeF() - points) > 1e-3:
            super().setFont(f)
        if self.text() != candidate:
            super().setText(candidate)

    def sizeHint(self) -> QSize:
        """As high as the text needs (see :meth:`_fit`)."""
        hint = super().sizeHint()
        if self._hint_h:
            hint.setHeight(self._hint_h)
        return hint

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def set_player(self, player: Player) -> None:
        """Follow ``player`` (disconnects from the previous one)."""
        follow(self.player, player, ("stepped", "moved", "gateChanged", "frame"), self.refresh)
        self.player = player
        self.refresh()

    def set_start_text(self, text: str) -> None:
        """Show ``text`` before the first step."""
        self.start_text = text
        self.refresh()

    def refresh(self, *args: object) -> None:
        """Show the caption of the player's current position."""
        text = caption_text(self.player, self.start_text)
        if text != self.full_text:
            self.full_text = text
            self._fit()
