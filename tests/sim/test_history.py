"""The matrix engine's history agrees with the records: undoing a step's change records
(core.record.undo, how every other family steps back) on the matrix gives exactly the matrix
that go_to restores from its snapshots and replay."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.record import undo
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.synthetic import uniform_log


@settings(max_examples=12, deadline=None)
@given(policy=st.sampled_from(["repack", "brmms", "gs", "mbgs"]), seed=st.integers(1, 50),
       load=st.sampled_from([0.5, 0.9]))
def test_undoing_records_walks_back_through_the_states_go_to_restores(policy, seed, load):
    wl = uniform_log(25, load, procs=16, max_work=20, seed=seed)
    sim = Simulation(wl.jobs, make_policy(policy), 16)
    sim.run()
    n = len(sim.steps)
    assert n > 5
    walked = sim.matrix.copy()
    expected = {n: walked.state_key()}
    for k in range(n, 0, -1):
        undo(sim.steps[k - 1], walked)
        expected[k - 1] = walked.state_key()
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}, reverse=True):
        sim.go_to(k)
        assert sim.matrix.state_key() == expected[k], k
    sim.go_to(n)
    assert sim.matrix.state_key() == expected[n]
