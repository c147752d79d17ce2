"""The incremental matrix phases equal the paper's plain loops (tests/.../reference_phases.py)
job for job and change for change, on random workloads, for all four policies and both time
models."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core import matrix as matrix_mod
from gangviz.policies.ibm import BGS, GS, MBGS, MGS, phases
from gangviz.policies.ibm import gs as gs_mod
from gangviz.policies.ibm import migration as migration_mod
from gangviz.sim.engine import Simulation

from . import reference_phases as ref
from .strategies import workloads


def _run(cls, mpl, procs, jobs, decide, q):
    kw = {"q": q, "migration_cost": 0.05} if cls in (MGS, MBGS) else {}
    sim = Simulation(jobs, cls(mpl, decide=decide, **kw), procs)
    sim.run()
    return ([(r.spec.id, r.start, r.finish) for r in sim.records()],
            [(s.time, [c.describe(sim.matrix.names) for c in s.changes]) for s in sim.steps])


@settings(max_examples=40, deadline=None)
@given(workloads(jobs=(1, 24)), st.integers(1, 5), st.sampled_from([GS, BGS, MGS, MBGS]),
       st.sampled_from(["event", "boundary"]), st.one_of(st.none(), st.integers(0, 6)))
def test_incremental_phases_equal_the_plain_loops(wl, mpl, cls, decide, q):
    procs, jobs = wl
    fast = _run(cls, mpl, procs, jobs, decide, q)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(matrix_mod.OusterhoutMatrix, "row_jobs", ref.row_jobs)
        for mod in (phases, gs_mod, migration_mod):
            for name in ("clean_matrix", "compact_matrix", "fill_matrix", "compaction_moves", "population_order"):
                if hasattr(mod, name):
                    mp.setattr(mod, name, getattr(ref, name))
        slow = _run(cls, mpl, procs, jobs, decide, q)
    assert fast == slow
