"""Example tests of the phases and migration options (Zhang01 §5.1, §5.4)."""

import pytest

from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.core.registry import REGISTRY
from gangviz.policies import make_policy
from gangviz.policies.ibm import BGS, GS, MGS, IBMGang
from gangviz.policies.ibm.migration import option1_cost, option2_cost
from gangviz.sim.engine import Simulation

X = IDLE


def test_registered():
    for name in ("gs", "bgs", "mgs", "mbgs"):
        assert REGISTRY[name].group == "ibm"
    assert make_policy("mgs", mpl=3, q=64).q == 64


@pytest.mark.parametrize("kw", [dict(mpl=0), dict(mpl=2, q=-1), dict(mpl=2, migration_cost=-1)])
def test_bad_parameters(kw):
    with pytest.raises(ValueError):
        IBMGang(**kw)


def test_costs_eq4_eq5():
    # |A| = 4, S(A) = {2, 3}, C = 10
    assert option1_cost(10, 4, [2, 3]) == 5 * 4 + 10 * 5
    assert option2_cost(10, 4, [2, 3]) == 10 * 4 + 5 * 5


def _jobs(specs):
    return [JobSpec(i, f"J{i}", a, s, w, e) for i, (a, s, w, e) in enumerate(specs)]


def test_schedule_best_fit_and_fill():
    # 8 processors, MPL 2. J0 (6 procs) arrives first, then J1 (4): J1 does not fit next to J0,
    # so it opens row S2; J2 (2) best-fits into S1 (2 idle) rather than S2 (4 idle).
    jobs = _jobs([(0, 6, 50, 50), (0, 4, 50, 50), (0, 2, 50, 50)])
    sim = Simulation(jobs, GS(2), 8)
    step = sim.step()
    m = sim.matrix
    assert m.home_row(0) == 0 and m.home_row(1) == 1 and m.home_row(2) == 0
    assert tuple(m.job_cols(2)) == (6, 7)
    # FillMatrix: J2's processors P7..P8 are idle in S2, so it is replicated there; J0 and J1
    # overlap on P1..P4 and cannot be.
    assert m.replica_rows(2) == [1]
    assert m.replica_rows(0) == [] and m.replica_rows(1) == []
    kinds = [c.kind for c in step.changes]
    assert kinds.count("slot_added") == 2


def test_gs_stops_at_first_misfit_but_bgs_backfills():
    # 4 processors, MPL 1. J0 (3 procs, long) runs; J1 (4) cannot fit; J2 (1, short) could.
    jobs = _jobs([(0, 3, 10, 10), (0, 4, 5, 5), (0, 1, 1, 1)])
    gs = Simulation(jobs, GS(1), 4)
    gs.step()
    assert 2 not in gs.matrix and gs.waiting == [1, 2]
    bgs = Simulation(jobs, BGS(1), 4)
    bgs.step()
    assert 2 in bgs.matrix and bgs.waiting == [1]
    res = bgs.policy.reservations[1]
    assert res.row == 0 and res.start == pytest.approx(10.0)  # J0's estimate x MPL 1


def test_bgs_does_not_backfill_past_a_reservation():
    # J2 would run past J1's reservation on the processor J1 needs.
    jobs = _jobs([(0, 3, 10, 10), (0, 4, 5, 5), (0, 1, 20, 20)])
    bgs = Simulation(jobs, BGS(1), 4)
    bgs.step()
    assert 2 not in bgs.matrix


def test_clean_and_compact():
    # S1: J0 on P1..P2; S2: J1 on P3..P4 plus a replica of J0 on P1..P2. A new arrival triggers
    # the phases: CleanMatrix drops the replica, CompactMatrix moves J1 into S1.
    m = OusterhoutMatrix.from_rows([[0, 0, X, X], [0, 0, 1, 1]], 4)
    jobs = _jobs([(0, 2, 50, 50), (0, 2, 50, 50), (0.5, 1, 50, 50)])
    sim = Simulation(jobs, GS(3), 4, initial=m)
    sim.step()  # t=0: nothing arrives
    step = sim.step()  # t=1: J2 arrives
    kinds = [c.kind for c in step.changes]
    assert kinds[0] == "job_unreplicated"
    assert "job_shifted" in kinds and "slot_removed" in kinds
    assert sim.matrix.n_rows == 2  # J0 and J1 in S1; J2 in a new row (S1 is full)
    assert sim.matrix.home_row(1) == 0


def test_collapse_with_migration_option2():
    # S1: J0 on P1..P2 and J1 on P3..P4 (P5..P6 idle). S2: J2 on P3..P4 only.
    # Without migration J2 cannot join S1 (P3..P4 busy there); MGS migrates it to P5..P6.
    m = OusterhoutMatrix.from_rows([[0, 0, 1, 1, X, X], [X, X, 2, 2, X, X]], 6)
    jobs = _jobs([(0, 2, 50, 50), (0, 2, 50, 50), (0, 2, 50, 50), (0.5, 6, 50, 50)])
    sim = Simulation(jobs, MGS(2), 6, initial=m)
    sim.step()
    step = sim.step()
    mig = [c for c in step.changes if c.kind == "job_migrated"]
    assert len(mig) == 1 and mig[0].job == 2 and tuple(mig[0].dst_cols) == (4, 5)
    assert sim.matrix.home_row(2) == 0
    # the freed row now holds the 6-processor job
    assert 3 in sim.matrix


def test_q_limits_collapse():
    m = OusterhoutMatrix.from_rows([[0, 0, 1, 1, X, X], [X, X, 2, 2, X, X]], 6)
    jobs = _jobs([(0, 2, 50, 50), (0, 2, 50, 50), (0, 2, 50, 50), (0.5, 6, 50, 50)])
    sim = Simulation(jobs, MGS(2, q=1), 6, initial=m)
    sim.step()
    step = sim.step()
    assert not [c for c in step.changes if c.kind == "job_migrated"]
    assert 3 not in sim.matrix
