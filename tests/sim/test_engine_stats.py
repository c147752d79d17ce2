"""A simulation without its run statistics (a policy's own process simulating ahead) makes the
same decisions, at the same times, as one that keeps them."""

from __future__ import annotations

import pytest

from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.synthetic import uniform_log


@pytest.mark.parametrize("policy", ["repack", "firstfit", "gs", "brmms"])
def test_the_same_run_without_statistics(policy):
    jobs = uniform_log(800, 0.9, procs=32, seed=5).jobs
    kept = Simulation(jobs, make_policy(policy), 32, record=False)
    bare = Simulation(jobs, make_policy(policy), 32, record=False, stats=False)
    times = []
    for sim in (kept, bare):
        seen = []
        while (step := sim.step()) is not None:
            seen.append((step.time, [repr(c) for c in step.changes]))
        times.append(seen)
    assert times[0] == times[1]
    assert all(kept.jobs[j] == bare.jobs[j] for j in kept.jobs)
    assert kept.busy_time > 0 and bare.busy_time == 0
