"""The multi-site queue view, offscreen: tokens at their queue positions, running gangs
highlighted, migrations animated (driven by setCurrentTime, never by waiting)."""

import pytest
from gui_helpers import record_painted_texts

from gangviz.core.record import Step
from gangviz.gui.families.sites import (
    BACKGROUND,
    HIGHLIGHT,
    IDLE_FRAME,
    PALETTE,
    QueueView,
    gang_colour,
)
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
    chip, _label = v.flight_rects()[0]
    assert chip.y() > src.y() + 1 and chip.y() < dst.y() - 1  # between the sites
    mid_x, mid_y = chip.x() + 3, chip.center().y()
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
    from gangviz.gui.families.sites import MAX_SCALE
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.set_state(_snapshot())
    v.resize(1200, 500)
    assert 1.0 < v.scale() <= MAX_SCALE
    last = v.proc_rect(1, v._state.cfg.procs - 1)
    assert last.bottom() > 0.8 * v.height(), "the rows use the panel's height"
    assert 0 in v.linked_gangs()  # G0 runs at both sites
    # the bracket in the gutter left of the boxes joins G0 at site 1, P1 and site 2, P2
    x = v.bracket_x(0, 0)
    a, b = v.proc_rect(0, 0), v.proc_rect(1, 1)
    img = v.grab().toImage()
    gap = [y for y in range(int(a.bottom()) + 2, int(b.top()) - 2)
           if any(img.pixelColor(int(x) + dx, y) != BACKGROUND for dx in (-1, 0, 1))]
    assert len(gap) > 0.3 * (b.top() - a.bottom()), "a dashed link between G0's tasks"


# --- lanes over time ------------------------------------------------------------------------------

def _played(view, until=None):
    """The migration scenario stepped into ``view`` (all steps, or the first ``until``)."""
    from gangviz.factory import build
    from gangviz.workloads.source import load_source

    sim = build(load_source("papazachos-migration"))
    view.set_state(sim.state, [])
    while (until is None or sim.cursor < until) and (step := sim.step()) is not None:
        view.show_step(step)
    return sim


def _near(img, x, y, colour, r=2):
    colour = colour if isinstance(colour, int) else colour.rgb()
    return any(img.pixelColor(int(x) + dx, int(y) + dy).rgb() == colour for dx in range(-r, r + 1)
               for dy in range(-r, r + 1))


def test_lanes_run_across_the_panel_and_advance_with_the_clock(qtbot):
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.resize(920, 290)  # the panel of a 1200x800 window
    _played(v, until=4)  # G0 runs on site 1 from t=0
    lane = v.lane_rect(0, 0)
    assert lane.width() > 0.45 * v.width(), "the lanes take the panel's width"
    img = v.grab().toImage()
    for frac in (0.05, 0.5, 0.95):  # G0 from t=0 up to now fills site 1, P1's lane
        assert img.pixelColor(int(lane.left() + lane.width() * frac), int(lane.top() + 3)) == gang_colour(0), frac
    sim = _played(v)  # the whole run: G0 now covers only the start of the lane
    assert v.time_window()[1] == sim.time
    img = v.grab().toImage()
    g0_end = v.time_x(0, 1.0)
    assert lane.left() < g0_end < lane.right()
    assert img.pixelColor(int(g0_end - 4), int(lane.top() + 3)) == gang_colour(0)
    assert img.pixelColor(int(g0_end + 4), int(lane.top() + 3)) != gang_colour(0)


def test_a_gang_across_sites_has_one_colour_in_both_sites_lanes_and_a_link(qtbot):
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.resize(1600, 450)
    _played(v)
    img = v.grab().toImage()
    g5 = [b for b in v.lanes() if b.gang == 5 and b.kind == "run"]
    assert {b.site for b in g5} == {0, 1}
    for b in g5:
        r = v.bar_rect(b)
        assert img.pixelColor(int(r.right() - 5), int(r.top() + 3)) == gang_colour(5), (b.site, b.proc)
    # the migration's hold stretch, hatched in G5's light colour, before G5 runs at site 2
    hold = next(b for b in v.lanes() if b.gang == 5 and b.site == 1 and b.kind == "hold")
    assert hold.cost == 0.1 and hold.end == g5[0].start
    r = v.bar_rect(hold)
    light = gang_colour(5).lighter(150).rgb()
    assert any(img.pixelColor(int(r.left()) + dx, int(r.top()) + dy).rgb() == light
               for dx in range(2, int(r.width()) - 2) for dy in range(2, int(r.height()) - 2))
    # the dashed link at G5's start, in the site gap between site 1, P4 and site 2, P1
    x = v.bar_rect(g5[0]).left() + max(2, 2 * v.scale())
    top, bottom = v.lane_rect(0, 3).bottom(), v.lane_rect(1, 0).top()
    dark = gang_colour(5).darker(150).rgb()
    hits = [y for y in range(int(top) + 1, int(bottom) - 1) if _near(img, x, y, dark, 1)]
    assert hits, "G5's tasks at both sites are linked"


def test_stepping_back_redraws_the_lanes_from_the_history(qtbot):
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.resize(920, 290)
    sim = _played(v)
    whole = v.lanes()
    while sim.cursor > 8:
        sim.step_back()
    v.set_state(sim.state, sim.steps[:sim.cursor])
    assert v.time_window()[1] == sim.time
    assert all(b.start <= sim.time for b in v.lanes())
    assert not any(b.gang == 5 for b in v.lanes()), "G5 arrives later"
    while (step := sim.step()) is not None:
        v.show_step(step)
    assert v.lanes() == whole


