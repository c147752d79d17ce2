"""Live metric panels (pyqtgraph), one set per family of simulation.

pyqtgraph live plots with clip-to-view and downsampling. The table of figures says, for each
``sim.family``, which plots the panel shows (:data:`gangviz.metrics.table.PANELS`):

* matrix: slots, processor active ratio, jobs waiting/running, mean turnaround, from the
  simulation's ``samples`` (one per step; Zhou00 §4.2 defines the quantities behind r_a, n_a
  and t_ta), then the core's mean wait and bounded slowdown [Zhang01 §2.3] of the jobs so far;
* space-sharing: the IBM figures of Zhang01 §2.3, wait, bounded slowdown and loss of capacity,
  and the jobs waiting/running;
* multisite: RT, WRT, SLD (Papazachos09 §4.1) and the task migrations;
* epoch: response time, node reallocations and normalised overhead (McCann94 §5).

The curves other than the samples and the current value of its figures that each plot's title
gives come from the simulation's own :attr:`~gangviz.sim.protocol.Simulation.measures`
(:func:`gangviz.metrics.series` and :func:`gangviz.metrics.figures`, the function behind
``gangviz run --json``, bound to the simulation by the factory), so at the end of a run the
window shows the numbers of the command line. Panels follow the player's position: after a step back they show the run up
to the current step only.

The columns are kept as growing numpy arrays and only the new samples are converted on each
update; while playing fast each curve is refreshed about every ``REFRESH_S`` seconds, one
panel at a time in turn (a panel's repaint, axes and all, costs several milliseconds; four at
once would stall the event loop), and all of them once whenever the player stops moving. Each panel exports its picture as PNG (pyqtgraph's exporter) or SVG (Qt's SVG generator) and its
samples as CSV (time and the plotted columns), chosen by the file extension.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gangviz.experiments.numbers import number
from gangviz.factory import measures_of
from gangviz.gui.kit.pgtypes import PlotDataItem
from gangviz.gui.playback.wiring import follow
from gangviz.gui.plots import axes as plot_axes
from gangviz.metrics import table

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player
    from gangviz.sim.state import Sample

REFRESH_S = 0.25
#: Above this many samples a curve is drawn as its per-bin step envelope (:func:`envelope`).
MAX_POINTS = 4000
FIELDS = ("time", *table.SAMPLED)


class SampleColumns:
    """The samples of a simulation as numpy columns, grown incrementally."""

    def __init__(self) -> None:
        self.n = 0
        self.data = {f: np.zeros(256) for f in FIELDS}

    def sync(self, samples: Sequence[Sample], upto: int) -> int:
        """Make the columns hold ``samples[:upto]``; return the count."""
        upto = min(upto, len(samples))
        if upto < self.n:
            self.n = upto
        if upto > self.n:
            need = upto
            cap = len(self.data["time"])
            if need > cap:
                cap = max(need, 2 * cap)
                for f in FIELDS:
                    grown = np.zeros(cap)
                    grown[: self.n] = self.data[f][: self.n]
                    self.data[f] = grown
            new = samples[self.n:upto]
            for f in FIELDS:
                self.data[f][self.n:upto] = [getattr(s, f) for s in new]
            self.n = upto
        return self.n

    def column(self, field: str) -> np.ndarray:
        """Return the first ``n`` values of ``field`` (a view)."""
        return self.data[field][: self.n]


def envelope(t: np.ndarray, y: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the step curve of ``(t, y)`` (each value holds until the next sample's time) in at
    most ``4 * bins`` points, keeping each time bin's lowest and highest value.

    Long runs have tens of thousands of samples, far more than a plot has pixels. The bins are
    equal stretches of time, so an idle stretch without samples is a flat line at the value
    that holds through it; each bin is drawn as a vertical stroke at its first sample's time
    (from its lowest to its highest value, ending at its last value), then a flat line to the
    next bin. No segment is ever a ramp between two different values.
    """
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(t) == 0:
        return t, y
    cuts = np.linspace(t[0], t[-1], bins + 1)[:-1]
    edges = np.unique(np.searchsorted(t, cuts, side="left"))
    edges = edges[edges < len(t)]
    lo = np.minimum.reduceat(y, edges)
    hi = np.maximum.reduceat(y, edges)
    last = y[np.append(edges[1:], len(t)) - 1]
    start = t[edges]
    after = np.append(t[edges[1:]], t[-1])
    xs = np.stack([start, start, start, after], axis=1).ravel()
    ys = np.stack([lo, hi, last, last], axis=1).ravel()
    return xs, ys


