"""The compare window's metric panels: one curve per policy, overlaid, with a legend.

Compare window: the metric panels overlay one curve per policy. The quantities are the
simulations' per-step samples (slots, active ratio, jobs running, mean turnaround; the
quantities behind r_a, n_a and t_ta of Zhou00 §4.2-4.3), drawn as step curves
like the main window's :mod:`~gangviz.gui.plots.metrics`.

Each policy keeps one pen everywhere (pane header, curves, timeline ticks, sweep plots): the
colour fixed for its *name* by :func:`gangviz.core.registry.colour` unless it looks like the
colour of another policy shown (:func:`gangviz.core.registry.colours_shown`; so ``br`` has one colour
whatever the order of the policies) *and* a dash pattern by its place, so the curves also part
in greyscale print. Every run is known to its end, so the whole curve is drawn faint and the
part up to the shared time solid, with a vertical line at that time; the x range stays fixed
while scrubbing. The mean turnaround has no value, and no curve, before the first job
finishes. The key is in each plot's title line, above the data; the active ratio is
drawn as its running mean over about a 25th of the run (:func:`smooth`), since four raw
ratio curves that jump between 0 and 1 every step hide each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGridLayout, QWidget

from gangviz.core import registry
from gangviz.gui.kit.pgtypes import InfiniteLine, LegendItem, PlotDataItem, PlotWidget
from gangviz.gui.plots import axes as plot_axes
from gangviz.gui.plots.metrics import SampleColumns
from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from gangviz.sim.state import Sample

#: the dash of the 1st..4th policy shown
DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DashDotLine, Qt.PenStyle.DotLine)
#: (title, y label, sample field, axis kind)
PANELS = (("Slots", "slots", "slots", "integer"), ("Processor active ratio", "ratio", "active_ratio", "ratio"),
          ("Jobs running", "jobs", "running", "integer"), ("Mean turnaround", "slices", "mean_turnaround", "turnaround"))


def policy_colour(name: str) -> QColor:
    """Return the fixed colour of the policy called ``name`` (:func:`gangviz.core.registry.colour`)."""
    return QColor(registry.colour(name))


def shown_colours(names: list[str]) -> dict[str, QColor]:
    """Return the colours of the policies ``names`` shown together
    (:func:`gangviz.core.registry.colours_shown`: each its own unless two would look alike)."""
    return {n: QColor(c) for n, c in zip(names, registry.colours_shown(names))}


def policy_pen(name: str, i: int = 0, width: float = 2.0, alpha: int = 255, colour: QColor | None = None) -> QPen:
    """Return the pyqtgraph pen of policy ``name`` shown ``i``-th (colour by name, or
    ``colour``; dash by place)."""
    c = QColor(colour) if colour is not None else policy_colour(name)
    c.setAlpha(alpha)
    pen: QPen = pg.mkPen(c, width=width, style=DASHES[i % len(DASHES)])
    return pen


def smooth(y: np.ndarray, window: int) -> np.ndarray:
    """Return the running mean of ``y`` over ``window`` samples (trailing; ``y`` if window <= 1)."""
    if window <= 1 or len(y) < 2:
        return y
    c = np.cumsum(np.concatenate(([0.0], np.asarray(y, dtype=float))))
    idx = np.arange(1, len(y) + 1)
    lo = np.maximum(idx - window, 0)
    mean: np.ndarray = (c[idx] - c[lo]) / (idx - lo)
    return mean


def step_xy(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the points of a step curve: each value holds from its time to the next sample's."""
    if len(t) < 2:
        return t, y
    return np.repeat(t, 2)[1:], np.repeat(y, 2)[:-1]


