"""Save a widget as a picture: PNG (a grab of its pixels) or SVG (Qt's SVG generator).

The compare window's figure and the sweep plot export as PNG or SVG. pyqtgraph's own
SVG exporter fails on the path syntax of Qt 6.11 (see :mod:`gangviz.gui.plots.metrics`), so a
whole widget, plots included, is painted into a ``QSvgGenerator`` with ``QWidget.render``: the
SVG holds vector paths for lines, curves and text, and the matrix images as embedded bitmaps.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

FORMATS = (".png", ".svg")


def export_widget(widget: QWidget, path: str | Path, *, title: str = "gangviz") -> Path:
    """Write ``widget`` as it looks now to ``path`` (.png or .svg by extension); return the path.

    Raises ``ValueError`` for another extension and ``OSError`` when the file cannot be written.
    """
    from PySide6.QtCore import QPoint, QRect, QSize
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator
    from PySide6.QtWidgets import QWidget

    path = Path(path)
    ext = path.suffix.lower()
    if ext not in FORMATS:
        raise ValueError(f"{path}: export the figure as .png or .svg")
    from gangviz.outputs import atomic

    if ext == ".png":
        with atomic(path) as tmp:
            if not widget.grab().save(str(tmp), "PNG"):
                raise OSError(f"{path}: cannot write the picture")
        return path
    with atomic(path) as tmp:
        size = QSize(max(widget.width(), 1), max(widget.height(), 1))
        gen = QSvgGenerator()
        gen.setFileName(str(tmp))
        gen.setSize(size)
        gen.setViewBox(QRect(0, 0, size.width(), size.height()))
        gen.setTitle(title)
        painter = QPainter()
        if not painter.begin(gen):
            raise OSError(f"{path}: cannot write the drawing")
        try:
            # QWidget's own render: a QGraphicsView (pyqtgraph's PlotWidget) overrides it with
            # another signature that draws only the scene
            QWidget.render(widget, painter, QPoint(0, 0))
        finally:
            painter.end()
        if not tmp.exists() or tmp.stat().st_size == 0:
            raise OSError(f"{path}: cannot write the drawing")
    return path
