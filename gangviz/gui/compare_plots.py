"""The compare window's metric panels: one curve per policy, overlaid, with a legend.

Issue 7, "Compare window": the metric panels overlay one curve per policy. The quantities are the
simulations' per-step samples (slots, active ratio, jobs running, mean turnaround; the
quantities behind r_a, n_a and t_ta of 001_c175c8c1780c2fd0.txt §4.2-4.3), drawn as step curves
like the main window's :mod:`~gangviz.gui.metrics_panel`.

Each policy keeps one pen everywhere (pane header, curves, timeline ticks): the Okabe-Ito
colours blue, vermillion, bluish green and reddish purple (safe under the common colour vision
deficiencies) *and* a distinct dash pattern, so the curves also part in greyscale print. Every
run is known to its end, so the whole curve is drawn faint and the part up to the shared time
solid, with a vertical line at that time; the x range stays fixed while scrubbing.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QWidget

from gangviz.gui.metrics_panel import SampleColumns

#: (colour, dash) of the 1st..4th policy.
POLICY_STYLES = (("#0072B2", Qt.PenStyle.SolidLine), ("#D55E00", Qt.PenStyle.DashLine),
                 ("#009E73", Qt.PenStyle.DashDotLine), ("#CC79A7", Qt.PenStyle.DotLine))
#: (title, y label, sample field)
PANELS = (("Slots", "slots", "slots"), ("Processor active ratio", "ratio", "active_ratio"),
          ("Jobs running", "jobs", "running"), ("Mean turnaround", "slices", "mean_turnaround"))


def policy_colour(i: int) -> QColor:
    """Return the colour of the ``i``-th policy (cycling after four)."""
    return QColor(POLICY_STYLES[i % len(POLICY_STYLES)][0])


def policy_pen(i: int, width: float = 2.0, alpha: int = 255):
    """Return the pyqtgraph pen of the ``i``-th policy."""
    colour, dash = POLICY_STYLES[i % len(POLICY_STYLES)]
    c = QColor(colour)
    c.setAlpha(alpha)
    return pg.mkPen(c, width=width, style=dash)


def step_xy(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the points of a step curve: each value holds from its time to the next sample's."""
    if len(t) < 2:
        return t, y
    return np.repeat(t, 2)[1:], np.repeat(y, 2)[:-1]


class OverlayPlots(QWidget):
    """Four pyqtgraph plots in a 2 x 2 grid, each with one curve per policy and a legend."""

    def __init__(self, parent=None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        self.plots: list[pg.PlotWidget] = []
        self.cursors: list[pg.InfiniteLine] = []
        for i, (title, ylabel, _field) in enumerate(PANELS):
            w = pg.PlotWidget(background="w")
            w.setTitle(title, color="#333333", size="9.5pt")
            w.setLabel("bottom", "time (slices)")
            w.setLabel("left", ylabel)
            w.showGrid(x=True, y=True, alpha=0.15)
            w.setMenuEnabled(False)
            w.getViewBox().setLimits(yMin=0)
            cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#33506E", width=1,
                                                                             style=Qt.PenStyle.DashLine))
            w.addItem(cursor, ignoreBounds=True)
            grid.addWidget(w, i // 2, i % 2)
            self.plots.append(w)
            self.cursors.append(cursor)
        self.series: dict[str, tuple[int, SampleColumns]] = {}
        self.solid: dict[tuple[str, int], pg.PlotDataItem] = {}
        self.faint: dict[tuple[str, int], pg.PlotDataItem] = {}
        self.legends: list = []

    def set_series(self, runs: dict[str, list], end: float) -> None:
        """Show ``runs`` (label -> that policy's whole list of samples) over times 0..``end``."""
        for w in self.plots:
            for item in list(w.getPlotItem().listDataItems()):
                w.removeItem(item)
            if w.getPlotItem().legend is not None:
                w.getPlotItem().legend.scene().removeItem(w.getPlotItem().legend)
                w.getPlotItem().legend = None
        self.series, self.solid, self.faint = {}, {}, {}
        self.legends = []
        for w in self.plots:
            legend = w.addLegend(offset=(-4, 2), labelTextSize="8pt", labelTextColor="#333333",
                                 brush=pg.mkBrush(255, 255, 255, 215), pen=pg.mkPen("#D4D0C8"),
                                 colCount=max(1, len(runs)), verSpacing=-6, horSpacing=12)
            self.legends.append(legend)
        for i, (label, samples) in enumerate(runs.items()):
            cols = SampleColumns()
            if samples:
                cols.sync(samples, len(samples))
            self.series[label] = (i, cols)
            for k, (_t, _y, field) in enumerate(PANELS):
                xs, ys = step_xy(cols.column("time"), cols.column(field))
                faint = self.plots[k].plot(xs, ys, pen=policy_pen(i, 1.2, 70))
                solid = self.plots[k].plot([], [], pen=policy_pen(i, 2.2), name=label)
                self.faint[(label, k)] = faint
                self.solid[(label, k)] = solid
        for w in self.plots:
            w.setXRange(0, max(end, 1.0), padding=0.02)

    def set_time(self, t: float) -> None:
        """Draw each curve solid up to time ``t`` and move the time line there."""
        for label, (_i, cols) in self.series.items():
            times = cols.column("time")
            n = int(np.searchsorted(times, t, side="right"))
            for k, (_t, _y, field) in enumerate(PANELS):
                xs, ys = step_xy(times[:n], cols.column(field)[:n])
                if n and n < len(times):
                    xs, ys = np.append(xs, t), np.append(ys, ys[-1])  # hold the value up to t
                self.solid[(label, k)].setData(xs, ys)
        for c in self.cursors:
            c.setValue(t)
