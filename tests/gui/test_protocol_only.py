"""The views read a simulation through the Simulation protocol only: the window, the compare
window, the player and the export run here against simulations wrapped in
:class:`tests.gui.protocol_only.ProtocolOnly`, for every family and every built-in scenario, and
any read of a member the protocol does not declare fails the test. The views of the families
without the matrix (the space-sharing Gantt view, the epoch construction, the multi-site arrivals
strip) and the metric panels are also checked to draw what they exist for from such a
simulation, so that a view cannot pass by drawing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import close_rgb, pixel

import gangviz.factory
from gangviz.gui.compare.window import CompareWindow
from gangviz.gui.export.render import export_animation
from gangviz.resources import list_scenarios
from gangviz.sim.protocol import Simulation
from gangviz.workloads.source import load_source
from tests.gui import protocol_only
from tests.gui.protocol_only import UNDECLARED, ProtocolOnly, wrap

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policies"
SCENARIOS = [p.stem for p in list_scenarios()]
#: (source, policy) runs beyond each scenario under its own policy: space sharing and users' policies
#: (a model of a few jobs: a space-sharing policy runs no scenario, which starts from a matrix)
EXTRA = [("downey", "easy"), ("downey", "conservative"), ("downey", "fcfs"),
         ("fig2-repacking", str(EXAMPLES / "gang_sjf.py")), ("downey", str(EXAMPLES / "sjf_easy.py"))]
#: the options of each source: the models small enough to step through quickly
OPTIONS = {"downey": {"jobs": 12, "procs": 16}}
#: a second policy to compare with, per family of the source
OTHER = {"matrix": "gs", "multisite": "AFCFS", "epoch": "OPT-EPOCH(1)"}


@pytest.fixture
def protocol_only_sims(monkeypatch):
    """Every simulation the factory builds comes back behind the protocol; the test fails on
    any undeclared read, even one a caller caught."""
    for name in ("build", "epoch_model", "multisite_model"):
        real = getattr(gangviz.factory, name)
        monkeypatch.setattr(gangviz.factory, name, lambda *a, _real=real, **k: wrap(_real(*a, **k)))
    UNDECLARED.clear()
    yield
    found = sorted(set(UNDECLARED))
    UNDECLARED.clear()
    assert not found, f"read outside the Simulation protocol (family, member): {found}"


def _walk(window, qtbot) -> None:
    """Step forward, back, jump and look, as a user does, through every view."""
    player = window.player
    assert isinstance(player.sim, ProtocolOnly) and isinstance(player.sim, Simulation)
    for _ in range(4):
        player.step_forward(animate=False)
    player.step_back()
    player.go_to(6, now=True)
    player.go_to(2, now=True)
    player.sim.snapshot()
    for _ in range(3):
        player.step_forward(animate=True)
        player.advance_animation(10.0)
    window.grab()
    m = player.display_state
    if player.has_matrix and m is not None and m.jobs():
        job = sorted(m.jobs())[0]
        window._job_selected(job)
        window.board.matrix.grab()
        try:
            player.terminate_now(job)
        except ValueError:
            pass  # a job the what-if cannot end (finished in this very step) is fine here
    window.grab()


@pytest.mark.parametrize(("name", "policy"), [(n, None) for n in SCENARIOS] + EXTRA)
def test_the_window_compare_and_export_read_only_the_protocol(window, qtbot, tmp_path, name, policy,
                                                              protocol_only_sims):
    options = OPTIONS.get(name, {})
    assert window.open_source(name, policy, **options)
    _walk(window, qtbot)
    source = load_source(name, **options)
    own = window.player.sim.policy_name
    other = OTHER[source.model]
    if other.lower() == own.lower():
        other = {"matrix": "repack", "multisite": "AFCFSwM", "epoch": "BUDDY"}[source.model]
    compare = CompareWindow(source, [policy or own, other])
    qtbot.addWidget(compare)
    compare.step_forward()
    compare.step_forward()
    compare.step_back()
    compare.grab()
    compare.close()
    res = export_animation(gangviz.factory.build(source, policy), tmp_path / "run.gif",
                           size=(240, 200), fps=4, steps=2)
    assert res.steps >= 1


@pytest.mark.parametrize("family", ["multisite", "epoch"])
def test_the_random_models_read_only_the_protocol(window, qtbot, tmp_path, family, protocol_only_sims):
    assert window.open_multisite(gangs=30) if family == "multisite" else window.open_epoch(jobs=4)
    _walk(window, qtbot)
    sim = (gangviz.factory.multisite_model(gangs=10) if family == "multisite"
           else gangviz.factory.epoch_model(8, 4, "OPT-EPOCH(1)", departures=5))
    assert export_animation(sim, tmp_path / "run.gif", size=(240, 200), fps=4, steps=2).steps >= 1


def test_the_wrapper_forwards_the_protocol_and_refuses_the_rest(protocol_only_sims):
    sim = gangviz.factory.build(load_source("fig2-repacking"))
    assert isinstance(sim, ProtocolOnly) and sim.family == "matrix" and sim.position == 0
    assert sim.step() is not None and sim.position == 1
    with pytest.raises(AttributeError, match="'policy'"):
        sim.policy  # noqa: B018  (the read is the test)
    assert UNDECLARED == [("matrix", "policy", __name__)]
    UNDECLARED.clear()
    assert protocol_only.MEMBERS >= {"step", "step_back", "go_to", "snapshot", "family"}


def _gantt_draws_its_jobs(window, qtbot) -> None:
    """A running bar in its job's colour, the queue's head where it is listed, its hover text."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QToolTip

    from gangviz.gui.families.gantt import GanttView
    from gangviz.gui.palette import job_colour

    player = window.player
    while not player.sim.waiting:
        assert player.step_forward(animate=False) is not None, "no job ever waited"
    view = window.board.family[0]
    assert isinstance(view, GanttView)
    img = view.grab().toImage()
    hits = {job: rect for rect, job in view._hits}
    head = player.sim.waiting[0]
    assert view.jobAt(hits[head].center()) == head
    running = [job for job in hits if job != head and job not in player.sim.waiting]
    bar = hits[running[0]]
    assert close_rgb(pixel(img, bar.left() + 1, bar.center().y()), job_colour(running[0]), 3)
    qtbot.mouseMove(view, QPoint(int(hits[head].center().x()), int(hits[head].center().y())))
    qtbot.waitUntil(lambda: f"J{head}" in QToolTip.text() or "waits" in QToolTip.text(), timeout=2000)


