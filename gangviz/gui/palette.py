"""Colours of the window: one stable colour per job, never shared with a neighbour.

One stable colour per job from a colour-blind-safe palette, idle cells
neutral, the active row highlighted. The job palette is :data:`gangviz.colours.JOB_HEX` (every
pair at least CIEDE2000 20 apart, and still apart under simulated deuteranopia and protanopia;
idle cells a pale grey no job colour comes near).

A job gets its colour the first time a matrix holding it is drawn (:func:`colour_indices`) and
keeps it while it lives, whatever row or processors it moves to. Tie-break: the job's preferred
colour is ``id % len(JOB_HEX)``; if a job next to it at that moment (the runs left and right of
it in its rows, the jobs above and below it in the neighbouring rows) already has that colour,
the next colour in palette order that none of them has is taken. Jobs are coloured in id order.
The choices live in a :class:`JobColours` map: each matrix view owns one and forgets its
choices when it is given a new simulation; views without one share :data:`SHARED`.
The indexed-image lookup table keeps entry 0 for idle cells and 1..n for the job colours.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PySide6.QtGui import QColor

from gangviz.colours import IDLE_ACTIVE_HEX, IDLE_HEX, JOB_HEX, readable_on

JOB_COLOURS = [QColor(h) for h in JOB_HEX]

IDLE = QColor(IDLE_HEX)                # a pale grey no job colour is near
IDLE_ACTIVE = QColor(IDLE_ACTIVE_HEX)  # idle cells of the running slot: the same, warmer
GRID = QColor("#D4D0C8")
ACCENT = QColor("#E69F00")        # Okabe-Ito orange: the running slot
SELECT = QColor("#000000")
HILITE = QColor("#111111")        # the job under the mouse pointer
LAST_ALLOC = QColor("#C0128F")    # magenta: the last allocation in the WLV / tree
LINK = QColor("#0B63C4")          # blue: the processors of the WLV entry / tree node under the pointer
VIOLATION_HEX = "#E0001B"         # red: the cells a user's policy asked for against a rule
VIOLATION = QColor(VIOLATION_HEX)
TEXT_HEX = "#222222"
#: secondary text (axis labels, slot and processor names, zeros of the vector and tree): grey,
#: yet at least 4.5:1 on every background it is drawn on (a projector washes out lighter greys)
MUTED_TEXT_HEX = "#5F5A53"
BACKGROUND_HEX = "#FFFFFF"
ZERO_NODE_HEX = "#E4E2DE"
CAPTION_HEX = "#FBF7EC"
#: the light grey panels of the multi-site queue view
QUEUE_BACKGROUND_HEX = "#FAFAFA"
QUEUE_LANE_HEX = "#F0F0F0"
#: processors that do not exist (padding to a power of two): mid grey, hatched darker
ABSENT_HEX = "#B8B5AF"
TEXT = QColor(TEXT_HEX)
MUTED_TEXT = QColor(MUTED_TEXT_HEX)
BACKGROUND = QColor(BACKGROUND_HEX)
ZERO_NODE = QColor(ZERO_NODE_HEX)

#: every (what, text colour, background) the board draws; ``tests/gui/test_contrast.py``
#: checks each against :data:`gangviz.colours.MIN_CONTRAST` (text on job colours and on the
#: vector's shades is :func:`text_colour`, checked over every fill)
TEXT_PAIRS = [
    ("labels and names", TEXT_HEX, BACKGROUND_HEX),
    ("labels on idle cells", TEXT_HEX, IDLE_HEX),
    ("slot and processor labels, axis ticks", MUTED_TEXT_HEX, BACKGROUND_HEX),
    ("muted text on idle cells", MUTED_TEXT_HEX, IDLE_HEX),
    ("muted text in the running slot", MUTED_TEXT_HEX, IDLE_ACTIVE_HEX),
    ("zeros of the workload vector and tree", MUTED_TEXT_HEX, ZERO_NODE_HEX),
    ("the caption", TEXT_HEX, CAPTION_HEX),
    ("the guided exercise's cover", MUTED_TEXT_HEX, "#F3F1EC"),
    ("queue view labels", "#555555", QUEUE_BACKGROUND_HEX),
    ("queue view lane labels", "#444444", QUEUE_LANE_HEX),
    ("queue view muted labels", "#666666", QUEUE_BACKGROUND_HEX),
    ("the warnings bar", TEXT_HEX, "#FFF4CE"),
    ("the label of absent (padded) processors", TEXT_HEX, ABSENT_HEX),
]
FLASH = QColor("#D55E00")


class JobColours:
    """The colours chosen for the jobs of one simulation on show (see the module docstring).

    Each view that draws jobs owns one, so two views side by side (the panes of a compare
    window) keep their choices apart: a view given a new simulation forgets its own choices
    (:meth:`reset`) and never another view's.
    """

    def __init__(self) -> None:
        #: job id -> palette index, -1 = not chosen yet (grown on demand)
        self._chosen = np.full(0, -1, dtype=np.int16)

    def reset(self) -> None:
        """Forget every job's colour."""
        self._chosen = np.full(0, -1, dtype=np.int16)

    def indices(self, cells: np.ndarray) -> np.ndarray:
        """Return the palette index (0-based) of every cell's job, -1 for idle cells; jobs
        seen for the first time get their colour here."""
        return self.codes(cells).astype(np.int16) - 1

    def codes(self, cells: np.ndarray) -> np.ndarray:
        """Return a ``uint8`` array: 0 for idle cells, 1 + the palette index of each cell's job.

        One table lookup per cell (a 9,216 x 32 matrix in about a millisecond); jobs seen for
        the first time get their colour first (see the module docstring).
        """
        cells = np.asarray(cells)
        top = int(cells.max()) if cells.size else -1
        if top >= len(self._chosen) or not len(self._chosen):
            grown = np.full(max(top + 1, 2 * len(self._chosen), 64), -1, dtype=np.int16)
            grown[: len(self._chosen)] = self._chosen
            self._chosen = grown
        # table[0] is the idle cell (id -1); 255 marks a job without a colour yet
        table = np.empty(len(self._chosen) + 1, dtype=np.uint8)
        table[0] = 0
        table[1:] = np.where(self._chosen < 0, 255, self._chosen + 1)
        codes: np.ndarray = table[cells + 1]
        if (codes == 255).any():
            self._choose(cells, np.unique(cells[codes == 255]))
            table[1:] = np.where(self._chosen < 0, 255, self._chosen + 1)
            codes = table[cells + 1]
        return codes

    def _choose(self, cells: np.ndarray, new: np.ndarray) -> None:
        n = len(JOB_COLOURS)
        pairs = _neighbour_pairs(cells)
        first = pairs[:, 0]  # sorted: np.unique sorts the rows
        for job in new.tolist():
            nb = pairs[np.searchsorted(first, job, "left"):np.searchsorted(first, job, "right"), 1]
            taken = set(self._chosen[nb].tolist()) - {-1}
            pref = job % n
            pick = next((c % n for c in range(pref, pref + n) if c % n not in taken), pref)
            self._chosen[job] = pick

    def index(self, job: int) -> int:
        """Return the palette index (0-based) of ``job``: its chosen colour, else its
        preferred (``job % len(JOB_HEX)``)."""
        if 0 <= job < len(self._chosen) and self._chosen[job] >= 0:
            return int(self._chosen[job])
        return job % len(JOB_COLOURS)

    def colour(self, job: int) -> QColor:
        """Return the stable fill colour of ``job`` (see :meth:`index`)."""
        return JOB_COLOURS[self.index(job)]


