"""Processor lanes over time of the multi-site model [Papazachos09 §2, §3.3]."""

import pytest

from gangviz.factory import build
from gangviz.multisite.lanes import HOLD, RUN, LaneLog, lanes_from_steps
from gangviz.workloads.source import load_source


def test_the_migration_scenario_gives_the_papers_stretches():
    sim = build(load_source("papazachos-migration"))
    while sim.step() is not None:
        pass
    bars = lanes_from_steps(sim.state, sim.steps).bars()
    g5 = sorted((b.site, b.proc, b.kind, b.cost) for b in bars if b.gang == 5)
    # G5: T1 holds site 1, P4; T2 and T3 migrate to site 2 (grid, 0.1), then all three run
    assert g5 == [(0, 3, HOLD, 0.0), (0, 3, RUN, 0.0), (1, 0, HOLD, 0.1), (1, 0, RUN, 0.0),
                  (1, 1, HOLD, 0.1), (1, 1, RUN, 0.0)]
    g4 = [b for b in bars if b.gang == 4 and b.kind == HOLD and b.cost]
    assert [(b.site, b.proc, b.cost) for b in g4] == [(0, 2, 0.05)]  # the local migration
    runs = [b for b in bars if b.gang == 5 and b.kind == RUN]
    assert len({b.start for b in runs}) == 1, "a gang starts on all its processors at once"


def test_a_lane_closes_when_its_task_changes_and_time_never_runs_back():
    log = LaneLog(1, 2)
    log.observe(0.0, [(0, 0), None], [None, None])
    log.observe(1.0, [(0, 0), None], [None, None])
    log.observe(2.0, [(1, 0), None], [None, (1, 1)], {(1, 1): 0.1})
    done = [b for b in log.bars() if b.end is not None]
    assert [(b.gang, b.start, b.end) for b in done] == [(0, 0.0, 2.0)]
    on = [b for b in log.bars() if b.end is None]
    assert [(b.proc, b.kind, b.cost) for b in on] == [(0, RUN, 0.0), (1, HOLD, 0.1)]
    with pytest.raises(ValueError, match="backwards"):
        log.observe(1.5, [None, None], [None, None])
