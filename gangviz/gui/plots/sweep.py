"""The sweep plot: one metric against a swept axis, one curve per policy with its 95 % CI band.

Sweeps: the GUI plots a sweep, metric against load per policy with
confidence-interval bands, and the plot exports. The data are the ``summary`` rows of a results
CSV (:func:`gangviz.experiments.sweep.load_summaries`): per cell the mean over its replications
and the half-width of the two-sided 95 % Student-t interval (:mod:`gangviz.experiments.stats`).
The band is mean +- half-width, drawn with ``pyqtgraph.FillBetweenItem`` in the policy's colour;
a cell with one replication has no interval and its band has zero width there; a cell whose
metric is undefined (``nan``) leaves a gap in the curve.

Choices: the x axis is ``load`` when the sweep has it, else its first axis (``x`` overrides);
every other axis is held at one value (``where``; default: its first value in the file), so a
sweep over load and jobs draws the load curves of one job count at a time. Policies keep the
pens of the compare window (the colour fixed for the policy's name, a dash pattern by its place
in the file), and the key is in the title line, above the data.
Exports: PNG or SVG of the plot, and CSV of the plotted points (``policy, <x>, mean, ci95``).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gangviz.experiments.tasks import METRICS
from gangviz.gui.kit.figure_export import export_widget
from gangviz.gui.kit.pgtypes import FillBetweenItem, PlotDataItem
from gangviz.gui.plots import axes as plot_axes
from gangviz.gui.plots.compare import policy_colour, policy_pen
from gangviz.metrics.table import title as figure_title

if TYPE_CHECKING:
    from gangviz.experiments.sweep import CellSummary


@dataclass
class Series:
    """One policy's plotted points: x values, means and CI half-widths (``nan`` = none)."""

    policy: str
    x: np.ndarray
    mean: np.ndarray
    half: np.ndarray


