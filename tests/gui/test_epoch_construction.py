"""BUDDY's schedule built piece by piece over the epoch view [McCann94 Fig. 3(b)], the waiting
jobs drawn before the first step, and ticks at 1/4, 1/2, 3/4 of N and T."""

from __future__ import annotations

from fractions import Fraction

from gui_helpers import close_rgb, pixel

from gangviz.epoch.buddy import buddy
from gangviz.gui.families.epoch_construction import MIN_SEG, construction
from gangviz.gui.palette import IDLE, job_colour


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


def open_buddy_with_departures(window, tmp_path):
    """Fig. 3(b)'s jobs, four in the system at a time: every completion rebuilds the quantum."""
    from gangviz.resources import list_scenarios

    text = next(p for p in list_scenarios() if p.stem == "mccann-fig3-buddy").read_text()
    text = text[:text.index("[expect]")].replace('policy = "BUDDY"', 'policy = "BUDDY"\nin_system = 4')
    path = tmp_path / "buddy-departures.toml"
    path.write_text(text)
    assert window.open_source(str(path))
    view = window.board.family[0]
    view.set_animation_ms(0)
    return view


def test_the_next_step_is_never_drawn_over_an_unfinished_construction(window, qtbot, tmp_path):
    view = open_buddy_with_departures(window, tmp_path)
    player, cons = window.player, view.construction
    player.step_forward()
    qtbot.waitUntil(lambda: cons.building, timeout=3000)
    cons.timer.stop()
    assert cons.k < len(cons.trace)
    seen = []
    shown = view.show_step
    view.show_step = lambda step: (seen.append((cons.k, len(cons.trace))), shown(step))
    player.step_forward()  # stepping by hand: the construction jumps to its end first
    assert seen and seen[0][0] == seen[0][1], "the next step was drawn over a half-built schedule"
    assert cons.building, "the next step's construction starts afresh"
    cons.timer.stop()
    player.step_back()  # a jump: the construction ends, the view shows the earlier schedule
    assert not cons.building


def test_playing_waits_for_the_construction_and_speeds_it_up(window, qtbot, tmp_path):
    view = open_buddy_with_departures(window, tmp_path)
    player, cons = window.player, view.construction
    player.set_speed_level(4)  # 4x: still paced, one step at a time
    assert player.paced
    player.step_forward()
    qtbot.waitUntil(lambda: cons.building, timeout=3000)
    assert cons.timer.interval() == 900 // 4
    cons.timer.stop()
    at = player.position
    player._playing = True  # as play() does, without letting the timer run on its own
    player._hold = 0.0
    for _ in range(5):
        player._tick()
    assert player.position == at, "playing took the next step while the construction was building"
    cons.finish()
    player._hold = 0.0
    player._tick()
    assert player.position == at + 1
    player.pause()
