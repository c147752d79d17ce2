"""BUDDY's schedule built piece by piece over the epoch view [McCann94 Fig. 3(b)], the waiting
jobs drawn before the first step, and ticks at 1/4, 1/2, 3/4 of N and T."""

from __future__ import annotations

from fractions import Fraction

from gangviz.epoch.buddy import buddy
from gangviz.gui.epoch_construction import MIN_SEG, construction
from gangviz.gui.palette import IDLE, job_colour
from gui_helpers import close_rgb, pixel


def test_the_construction_of_fig3b_names_each_min_seg():
    sched = buddy(16, {1: 1, 2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 7: 3, 8: 8})
    mins = {1: 1, 2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 7: 3, 8: 8}
    trace = construction(sched, mins)
    assert [p.job for p in sched.pieces] == [8, 3, 4, 5, 6, 7, 2, 1]
    # J8 on the empty floor; then the min-seg P1..P8 at 1/4 forces J3 to width 8
    assert trace[0] == (0, 16, Fraction(0)) and trace[1] == (0, 8, Fraction(1, 4))
    assert sched.pieces[1].width == 8
    assert construction(sched, {1: 1}) is None  # not these jobs: nothing to show


def open_buddy(window):
    assert window.open_source("mccann-fig3-buddy")
    view = window.board.family[0]
    view.set_animation_ms(0)
    view.grab()
    return view


def test_step_zero_shows_the_waiting_jobs(window):
    view = open_buddy(window)
    img = view.grab().toImage()
    r = view.plot_rect()
    # J8 (at least 8 nodes) is the top bar, half the width of the rectangle
    y = r.top() + r.height() / 16
    assert not close_rgb(pixel(img, r.left() + r.width() * 0.4, y), IDLE, 10)
    assert close_rgb(pixel(img, r.left() + r.width() * 0.7, y), IDLE, 10)


def test_buddy_is_built_piece_by_piece_with_the_min_seg(window, qtbot):
    view = open_buddy(window)
    window.player.step_forward()
    cons = view.construction
    qtbot.waitUntil(lambda: cons.building, timeout=3000)
    cons.timer.stop()
    r = view.plot_rect()
    j3 = view.piece_rect(view.schedule.pieces[1])
    img = view.grab().toImage()
    assert close_rgb(pixel(img, j3.center().x(), j3.center().y() + 12), IDLE, 10), "J3 not placed yet"
    cons.advance()  # J8 is down; the min-seg P1..P8 at 1/4 is drawn
    img = view.grab().toImage()
    y = r.bottom() - r.height() / 4
    assert close_rgb(pixel(img, r.left() + r.width() * 0.1, y), MIN_SEG, 40)
    cons.finish()
    img = view.grab().toImage()
    assert close_rgb(pixel(img, j3.center().x(), j3.center().y() + 12), job_colour(3), 20)
    assert not cons.building


def test_epoch_axes_have_quarter_ticks(window):
    view = open_buddy(window)
    window.player.step_forward()
    view.construction.finish()
    img = view.grab().toImage()
    r = view.plot_rect()
    for frac in (0.25, 0.5, 0.75):
        x = r.left() + r.width() * frac
        assert pixel(img, x, r.bottom() + 2).lightness() < 200, frac  # the node tick
        y = r.bottom() - r.height() * frac
        assert pixel(img, r.left() - 2, y).lightness() < 200, frac  # the time tick