def select_series(axes: list[str], summaries: list[CellSummary], metric: str, x: str | None = None,
                  where: dict[str, Any] | None = None) -> tuple[str, dict[str, Any], list[Series]]:
    """Return ``(x axis, fixed values of the other axes, one Series per policy)``.

    Raises ``ValueError`` for an unknown metric or axis, a sweep without a grid axis, a
    ``where`` value the sweep does not have, or non-numeric values on the x axis.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    if not axes:
        raise ValueError("the sweep has no grid axis to plot against")
    x = x or ("load" if "load" in axes else axes[0])
    if x not in axes:
        raise ValueError(f"--x {x!r} is not an axis of the sweep; axes: {', '.join(axes)}")
    xi = axes.index(x)
    where = dict(where or {})
    for k in where:
        if k not in axes or k == x:
            raise ValueError(f"{k!r} is not another axis of the sweep; axes besides {x}: "
                             f"{', '.join(a for a in axes if a != x) or 'none'}")
    fixed: dict[str, Any] = {}
    for i, a in enumerate(axes):
        if a == x:
            continue
        seen = list(dict.fromkeys(s.values[i] for s in summaries))
        if a in where:
            match = [v for v in seen if str(v) == str(where[a]) or v == where[a]]
            if not match:
                raise ValueError(f"{a}={where[a]} is not in the sweep; values: {', '.join(map(str, seen))}")
            fixed[a] = match[0]
        elif seen:
            fixed[a] = seen[0]
    by_policy: dict[str, list[CellSummary]] = {}
    for s in summaries:
        if all(s.values[axes.index(a)] == v for a, v in fixed.items()):
            by_policy.setdefault(s.policy, []).append(s)
    out = []
    for policy, cells in by_policy.items():
        xs = [c.values[xi] for c in cells]
        if not all(isinstance(v, (int, float)) for v in xs):
            raise ValueError(f"axis {x} has values that are not numbers: {xs}")
        order = np.argsort(np.asarray(xs, dtype=float), kind="stable")
        cells = [cells[i] for i in order]
        out.append(Series(policy, np.array([float(c.values[xi]) for c in cells]),
                          np.array([c.mean[metric] for c in cells], dtype=float),
                          np.array([c.ci95[metric] for c in cells], dtype=float)))
    return x, fixed, out


class SweepPlot(QWidget):
    """A pyqtgraph plot of one metric of a results CSV (see the module docstring).

    ``curves[policy]`` and ``bands[policy]`` are the drawn items (a ``PlotDataItem`` and a
    ``FillBetweenItem``). Raises ``ValueError``/``OSError`` as :func:`load_summaries` and
    :func:`select_series` do.
    """

    def __init__(self, results: str | Path, metric: str = "t_ta", *, x: str | None = None,
                 where: dict[str, Any] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from gangviz.experiments.sweep import load_summaries

        self.path = Path(results)
        self.axes, self.summaries = load_summaries(self.path)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(background="w", axisItems=plot_axes.axes("plain"))
        plot_axes.tidy(self.plot, "free")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMenuEnabled(False)
        for side in ("bottom", "left"):
            self.plot.getAxis(side).enableAutoSIPrefix(False)  # loads read 0.5, not 500 x0.001
        lay.addWidget(self.plot)
        self.curves: dict[str, PlotDataItem] = {}
        self.bands: dict[str, FillBetweenItem] = {}
        self.series: list[Series] = []
        self.set_metric(metric, x=x, where=where)

    def set_metric(self, metric: str, *, x: str | None = None, where: dict[str, Any] | None = None) -> None:
        """Draw ``metric`` against axis ``x`` with the other axes held at ``where``."""
        x, fixed, series = select_series(self.axes, self.summaries, metric, x, where)
        self.metric_name, self.x_axis, self.fixed, self.series = metric, x, fixed, series
        item = self.plot.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.scene().removeItem(item.legend)
            item.legend = None
        self.curves, self.bands = {}, {}
        for i, s in enumerate(series):
            half = np.where(np.isnan(s.half), 0.0, s.half)
            lo = pg.PlotDataItem(s.x, s.mean - half, pen=pg.mkPen(None))
            hi = pg.PlotDataItem(s.x, s.mean + half, pen=pg.mkPen(None))
            fill = QColor(policy_colour(s.policy))
            fill.setAlpha(45)
            band = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(fill))
            item.addItem(band)
            curve = item.plot(s.x, s.mean, pen=policy_pen(s.policy, i, 2.2), name=s.policy,
                              symbol="o", symbolSize=6, symbolBrush=policy_colour(s.policy),
                              symbolPen=pg.mkPen("w"), connect="finite")
            self.curves[s.policy] = curve
            self.bands[s.policy] = band
        title = f"{metric}: {figure_title(metric)}"
        if fixed:
            title += "  (" + ", ".join(f"{a} = {v}" for a, v in fixed.items()) + ")"
        key = [(s.policy, policy_colour(s.policy).name()) for s in series]
        self.plot.setTitle(plot_axes.title_with_key(title, key, "11pt"), color="#333333")  # key above the data
        self.plot.setLabel("bottom", self.x_axis)
        self.plot.setLabel("left", f"{metric} (mean, 95% CI)")
        self.plot.getViewBox().autoRange()

    def export(self, path: str | Path) -> Path:
        """Write the plot as PNG or SVG, or its points as CSV, by the extension; return the path.

        Raises ``ValueError`` for another extension and ``OSError`` when it cannot be written.
        """
        path = Path(path)
        if path.suffix.lower() != ".csv":
            return export_widget(self.plot, path, title=f"{self.metric_name} against {self.x_axis}")
        from gangviz.outputs import atomic

        with atomic(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["policy", self.x_axis, *self.fixed, f"{self.metric_name}_mean", f"{self.metric_name}_ci95"])
            for s in self.series:
                for xv, m, h in zip(s.x, s.mean, s.half):
                    w.writerow([s.policy, repr(float(xv)), *self.fixed.values(),
                                "" if math.isnan(m) else repr(float(m)), "" if math.isnan(h) else repr(float(h))])
        return path


def render_sweep_plot(results: str | Path, out: str | Path, metric: str = "t_ta", *,
                      x: str | None = None, where: dict[str, Any] | None = None,
                      size: tuple[int, int] = (900, 560)) -> Path:
    """Render the plot of ``results`` offscreen to ``out`` (.png, .svg or .csv); return the path.

    Raises ``ValueError``/``OSError`` for a bad results file, metric, axis or output.
    """
    from gangviz.gui.kit.qapp import application

    app = application(offscreen=True)
    w = SweepPlot(results, metric, x=x, where=where)
    try:
        w.resize(*size)
        w.show()
        app.processEvents()
        return w.export(out)
    finally:
        w.close()
        w.deleteLater()
        app.processEvents()