#: the colours of the views that draw jobs without a colour map of their own (the Gantt,
#: epoch and editor views), read through the functions below
SHARED = JobColours()


def reset_colours() -> None:
    """Forget every colour of :data:`SHARED`."""
    SHARED.reset()


def _neighbour_pairs(cells: np.ndarray) -> np.ndarray:
    """Return the distinct (a, b) pairs of different jobs side by side or one above the other."""
    pairs = []
    for a, b in ((cells[:, :-1], cells[:, 1:]), (cells[:-1, :], cells[1:, :])):
        m = (a != b) & (a >= 0) & (b >= 0)
        if m.any():
            pairs.append(np.stack([a[m], b[m]], axis=1))
    if not pairs:
        return np.zeros((0, 2), dtype=np.int64)
    p = np.concatenate(pairs).astype(np.int64)
    p = np.concatenate([p, p[:, ::-1]])
    return np.unique(p, axis=0)


def colour_indices(cells: np.ndarray) -> np.ndarray:
    """Return :meth:`JobColours.indices` of :data:`SHARED`."""
    return SHARED.indices(cells)


def colour_codes(cells: np.ndarray) -> np.ndarray:
    """Return :meth:`JobColours.codes` of :data:`SHARED`."""
    return SHARED.codes(cells)


def job_index(job: int) -> int:
    """Return :meth:`JobColours.index` of :data:`SHARED`."""
    return SHARED.index(job)


def job_colour(job: int) -> QColor:
    """Return :meth:`JobColours.colour` of :data:`SHARED`."""
    return SHARED.colour(job)


def text_colour(fill: QColor) -> QColor:
    """Return black or white, whichever has the higher WCAG contrast on ``fill`` (at least
    4.58:1 on any colour)."""
    return QColor(readable_on(QColor(fill).name()))


def lookup_table() -> np.ndarray:
    """Return the 256 x 4 uint8 RGBA table of the indexed matrix image.

    Entry 0 is idle, 1..18 the job colours, 19 idle-in-the-running-slot, 255 transparent
    (cells hidden while a block is being animated).
    """
    lut = np.zeros((256, 4), dtype=np.uint8)
    lut[0] = _rgba(IDLE)
    for i, c in enumerate(JOB_COLOURS):
        lut[1 + i] = _rgba(c)
    lut[ACTIVE_IDLE_INDEX] = _rgba(IDLE_ACTIVE)
    lut[255] = (0, 0, 0, 0)
    return lut


def _rgba(c: QColor) -> tuple[int, int, int, int]:
    return c.red(), c.green(), c.blue(), c.alpha()


ACTIVE_IDLE_INDEX = 1 + len(JOB_COLOURS)
HIDDEN_INDEX = 255


_SHADE_STEPS = 256


def shade(value: float, top: float) -> QColor:
    """Return a grey-blue shade for a workload value: white at 0, dark at ``top``.

    The ramp has 256 steps, each colour made once (views call this for every cell they paint).
    """
    if top <= 0 or value <= 0:
        return _shade_at(-1)
    return _shade_at(round(min(value / top, 1.0) * (_SHADE_STEPS - 1)))


@lru_cache(maxsize=_SHADE_STEPS + 1)
def _shade_at(step: int) -> QColor:
    if step < 0:
        return QColor("#FFFFFF")
    w = 0.15 + 0.85 * step / (_SHADE_STEPS - 1)
    base, dark = (255, 255, 255), (68, 119, 170)  # white to Tol blue
    return QColor(*(int(b + (d - b) * w) for b, d in zip(base, dark)))