def test_a_grid_migration_chip_travels_with_its_cost(qtbot):
    v = QueueView(animation_ms=1000)
    qtbot.addWidget(v)
    v.resize(920, 290)
    sim = _played(v, until=9)
    step = sim.step()
    moves = [c for c in step.changes if type(c).__name__ == "TaskMigrated" and c.is_grid]
    assert moves, "the tenth step sends G5's tasks to site 2"
    c = moves[0]
    src, dst = v.token_rect(c.src_site, c.src_proc, c.src_index), v.proc_rect(c.dst_site, c.dst_proc)
    v.show_step(step)
    v.animation.setCurrentTime(500)
    img = v.grab().toImage()
    j = [f[0] for f in v._flying].index((c.gang, c.task))
    chip, _label = v.flight_rects()[j]
    assert chip.topLeft() not in (src.topLeft(), dst.topLeft())  # on its way
    mid = chip.center()
    assert _near(img, mid.x(), mid.y(), gang_colour(5))
    # the cost is written beside the chip, dark on a light plate
    label = [img.pixelColor(int(mid.x() + src.width() / 2 + dx), int(mid.y())) for dx in range(6, 40)]
    assert any(q.lightness() < 100 for q in label)
    v.animation.setCurrentTime(1000)
    assert v.grab().toImage().pixelColor(int(dst.x() + 6), int(dst.y() + 5)).rgb() == \
        gang_colour(5).lighter(130).rgb(), "the chip has arrived: the target is reserved for G5"


def test_the_time_axis_writes_times_as_the_other_views_do(qtbot, monkeypatch):
    """The lanes' tick labels are the plot axes' (separators, never ``1e+06``) and the clock
    under the processors names the unit: ``t = 1,000,020 slices``, not ``t = 1.00002e+06``."""
    import gangviz.gui.families.sites as qv

    texts = record_painted_texts(monkeypatch, qv)
    snap = _snapshot()
    late = QueueSnapshot(snap.sites, snap.procs, 1_000_020.0, snap.queues, snap.running,
                         snap.reserved, snap.sizes)
    v = QueueView(animation_ms=0)
    qtbot.addWidget(v)
    v.set_state(late)
    v.resize(900, 220)
    v.grab()
    assert "t = 1,000,020 slices" in texts, texts
    ticks = [t for t in texts if t.replace(",", "").isdigit()]
    # the tick at the clock's own time gives way to the clock written beside it
    assert "1,000,010" in ticks and "1,000,020" not in ticks, texts
    assert not any("e+" in t for t in texts)
    v.slice_seconds = 1.0  # a source with a clock: the clock's time of day
    texts.clear()
    v.grab()
    assert "t = 11 d 13:47:00" in texts, texts


def _headings(view):
    """The rectangles of the site headings' texts: the site's name, "now" and "queue (head first)"."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QFontMetricsF

    from gangviz.gui.families.sites import GAP, HEADER

    k = view.scale()
    fm = QFontMetricsF(view._font(k))
    out = []
    for s in range(view._state.cfg.sites):
        area, box0 = view.site_rect(s), view.proc_rect(s, 0)
        h = (HEADER - 4) * k
        name = f"Site {s + 1}  (0/{view._state.cfg.procs} running or reserved)"
        out.append(QRectF(area.x(), area.y(), fm.horizontalAdvance(name), h))
        now_w = fm.horizontalAdvance("now")
        out.append(QRectF(box0.center().x() - now_w / 2, area.y(), now_w, h))
        out.append(QRectF(box0.right() + 2 * GAP * k, area.y(), fm.horizontalAdvance("queue (head first)"), h))
    return out


@pytest.mark.parametrize("size", [(1920, 1000), (960, 520)])
def test_migrating_tokens_never_overlap_each_other_the_headings_or_other_boxes(qtbot, size):
    from gangviz.factory import build

    sim = build("papazachos-migration")
    v = QueueView(animation_ms=1000)
    qtbot.addWidget(v)
    v.resize(*size)
    v.set_state(sim.snapshot())
    flights = 0
    while (step := sim.step()) is not None:
        v.show_step(step)
        if not v._flying:
            continue
        flights += len(v._flying)
        targets = {to for _t, _f, to, _c in v._flying}
        cfg = v._state.cfg
        others = [v.proc_rect(s, i) for s in range(cfg.sites) for i in range(cfg.procs) if (s, i) not in targets]
        heads = _headings(v)
        for u in [i / 40 for i in range(41)]:
            rects = v.flight_rects(u)
            drawn = [r for pair in rects for r in pair]
            for a in range(len(rects)):
                for b in range(a):
                    for ra in rects[a]:
                        for rb in rects[b]:
                            assert not ra.intersects(rb), (u, ra, rb)
            for r in drawn:
                assert not any(r.intersects(h) for h in heads), (u, r)
                assert not any(r.intersects(o) for o in others), (u, r)
                assert v.rect().contains(r.toRect()), (u, r)
        v.animation.setCurrentTime(1000)
    assert flights == 3  # one local migration, two grid migrations
