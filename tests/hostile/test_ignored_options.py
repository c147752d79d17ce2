"""No option is silently ignored: one that cannot apply to the source is refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

import gangviz
from gangviz.cli import main

TRACE = str(Path(__file__).resolve().parents[2] / "resources" / "workloads" / "downey-200-load0.5-seed1.swf")


@pytest.mark.parametrize("command", ["run", "compare"])
@pytest.mark.parametrize("source", ["fig2-repacking", TRACE])
@pytest.mark.parametrize("option,value", [("--jobs", "5"), ("--load", "0.9"), ("--seed", "7")])
def test_model_options_on_a_trace_or_a_scenario_are_refused(capsys, command, source, option, value):
    extra = ["--policy", "repack", "--policy", "firstfit"] if command == "compare" else []
    assert main([command, source, option, value, *extra]) == 1
    err = capsys.readouterr().err
    assert f"{option} ({option[2:]}=) applies to a synthetic model (downey)" in err


def test_model_options_still_size_a_model(capsys):
    assert main(["run", "downey", "--jobs", "7", "--load", "0.3", "--seed", "4"]) == 0
    assert "7 jobs, load 0.3, seed 4" in capsys.readouterr().out


@pytest.mark.parametrize("option", [{"jobs": 5}, {"load": 0.7}, {"seed": 2}])
def test_the_api_refuses_model_options_for_a_trace(option):
    with pytest.raises(ValueError, match="applies to a synthetic model"):
        gangviz.simulate(TRACE, "repack", **option)


def test_compare_at_needs_the_window(capsys):
    assert main(["compare", "downey", "--jobs", "5", "--policy", "bc", "--policy", "br", "--at", "3"]) == 1
    assert "--at sets the time the compare window shows: it needs --window" in capsys.readouterr().err


def test_a_session_that_sizes_a_scenario_like_a_model_is_refused(tmp_path):
    from gangviz.workloads.source import load_source

    with pytest.raises(ValueError, match="--jobs"):
        load_source("fig2-repacking", jobs=200)  # a session or the window passing defaults on
