"""The multi-site scenario's first picture shows the gangs still to come."""

from __future__ import annotations

from gui_helpers import close_rgb, pixel

from gangviz.factory import build
from gangviz.gui.families.site_arrivals import upcoming
from gangviz.gui.families.sites import gang_colour
from gangviz.workloads.source import load_source


def test_upcoming_lists_the_scripted_gangs_not_arrived_yet():
    sim = build(load_source("papazachos-migration"))
    assert upcoming(sim)[0] == (0, 4, 0.0, 0) and len(upcoming(sim)) == 6
    sim.step()
    assert [g for g, *_ in upcoming(sim)] == [1, 2, 3, 4, 5]


def test_step_zero_of_the_multisite_scenario_is_not_empty(window):
    assert window.open_source("papazachos-migration")
    view = window.board.family[0]
    img = view.grab().toImage()
    area = view.footer_rect()
    assert area.height() > 0 and area.bottom() <= view.height()
    y = area.center().y()
    # G0's four task chips, in its colour, after the title of the row kept under the sites
    xs = [x for x in range(int(area.left()), int(area.right())) if close_rgb(pixel(img, x, y), gang_colour(0), 10)]
    assert xs and xs[0] < area.left() + 0.3 * area.width()
    assert view.footer_rect().top() > view.proc_rect(1, 3).bottom(), "under the last site, not over it"