class MetricPlot(QWidget):
    """One titled pyqtgraph plot with an export button."""

    def __init__(self, title: str, ylabel: str, series: list[tuple[str, str, str]],
                 parent: QWidget | None = None, kind: str = "plain",
                 figures: tuple[str, ...] = (), slices: bool = True,
                 named: tuple[str, ...] = (), linear: bool = False) -> None:
        super().__init__(parent)
        self.title = title
        self.figures = figures
        #: how the title names each of ``figures`` (its key when not given)
        self._named = dict(zip(figures, named))
        self._linear = linear
        #: the current value of each of ``figures`` (as :func:`gangviz.metrics.figures` gives it)
        self.values: dict[str, float] = {}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        axes = plot_axes.axes(kind)
        if not slices:  # a model with its own time unit (multi-site, epoch): plain numbers
            axes["bottom"] = plot_axes.PlainAxis("bottom")
        self.plot = pg.PlotWidget(background="w", axisItems=axes)
        # the key of a plot with several curves is in its title line, above the data
        self._key = [(legend, colour) for _f, legend, colour in series] if len(series) > 1 else []
        self.plot.setTitle(plot_axes.title_with_key(title, self._key), color="#333333", size="10pt")
        self.plot.setLabel("bottom", "time (slices)" if slices else "time")
        self.plot.setLabel("left", ylabel)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMenuEnabled(False)
        plot_axes.tidy(self.plot, kind)
        self.curves: dict[str, PlotDataItem] = {}
        self.shown = 0
        self._cols = SampleColumns()
        for field, legend, colour in series:
            curve = self.plot.plot([], [], name=legend, pen=pg.mkPen(colour, width=2),
                                   symbolBrush=colour, symbolPen=colour, symbolSize=7)
            curve.setClipToView(True)
            # pyqtgraph's own downsampling joins its chunks with ramps; long curves are thinned
            # as steps by :func:`envelope` instead
            curve.setDownsampling(auto=False)
            self.curves[field] = curve
        lay.addWidget(self.plot)
        btn = QToolButton(self.plot)
        btn.setText("⤓")
        btn.setToolTip(f"Export “{title}” as PNG, SVG or CSV")
        btn.setAutoRaise(True)
        btn.move(4, 2)
        btn.clicked.connect(self._ask_export)
        self.export_button = btn

    def set_figures(self, values: dict[str, Any]) -> None:
        """Give the current value of this plot's figures in its title (a missing or ``nan``
        figure shows as "–")."""
        self.values = {k: values.get(k, math.nan) for k in self.figures}
        if not self.figures:
            return
        text = ", ".join(f"{self._named.get(k, k)} {_show(v)}" for k, v in self.values.items())
        self.plot.setTitle(plot_axes.title_with_key(f"{self.title}: {text}", self._key),
                           color="#333333", size="10pt")

    def set_data(self, cols: SampleColumns,
                 extra: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        """Show the columns' data (and ``extra`` curves: ``field -> (times, values)``) as step
        curves (a value holds until the next step)."""
        self._cols = cols
        t = cols.column("time")
        self.shown = len(t)  # samples on show (panels refresh in turn while playing)
        for field, curve in self.curves.items():
            if extra is not None and field in extra:
                t, y = extra[field]
                self.shown = len(t)
                keep = np.isfinite(y)  # a figure undefined so far (no departure yet) is no point
                t, y = t[keep], y[keep]
            else:
                t, y = cols.column("time"), cols.column(field)
            if len(t) > MAX_POINTS:
                xs, ys = envelope(t, y, MAX_POINTS // 4)
                curve.setData(xs, ys)
                continue
            # a lone point would be invisible as a line: mark it
            curve.setSymbol("o" if len(t) == 1 else None)
            if len(t) > 1 and not self._linear:
                # a step curve: each value holds from its time until the next sample's
                xs = np.repeat(t, 2)[1:]
                ys = np.repeat(y, 2)[:-1]
            else:
                xs, ys = t, y
            curve.setData(xs, ys)

    def _ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.title}", f"{self.title}.png",
                                              "PNG image (*.png);;SVG drawing (*.svg);;CSV data (*.csv)")
        if path:
            self.export(path)

    def export(self, path: str | Path) -> Path:
        """Write the plot to ``path`` (.png, .svg or .csv by extension); return the path.

        Raises ``ValueError`` for another extension.
        """
        from pyqtgraph.exporters import ImageExporter

        path = Path(path)
        ext = path.suffix.lower()
        item = self.plot.getPlotItem()
        if ext == ".png":
            exporter = ImageExporter(item)
            exporter.parameters()["width"] = max(int(self.plot.width()), 400)
        elif ext == ".svg":
            # pyqtgraph's SVGExporter fails on the path syntax of Qt 6.11; Qt's own SVG
            # generator renders the plot widget faithfully.
            from PySide6.QtCore import QRect, QRectF, QSize
            from PySide6.QtGui import QPainter
            from PySide6.QtSvg import QSvgGenerator

            gen = QSvgGenerator()
            gen.setFileName(str(path))
            size = QSize(max(self.plot.width(), 400), max(self.plot.height(), 240))
            gen.setSize(size)
            gen.setViewBox(QRect(0, 0, size.width(), size.height()))
            gen.setTitle(self.title)
            painter = QPainter(gen)
            try:
                self.plot.render(painter, QRectF(0, 0, size.width(), size.height()), self.plot.viewport().rect())
            finally:
                painter.end()
            return path
        elif ext == ".csv":
            # the samples themselves, not the doubled points of the step curve
            cols = self._cols
            fields = ["time"] + list(self.curves)
            table = np.column_stack([cols.column(f) for f in fields]) if cols.n else np.zeros((0, len(fields)))
            np.savetxt(path, table, delimiter=",", header=",".join(fields), comments="", fmt="%.10g")
            return path
        else:
            raise ValueError(f"{path}: export as .png, .svg or .csv")
        exporter.export(str(path))
        return path


