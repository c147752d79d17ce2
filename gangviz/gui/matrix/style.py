"""How each kind of change is drawn: one style table read by the matrix, the cues and the key.

A change that moves a job is drawn by three layers: the matrix view draws the moving block
with its *edge* (:func:`gangviz.gui.matrix.painters.paint_mover`), the move cues draw the
*ghost* left on the cells the job leaves and the *trail* to its new place
(:mod:`gangviz.gui.matrix.cues`), and the key under the vector shows an *icon* of it
(:mod:`gangviz.gui.matrix.vector`). Each reads its
part of :data:`STYLES` for the change's kind, so the key's icon is the mark the matrix draws.

Darkness is a ``QColor.darker`` factor of the job's colour (160: 1.6 times darker). The moving
block's edge is darker (160) than the ghost's edge and the trail (140): the block is drawn
solid over the job's colour, the ghost and trail over the pale idle cells.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

from gangviz.gui import palette


@dataclass(frozen=True, slots=True)
class Edge:
    """The outline of a moving block: ``darker`` than the job's colour, ``width`` pixels,
    dashed when ``dash``, at least ``least_alpha`` opaque while the block fades."""

    darker: int = 160
    width: float = 1.0
    dash: bool = False
    least_alpha: float = 0.2


@dataclass(frozen=True, slots=True)
class Stroke:
    """A line ``darker`` than the job's colour, ``width`` pixels wide: the ghost's edge and the
    trail are one stroke, both drawn over the pale idle cells."""

    darker: int = 140
    width: float = 2.0


@dataclass(frozen=True, slots=True)
class Ghost:
    """What stays on the cells a job leaves: its colour at ``alpha`` (of 255), ``inset``
    pixels inside the cells, with a dashed edge drawn as ``stroke``."""

    alpha: int = 55
    stroke: Stroke = Stroke()
    inset: float = 2.0


@dataclass(frozen=True, slots=True)
class Trail:
    """The arrow from the cells a job left to its new place, dotted, drawn as ``stroke``, with
    a filled head ``head`` pixels long at ``head_angle`` degrees either side of the line."""

    stroke: Stroke = Stroke()
    head: float = 9.0
    head_angle: float = 25.0


@dataclass(frozen=True, slots=True)
class Icon:
    """The key's icon of a change: the ghost's edge and the trail drawn ``width`` wide; the
    trail of a re-pack runs dashed from the ghost's middle to the right edge (its head left
    out at that size), the trail of a migration runs from the ghost (lower left) to the block
    (upper right) with its head, as the cues draw it."""

    width: float = 1.2
    text: str = ""


@dataclass(frozen=True, slots=True)
class ChangeStyle:
    """Everything drawn for one kind of change (see the module docstring); ``badge``: the
    cost is written beside the block; ``hatch``: the block is hatched as an extra slot."""

    edge: Edge
    ghost: Ghost | None = None
    trail: Trail | None = None
    icon: Icon | None = None
    badge: bool = False
    hatch: bool = False


_BLOCK = Edge()
_GHOST = Ghost()
_TRAIL = Trail()

#: the style of each change kind (:attr:`gangviz.core.record.Change.kind`); a kind not listed
#: is drawn as :data:`DEFAULT`
STYLES: dict[str, ChangeStyle] = {
    "job_shifted": ChangeStyle(_BLOCK, _GHOST, _TRAIL, Icon(text="job moved (ghost, trail)")),
    "region_swapped": ChangeStyle(_BLOCK, _GHOST, _TRAIL),
    "job_migrated": ChangeStyle(_BLOCK, _GHOST, _TRAIL, Icon(text="migrated (badge: its cost)"),
                                badge=True),
    # a job that left keeps a ghost of its cells while the move is shown, without a trail
    "job_removed": ChangeStyle(_BLOCK, _GHOST),
    "job_placed": ChangeStyle(_BLOCK),
    # an extra slot glides up from home as a dashed, hatched copy
    "job_replicated": ChangeStyle(Edge(width=2.0, dash=True), hatch=True),
    "job_unreplicated": ChangeStyle(Edge(width=2.0, dash=True), hatch=True),
}
DEFAULT = ChangeStyle(_BLOCK)


def style_of(kind: str) -> ChangeStyle:
    """Return the :class:`ChangeStyle` of change ``kind`` (:data:`DEFAULT` for a kind not in
    :data:`STYLES`)."""
    return STYLES.get(kind, DEFAULT)


def edge_pen(edge: Edge, colour: QColor, alpha: float) -> QPen:
    """Return the pen of a moving block of ``colour`` at opacity ``alpha``."""
    c = QColor(colour.darker(edge.darker))
    c.setAlphaF(max(edge.least_alpha, min(1.0, alpha)))
    pen = QPen(c, edge.width)
    if edge.dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def ghost_fill(ghost: Ghost, colour: QColor) -> QColor:
    """Return the fill of a ghost of ``colour``."""
    fill = QColor(colour)
    fill.setAlpha(ghost.alpha)
    return fill


def ghost_edge(ghost: Ghost, colour: QColor) -> QColor:
    """Return the edge colour of a ghost of ``colour``."""
    return QColor(colour).darker(ghost.stroke.darker)


def trail_colour(trail: Trail, colour: QColor) -> QColor:
    """Return the colour of the trail of a job of ``colour``."""
    return QColor(colour).darker(trail.stroke.darker)


def draw_ghost(painter: QPainter, ghost: Ghost, colour: QColor, rect: QRectF,
               width: float | None = None) -> None:
    """Draw the ghost of a job of ``colour`` filling ``rect`` (already inset), its dashed edge
    ``width`` wide (default the ghost's)."""
    painter.fillRect(rect, ghost_fill(ghost, colour))
    painter.setPen(QPen(ghost_edge(ghost, colour), ghost.stroke.width if width is None else width,
                        Qt.PenStyle.DashLine))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(rect)


def draw_trail(painter: QPainter, trail: Trail, colour: QColor, a: QPointF, b: QPointF,
               width: float | None = None, head: float | None = None) -> None:
    """Draw the dotted trail of a job of ``colour`` from ``a`` to ``b`` with its head at ``b``
    (``width`` and ``head`` length default to the trail's)."""
    edge = trail_colour(trail, colour)
    painter.setPen(QPen(edge, trail.stroke.width if width is None else width, Qt.PenStyle.DotLine))
    painter.drawLine(QLineF(a, b))
    line = QLineF(b, a)
    line.setLength(trail.head if head is None else head)
    tip = QLineF(b, line.p2())
    left, right = QLineF(tip), QLineF(tip)
    left.setAngle(tip.angle() + trail.head_angle)
    right.setAngle(tip.angle() - trail.head_angle)
    painter.setBrush(edge)
    painter.setPen(QPen(edge, 1))
    painter.drawPolygon(QPolygonF([b, left.p2(), right.p2()]))


def migration_icon(painter: QPainter, box: QRectF) -> None:
    """Draw the key's icon of a migration in the square ``box`` as the matrix and the cues
    draw one (:data:`STYLES` ``["job_migrated"]``): the ghost left lower left, the block at its
    new place upper right with the block's edge, the dotted trail with its head from one to
    the other, and the cost badge's white box with its dark edge."""
    style = STYLES["job_migrated"]
    ghost, trail, icon = style.ghost or Ghost(), style.trail or Trail(), style.icon or Icon()
    colour = QColor(palette.JOB_COLOURS[1])
    s = box.width()
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    old = QRectF(box.left() + 0.5, box.bottom() - s * 0.4, s * 0.42, s * 0.4 - 0.5)
    painter.setBrush(ghost_fill(ghost, colour))
    painter.setPen(QPen(ghost_edge(ghost, colour), icon.width, Qt.PenStyle.DashLine))
    painter.drawRect(old)
    new = QRectF(box.right() - s * 0.42, box.top() + 0.5, s * 0.42 - 0.5, s * 0.4)
    painter.setBrush(colour)
    painter.setPen(edge_pen(style.edge, colour, 1.0))
    painter.drawRect(new)
    draw_trail(painter, trail, colour, QPointF(old.center().x(), old.top() - 1),
               QPointF(new.left() - 1, new.center().y()), width=icon.width, head=max(3.0, s * 0.3))
    if style.badge:  # the badge's box, as marks.draw_badge draws it, beside the new place
        badge = QRectF(box.right() - s * 0.42, box.bottom() - s * 0.34, s * 0.42 - 0.5, s * 0.3)
        painter.setPen(QPen(palette.TEXT, 1.0))
        painter.setBrush(palette.BACKGROUND)
        painter.drawRoundedRect(badge, s * 0.08, s * 0.08)
    painter.restore()
