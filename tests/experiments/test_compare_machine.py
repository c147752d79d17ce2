"""Every policy of a comparison runs on one machine: a buddy scheme and another policy on a
trace padded by ``--procs`` are refused unless ``padding`` chooses the machine for all, and the
machine each run used is stated in the header, the JSON and the API's results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gangviz import api
from gangviz.cli import main
from gangviz.experiments.compare import machine_sources, run_policies
from gangviz.workloads.source import load_source

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
SPECS = ["gs", "easy", "brmms"]


def test_a_buddy_scheme_and_another_on_a_padded_trace_are_refused_with_the_choices():
    src = load_source(str(KTH), procs=128)
    with pytest.raises(ValueError) as err:
        run_policies(src, SPECS)
    text = str(err.value)
    assert "different machines" in text and "100-127" in text
    assert "--padding used" in text and "--padding absent" in text


def test_a_buddy_scheme_on_a_machine_that_is_not_a_power_of_two_is_refused_before_any_run():
    with pytest.raises(ValueError, match=r"--procs 128 with --padding absent"):
        machine_sources(load_source(str(KTH)), SPECS)


def test_policies_of_one_kind_need_no_choice():
    src = load_source(str(KTH), procs=128)
    assert set(map(id, machine_sources(src, ["gs", "easy"]).values())) == {id(src)}
    with pytest.raises(ValueError, match="--padding applies"):
        machine_sources(load_source(str(KTH)), ["gs", "easy"], "used")


@pytest.mark.parametrize(("padding", "processors", "absent"), [("used", 128, 0), ("absent", 100, 28)])
def test_every_run_uses_the_machine_chosen(padding, processors, absent):
    runs = run_policies(load_source(str(KTH), procs=128), SPECS, padding=padding)
    assert {r.machine["processors"] for r in runs.values()} == {processors}
    assert runs["brmms"].machine["absent"] == absent
    assert runs["gs"].machine["absent"] == 0 and runs["easy"].machine["absent"] == 0
    # the utilisation of each run is over the processors it had: the same work over the same
    # machine gives each policy's share of the same capacity
    for r in runs.values():
        assert 0 < r.figures.values["utilization"] <= 1


def test_used_padding_gives_the_buddy_scheme_every_processor():
    used = run_policies(load_source(str(KTH), procs=128), SPECS, padding="used")
    absent = run_policies(load_source(str(KTH), procs=128), SPECS, padding="absent")
    # on 100 processors the other policies wait more than on 128
    assert absent["easy"].figures.values["wait"] > used["easy"].figures.values["wait"]
    assert used["brmms"].figures.values["utilization"] != absent["brmms"].figures.values["utilization"]


def test_the_command_states_one_machine_in_its_header_and_json(capsys):
    args = ["compare", str(KTH), *[a for s in SPECS for a in ("--policy", s)], "--procs", "128",
            "--workers", "1"]  # in this process: the machine does not depend on the workers
    assert main(args) == 1
    assert "--padding used" in capsys.readouterr().err
    assert main([*args, "--padding", "absent"]) == 0
    out = capsys.readouterr().out
    assert "100 processors (trace header)" in out.splitlines()[0]
    assert out.splitlines()[1] == ("machine: 100 processors for every policy "
                                   "(brmms inside 128 with 28 absent)")
    assert main([*args, "--padding", "used", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    machines = {p["name"]: p["machine"] for p in doc["policies"]}
    assert machines == dict.fromkeys(SPECS, {"processors": 128, "absent": 0})
    assert doc["machine"]["processors"] == 128 and doc["machine"]["padding"] == "used"


def test_the_api_runs_every_policy_on_one_machine():
    with pytest.raises(ValueError, match="different machines"):
        api.compare(str(KTH), SPECS, procs=128)
    runs = api.compare(str(KTH), SPECS, procs=128, padding="absent")
    assert {r.machine["processors"] for r in runs.values()} == {100}
    assert {r.processors for r in runs.values()} == {100, 128}  # brmms's matrix is 128 wide
