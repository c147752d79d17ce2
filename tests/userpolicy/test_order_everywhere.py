"""A queue order (``--order file.py:function``) wherever a built-in is named: conservative
backfilling, ``compare`` (for every policy or for one), sweep files and the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gangviz
from gangviz import factory
from gangviz.cli import main
from gangviz.experiments.compare import assign_orders
from gangviz.experiments.sweepfile import SweepFileError, load_sweep
from gangviz.experiments.tasks import run_task
from gangviz.spacesharing.backfill import simulate_backfill
from gangviz.spacesharing.checker import check_schedule
from tests.spacesharing.helpers import whole_jobs

ROOT = Path(__file__).resolve().parents[2]
ORDER = str(ROOT / "examples" / "policies" / "shortest_first.py") + ":shortest_first"
LONGEST = "def longest_first(job):\n    return -job.work\n"


@settings(max_examples=80, deadline=None)
@given(whole_jobs(25, (0, 30)), st.integers(0, 3))
def test_conservative_under_any_order_keeps_every_reservation(wl, which):
    jobs, procs = wl
    key = [lambda j: j.work, lambda j: -j.size, lambda j: j.size, lambda j: j.id % 3][which]
    res = simulate_backfill(jobs, procs, mode="conservative", order=key)
    events = []
    for r in res.records:
        assert r.spec.arrival <= r.start
        if r.reservation is not None:  # the conservative guarantee: never later than promised
            assert r.start <= r.reservation + 1e-9
        events += [(r.finish, 0, -r.spec.size), (r.start, 1, r.spec.size)]
    busy = 0
    for _, _, delta in sorted(events):
        busy += delta
        assert busy <= procs


@settings(max_examples=60, deadline=None)
@given(whole_jobs(25, (0, 30)))
def test_conservative_in_arrival_order_is_the_plain_schedule_and_passes_the_checker(wl):
    jobs, procs = wl
    plain = simulate_backfill(jobs, procs, mode="conservative")
    keyed = simulate_backfill(jobs, procs, mode="conservative", order=lambda j: (j.arrival, j.id))
    assert [r.start for r in plain.records] == [r.start for r in keyed.records]
    starts = {r.spec.id: r.start for r in keyed.records}
    assert check_schedule(jobs, starts, procs, "conservative") == []


def _swf(tmp_path: Path) -> str:
    """A trace whose users ask for three times the run time (so reservations are compressed):
    150 jobs, a queue deep enough that the order moves starts (conservative backfilling under
    a queue order takes time growing faster than the square of the jobs)."""
    lines = ["; MaxProcs: 32"]
    t = 0
    for i in range(150):
        t += 1 + (i * 7) % 5
        run = 5 + (i * 37) % 120
        procs = 1 + (i * 13) % 24
        lines.append(f"{i + 1} {t} -1 {run} {procs} -1 -1 {procs} {run * 3} -1 1 1 1 1 1 1 -1 -1")
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_conservative_takes_a_queue_order_on_the_command_line(tmp_path, capsys):
    trace = _swf(tmp_path)
    plain = factory.run(trace, "conservative")
    ordered = factory.run(trace, "conservative", order=ORDER)
    starts = [r.start for r in plain.result.records]
    assert starts != [r.start for r in ordered.result.records]
    assert main(["run", trace, "--policy", "conservative", "--order", ORDER, "--json"]) == 0
    ordered_wait = json.loads(capsys.readouterr().out)["metrics"]["wait"]
    assert main(["run", trace, "--policy", "conservative", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["wait"] != ordered_wait


def _compare_json(capsys, *args) -> dict:
    assert main(["compare", "downey", "--jobs", "200", "--procs", "32", "--load", "0.9",
                 "--policy", "easy", "--policy", "gs:mpl=2", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _figure(doc: dict, policy: str, name: str) -> float:
    return float(doc["metrics"][policy][name])


def test_compare_orders_every_policy_or_one(capsys):
    plain = _compare_json(capsys)
    every = _compare_json(capsys, "--order", ORDER)
    one = _compare_json(capsys, "--order", f"easy={ORDER}")
    for doc in (plain, every, one):
        assert _figure(doc, "easy", "wait") > 0
    assert _figure(every, "easy", "wait") != _figure(plain, "easy", "wait")
    assert _figure(every, "gs:mpl=2", "wait") != _figure(plain, "gs:mpl=2", "wait")
    assert _figure(one, "easy", "wait") == _figure(every, "easy", "wait")
    assert _figure(one, "gs:mpl=2", "wait") == _figure(plain, "gs:mpl=2", "wait")


def test_compare_names_a_policy_it_does_not_compare(capsys):
    assert main(["compare", "downey", "--policy", "easy", "--policy", "bc", "--order", f"fcfs={ORDER}"]) != 0
    err = capsys.readouterr().err
    assert "'fcfs' is not one of the policies compared (easy, bc)" in err and "Traceback" not in err


def test_assign_orders_one_for_all_one_for_one_and_its_errors():
    assert assign_orders(["a", "b"], None) == {"a": None, "b": None}
    assert assign_orders(["a", "b"], ["x.py:f", "b=y.py:g"]) == {"a": "x.py:f", "b": "y.py:g"}
    assert assign_orders(["a", "b"], {"b": "y.py:g"}) == {"a": None, "b": "y.py:g"}
    with pytest.raises(ValueError, match="two orders for every policy"):
        assign_orders(["a"], ["x.py:f", "y.py:g"])
    with pytest.raises(ValueError, match="two orders for 'a'"):
        assign_orders(["a"], ["a=x.py:f", "a=y.py:g"])
    with pytest.raises(ValueError, match="'c' is not one of the policies"):
        assign_orders(["a"], {"c": "x.py:f"})


def _sweep(tmp_path: Path, order: str) -> Path:
    (tmp_path / "keys.py").write_text(LONGEST)
    path = tmp_path / "s.toml"
    path.write_text('title = "t"\nseed = 1\npolicies = ["easy", "conservative", "gs"]\n'
                    f'[policy.easy]\norder = "{order}"\n[policy.gs]\nmpl = 2\norder = "{order}"\n'
                    '[workload]\nmodel = "downey"\njobs = 120\nprocs = 32\nload = 0.9\n')
    return path


def test_a_sweep_file_gives_a_policy_a_queue_order_relative_to_itself(tmp_path):
    sweep = load_sweep(_sweep(tmp_path, "keys.py:longest_first"))
    assert sweep.policy_orders == {"easy": str(tmp_path / "keys.py") + ":longest_first",
                                   "gs": str(tmp_path / "keys.py") + ":longest_first"}
    assert sweep.policy_params["gs"] == {"mpl": 2}
    tasks = {cell.policy: task for cell, task in sweep.tasks()}
    assert tasks["conservative"].order is None and tasks["easy"].order is not None
    for policy in ("easy", "gs"):
        ordered = run_task(tasks[policy])
        plain = run_task(type(tasks[policy])(**{**tasks[policy].__dict__, "order": None}))
        assert ordered != plain


def test_a_sweep_files_bad_order_names_its_line(tmp_path):
    with pytest.raises(SweepFileError, match=r"s\.toml:5: \[policy\.easy\] order: .*no function 'nope'"):
        load_sweep(_sweep(tmp_path, "keys.py:nope"))


def test_the_api_takes_an_order():
    plain = gangviz.simulate("downey", "easy", jobs=200, procs=32, load=0.9)
    ordered = gangviz.simulate("downey", "easy", jobs=200, procs=32, load=0.9, order=ORDER)
    assert ordered.metrics["wait"] != plain.metrics["wait"]
    both = gangviz.compare("downey", ["easy", "conservative"], jobs=200, procs=32, load=0.9,
                           order={"easy": ORDER})
    assert both["easy"].metrics["wait"] == ordered.metrics["wait"]
    assert both["conservative"].metrics == gangviz.simulate("downey", "conservative", jobs=200, procs=32,
                                                             load=0.9).metrics
    with pytest.raises(TypeError, match="order must be"):
        gangviz.simulate("downey", "easy", order=3)
