"""Every simulation family conforms to the Simulation protocol, in type and in behaviour."""

from __future__ import annotations

import math

import pytest

from gangviz.epoch.sim import EpochSimulation
from gangviz.factory import build as simulation_for
from gangviz.resources import RESOURCES
from gangviz.sim import protocol
from gangviz.workloads.source import load_source

KTH = RESOURCES / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"

#: (family, source, policy): one built-in source per family
CASES = [
    ("matrix", "fig2-repacking", None),
    ("matrix", "zhou-fig6-wlt", None),
    ("multisite", "papazachos-migration", None),
    ("epoch", "mccann-fig6-epochs", None),
    ("matrix", "zhou-multislot-brms", None),
    ("epoch", "closed system of 8 nodes", None),
    ("space-sharing", str(KTH), "easy"),
]
MAX_STEPS = 80


def _build(name, policy):
    if name == "closed system of 8 nodes":  # longer than the epoch scenarios (two steps)
        return EpochSimulation(8, 4, "OPT-EPOCH(1)", seed=3, departures=30)
    return simulation_for(load_source(name), policy)


def _value(sim) -> object:
    """Return the snapshot as a comparable value (the matrix is live: take its rows)."""
    snap = sim.snapshot()
    return snap.to_rows() if sim.family == "matrix" else snap


def _walk(sim, n: int) -> list:
    """Step ``n`` times from the start; return the snapshot values at positions 0..n."""
    values = [_value(sim)]
    for _ in range(n):
        if sim.step() is None:
            break
        values.append(_value(sim))
    return values


@pytest.mark.parametrize(("family", "name", "policy"), CASES)
def test_conforms_by_type(family, name, policy):
    sim = _build(name, policy)
    assert isinstance(sim, protocol.Simulation)
    assert sim.family == family and family in protocol.FAMILIES
    assert sim.position == 0 and sim.known == 0 and not sim.done
    assert isinstance(sim.policy_name, str) and sim.policy_name


def test_an_object_missing_a_member_does_not_conform():
    class Half:
        family = "matrix"
        time = 0.0

        def step(self):
            return None

    assert not isinstance(Half(), protocol.Simulation)


@pytest.mark.parametrize(("family", "name", "policy"), CASES)
def test_step_back_and_go_to_round_trips_give_the_same_snapshots(family, name, policy):
    sim = _build(name, policy)
    values = _walk(sim, MAX_STEPS)
    n = len(values) - 1
    assert n >= 2, "the scenario should take a few steps"
    assert sim.position == n and sim.known >= n
    times = [sim.step_at(i).time for i in range(n)]
    assert times == sorted(times) and sim.time == times[-1]
    records = [list(sim.step_at(i).changes) for i in range(n)]
    # back one step at a time: every earlier picture comes back
    for k in range(n, 0, -1):
        undone = sim.step_back()
        assert undone is not None and undone.time == times[k - 1]
        assert sim.position == k - 1
        assert _value(sim) == values[k - 1], f"step back to {k - 1}"
    assert sim.step_back() is None and sim.position == 0
    # jumps in both directions land on the same pictures and replay the same records
    for target in (n, 1, n // 2, 0, n - 1, n):
        sim.go_to(target)
        assert sim.position == target
        assert _value(sim) == values[target], f"go_to({target})"
    assert [list(sim.step_at(i).changes) for i in range(n)] == records
    assert sim.peek() >= sim.time


@pytest.mark.parametrize(("family", "name", "policy"), CASES)
def test_run_until_stops_at_the_time_and_run_goes_to_the_end(family, name, policy):
    sim = _build(name, policy)
    _walk(sim, 6)
    t = sim.step_at(sim.position // 2).time
    sim.go_to(0)
    sim.run(until=t)
    assert sim.time <= t < sim.peek()
    assert [sim.step_at(i).time for i in range(sim.position)][-1] == sim.time
    sim.run()
    assert sim.done and math.isinf(sim.peek()) and sim.step() is None
    end = sim.position
    sim.go_to(end + 5)  # forward stops at the end
    assert sim.position == end
