"""The multi-site queue view, offscreen: tokens at their queue positions, running gangs
highlighted, migrations animated (driven by setCurrentTime, never by waiting)."""

import pytest

from gangviz.core.record import Step
from gangviz.gui.queue_view import BACKGROUND, HIGHLIGHT, IDLE_FRAME, PALETTE, QueueView, gang_colour
from gangviz.multisite.changes import TaskMigrated, TaskReserved
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.simulation import MultiSiteSimulation
from gangviz.multisite.snapshot import QueueSnapshot


def _snapshot():
    # 2 sites x 4. Site 1: P1 runs G0.1; queue of P1 = [G3.1, G5.2]; P3 queue = [G5.1].
    n = 8
    queues = [()] * n
    queues = list(queues)
    queues[0] = ((3, 0), (5, 1))
    queues[2] = ((5, 0),)
    running = [None] * n
    running[0] = (0, 0)
    running[5] = (0, 1)
    return QueueSnapshot(2, 4, 0.0, tuple(queues), tuple(running), (None,) * n,
                         ((0, 2), (3, 1), (5, 2)))


def _pixel(view, x, y):
    return view.grab().toImage().pixelColor(int(x), int(y))


@pytest.fixture
def view(qtbot):
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.set_state(_snapshot())
    v.resize(900, 220)
    return v


def test_tokens_show_their_gang_colour_at_their_queue_position(view):
    r = view.token_rect(0, 0, 1)                    # second token of site 1, P1: G5
    assert _pixel(view, r.x() + 3, r.center().y()) == gang_colour(5)
    r = view.token_rect(0, 0, 0)
    assert _pixel(view, r.x() + 3, r.center().y()) == gang_colour(3)
    r = view.token_rect(0, 2, 0)
    assert _pixel(view, r.x() + 3, r.center().y()) == gang_colour(5)
    r = view.token_rect(0, 1, 0)                    # empty queue: background
    assert _pixel(view, r.x() + 3, r.center().y()) != gang_colour(5)


def test_running_gangs_are_highlighted_and_idle_processors_are_not(view):
    run = view.proc_rect(0, 0)
    assert _pixel(view, run.x() + 2, run.center().y()) == HIGHLIGHT
    assert _pixel(view, run.x() + 6, run.y() + 6) == gang_colour(0)  # clear of the frame and the text
    other_site = view.proc_rect(1, 1)               # G0's second task at site 2, P2
    assert _pixel(view, other_site.x() + 2, other_site.center().y()) == HIGHLIGHT
    idle = view.proc_rect(0, 1)
    assert _pixel(view, idle.x(), idle.center().y()) == IDLE_FRAME


def test_colours_are_stable_and_distinct_for_neighbouring_gangs():
    assert gang_colour(7) == gang_colour(7 + len(PALETTE))
    assert len({gang_colour(g).name() for g in range(len(PALETTE))}) == len(PALETTE)


def _migration_step():
    # G5.2 waits behind G3 at busy P1; it migrates to idle site 2, P3 (grid, overhead 0.1).
    return Step(0, 1.0, "completion", [
        TaskMigrated(5, 1, 0, 0, 1, 1, 2, 0.1, ()),
        TaskReserved(5, 0, 0, 2, 0),
    ])


def test_migration_token_travels_between_sites(qtbot):
    v = QueueView(animation_ms=1000)
    qtbot.addWidget(v)
    v.resize(900, 220)
    v.set_state(_snapshot())
    src, dst = v.token_rect(0, 0, 1), v.proc_rect(1, 2)
    v.show_step(_migration_step())
    assert v.animation.state() == v.animation.State.Running
    v.animation.setCurrentTime(500)
    mid_x = (src.x() + dst.x()) / 2 + 3
    mid_y = (src.center().y() + dst.center().y()) / 2
    assert _pixel(v, mid_x, mid_y) == gang_colour(5)
    # The source slot no longer shows G5 and the target is not drawn yet while in flight.
    assert _pixel(v, src.x() + 3, src.center().y()) != gang_colour(5)
    v.animation.setCurrentTime(1000)
    assert _pixel(v, mid_x, mid_y) != gang_colour(5)
    assert _pixel(v, dst.x() + 6, dst.y() + 5).rgb() == gang_colour(5).lighter(130).rgb()  # clear of the text


def test_zero_duration_shows_the_end_state_at_once(view):
    view.show_step(_migration_step())
    assert view.animation.state() != view.animation.State.Running
    dst = view.proc_rect(1, 2)
    assert _pixel(view, dst.x() + 6, dst.y() + 5).rgb() == gang_colour(5).lighter(130).rgb()  # clear of the text
    snap = view.snapshot()
    assert snap.reserved[6] == (5, 1) and snap.reserved[2] == (5, 0)
    with pytest.raises(ValueError, match=">= 0 ms"):
        view.set_animation_ms(-1)


def test_view_follows_a_simulation_step_by_step(qtbot):
    sim = MultiSiteSimulation(MultiSiteConfig(sites=2, procs=6, arrival_rate=1.8, migrate=True),
                              2, max_gangs=60)
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.set_state(sim.queue_state())
    while (step := sim.step()) is not None:
        v.show_step(step)
        assert v.snapshot().queues == sim.queue_state().queues
        assert v.snapshot().running == sim.queue_state().running
    sim.step_back()
    v.set_state(sim.queue_state())
    assert v.snapshot().reserved == sim.queue_state().reserved


def test_a_few_processors_fill_a_large_panel_and_a_spread_gang_is_linked(qtbot):
    from gangviz.gui.queue_view import MAX_SCALE
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.set_state(_snapshot())
    v.resize(1200, 500)
    assert 1.0 < v.scale() <= MAX_SCALE
    last = v.proc_rect(0, v._state.cfg.procs - 1)
    assert last.bottom() > 0.45 * v.height(), "the rows use the panel's height"
    assert 0 in v.linked_gangs()  # G0 runs at both sites
    a, b = v.proc_rect(0, 0), v.proc_rect(1, 1)
    mid = (a.center() + b.center()) / 2
    img = v.grab().toImage()
    near = [img.pixelColor(int(mid.x()) + dx, int(mid.y()) + dy) for dx in range(-3, 4) for dy in range(-3, 4)]
    assert any(c != BACKGROUND for c in near), "a dashed link between G0's tasks"
