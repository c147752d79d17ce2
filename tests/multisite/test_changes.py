"""Change records of the multi-site model: invertibility, narration, JSON, bad input."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.record import Change
from gangviz.multisite.changes import (
    GangArrived,
    GangFinished,
    GangStarted,
    TaskMigrated,
    TaskQueued,
    TaskReserved,
)
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.simulation import MultiSiteSimulation
from gangviz.multisite.state import MultiSiteState

from .strategies import configs


@settings(max_examples=40, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 10**6), n=st.integers(1, 25))
def test_apply_then_invert_restores_the_state(cfg, seed, n):
    sim = MultiSiteSimulation(cfg, seed, max_gangs=n)
    while (step := sim.step()) is not None:
        after = sim.state.snapshot()
        for c in reversed(step.changes):
            assert isinstance(c, Change)
            inv = c.invert()
            assert inv.invert() == c
            inv.apply(sim.state)
        # Re-apply one change at a time: each record undoes exactly its own effect.
        for c in step.changes:
            before = sim.state.snapshot()
            c.apply(sim.state)
            c.invert().apply(sim.state)
            assert sim.state.snapshot() == before
            c.apply(sim.state)
        assert sim.state.snapshot() == after


def test_migration_narration_names_task_gang_site_processor_and_overhead():
    c = TaskMigrated(gang=12, task=2, src_site=0, src_proc=3, src_index=1, dst_site=1,
                     dst_proc=6, overhead=0.1, bypassed=((7, 0), (9, 1)))
    text = c.describe()
    assert text.startswith("G12.3 migrates to site 2, P7 (overhead 0.1 slices)")
    assert "grid migration from site 1, P4" in text and "ahead of 2 waiting tasks" in text
    assert "local migration" in TaskMigrated(1, 0, 0, 0, 0, 0, 1, 0.05).describe()
    assert c.invert().describe().startswith("Undo: G12.3")
    assert c.describe({12: "big"}).startswith("big.3 migrates")


def test_records_serialise_to_json():
    recs = [GangArrived(3, 1, 2, 0.5, 1.25), TaskQueued(3, 0, 1, 4, 0),
            TaskMigrated(3, 1, 1, 2, 0, 0, 5, 0.1, ((1, 0),)), TaskReserved(3, 0, 1, 4),
            GangStarted(3, 1.0, ((0, 1, 4), (1, 0, 5)), migrated=True),
            GangFinished(3, 2.0, ((0, 1, 4), (1, 0, 5)))]
    data = json.loads(json.dumps([r.to_dict() for r in recs]))
    assert [d["kind"] for d in data] == ["gang_arrived", "task_queued", "task_migrated",
                                         "task_reserved", "gang_started", "gang_finished"]
    assert data[2]["dst_proc"] == 5 and data[2]["overhead"] == 0.1


def test_a_record_that_does_not_fit_raises_and_leaves_the_state_alone():
    state = MultiSiteState(MultiSiteConfig(sites=1, procs=2))
    GangArrived(0, 0, 2, 0.0, 1.0).apply(state)
    TaskQueued(0, 0, 0, 0, 0).apply(state)
    before = state.snapshot()
    with pytest.raises(ValueError, match="already holds a task of G0"):
        TaskQueued(0, 1, 0, 0, 1).apply(state)
    with pytest.raises(ValueError, match="no processor 5 at site 0"):
        TaskQueued(0, 1, 0, 5, 0).apply(state)
    with pytest.raises(ValueError, match="cannot start"):
        GangStarted(0, 0.0, ((0, 0, 0), (1, 0, 1)), indices=(0, 0)).apply(state)
    with pytest.raises(ValueError, match="not waiting"):
        TaskMigrated(0, 1, 0, 1, 0, 0, 0, 0.05).apply(state)
    with pytest.raises(ValueError, match="already arrived"):
        GangArrived(0, 0, 2, 0.0, 1.0).apply(state)
    assert state.snapshot() == before
