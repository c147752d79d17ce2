"""Re-packing on a ring [Zhou99 §3, end]: the ring is broken at a legal cut common to the two
rows merged; where there is none, the fragments are not combined and nothing half-done stays."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gangviz.core.allocation import place_wlv
from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.core.repack import NoRingCut, eliminate_slots, gather, ring_gather
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation

from .strategies import matrices, signature

SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(st.data())
def test_ring_gather_frees_the_range_or_changes_nothing(data):
    m = data.draw(matrices(ring=True, min_rows=1))
    n = m.processors
    lo = data.draw(st.integers(0, n - 1))
    length = data.draw(st.integers(1, n))
    cols = [(lo + k) % n for k in range(length)]
    assume(all(m.wlv[c] > 0 for c in cols))
    before, key = signature(m), m.state_key()
    out: list = []
    row = ring_gather(m, lo, lo + length, out)
    if row is None:
        assert m.state_key() == key and out == []  # no partial shift is left behind
        try:  # and the plain gather indeed finds two rows with no cut to break the ring at
            gather(m.copy(), lo, lo + length, [])
        except NoRingCut:
            pass
        else:
            raise AssertionError("ring_gather gave up where gather succeeds")
        return
    assert all(m.cells[row, c] == IDLE for c in cols)
    assert signature(m) == before
    m.check()


@SETTINGS
@given(st.data())
def test_eliminating_slots_on_a_ring_keeps_every_job_and_never_fails(data):
    m = data.draw(matrices(ring=True))
    before = signature(m)
    rows = m.n_rows
    removed = eliminate_slots(m, [])
    assert m.n_rows == rows - removed
    assert {j: cols for j, (cols, _) in signature(m).items()} == {j: c for j, (c, _) in before.items()}
    m.check()


@st.composite
def ring_workloads(draw):
    procs = draw(st.integers(2, 16))
    n = draw(st.integers(1, 25))
    jobs = [JobSpec(i, f"J{i}", float(draw(st.integers(0, 30))), draw(st.integers(1, procs)),
                    float(draw(st.integers(1, 20)))) for i in range(n)]
    return procs, jobs


@settings(max_examples=60, deadline=None)
@given(ring_workloads(), st.sampled_from(["alternating", "pairwise"]),
       st.sampled_from(["least-loaded", "leftmost"]))
def test_repack_on_a_ring_runs_every_workload_to_the_end(workload, cuts, window):
    procs, jobs = workload
    sim = Simulation(jobs, make_policy("repack", cuts=cuts, window=window), procs, ring=True)
    for _ in range(10_000):
        if sim.step() is None:
            break
        sim.matrix.check()
        assert all(len(sim.matrix.job_cols(j)) == sim.jobs[j].spec.size for j in sim.matrix.jobs())
    records = sim.records()
    assert all(r.finish is not None and r.turnaround >= r.spec.work - 1e-9 for r in records)


def test_the_downey_ring_that_failed_runs(capsys):
    from gangviz.cli import main

    assert main(["run", "downey", "--ring", "--policy", "repack", "--jobs", "20", "--seed", "1"]) == 0
    assert "t_ta" in capsys.readouterr().out


def test_a_ring_that_cannot_combine_opens_a_slot_instead():
    # Every processor has an idle slot, but the rows' jobs wrap round the ring so that the
    # merges gather needs find no common legal cut to break it at: the job gets a new slot.
    x = IDLE
    m = OusterhoutMatrix.from_rows([[0, 1, 1, x, 0, 0], [2, 1, 1, 3, x, 2], [x, x, x, 4, 4, x]], ring=True)
    key = m.state_key()
    assert ring_gather(m.copy(), 0, 6, []) is None
    assert ring_gather(m, 0, 6, []) is None and m.state_key() == key
    out: list = []
    row = place_wlv(m, 9, 6, out)
    assert m.n_rows == 4 and row == 3 and out[0].kind == "slot_added"
    assert "no legal cut" in out[0].reason and [c.kind for c in out[1:]] == ["job_placed"]
    m.check()