class OverlayPlots(QWidget):
    """Four pyqtgraph plots in a 2 x 2 grid, each with one curve per policy and a legend."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        self.plots: list[PlotWidget] = []
        self.cursors: list[InfiniteLine] = []
        for i, (title, ylabel, _field, kind) in enumerate(PANELS):
            w = pg.PlotWidget(background="w", axisItems=plot_axes.axes(kind))
            w.setTitle(title, color="#333333", size="9.5pt")
            w.setLabel("bottom", "time (slices)")
            if ylabel is not None:
                w.setLabel("left", ylabel)
            else:
                w.getPlotItem().getAxis("left").quantity = "response"
            w.showGrid(x=True, y=True, alpha=0.15)
            w.setMenuEnabled(False)
            plot_axes.tidy(w, kind)
            cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#33506E", width=1,
                                                                             style=Qt.PenStyle.DashLine))
            w.addItem(cursor, ignoreBounds=True)
            grid.addWidget(w, i // 2, i % 2)
            self.plots.append(w)
            self.cursors.append(cursor)
        self.series: dict[str, tuple[int, SampleColumns]] = {}
        self.solid: dict[tuple[str, int], PlotDataItem] = {}
        self.faint: dict[tuple[str, int], PlotDataItem] = {}
        self.legends: list[LegendItem] = []
        #: each policy's colour in this window (:func:`shown_colours`)
        self.pens: dict[str, QColor] = {}
        self._fields = tuple(f for _t, _y, f, _k in PANELS)

    def set_series(self, runs: dict[str, list[Sample]], end: float,
                   pens: dict[str, QColor] | None = None) -> None:
        """Show ``runs`` (label -> that policy's whole list of samples) over times 0..``end``,
        each in its colour of ``pens`` (default: :func:`shown_colours` of the labels)."""
        for w in self.plots:
            for item in list(w.getPlotItem().listDataItems()):
                w.removeItem(item)
            if w.getPlotItem().legend is not None:
                w.getPlotItem().legend.scene().removeItem(w.getPlotItem().legend)
                w.getPlotItem().legend = None
        self.series, self.solid, self.faint = {}, {}, {}
        self.legends = []
        self._fields = tuple(f for _t, _y, f, _k in PANELS)
        self.pens = dict(pens) if pens is not None else shown_colours(list(runs))
        key = [(label, self.pens[label].name()) for label in runs]
        for w, (title, _y, _f, _k) in zip(self.plots, PANELS):
            w.setTitle(plot_axes.title_with_key(title, key, "9.5pt"), color="#333333")
        for i, (label, samples) in enumerate(runs.items()):
            cols = SampleColumns()
            if samples:
                cols.sync(samples, len(samples))
            self.series[label] = (i, cols)
            for k, (_t, _y, field, _kind) in enumerate(PANELS):
                xs, ys = step_xy(cols.column("time"), self._values(cols, field))
                faint = self.plots[k].plot(xs, ys, pen=policy_pen(label, i, 1.2, 70, self.pens[label]))
                solid = self.plots[k].plot([], [], pen=policy_pen(label, i, 2.2, colour=self.pens[label]),
                                             name=printable(label))
                self.faint[(label, k)] = faint
                self.solid[(label, k)] = solid
        for w in self.plots:
            w.setXRange(0, max(end, 1.0), padding=0.02)
            w.getPlotItem().getViewBox().updateAutoRange()  # now, as set_curves explains

    def set_curves(self, runs: dict[str, dict[str, np.ndarray]], end: float,
                   pens: dict[str, QColor] | None = None) -> None:
        """Show schedule curves (label -> :meth:`gangviz.experiments.schedule.Schedule.curves`)
        over 0..``end``: jobs waiting, processor demand, jobs running, mean response (in the
        time axes' unit). Replaces the per-step panels' titles."""
        titles = ("Jobs waiting (jobs)", "Processor demand (× machine)", "Jobs running (jobs)",
                  "Mean response of finished jobs")
        labels = ("jobs", "× machine", "jobs", None)  # the time axis names its own unit
        fields = ("waiting", "demand", "running", "mean_response")
        self.set_series({label: [] for label in runs}, end, pens)
        for w in self.plots:  # the same plots whatever order the comparison's runs ended in
            plot_axes.forget_label_room(w)
        key = [(label, self.pens[label].name()) for label in runs]
        for w, title, ylabel in zip(self.plots, titles, labels):
            w.setTitle(plot_axes.title_with_key(title, key, "9.5pt"), color="#333333")
            if ylabel is not None:
                w.setLabel("left", ylabel)
            else:
                w.getPlotItem().getAxis("left").quantity = "response"
        demand = self.plots[1].getPlotItem()
        demand.getAxis("left").setTicks(None)  # demand passes 1 when gang scheduling time-shares
        demand.getViewBox().setLimits(yMin=0, yMax=None)
        demand.getViewBox().enableAutoRange(axis="y", enable=True)
        for i, (label, cols) in enumerate(runs.items()):
            data = SampleColumns()
            data.n = len(cols["time"])
            data.data = {"time": cols["time"], "waiting": cols["waiting"], "slots": cols["demand"],
                         "running": cols["running"], "mean_turnaround": cols["mean_response"],
                         "active_ratio": cols["waiting"]}
            self.series[label] = (i, data)
            for k, field in enumerate(fields):
                y = cols[field]
                xs, ys = step_xy(cols["time"], y)
                self.faint[(label, k)].setData(xs, ys)
        self._fields = ("waiting", "slots", "running", "mean_turnaround")
        # settle the automatic ranges now, not at the next paint: a paint in between (a run
        # ending while the window is drawn) would size the tick labels' room for the old range,
        # and pyqtgraph keeps that room, so the finished view would depend on when it was drawn
        for w in self.plots:
            w.getPlotItem().getViewBox().updateAutoRange()

    @staticmethod
    def _values(cols: SampleColumns, field: str) -> np.ndarray:
        y = cols.column(field)
        if field == "active_ratio":
            return smooth(y, max(1, len(y) // 25))
        if field == "mean_turnaround":
            # a mean over no job is no value, not 0: the curve starts at the first finish (a
            # finished job's turnaround is at least its work, so the leading zeros are those)
            first = int(np.argmax(y > 0)) if np.any(y > 0) else len(y)
            y = np.where(np.arange(len(y)) >= first, y, np.nan)
        return y

    def set_time(self, t: float) -> None:
        """Draw each curve solid up to time ``t`` and move the time line there."""
        for label, (_i, cols) in self.series.items():
            times = cols.column("time")
            n = int(np.searchsorted(times, t, side="right"))
            for k, field in enumerate(self._fields):
                xs, ys = step_xy(times[:n], self._values(cols, field)[:n])
                if n and n < len(times):
                    xs, ys = np.append(xs, t), np.append(ys, ys[-1])  # hold the value up to t
                self.solid[(label, k)].setData(xs, ys)
        for c in self.cursors:
            c.setValue(t)