def _show(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return number(value)


class MetricsPanel(QWidget):
    """The metric plots of the shown simulation's family in a 2 x 2 grid, following a player."""

    def __init__(self, player: Player | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(6)
        self.plots: list[MetricPlot] = []
        self.family: str | None = None
        #: whether the plots draw the engine's samples (a time-slot or space-sharing run)
        self._sampled = False
        self._slice_seconds: float | None = None
        self._build("matrix")
        self.columns = SampleColumns()
        self.player: Player | None = None
        self._figures: dict[str, Any] = {}
        #: (id of the simulation, position) the figures and series were computed at
        self._figures_at: tuple[int, int] | None = None
        self._series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._series_at: tuple[int, int] | None = None
        self._last = 0.0
        self._turn = 0
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(int(REFRESH_S * 1000))
        self._pending.timeout.connect(self.refresh)
        if player is not None:
            self.set_player(player)

    def _build(self, family: str) -> None:
        """Make the plots of ``family`` (replacing those of another family)."""
        if family == self.family:
            return
        for plot in self.plots:
            self._grid.removeWidget(plot)
            plot.setParent(None)  # gone from the panel now, deleted when Qt next can
            plot.deleteLater()
        self.plots = []
        panels = table.PANELS[family]
        slices = self._sampled = any(p.sampled for p in panels)
        across = 2 if len(panels) <= 4 else 3  # two rows at most: the window keeps its least height
        for i, p in enumerate(panels):
            plot = MetricPlot(p.title, p.ylabel, list(p.curves), self, kind=p.kind, figures=p.figures,
                              slices=slices, named=p.named, linear=p.linear)
            plot_axes.set_time_unit(plot.plot, self._slice_seconds)
            self._grid.addWidget(plot, i // across, i % across)
            self.plots.append(plot)
        self.family = family
        self._turn = 0

    def set_time_unit(self, slice_seconds: float | None) -> None:
        """Label and tick the time axes in the trace's units (``slice_seconds`` seconds per
        slice, an SWF trace) or in slices (``None``)."""
        self._slice_seconds = slice_seconds
        for plot in self.plots:
            plot_axes.set_time_unit(plot.plot, slice_seconds)

    def set_player(self, player: Player) -> None:
        """Follow ``player``: show the plots of its simulation's family."""
        follow(self.player, player, ("moved", "stepped"), self._changed)
        self.player = player
        self.columns = SampleColumns()
        self._figures_at = self._series_at = None
        if player is not None:
            self._build(player.sim.family)
        self.refresh()

    def values(self) -> dict[str, float]:
        """Return the figures the plots' titles show now (key -> value, ``nan`` when undefined)."""
        return {k: v for plot in self.plots for k, v in plot.values.items()}

    def _changed(self, *args: object) -> None:
        if time.perf_counter() - self._last >= REFRESH_S / len(self.plots):
            self._refresh_next()
        self._pending.start()  # (re)started: everything is redrawn once the player rests

    def _refresh_next(self) -> None:
        """Bring the next panel in turn up to the player's position."""
        self._last = time.perf_counter()
        # the figures go over every job (tens of milliseconds on a long trace): once a round
        if self._sync(figures=self._turn == 0):
            self._show(self.plots[self._turn])
            self._turn = (self._turn + 1) % len(self.plots)

    def _sync(self, figures: bool = True) -> bool:
        """Bring the samples, curves and (when ``figures``) the figures up to the player's
        position; return False when there is no player."""
        p = self.player
        if p is None:
            return False
        sim = p.sim
        at = (id(sim), p.position)
        if self._sampled:
            self.columns.sync(sim.samples, p.position)
        measures = measures_of(sim)
        if self._series_at != at:
            self._series, self._series_at = measures.series(), at
        if figures and self._figures_at != at:
            try:
                self._figures = measures.figures()
            except ValueError:  # no job finished yet (the space-sharing figures need one)
                self._figures = {}
            self._figures_at = at
        return True

    def _show(self, plot: MetricPlot) -> None:
        plot.set_data(self.columns, self._series)
        plot.set_figures(self._figures)

    def refresh(self) -> None:
        """Bring every curve up to the player's position now."""
        self._last = time.perf_counter()
        if self._sync():
            for plot in self.plots:
                self._show(plot)
