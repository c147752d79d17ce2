"""Migration overhead is paid by the jobs the paper delays (Zhang01 §5.4,
eqs. 4 and 5, Fig. 13): option 1 delays A by C/2 and each displaced job by C; option 2 delays A
by C and each job on A's old processors in the target row by C/2."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import IDLE, OusterhoutMatrix
from gangviz.policies.ibm import MBGS, MGS
from gangviz.sim.engine import Simulation

from .strategies import workloads as random_workloads

X = IDLE


def _jobs(specs):
    return [JobSpec(i, f"J{i}", a, s, w, e) for i, (a, s, w, e) in enumerate(specs)]


def _finishes(rows, procs, specs, cost, overhead=0.0, charge=True, policy=MGS, decide="event"):
    m = OusterhoutMatrix.from_rows(rows, procs)
    pol = policy(2, migration_cost=cost, charge_migration=charge, decide=decide)
    sim = Simulation(_jobs(specs), pol, procs, initial=m, overhead=overhead)
    sim.run()
    migs = [c for s in sim.steps for c in s.changes if c.kind == "job_migrated"]
    return {j: r.finish for j, r in sim.jobs.items()}, pol, migs, sim


# Option 2: S1 = [J1 J1 . .], S2 = [J0 . . .]. J2 (4 nodes) arrives at t=0.5 and finds no row;
# CollapseMatrix-2 migrates J0 to P3 of S1 (eq. 5: C*1 + C/2*2 = 2C, cheaper than option 1's
# C/2*1 + C*2), so J0 loses C and J1 (on J0's old processor P1 in S1) loses C/2.
OPT2 = ([[1, 1, X, X], [0, X, X, X]], 4, [(0, 1, 2.4, 9), (0, 2, 3.3, 9), (0.5, 4, 1.0, 9)])
# Option 1: S1 = [J0 J0 J0 . . .], S2 = [J1 . . . J2 J2]; J3 (6 nodes) arrives at t=0.5.
# Moving J0 into S2 by option 1 moves J1 off P1 (eq. 4: C/2*3 + C*1 = 2.5C), option 2 would
# cost C*3 + C/2*1. J0 loses C/2, J1 loses C, J2 nothing.
OPT1 = ([[0, 0, 0, X, X, X], [1, X, X, X, 2, 2]], 6,
        [(0, 3, 2.4, 9), (0, 1, 3.3, 9), (0, 2, 2.2, 9), (0.5, 6, 1.0, 9)])


@pytest.mark.parametrize("overhead", [0.0, 0.1])
@pytest.mark.parametrize("case, delays, option", [
    (OPT2, {0: 1.0, 1: 0.5}, "option 2"),
    (OPT1, {0: 0.5, 1: 1.0}, "option 1"),
])
def test_finish_moves_by_exactly_each_jobs_share(case, delays, option, overhead):
    rows, procs, specs = case
    c = 0.2
    free, pol0, migs0, _ = _finishes(rows, procs, specs, 0.0, overhead)
    paid, pol, migs, _ = _finishes(rows, procs, specs, c, overhead)
    assert migs0 and all(option in m.reason for m in migs)
    assert [(m.job, m.dst_cols) for m in migs0] == [(m.job, m.dst_cols) for m in migs]
    for job in free:
        assert paid[job] - free[job] == pytest.approx(c * delays.get(job, 0.0)), job
    assert pol.migration_delay == pytest.approx({j: c * d for j, d in delays.items()})
    # the processor-time the delayed jobs lose is exactly eq. 4 / eq. 5
    sizes = {i: s[1] for i, s in enumerate(specs)}
    lost = sum(sizes[j] * (paid[j] - free[j]) for j in free)
    assert lost == pytest.approx(pol.migration_overhead)
    assert pol0.migration_overhead == 0.0 and pol0.migration_delay == {}


def test_recorded_but_uncharged_cost_changes_nothing():
    rows, procs, specs = OPT2
    free, *_ = _finishes(rows, procs, specs, 0.0)
    unpaid, pol, migs, _ = _finishes(rows, procs, specs, 0.2, charge=False)
    assert unpaid == free
    assert pol.migration_overhead == pytest.approx(0.4) and pol.migration_delay == {}


def test_a_charge_that_spills_over_costs_a_whole_extra_slice_of_the_job():
    # J0 needs 2.9 slices; losing C = 0.2 makes it 3.1, so it needs a fourth slice of its own.
    # J2 is long, so S1 alternates with J2's row: J0 runs at t = 1, 3, 5 and then 7 (slice
    # boundaries at the integers: the boundary time model).
    rows, procs, specs = OPT2
    specs = [(0, 1, 2.9, 9), specs[1], (0.5, 4, 10.0, 20)]
    free, *_ = _finishes(rows, procs, specs, 0.0, decide="boundary")
    paid, _, _, sim = _finishes(rows, procs, specs, 0.2, decide="boundary")
    assert free[0] == pytest.approx(5.9) and paid[0] == pytest.approx(7.1)
    assert sim.jobs[0].finish - sim.jobs[0].start >= 2.9 + 0.2


def test_charge_rejects_jobs_not_running_and_negative_amounts():
    rows, procs, specs = OPT2
    sim = Simulation(_jobs(specs), MGS(2), procs, initial=OusterhoutMatrix.from_rows(rows, procs))
    with pytest.raises(ValueError, match="not running"):
        sim.charge(2, 0.1)  # J2 has not arrived
    with pytest.raises(ValueError, match=">= 0"):
        sim.charge(0, -0.1)
    sim.charge(0, 0.25)
    assert sim.remaining(0) == pytest.approx(2.65) and sim.served(0) == 0.0


def workloads():
    """The workloads of these tests: estimates twice the work."""
    return random_workloads(max_procs=10, jobs=(2, 14), max_gap=2.0, max_work=6.0, overestimate=(2.0, 2.0))


@settings(max_examples=30, deadline=None)
@given(workloads(), st.integers(2, 3), st.sampled_from([0.05, 0.3, 1.5]), st.sampled_from([0.0, 0.1]),
       st.sampled_from([MGS, MBGS]))
def test_work_is_conserved_with_charged_migration(wl, mpl, cost, overhead, cls):
    procs, jobs = wl
    pol = cls(mpl, migration_cost=cost)
    sim = Simulation(jobs, pol, procs, overhead=overhead)
    sim.run()
    size = {j.id: j.size for j in jobs}
    # every delay is paid by someone, and what is paid is exactly eqs. 4 and 5
    assert sum(size[j] * d for j, d in pol.migration_delay.items()) == pytest.approx(pol.migration_overhead)
    for spec in jobs:
        rec = sim.jobs[spec.id]
        # a job gets at most one slice of service per slice of time, and needs its work plus
        # the service it lost to migrations
        need = spec.work + pol.migration_delay.get(spec.id, 0.0)
        assert rec.finish - rec.start >= need - 1e-9
        assert sim.remaining(spec.id) == 0


@settings(max_examples=15, deadline=None)
@given(workloads(), st.sampled_from([0.05, 0.7]))
def test_charges_survive_stepping_back_and_watch_mode(wl, cost):
    procs, jobs = wl
    ref = Simulation(jobs, MGS(2, migration_cost=cost), procs)
    ref.run()
    finish = {j: r.finish for j, r in ref.jobs.items()}
    watched = Simulation(jobs, MGS(2, migration_cost=cost), procs, watch=True)
    watched.run()
    assert {j: r.finish for j, r in watched.jobs.items()} == pytest.approx(finish)
    # go back to every third step and replay: charges are neither lost nor paid twice
    for k in range(len(ref.steps) - 1, -1, -3):
        ref.go_to(k)
        ref.run()
        assert {j: r.finish for j, r in ref.jobs.items()} == finish
