"""Every text colour against its background is at least 4.5:1 (WCAG 2.1 AA), computed from the
palette: the listed pairs, text on every job colour and every shade of the workload vector and
tree, and the window's own labels on its background."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from gangviz.colours import JOB_HEX, MIN_CONTRAST, contrast_ratio, relative_luminance
from gangviz.gui import palette


def test_the_wcag_formula_gives_the_known_ratios():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert relative_luminance("#FFFFFF") == pytest.approx(1.0)


@pytest.mark.parametrize("what,fg,bg", palette.TEXT_PAIRS, ids=[p[0] for p in palette.TEXT_PAIRS])
def test_every_listed_text_colour_reads_on_its_background(what, fg, bg):
    assert contrast_ratio(fg, bg) >= MIN_CONTRAST, (what, fg, bg, round(contrast_ratio(fg, bg), 2))


def test_names_on_every_job_colour_and_every_vector_shade_read():
    fills = list(JOB_HEX) + [palette.shade(v, 255).name() for v in range(0, 256)]
    for fill in fills:
        fg = palette.text_colour(palette.QColor(fill)).name()
        assert contrast_ratio(fg, fill) >= MIN_CONTRAST, (fill, fg)


def test_the_titles_and_subtitle_read_on_the_window_background(window):
    bg = QApplication.palette().color(QPalette.ColorRole.Window).name()
    board = window.board
    for label in (board.title, board.subtitle, board.explain):
        label.ensurePolished()  # the style sheet's colour is in the palette from here on
        fg = label.palette().color(QPalette.ColorRole.WindowText).name()
        assert contrast_ratio(fg, bg) >= MIN_CONTRAST, (label.text()[:30], fg, bg)
    assert board.subtitle.palette().color(QPalette.ColorRole.WindowText).name() == palette.MUTED_TEXT_HEX.lower()
