"""Axis set-up shared by every pyqtgraph plot of the window (metric panels, compare, sweeps).

pyqtgraph's defaults mislead on these plots: it rescales an axis by an SI prefix (``ratio
(x0.001)`` with ticks 400-700), puts fractional ticks on counts, autoscales a ratio to 0.6-1.4
and spreads a single sample over -400..400. :func:`tidy` turns the prefix off on both axes,
fixes ratio axes to 0-1, keeps count axes on whole numbers, and gives the view a minimum range
so one sample sits in a sensible window. Legends go in the plot's title line
(:func:`title_with_key`), outside the data.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pyqtgraph as pg

from gangviz.gui.kit.pgtypes import AxisItem, PlotItem, PlotWidget
from gangviz.timefmt import time_unit

#: what pyqtgraph's ``AxisItem.tickValues`` returns: (spacing, tick values) per level
TickLevels = list[tuple[float, list[float]]]


class IntegerAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped (see pgtypes)
    """An axis whose ticks are whole numbers only (counts: slots, jobs)."""

    def tickValues(self, minVal: float, maxVal: float, size: float) -> TickLevels:
        levels = super().tickValues(minVal, maxVal, size)
        out: TickLevels = []
        for spacing, values in levels:
            if spacing < 1:
                continue
            out.append((spacing, [v for v in values if abs(v - round(v)) < 1e-9]))
        if not out:
            lo, hi = math.ceil(minVal), math.floor(maxVal)
            step = max(1, int(math.ceil((hi - lo + 1) / 8)))
            out = [(float(step), [float(v) for v in range(lo, hi + 1, step)])]
        return out

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [f"{int(round(v)):,}" for v in values]


def tick_strings(values: Iterable[float], spacing: float) -> list[str]:
    """Return the labels of ticks at ``values`` that stand ``spacing`` apart: large numbers in
    full with separators (``2,000,000``, never ``2e+06``), fractions with the digits the
    spacing needs (``0.25``)."""
    out: list[str] = []
    for v in values:
        if spacing >= 1 or abs(v) >= 1000:
            out.append(f"{v:,.0f}")
        else:
            digits = max(0, min(6, -int(math.floor(math.log10(spacing))) if spacing > 0 else 2))
            out.append(f"{v:.{digits}f}")
    return out


def round_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Return round tick values in ``[lo, hi]`` (steps of 1, 2 or 5 times a power of ten), at
    most about ``most`` of them; empty when the range is empty."""
    if not hi > lo:
        return []
    raw = (hi - lo) / max(1, most)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def time_ticks(lo: float, hi: float, slice_seconds: float | None = None,
               most: int = 6) -> tuple[str, list[tuple[float, str]]]:
    """Return the ticks of a time axis from ``lo`` to ``hi`` (slices) drawn without pyqtgraph,
    as :class:`TimeAxis` ticks one: ``(unit, [(time in slices, label), ...])`` at round values
    of the unit that reads best for the span (:func:`gangviz.timefmt.time_unit`: slices
    without ``slice_seconds``), labelled by :func:`tick_strings`. Empty when ``hi <= lo``."""
    unit, per = time_unit(max(hi - lo, 0.0), slice_seconds)
    values = round_ticks(lo / per, hi / per, most)
    spacing = values[1] - values[0] if len(values) > 1 else 1.0
    return unit, [(v * per, text) for v, text in zip(values, tick_strings(values, spacing))]


class PlainAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped (see pgtypes)
    """An axis that writes large numbers in full with separators (``2,000,000``), never as
    ``2e+06`` and never with an SI prefix (:func:`tick_strings`)."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return tick_strings(values, spacing)


class TimeAxis(PlainAxis):
    """A time axis over values in slices. With ``slice_seconds`` set (an SWF trace) it is
    labelled and ticked in the unit that reads best for the span on show (s, min, h or d, see
    :func:`gangviz.timefmt.time_unit`), at round values of that unit; without, in slices."""

    def __init__(self, *args: Any, quantity: str = "time", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.quantity = quantity  # the label is "<quantity> (<unit>)"
        self.slice_seconds: float | None = None
        self._per = 1.0  # slices per unit of the ticks last made

    def set_slice_seconds(self, slice_seconds: float | None) -> None:
        """Count time in ``slice_seconds`` seconds per slice (``None``: in slices)."""
        self.slice_seconds = slice_seconds
        self._set_unit(*time_unit(1.0, slice_seconds))
        self.picture = None
        self.update()

    def _set_unit(self, unit: str, per: float) -> None:
        self._per = per
        text = f"{self.quantity} ({unit})"
        if self.labelText != text:
            self.setLabel(text)

    def tickValues(self, minVal: float, maxVal: float, size: float) -> TickLevels:
        if self.slice_seconds is None:
            levels: TickLevels = super().tickValues(minVal, maxVal, size)
            return levels
        self._set_unit(*time_unit(max(maxVal - minVal, 0.0), self.slice_seconds))
        per = self._per
        return [(spacing * per, [v * per for v in values])
                for spacing, values in super().tickValues(minVal / per, maxVal / per, size)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        per = self._per if self.slice_seconds is not None else 1.0
        return super().tickStrings([v / per for v in values], scale, spacing / per)


def set_time_unit(plot: PlotWidget | PlotItem, slice_seconds: float | None) -> None:
    """Make the time axis of ``plot`` (made with :func:`axes`) count in the trace's units when
    ``slice_seconds`` is given (an SWF trace), else in slices."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    for name in ("bottom", "left"):
        ax = item.getAxis(name)
        if isinstance(ax, TimeAxis):
            ax.set_slice_seconds(slice_seconds)