def _epoch_draws_its_jobs_and_construction(window, qtbot) -> None:
    """The waiting jobs before the first step (J8 at least 8 of 16 nodes), then BUDDY built."""
    from gangviz.gui.palette import IDLE

    view = window.board.family[0]
    img = view.grab().toImage()
    r = view.plot_rect()
    y = r.top() + r.height() / 16
    assert not close_rgb(pixel(img, r.left() + r.width() * 0.4, y), IDLE, 10)
    assert close_rgb(pixel(img, r.left() + r.width() * 0.7, y), IDLE, 10)
    window.player.step_forward()
    cons = view.construction
    qtbot.waitUntil(lambda: cons.building, timeout=3000)
    cons.timer.stop()
    cons.advance()
    view.grab()
    cons.finish()
    assert not cons.building


def _arrivals_show_the_gangs_to_come(window, qtbot) -> None:
    """G0's task chips, in its colour, in the row under the sites."""
    from gangviz.gui.families.sites import gang_colour

    view = window.board.family[0]
    img = view.grab().toImage()
    area = view.footer_rect()
    assert area.height() > 0
    y = area.center().y()
    assert any(close_rgb(pixel(img, x, y), gang_colour(0), 10)
               for x in range(int(area.left()), int(area.right())))
    for _ in range(3):
        window.player.step_forward(animate=False)
    view.grab()


@pytest.mark.parametrize(("name", "policy", "options", "check"), [
    ("downey", "easy", {"jobs": 40, "procs": 32, "seed": 1}, _gantt_draws_its_jobs),
    ("mccann-fig3-buddy", None, {}, _epoch_draws_its_jobs_and_construction),
    ("papazachos-migration", None, {}, _arrivals_show_the_gangs_to_come),
], ids=["space-sharing", "epoch", "multisite"])
def test_each_family_view_and_its_figures_come_from_the_protocol(window, qtbot, name, policy, options,
                                                                 check, protocol_only_sims):
    """The Gantt view, the epoch construction, the arrivals strip and the metric panels draw
    what they exist for (probed pixels, a hover text, figures) from a wrapped simulation: any
    read of their family's own members fails the fixture."""
    assert window.open_source(name, policy, **options)
    assert isinstance(window.player.sim, ProtocolOnly)
    check(window, qtbot)
    for _ in range(30):  # on until some job has finished: the figures are means over those
        window.player.step_forward(animate=False)
    window.metrics.refresh()
    assert any(v == v for v in window.metrics.values().values()), "no figure shown"
    assert window.player.sim.measures.series()  # the panels' curves of these families


def test_each_family_answers_the_members_of_the_others_plainly():
    """The epoch model gives its jobs' minimum nodes (those entering before the first step), a
    scripted multi-site run its gangs to come (a random one none), and the rest nothing; the
    figures are bound to every simulation the factory builds, and finish() only for the two
    families that ``gangviz compare`` ranks."""
    epoch = gangviz.factory.build(load_source("mccann-fig3-buddy"))
    entering = epoch.min_nodes()
    assert entering and all(n >= 1 for n in entering.values())
    epoch.step()
    assert epoch.min_nodes() == {j.id: j.min_nodes for j in epoch.state.jobs.values()}
    sites = gangviz.factory.build(load_source("papazachos-migration"))
    assert [g.gang for g in sites.upcoming()] == [0, 1, 2, 3, 4, 5]
    sites.step()
    assert [g.gang for g in sites.upcoming()] == [1, 2, 3, 4, 5]
    sites.step_back()
    assert len(sites.upcoming()) == 6  # back at the start: every gang to come again
    assert gangviz.factory.multisite_model(gangs=5).upcoming() == ()
    matrix = gangviz.factory.build(load_source("fig2-repacking"))
    space = gangviz.factory.build(load_source("downey", jobs=12, procs=16), "easy")
    for sim in (matrix, space, sites):
        assert sim.min_nodes() == {}
    for sim in (matrix, space, epoch):
        assert sim.upcoming() == ()
    for sim in (matrix, space, sites, epoch):
        assert sim.measures is not None
    # the matrix family's curves: the core's mean wait and bounded slowdown (its samples besides)
    assert set(matrix.measures.series()) == {"wait", "bounded_slowdown"}
    assert matrix.measures.figures()["n_l"] >= 0
    assert matrix.measures.finish().simulation is matrix and matrix.done
    with pytest.raises(ValueError, match="own figures"):
        sites.measures.finish()
