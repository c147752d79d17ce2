"""Live metric panels (pyqtgraph): slots, active ratio, jobs waiting/running, mean turnaround.

Metric panels; DESIGN.md "GUI"/"Style" (pyqtgraph live plots with clip-to-view and
downsampling). The data are the simulation's ``samples`` (one per step: time, slots, waiting,
running, active_ratio, finished, mean_turnaround; Zhou00 §4.2 defines the
quantities behind r_a, n_a and t_ta). Panels follow the player's position: after a step back
they show the samples up to the current step only.

The columns are kept as growing numpy arrays and only the new samples are converted on each
update; while playing fast each curve is refreshed about every ``REFRESH_S`` seconds, one
panel at a time in turn (a panel's repaint, axes and all, costs several milliseconds; four at
once would stall the event loop), and all of them once whenever the player stops moving. Each panel exports its picture as PNG (pyqtgraph's exporter) or SVG (Qt's SVG generator) and its
samples as CSV (time and the plotted columns), chosen by the file extension.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QGridLayout, QMenu, QToolButton, QVBoxLayout, QWidget
from gangviz.gui import plot_axes
from gangviz.gui.families import SAMPLED
from gangviz.gui.wiring import follow

REFRESH_S = 0.25
#: Above this many samples a curve is drawn as its per-bin envelope.
MAX_POINTS = 4000
FIELDS = ("time", "slots", "waiting", "running", "active_ratio", "mean_turnaround")
#: panel title, y label, [(field, legend, colour)], axis kind (see :mod:`gangviz.gui.plot_axes`)
PANELS = (
    ("Slots", "slots", [("slots", "slots", "#332288")], "integer"),
    ("Processor active ratio", "ratio", [("active_ratio", "active ratio", "#117733")], "ratio"),
    ("Jobs", "jobs", [("waiting", "waiting", "#CC6677"), ("running", "running", "#4477AA")], "integer"),
    ("Mean turnaround", "slices", [("mean_turnaround", "mean turnaround", "#AA4499")], "turnaround"),
)


class SampleColumns:
    """The samples of a simulation as numpy columns, grown incrementally."""

    def __init__(self) -> None:
        self.n = 0
        self.data = {f: np.zeros(256) for f in FIELDS}

    def sync(self, samples, upto: int) -> int:
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
    """Return a curve of at most ``2 * bins`` points keeping each bin's lowest and highest value.

    Long runs have tens of thousands of samples, far more than a plot has pixels; drawing the
    minimum and maximum of each bin keeps every peak visible at a fraction of the cost.
    """
    edges = np.linspace(0, len(t), bins + 1).astype(np.int64)[:-1]
    edges = np.unique(edges)
    lo = np.minimum.reduceat(y, edges)
    hi = np.maximum.reduceat(y, edges)
    xs = np.repeat(t[edges], 2)
    ys = np.empty(2 * len(edges), dtype=float)
    ys[0::2], ys[1::2] = lo, hi
    return xs, ys


class MetricPlot(QWidget):
    """One titled pyqtgraph plot with an export button."""

    def __init__(self, title: str, ylabel: str, series, parent=None, kind: str = "plain"):
        super().__init__(parent)
        self.title = title
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(background="w", axisItems=plot_axes.axes(kind))
        # the key of a plot with several curves is in its title line, above the data
        key = [(legend, colour) for _f, legend, colour in series] if len(series) > 1 else []
        self.plot.setTitle(plot_axes.title_with_key(title, key), color="#333333", size="10pt")
        self.plot.setLabel("bottom", "time (slices)")
        self.plot.setLabel("left", ylabel)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMenuEnabled(False)
        plot_axes.tidy(self.plot, kind)
        self.curves = {}
        self.shown = 0
        for field, legend, colour in series:
            curve = self.plot.plot([], [], name=legend, pen=pg.mkPen(colour, width=2))
            curve.setClipToView(True)
            curve.setDownsampling(auto=True, method="peak")
            self.curves[field] = curve
        lay.addWidget(self.plot)
        btn = QToolButton(self.plot)
        btn.setText("⤓")
        btn.setToolTip(f"Export “{title}” as PNG, SVG or CSV")
        btn.setAutoRaise(True)
        btn.move(4, 2)
        btn.clicked.connect(self._ask_export)
        self.export_button = btn

    def set_data(self, cols: SampleColumns) -> None:
        """Show the columns' data as step curves (a value holds until the next step)."""
        self._cols = cols
        t = cols.column("time")
        self.shown = len(t)  # samples on show (panels refresh in turn while playing)
        for field, curve in self.curves.items():
            y = cols.column(field)
            if len(t) > MAX_POINTS:
                xs, ys = envelope(t, y, MAX_POINTS // 2)
                curve.setData(xs, ys)
                continue
            if len(t) > 1:
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
            cols = getattr(self, "_cols", None) or SampleColumns()
            fields = ["time"] + list(self.curves)
            table = np.column_stack([cols.column(f) for f in fields]) if cols.n else np.zeros((0, len(fields)))
            np.savetxt(path, table, delimiter=",", header=",".join(fields), comments="", fmt="%.10g")
            return path
        else:
            raise ValueError(f"{path}: export as .png, .svg or .csv")
        exporter.export(str(path))
        return path


class MetricsPanel(QWidget):
    """The four metric plots in a 2 x 2 grid, following a player."""

    def __init__(self, player=None, parent=None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        self.plots: list[MetricPlot] = []
        for i, (title, ylabel, series, kind) in enumerate(PANELS):
            plot = MetricPlot(title, ylabel, series, self, kind=kind)
            grid.addWidget(plot, i // 2, i % 2)
            self.plots.append(plot)
        self.columns = SampleColumns()
        self.player = None
        self._last = 0.0
        self._turn = 0
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(int(REFRESH_S * 1000))
        self._pending.timeout.connect(self.refresh)
        if player is not None:
            self.set_player(player)

    def set_time_unit(self, slice_seconds: float | None) -> None:
        """Label and tick the time axes in the trace's units (``slice_seconds`` seconds per
        slice, an SWF trace) or in slices (``None``)."""
        for plot in self.plots:
            plot_axes.set_time_unit(plot.plot, slice_seconds)

    def set_player(self, player) -> None:
        """Follow ``player``'s samples."""
        follow(self.player, player, ("moved", "stepped"), self._changed)
        self.player = player
        self.columns = SampleColumns()
        self.refresh()

    def _changed(self, *args) -> None:
        if time.perf_counter() - self._last >= REFRESH_S / len(self.plots):
            self._refresh_next()
        self._pending.start()  # (re)started: everything is redrawn once the player rests

    def _refresh_next(self) -> None:
        """Bring the next panel in turn up to the player's position."""
        self._last = time.perf_counter()
        if self._sync():
            self.plots[self._turn].set_data(self.columns)
            self._turn = (self._turn + 1) % len(self.plots)

    def _sync(self) -> bool:
        p = self.player
        samples = p.sim.samples if p is not None and p.sim.family in SAMPLED else None
        if samples is None:
            return False
        self.columns.sync(samples, p.position)
        return True

    def refresh(self) -> None:
        """Bring every curve up to the player's position now."""
        self._last = time.perf_counter()
        if self._sync():
            for plot in self.plots:
                plot.set_data(self.columns)
