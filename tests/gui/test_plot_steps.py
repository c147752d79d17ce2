"""Plots with gaps draw steps, never ramps: a value holds until the next sample, through an idle
stretch too, however many samples are thinned to fit the plot; and the time axis's last label
has room at the plot's right edge."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gangviz.gui.plots.axes import RIGHT_MARGIN
from gangviz.gui.plots.metrics import MAX_POINTS, MetricPlot, SampleColumns, envelope


def ramps(xs, ys) -> int:
    """Segments that change both time and value (a finite, drawn one)."""
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    ok = np.isfinite(xs[:-1]) & np.isfinite(xs[1:]) & np.isfinite(ys[:-1]) & np.isfinite(ys[1:])
    return int(np.sum(ok & (np.diff(xs) > 0) & (np.diff(ys) != 0)))


@given(st.lists(st.tuples(st.floats(0.01, 1000.0), st.integers(0, 50)), min_size=1, max_size=400),
       st.integers(1, 60))
def test_the_envelope_is_a_step_curve_with_every_extreme(samples, bins):
    t = np.cumsum([dt for dt, _ in samples])
    y = np.array([v for _, v in samples], dtype=float)
    xs, ys = envelope(t, y, bins)
    assert ramps(xs, ys) == 0
    assert len(xs) <= 4 * bins
    assert ys.max() == y.max() and ys.min() == y.min()
    assert xs[0] == t[0] and xs[-1] == t[-1] and ys[-1] == y[-1]
    # the value shown just after each bin start is a value the curve really has there
    assert set(ys) <= set(y)


def samples_with_gap(n: int) -> list:
    from gangviz.sim.state import Sample

    out = []
    for i in range(n):
        t = float(i) if i < n // 2 else float(i + 10 * n)  # an idle stretch in the middle
        out.append(Sample(t, 1 + i % 3, i % 5, 2, 0.5, i, 3.0 + (i % 7)))
    return out


def test_a_long_run_with_an_idle_stretch_is_drawn_without_ramps(qtbot):
    plot = MetricPlot("Slots", "slots", [("slots", "slots", "#000000")])
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    plot.show()
    for n in (200, MAX_POINTS + 500):
        cols = SampleColumns()
        samples = samples_with_gap(n)
        cols.sync(samples, len(samples))
        plot.set_data(cols)
        xs, ys = plot.curves["slots"].getData()  # what pyqtgraph draws, after any thinning
        assert ramps(xs, ys) == 0, n


def test_the_plot_keeps_room_right_of_its_last_tick_label(qtbot):
    plot = MetricPlot("Slots", "slots", [("slots", "slots", "#000000")])
    qtbot.addWidget(plot)
    item = plot.plot.getPlotItem()
    assert item.getContentsMargins()[2] == RIGHT_MARGIN
