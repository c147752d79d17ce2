"""Reading every text of a screen as drawn: its pixel size and whether it fits its rectangle.

Widgets that hold text (labels, buttons, combo boxes, line edits, item views and their headers)
are read from the widget tree; text a widget paints itself is caught by recording every
``QPainter.drawText`` call made from Python while the screen is grabbed (the font's pixel size
times the painter's vertical scale, and the rectangle it is drawn in). A text is *clipped* when
it needs more room than its rectangle (``QPainter.drawText`` cuts it there unless asked not to)
or, for a widget, than the widget's contents.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontInfo, QFontMetricsF, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QWidget,
)

#: slack, in pixels, before a text counts as cut (anti-aliasing, rounding of metrics)
SLACK = 1.5


@dataclass(frozen=True)
class Seen:
    """One text on screen: where it came from, its pixel size, itself, and why it is wrong."""

    where: str
    px: float
    text: str
    clipped: bool = False


def font_px(font: QFont, dpi: float) -> float:
    """The pixel size of ``font`` on a device of ``dpi`` dots per inch."""
    if font.pixelSize() > 0:
        return float(font.pixelSize())
    return font.pointSizeF() * dpi / 72.0


class PaintedTexts:
    """Records every text painted through ``QPainter.drawText`` while installed."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []

    def install(self, monkeypatch) -> PaintedTexts:
        orig = QPainter.drawText
        seen = self.seen

        def record(painter: QPainter, *args):
            text = next((a for a in args if isinstance(a, str)), "")
            if text.strip():
                seen.append(_painted(painter, args, text))
            return orig(painter, *args)

        monkeypatch.setattr(QPainter, "drawText", record)
        return self

    def clear(self) -> None:
        self.seen.clear()


def _painted(painter: QPainter, args: tuple, text: str) -> Seen:
    device = painter.device()
    scale = abs(painter.worldTransform().m22()) or 1.0
    px = font_px(painter.font(), device.logicalDpiY()) * scale
    where = type(device).__name__
    rect: QRectF | None = None
    flags = 0
    if args and isinstance(args[0], (QRectF, QRect)):
        rect = QRectF(args[0])
        if len(args) >= 3 and not isinstance(args[1], str):
            flags = int(args[1]) if not hasattr(args[1], "value") else int(args[1].value)
    elif len(args) >= 6 and all(isinstance(a, (int, float)) for a in args[:4]):
        rect = QRectF(*args[:4])
        flags = int(args[4]) if not hasattr(args[4], "value") else int(args[4].value)
    clipped = False
    fm = QFontMetricsF(painter.font())
    if rect is not None and rect.width() > 0 and rect.height() > 0 \
            and not flags & int(Qt.TextFlag.TextDontClip.value):
        need = fm.boundingRect(rect, flags, text)
        clipped = need.width() > rect.width() + SLACK or need.height() > rect.height() + SLACK
        drawn = need.intersected(rect)
    else:  # at a point: the text's own box from its baseline
        at = args[0] if args and hasattr(args[0], "x") else None
        x, y = (at.x(), at.y()) if at is not None else (float(args[0]), float(args[1]))
        drawn = QRectF(x, y - fm.ascent(), fm.horizontalAdvance(text), fm.height())
    if isinstance(device, QWidget):  # a widget's text lies inside the widget
        shown = painter.worldTransform().mapRect(drawn)
        bounds = QRectF(device.rect()).adjusted(-SLACK, -SLACK, SLACK, SLACK)
        clipped = clipped or not bounds.contains(shown)
    return Seen(where, px, text[:50], clipped)


def _columns(model, root) -> int:
    try:
        return int(model.columnCount(root))
    except TypeError:  # a list model hides its column count: it has one
        return 1


def _label_texts(w: QLabel) -> list[tuple[str, QFont, bool]]:
    if not w.text().strip() or not w.pixmap().isNull():
        return []
    if w.wordWrap():
        cut = w.heightForWidth(w.width()) > w.height() + SLACK
    elif w.textFormat() == Qt.TextFormat.RichText or "<" in w.text():
        cut = w.minimumSizeHint().width() > w.width() + SLACK
    else:
        room = w.contentsRect().width() - 2 * w.margin()
        cut = QFontMetricsF(w.font()).horizontalAdvance(w.text()) > room + SLACK
    return [(w.text(), w.font(), cut)]


def _header_texts(w: QHeaderView) -> list[tuple[str, QFont, bool]]:
    model, out = w.model(), []
    if model is None:
        return out
    orient, root = w.orientation(), w.rootIndex()
    across = orient == Qt.Orientation.Horizontal
    for i in range(_columns(model, root) if across else model.rowCount(root)):
        text = str(model.headerData(i, orient) or "")
        if w.isSectionHidden(i) or not text.strip():
            continue
        font = model.headerData(i, orient, Qt.ItemDataRole.FontRole) or w.font()
        room = w.sectionSize(i) if across else w.width()
        out.append((text, font, QFontMetricsF(font).horizontalAdvance(text) > room + SLACK))
    return out


def _item_texts(w: QAbstractItemView) -> list[tuple[str, QFont, bool]]:
    model, out = w.model(), []
    if model is None:
        return out
    root = w.rootIndex()
    for r in range(model.rowCount(root)):
        if hasattr(w, "isRowHidden") and w.isRowHidden(r):
            continue
        for c in range(_columns(model, root)):
            idx = model.index(r, c, root)
            text = str(model.data(idx) or "")
            if not text.strip():
                continue
            font = model.data(idx, Qt.ItemDataRole.FontRole) or w.font()
            rect = w.visualRect(idx)
            cut = rect.width() > 0 and QFontMetricsF(font).horizontalAdvance(text) > rect.width() - 4 + SLACK
            out.append((text, font, cut))
    return out


def _widget_texts(w: QWidget) -> list[tuple[str, QFont, bool]]:
    """The texts ``w`` shows itself, each with its font and whether it is cut."""
    if isinstance(w, QLabel):
        return _label_texts(w)
    if isinstance(w, QAbstractButton) and w.text().strip():
        need = w.sizeHint().width() if w.icon().isNull() else w.minimumSizeHint().width()
        return [(w.text(), w.font(), need > w.width() + SLACK and w.sizeHint().width() > w.width() + 6)]
    if isinstance(w, QComboBox) and w.currentText().strip():
        return [(w.currentText(), w.font(), False)]
    if isinstance(w, QLineEdit):
        return [(w.text() or w.placeholderText() or "(field)", w.font(), False)]
    if isinstance(w, QHeaderView):
        return _header_texts(w)
    if isinstance(w, QAbstractItemView):
        return _item_texts(w)
    return []


def screen_texts(root: QWidget, painted: PaintedTexts, *, grab: bool = True) -> list[Seen]:
    """Every text of ``root`` as drawn now: its widgets' texts and, grabbing it, its painted ones."""
    QApplication.processEvents()
    out: list[Seen] = []
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisibleTo(root) and w is not root:
            continue
        for text, font, cut in _widget_texts(w):
            px = float(QFontInfo(font).pixelSize())
            out.append(Seen(type(w).__name__, px, text[:50], cut))
    if grab:
        painted.clear()
        root.grab()
        out += painted.seen
    return out


def problems(seen: list[Seen], min_px: float) -> list[Seen]:
    """The texts of ``seen`` under ``min_px`` pixels or cut by their rectangle."""
    return [s for s in seen if s.px < min_px - 0.01 or s.clipped]
