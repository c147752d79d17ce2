"""Colours of the window: one stable, colour-blind-safe colour per job.

DESIGN.md, "GUI": one stable colour per job from a colour-blind-safe palette, idle cells
neutral, the active row highlighted. The job palette is Paul Tol's "muted" scheme followed by
his "light" scheme (18 colours, both designed to stay distinguishable under the common colour
vision deficiencies). A job's colour is ``JOB_COLOURS[id % 18]`` (tie-break: by job id, so the
colour never changes while the job lives, whatever row or processors it moves to, and jobs
created one after another get different colours). The indexed-image lookup table keeps entry 0
for idle cells and 1..18 for the jobs.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PySide6.QtGui import QColor

TOL_MUTED = ["#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99",
             "#999933", "#AA4499"]
TOL_LIGHT = ["#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33",
             "#AAAA00", "#DDDDDD"]
JOB_HEX = TOL_MUTED + TOL_LIGHT[:8] + ["#6699CC"]
JOB_COLOURS = [QColor(h) for h in JOB_HEX]

IDLE = QColor("#F3F1EC")          # neutral, warm paper white
IDLE_ACTIVE = QColor("#FFF1B8")   # idle cells of the running slot
GRID = QColor("#D4D0C8")
ACCENT = QColor("#E69F00")        # Okabe-Ito orange: the running slot
SELECT = QColor("#000000")
HILITE = QColor("#D55E00")        # Okabe-Ito vermillion: last allocation
TEXT = QColor("#222222")
MUTED_TEXT = QColor("#8A8680")
BACKGROUND = QColor("#FFFFFF")
ZERO_NODE = QColor("#E4E2DE")
FLASH = QColor("#D55E00")


def job_index(job: int) -> int:
    """Return the palette index (0-based) of ``job``."""
    return job % len(JOB_COLOURS)


def job_colour(job: int) -> QColor:
    """Return the stable fill colour of ``job``."""
    return JOB_COLOURS[job % len(JOB_COLOURS)]


def text_colour(fill: QColor) -> QColor:
    """Return black or white, whichever reads better on ``fill`` (relative luminance)."""
    r, g, b = fill.redF(), fill.greenF(), fill.blueF()
    lum = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return QColor("#111111") if lum > 0.45 else QColor("#FFFFFF")


def lookup_table() -> np.ndarray:
    """Return the 256 x 4 uint8 RGBA table of the indexed matrix image.

    Entry 0 is idle, 1..18 the job colours, 19 idle-in-the-running-slot, 255 transparent
    (cells hidden while a block is being animated).
    """
    lut = np.zeros((256, 4), dtype=np.uint8)
    lut[0] = IDLE.getRgb()
    for i, c in enumerate(JOB_COLOURS):
        lut[1 + i] = c.getRgb()
    lut[ACTIVE_IDLE_INDEX] = IDLE_ACTIVE.getRgb()
    lut[255] = (0, 0, 0, 0)
    return lut


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
