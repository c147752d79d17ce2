"""Marks drawn over job colours: the replica hatch and the migration badge.

Both must read on every job colour, from the back of a lecture room and in a frame scaled to a
quarter: the hatch is black stripes each with a white stripe beside it (one of the two has a
contrast of at least 3:1 on any colour), a thirty-sixth of a slot's height wide (5 pixels on
a projected slot, more than a pixel at a quarter of that); the badge is
dark text on a white box with a dark edge. The matrix view, the move cues and the key draw them
here, so the key's swatch is the mark the matrix draws.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from gangviz.gui import palette

HATCH_DARK = QColor("#000000")
HATCH_LIGHT = QColor("#FFFFFF")

#: the replica hatch: black and white stripes side by side (one of the two has a contrast of at
#: least 3:1 on any job colour), each this fraction of a slot's height wide (at least 2 pixels),
#: a stripe pair every HATCH_PERIOD stripe widths
HATCH_STRIPE = 1 / 36
HATCH_PERIOD = 8


def hatch(painter: QPainter, rect: QRectF, alpha: float = 1.0, stripe: float | None = None) -> None:
    """Hatch ``rect`` as an extra slot (a replica): diagonal black stripes each with a white
    stripe beside it, thick enough to read at a quarter of the size (:data:`HATCH_STRIPE` of
    its height, or ``stripe`` pixels), at opacity ``alpha``."""
    if rect.width() <= 0 or rect.height() <= 0 or alpha <= 0:
        return
    w = stripe if stripe is not None else max(2.0, rect.height() * HATCH_STRIPE)
    step = w * HATCH_PERIOD
    painter.save()
    painter.setClipRect(rect, Qt.ClipOperation.IntersectClip)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setOpacity(painter.opacity() * max(0.0, min(1.0, alpha)))
    h = rect.height()
    lines = [QLineF(x, rect.bottom(), x + h, rect.top())
             for x in np.arange(rect.left() - h, rect.right() + step, step).tolist()]
    painter.setPen(QPen(HATCH_DARK, w, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
    painter.drawLines(lines)
    painter.setPen(QPen(HATCH_LIGHT, w, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
    off = w * 1.414  # the white stripe just right of the black one
    painter.drawLines([line.translated(off, 0) for line in lines])
    painter.restore()


def draw_badge(painter: QPainter, text: str, left_mid: QPointF, font: QFont,
               right_limit: float | None = None) -> QRectF:
    """Draw ``text`` (a migration's cost) as a badge: dark text on a white box with a dark
    edge, its left edge's middle at ``left_mid`` (moved left to end at ``right_limit`` when it
    would pass it); return the box."""
    fm = QFontMetricsF(font)
    pad = max(4.0, fm.height() * 0.25)
    box = QRectF(left_mid.x(), left_mid.y() - fm.height() / 2 - pad / 2,
                 fm.horizontalAdvance(text) + 2 * pad, fm.height() + pad)
    if right_limit is not None and box.right() > right_limit:
        box.moveRight(right_limit)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(palette.TEXT, 2))
    painter.setBrush(palette.BACKGROUND)
    painter.drawRoundedRect(box, pad, pad)
    painter.setFont(font)
    painter.drawText(box, int(Qt.AlignmentFlag.AlignCenter), text)
    painter.restore()
    return box
