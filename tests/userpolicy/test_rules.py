"""A user's actions are held to the rules of the time-slot family, applied as the built-ins'
change records (so stepping back undoes them), with the seeded generator the engine hands."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gangviz import factory
from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.userpolicy import RULES, RuleViolation
from gangviz.workloads.source import load_source

HEAD = "from gangviz.userpolicy import MatrixPolicy\n\n"
SOURCE = load_source("downey", jobs=30, procs=16, seed=5)


def policy_file(tmp_path: Path, body: str, extra: str = "") -> str:
    path = tmp_path / "rule.py"
    path.write_text(HEAD + "class P(MatrixPolicy):\n" + extra
                    + "    def decide(self, view, act):\n" + textwrap.indent(textwrap.dedent(body), "        "))
    return str(path)


@pytest.mark.parametrize("body, extra, rule, line", [
    ("""
     for job in view.waiting:
         if view.slots == 0:
             act.open_slot()
         act.place(job.id, 0, range(job.size))
     """, "", RULES[0], 9),
    ("""
     for job in view.waiting:
         act.place(job.id, act.open_slot(), range(job.size + 1 if job.size < 16 else 1))
     """, "", RULES[1], 7),
    ("""
     for job in view.waiting:
         act.place(job.id, act.open_slot(), range(job.size))
     for job in view.running:
         act.migrate(job.id, job.slot, [p for p in range(16) if p not in job.processors][:job.size] or job.processors)
     """, "", RULES[2], 9),
    ("""
     for job in view.waiting:
         act.place(job.id, act.open_slot(), range(1, 1 + job.size) if job.size < 16 else range(16))
     """, "    buddy = True\n", RULES[3], 8),
    ("""
     act.place(view.time and 29 or 29, act.open_slot(), range(1))
     """, "", RULES[4], 6),
    ("""
     for job in view.waiting:
         act.place(job.id, act.open_slot(), range(job.size))
     if view.completed:
         act.delete_slot(0) if view.busy(0) else None
     """, "", RULES[5], 9),
    ("""
     pass
     """, "", RULES[6], None),
])
def test_each_rule_stops_the_run_with_one_line_naming_the_time_job_rule_and_line(tmp_path, body, extra, rule, line):
    path = policy_file(tmp_path, body, extra)
    with pytest.raises(RuleViolation) as err:
        factory.run(SOURCE, path, engine="reference")
    exc = err.value
    assert exc.rule == rule and "\n" not in str(exc)
    assert str(exc).startswith(f"t={exc.time:g}: {exc.job}: breaks the rule \"{rule}\"")
    assert exc.where.endswith(f"rule.py:{line}" if line else "rule.py (P.decide)")


def test_checking_changes_nothing_for_a_legal_policy_and_can_be_switched_off(tmp_path):
    path = policy_file(tmp_path, """
        for job in view.waiting:
            act.place(job.id, act.open_slot(), range(job.size))
        """)
    checked = factory.run(SOURCE, path, engine="reference")
    unchecked = factory.run(SOURCE, f"{path}:check=false", engine="reference")
    assert checked.simulation.policy.check and not unchecked.simulation.policy.check
    assert checked.metrics == unchecked.metrics


def test_actions_are_the_built_ins_records_and_stepping_back_undoes_them(tmp_path):
    path = policy_file(tmp_path, """
        for job in view.waiting:
            room = view.first_fit(job.size)
            slot, first = room if room is not None else (act.open_slot(), 0)
            act.place(job.id, slot, range(first, first + job.size), reason="first fit")
        """)
    sim = factory.build(SOURCE, path, record=True, watch=False)
    before = []
    kinds = set()
    for _ in range(12):
        before.append(sim.matrix.to_rows())
        step = sim.step()
        kinds |= {type(c) for c in step.changes}
    assert {JobPlaced, SlotAdded} <= kinds
    assert any("first fit" in line for s in sim.steps for line in s.narration)
    for rows in reversed(before[1:]):
        sim.step_back()
        assert sim.matrix.to_rows() == rows


RANDOM = """
picks = []
for job in view.waiting:
    slot = act.open_slot()
    first = int(self.rng.integers(0, view.processors - job.size + 1))
    act.place(job.id, slot, range(first, first + job.size))
for slot in reversed(view.empty_slots()):
    act.delete_slot(slot)
"""


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 1000))
def test_the_same_seed_gives_the_same_schedule(tmp_path, seed):
    path = policy_file(tmp_path, RANDOM)
    runs = [factory.run(SOURCE, f"{path}:seed={s}", engine="reference", record=True) for s in (seed, seed, seed + 1)]
    rows = [[tuple(map(str, s.changes)) for s in r.simulation.steps] for r in runs]
    assert rows[0] == rows[1]
    assert rows[0] != rows[2]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.sampled_from([8, 16, 32]))
def test_a_checked_run_of_a_legal_policy_keeps_every_invariant(tmp_path, seed, procs):
    path = Path(__file__).resolve().parents[2] / "examples" / "policies" / "best_fit_slot.py"
    source = load_source("downey", jobs=40, procs=procs, load=0.9, seed=seed)
    sim = factory.build(source, str(path), record=False, watch=False)
    while sim.step() is not None:
        m = sim.matrix
        for job in m.jobs():
            rec = sim.jobs[job]
            assert rec.spec.arrival <= sim.time
            assert len(m.job_cols(job)) == rec.spec.size
    assert all(r.finish is not None and abs(sim.served(j) - r.spec.work) < 1e-6 * max(1, r.spec.work)
               for j, r in sim.jobs.items())