def forget_label_room(plot: PlotWidget | PlotItem) -> None:
    """Give the left axis of ``plot`` pyqtgraph's default room for its tick labels again.
    pyqtgraph keeps the room of wider labels drawn earlier until the labels are 10 pixels
    narrower, so a plot redrawn whole would otherwise depend on the frames before it."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    left = item.getAxis("left")
    left.textWidth = left.style["tickTextWidth"]
    left._updateWidth()


#: pixels kept free right of a plot for the last tick label of its bottom axis
RIGHT_MARGIN = 16


def axes(kind: str = "plain") -> dict[str, AxisItem]:
    """Return the ``axisItems`` of a PlotWidget: a time axis at the bottom (in slices until
    :func:`set_time_unit` says otherwise) and a ``kind`` ("plain", "integer", "ratio", or
    "turnaround": a time, counted like the bottom axis) axis on the left."""
    if kind == "turnaround":
        left = TimeAxis("left", quantity="turnaround")
    else:
        left = IntegerAxis("left") if kind == "integer" else PlainAxis("left")
    return {"bottom": TimeAxis("bottom"), "left": left}


def tidy(plot: PlotWidget | PlotItem, kind: str = "plain", font_points: float | None = None) -> None:
    """Set up ``plot`` (a PlotWidget or PlotItem) for a quantity of ``kind`` ("plain",
    "integer", "ratio" or "free"; see the module docstring): no SI prefixes; except for "free",
    x and y from 0 with at least one unit shown; ratios fixed 0-1."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    for name in ("left", "bottom"):
        ax = item.getAxis(name)
        ax.enableAutoSIPrefix(False)
        if font_points is not None:
            from PySide6.QtGui import QFont

            f = QFont()
            f.setPointSizeF(font_points)
            ax.setStyle(tickFont=f)
    # room right of the plot for half the last tick label of the time axis ("25" under the
    # right edge was cut where the plot meets the window's edge)
    item.setContentsMargins(2, 2, RIGHT_MARGIN, 2)
    vb = item.getViewBox()
    if kind == "ratio":
        # three labels that never collide, however short the plot
        item.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1")], [(0.25, ""), (0.75, "")]])
        # a little room either side, so the labels 0 and 1 are not clipped at the plot's edges
        vb.setLimits(xMin=0, yMin=-0.06, yMax=1.06, minXRange=1.0)
        item.setYRange(-0.06, 1.06, padding=0)
        vb.enableAutoRange(axis="y", enable=False)
        vb.setMouseEnabled(y=False)
    elif kind == "free":  # any range (a sweep's axes): only the prefix is turned off
        pass
    elif kind == "integer":
        vb.setLimits(xMin=0, yMin=0, minXRange=1.0, minYRange=2.0)
    else:
        vb.setLimits(xMin=0, yMin=0, minXRange=1.0, minYRange=1.0)


def title_with_key(title: str, entries: list[tuple[str, str]], size: str = "10pt") -> str:
    """Return an HTML title: ``title`` and, after it, a coloured line and name per entry
    (``(name, "#RRGGBB")``), so the key sits above the plot, never over the data. A name is
    shown as text: its control characters escaped (a policy file's name may hold them) and no
    markup in it read as HTML."""
    from html import escape

    from gangviz.userpolicy.errors import printable

    if not entries:
        return title
    keys = "&nbsp;&nbsp;".join(f"<span style='color:{c}'>&#9473;&#9473; {escape(printable(n))}</span>"
                               for n, c in entries)
    return f"<span style='font-size:{size}'>{title}&nbsp;&nbsp;&nbsp;{keys}</span>"
