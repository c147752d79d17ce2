"""A user's space-sharing policy: simulated with the backfilling simulator's records, held to
the rules and to the reservation rule it declares."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import gangviz
from gangviz import factory
from gangviz.cli import main
from gangviz.spacesharing.backfill import simulate_backfill
from gangviz.userpolicy import RULES, RuleViolation
from gangviz.workloads.source import Source, load_source
from tests.spacesharing.helpers import whole_jobs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policies"
FIFO_EASY = (EXAMPLES / "sjf_easy.py").read_text().replace(
    "queue = sorted(view.waiting, key=lambda j: (j.estimate, j.arrival, j.id))", "queue = list(view.waiting)"
).replace('name = "sjf-easy"', 'name = "fifo-easy"\n    follows = "easy"')


def write(tmp_path: Path, text: str, name: str = "space.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(whole_jobs(30, (-5, 10)))
def test_easy_written_as_a_user_policy_gives_the_built_in_schedule(tmp_path, wl):
    jobs, procs = wl
    path = write(tmp_path, FIFO_EASY)
    source = Source("model", "t", procs, jobs)
    mine = factory.run(source, path).result
    easy = simulate_backfill(jobs, procs, mode="easy")
    assert [(r.start, r.finish) for r in mine.records] == [(r.start, r.finish) for r in easy.records]


def test_a_policy_that_declares_easy_but_reorders_the_queue_is_rejected_with_the_rule(tmp_path):
    path = write(tmp_path, (EXAMPLES / "sjf_easy.py").read_text().replace(
        'name = "sjf-easy"', 'name = "sjf-easy"\n    follows = "easy"'))
    with pytest.raises(RuleViolation, match=r"breaks the rule \"the reservation rule it declares \(easy: "):
        factory.run(load_source("downey", jobs=120, procs=8, load=0.9, seed=2), path)


HEAD = "from gangviz.userpolicy import SpacePolicy\n\nclass P(SpacePolicy):\n    def decide(self, view, act):\n"


@pytest.mark.parametrize("body, rule", [
    ("        for j in view.waiting:\n            act.start(j.id)\n", RULES[8]),
    ("        act.start(10**6)\n", RULES[4]),
    ("        pass\n", RULES[6]),
    ("        for j in view.waiting:\n            act.reserve(j.id, view.time - 1)\n", RULES[7]),
])
def test_each_rule_stops_a_space_sharing_run_naming_the_line(tmp_path, body, rule):
    path = write(tmp_path, HEAD + body)
    with pytest.raises(RuleViolation) as err:
        factory.run(load_source("downey", jobs=40, procs=16, load=0.9, seed=1), path)
    assert err.value.rule == rule
    if rule != RULES[6]:
        assert err.value.where.endswith(f"space.py:{4 + body.count(chr(10))}")  # the body's last line


def test_the_window_replays_a_user_space_policy_with_reservations_and_steps_back():
    spec = str(EXAMPLES / "sjf_easy.py")
    sim = factory.build(load_source("downey", jobs=60, procs=16, load=0.9, seed=1), spec)
    assert sim.family == "space-sharing"
    states = []
    for _ in range(30):
        states.append(sim.snapshot())
        assert sim.step() is not None
    assert any("reserv" in line for s in sim.steps for line in s.narration)
    for state in reversed(states[10:]):
        sim.step_back()
        assert sim.snapshot() == state


def test_the_space_example_runs_in_run_compare_and_the_api(capsys):
    spec = str(EXAMPLES / "sjf_easy.py")
    assert main(["run", "downey", "--jobs", "200", "--procs", "32", "--load", "0.9", "--policy", spec]) == 0
    assert "space sharing" in capsys.readouterr().out
    assert main(["compare", "downey", "--jobs", "200", "--procs", "32", "--load", "0.9",
                 "--policy", "easy", "--policy", spec]) == 0
    capsys.readouterr()
    ours = gangviz.simulate("downey", spec, jobs=200, procs=32, load=0.9)
    easy = gangviz.simulate("downey", "easy", jobs=200, procs=32, load=0.9)
    assert ours.metrics["response"] <= easy.metrics["response"]  # shortest first: a shorter mean response
