"""Names for pyqtgraph's classes in annotations, in one place.

pyqtgraph ships no type hints, so to mypy its whole package is ``Any`` (``pyproject.toml``
lets its import go unchecked). These aliases name what an object is, so an annotation reads
``PlotWidget`` rather than ``Any``; they check nothing. A class of ours that derives from a
pyqtgraph class (the axes of :mod:`gangviz.gui.plots.axes`) derives from ``Any`` and says so
with a ``# type: ignore[misc]``. Pens and brushes are Qt's (``pg.mkPen`` returns a ``QPen``).
"""

from __future__ import annotations

from typing import Any, TypeAlias

#: ``pyqtgraph.PlotWidget``: a QGraphicsView holding one plot
PlotWidget: TypeAlias = Any
#: ``pyqtgraph.PlotItem``: the plot inside a PlotWidget (axes, view box, legend)
PlotItem: TypeAlias = Any
#: ``pyqtgraph.AxisItem``
AxisItem: TypeAlias = Any
#: ``pyqtgraph.PlotDataItem``: one curve
PlotDataItem: TypeAlias = Any
#: ``pyqtgraph.FillBetweenItem``: the band between two curves
FillBetweenItem: TypeAlias = Any
#: ``pyqtgraph.InfiniteLine``: a vertical or horizontal line across a plot
InfiniteLine: TypeAlias = Any
#: ``pyqtgraph.LegendItem``
LegendItem: TypeAlias = Any
