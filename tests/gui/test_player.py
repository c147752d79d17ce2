"""The player: stepping, animation, history, what-if actions, and the scene interpolation."""

from __future__ import annotations

import numpy as np
from gui_helpers import downey_sim, fig2_sim, job_id
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QImage

from gangviz.core.changes import MOVE_KINDS
from gangviz.gui.matrix.scene import build_scene, compose
from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.playback.player import SPEEDS, Player


def _grab(view) -> QImage:
    return view.grab().toImage()


def test_stepping_back_then_forward_gives_the_same_picture(qtbot):
    sim = downey_sim("br", jobs=40, procs=32)
    player = Player(sim)
    view = MatrixWidget(player)
    view.resize(700, 300)
    qtbot.addWidget(view)
    view.show()
    pictures = [_grab(view)]
    for _ in range(25):
        player.step_forward(animate=False)
        pictures.append(_grab(view))
    for k in range(25, 0, -1):
        player.step_back()
        assert player.position == k - 1
        assert _grab(view) == pictures[k - 1]
    for k in range(1, 26):
        player.step_forward(animate=False)
        assert _grab(view) == pictures[k]
    player.go_to(7)
    assert _grab(view) == pictures[7]
    player.go_to(20, now=True)
    assert _grab(view) == pictures[20]


def test_animated_step_ends_in_the_same_state_as_an_instant_one(qtbot):
    sim = fig2_sim()
    player = Player(sim, speed_level=5)  # 8x: still animated
    assert player.animates
    kinds = []
    player.frame.connect(lambda: player.transition and kinds.append(player.transition.change.kind))
    with qtbot.waitSignal(player.moved, timeout=10_000):
        player.step_forward()
    qtbot.waitUntil(lambda: not player.busy, timeout=10_000)
    assert {"job_removed", "job_shifted", "slot_removed"} <= set(kinds)
    animated = sim.matrix.to_rows()
    reference = fig2_sim()
    reference.step()
    assert animated == reference.matrix.to_rows()
    assert player.display_state is sim.matrix
    player.stop()


def test_fast_speed_skips_animation_and_keeps_ticks_short(qtbot):
    sim = downey_sim("br", jobs=80, procs=32)
    player = Player(sim, speed_level=len(SPEEDS) - 1)
    assert not player.animates
    with qtbot.waitSignal(player.finished, timeout=30_000):
        player.play()
    assert sim.done and not player.playing and not player.timer.isActive()
    assert player.transition is None


def test_next_move_stops_after_a_repack_migration_or_deletion(qtbot):
    sim = downey_sim("br", jobs=60, procs=32)
    player = Player(sim)
    player.next_move()
    qtbot.waitUntil(lambda: not player.busy, timeout=10_000)
    last = sim.steps[-1]
    assert any(c.kind in MOVE_KINDS for c in last.changes)
    assert not any(any(c.kind in MOVE_KINDS for c in s.changes) for s in sim.steps[:-1])
    assert player.markers == [player.position - 1]
    # known markers are used after stepping back
    player.go_to(0)
    assert player.next_move() is True
    assert player.position == player.markers[0] + 1
    player.stop()


def test_history_survives_stepping_back_and_what_if_forgets_the_future(qtbot):
    sim = fig2_sim()
    player = Player(sim)
    player.go_to(5, now=True)
    assert player.furthest == 5
    player.go_to(1)
    assert player.position == 1 and player.furthest == 5
    step = player.terminate_now(job_id(sim, "J4"))
    assert "user" in step.cause
    assert player.furthest == player.position == 2
    assert not any("J4" == sim.matrix.names.get(j) for j in sim.matrix.jobs())
    assert player.busy  # the consequences of the what-if are animated
    player.stop()


def _matrix_steps(seed: int, policy: str):
    sim = downey_sim(policy, jobs=25, procs=16, load=0.9, seed=seed)
    out = []
    for _ in range(40):
        before = sim.matrix.copy()
        step = sim.step()
        if step is None:
            break
        out.append((before, step))
    return out


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), policy=st.sampled_from(["br", "brms", "repack", "bc", "firstfit"]))
def test_every_animation_starts_at_the_state_before_and_ends_at_the_state_after(seed, policy):
    for before, step in _matrix_steps(seed, policy):
        work = before.copy()
        for change in step.changes:
            start = compose(build_scene(work, change, 0.0))
            assert np.array_equal(start, work.cells), change
            after = work.copy()
            change.apply(after)
            end = compose(build_scene(work, change, 1.0))
            assert np.array_equal(end, after.cells), change
            mid = build_scene(work, change, 0.5)
            assert mid.cells.shape[1] == work.processors
            work = after


def test_scene_of_a_slot_deletion_flashes_then_collapses():
    sim = fig2_sim()
    before = sim.matrix.copy()
    step = sim.step()
    work = before.copy()
    for change in step.changes:
        if change.kind == "slot_removed":
            early = build_scene(work, change, 0.2)
            late = build_scene(work, change, 0.8)
            assert early.flash is not None and early.flash[0] == change.row
            assert late.flash is None and 0 < late.heights[change.row] < 1
            break
        change.apply(work)
    else:
        raise AssertionError("the Fig. 2 step deletes a slot")
