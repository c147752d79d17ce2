"""The epoch view, offscreen: pieces in their job's colour where the schedule puts them,
idle background where no piece is, and animated steps (waited on by signal, never by sleeping)."""

from fractions import Fraction

import pytest

from gangviz.core.record import Step
from gangviz.epoch.buddy import buddy
from gangviz.epoch.model import Piece, Schedule
from gangviz.epoch.sim import EpochSimulation
from gangviz.gui.families.epoch import EpochView
from gangviz.gui.palette import BACKGROUND, IDLE, job_colour, text_colour


def _pixel(view, x, y):
    return view.grab().toImage().pixelColor(int(x), int(y))


def _inside(rect):
    return rect.left() + 4, rect.top() + 4


@pytest.fixture
def view(qtbot):
    v = EpochView(animation_ms=0)
    qtbot.addWidget(v)
    v.resize(640, 420)
    return v


def test_each_piece_shows_its_job_colour_where_the_schedule_puts_it(view):
    sched = buddy(16, [1, 2, 3, 3, 3, 3, 3, 8])
    view.set_state(sched)
    img = view.grab().toImage()
    for piece in sched.pieces:
        r = view.piece_rect(piece)
        assert img.pixelColor(*map(int, _inside(r))) == job_colour(piece.job)
    # Fig. 3: the M = 8 job (J7) takes the bottom-left quarter-height strip of 8 nodes
    r = view.job_rect(7)
    plot = view.plot_rect()
    assert r.bottom() == pytest.approx(plot.bottom()) and r.left() == pytest.approx(plot.left())
    assert r.width() == pytest.approx(plot.width() / 2)
    assert r.height() == pytest.approx(plot.height() / 4)


def test_background_where_no_piece_is(view):
    view.set_state(None)
    plot = view.plot_rect()
    assert _pixel(view, plot.center().x(), plot.center().y()) == IDLE
    view.set_state(buddy(4, [1, 1, 1, 1]))
    assert _pixel(view, 3, view.height() - 3) == BACKGROUND   # outside the rectangle


def test_labels_are_drawn_only_where_they_fit(view):
    sched = Schedule(128, (Piece(0, 0, 126, Fraction(0), Fraction(1)),
                           Piece(1, 126, 2, Fraction(0), Fraction(1))), "HAND")
    view.set_state(sched)
    img = view.grab().toImage()

    def ink(job):
        r = view.job_rect(job).adjusted(2, 2, -2, -2)
        colour = text_colour(job_colour(job))
        return sum(img.pixelColor(x, y) == colour
                   for x in range(int(r.left()), int(r.right()) + 1)
                   for y in range(int(r.top()), int(r.bottom())))

    assert ink(0) > 10                      # "J0" drawn on the wide piece
    assert view.job_rect(1).width() < 12 and ink(1) == 0   # no room for "J1"


def test_show_step_instantly_moves_to_the_new_schedule(view):
    sim = EpochSimulation(16, 4, "OPT-EPOCH(1)", seed=7)
    view.show_step(sim.step())
    first = sim.step()
    departed = next(c.job for c in first.changes if c.kind == "job_departed")
    arrived = next(c.job for c in first.changes if c.kind == "job_arrived")
    view.show_step(first)
    assert view.schedule == sim.schedule and not view.is_animating()
    img = view.grab().toImage()
    r = view.job_rect(arrived)
    assert img.pixelColor(*map(int, _inside(r))) == job_colour(arrived)
    with pytest.raises(KeyError):
        view.job_rect(departed)
    colours = {img.pixelColor(*map(int, _inside(view.piece_rect(p)))).name()
               for p in sim.schedule.pieces}
    if job_colour(departed).name() not in {job_colour(j).name() for j in sim.state.jobs}:
        assert job_colour(departed).name() not in colours


def test_show_step_animates_and_signals_the_end(view, qtbot):
    sim = EpochSimulation(16, 4, "HEURISTIC(1)", seed=3)
    view.show_step(sim.step())
    view.set_animation_ms(120)
    step = sim.step()
    with qtbot.waitSignal(view.animationFinished, timeout=3000):
        view.show_step(step)
        assert view.is_animating()
    assert not view.is_animating()
    for piece in sim.schedule.pieces:
        r = view.piece_rect(piece)
        assert _pixel(view, *_inside(r)) == job_colour(piece.job)


def test_step_without_rebuild_still_signals(view, qtbot):
    with qtbot.waitSignal(view.animationFinished, timeout=1000):
        view.show_step(Step(0, 0.0, "script"))


def test_negative_duration_is_rejected(view):
    with pytest.raises(ValueError, match=">= 0 ms"):
        view.set_animation_ms(-1)


def test_the_fig6_scenario_draws_the_papers_figure_five_three_two_with_its_ticks():
    """McCann94 Fig. 6: ten jobs in epochs of 5, 3 and 2, the time axis marked at 1/2 and 4/5."""
    from fractions import Fraction

    from gangviz.factory import build
    from gangviz.gui.families.epoch import time_ticks
    from gangviz.workloads.source import load_source

    sim = build(load_source("mccann-fig6-epochs"))
    sim.step()
    sched, _names = sim.snapshot()
    assert [len(e) for e in sched.epochs] == [5, 3, 2]
    assert [sorted(e) for e in sched.epochs] == [[1, 2, 3, 4, 5], [6, 7, 8], [9, 10]]
    assert time_ticks(sched) == [(Fraction(1, 2), "T/2"), (Fraction(4, 5), "4T/5")]
