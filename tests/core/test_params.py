"""Typed policy parameters: one reader for specs, sweep files, sessions and the API."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gangviz
from gangviz import factory
from gangviz.cli import main
from gangviz.core import registry
from gangviz.core.limits import MAX_SLICES
from gangviz.core.params import QUOTE_CHARS, Param, ParamError, split_spec
from gangviz.workloads.source import load_source

FLAG = Param("flag", "bool", True)
COUNT = Param("count", "int", 5, low=1, high=100)
COST = Param("cost", "float", 0.0, low=0.0, high=MAX_SLICES, unit="slices")
MODE = Param("mode", "choice", "a", choices=("a", "b"))
LIMIT = Param("limit", "int", None, low=0, high=10, none="none")


@pytest.mark.parametrize("text, value", [
    ("true", True), ("TRUE", True), ("Yes", True), ("1", True),
    ("false", False), ("No", False), ("0", False), (" no ", False),
])
def test_booleans_read_only_the_six_words_in_any_case(text, value):
    assert FLAG.parse(text, "p") is value


@pytest.mark.parametrize("text", ["maybe", "on", "2", "", "t", "truee", 1, 0.0])
def test_any_other_boolean_is_refused(text):
    with pytest.raises(ParamError, match="parameter flag must be true or false"):
        FLAG.parse(text, "p")


def test_charge_migration_no_is_false_on_every_path():
    _, params = registry.parse("mgs:charge_migration=no")
    assert params == {"charge_migration": False}
    assert factory.parse_policy_spec("mgs:charge_migration=No")[1]["charge_migration"] is False
    sim = factory.build(load_source("downey", jobs=5, procs=16), "mgs:charge_migration=no")
    assert sim.policy.charge_migration is False


@pytest.mark.parametrize("param, text, value", [
    (COUNT, "7", 7), (COUNT, 7.0, 7), (COUNT, "1e2", 100), (COST, "2.5", 2.5), (COST, 3, 3.0),
    (MODE, "B", "b"), (LIMIT, "none", None), (LIMIT, None, None), (LIMIT, "NONE", None),
])
def test_values_are_read_by_their_declared_type(param, text, value):
    got = param.parse(text, "p")
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("param, text, allowed", [
    (COUNT, "0", "a whole number in 1..100"), (COUNT, "101", "a whole number in 1..100"),
    (COUNT, "2.5", "a whole number in 1..100"), (COUNT, True, "a whole number in 1..100"),
    (COUNT, "none", "a whole number in 1..100"),
    (COST, "inf", "a finite number in 0..1,099,511,627,776 slices"),
    (COST, "nan", "a finite number in 0..1,099,511,627,776 slices"),
    (COST, "-1", "a finite number in 0..1,099,511,627,776 slices"),
    (COST, math.inf, "a finite number in 0..1,099,511,627,776 slices"),
    (MODE, "c", "one of a, b"), (LIMIT, "11", "a whole number in 0..10, or none"),
])
def test_a_bad_value_names_the_policy_parameter_and_allowed_values(param, text, allowed):
    with pytest.raises(ParamError) as err:
        param.parse(text, "MGS")
    assert str(err.value).startswith(f"policy MGS: parameter {param.name} must be {allowed}, got ")


def test_a_long_token_is_quoted_in_at_most_80_characters():
    token = "9" * 500
    with pytest.raises(ParamError) as err:
        registry.parse(f"gs:mpl={token}")
    quoted = str(err.value).split("got ", 1)[1]
    assert len(quoted) <= QUOTE_CHARS + 2 and quoted.endswith("...'")


@pytest.mark.parametrize("spec, message", [
    ("bc:occupy=size,occupy=block", "policy bc: parameter occupy is given twice"),
    ("mgs:migration_cost=inf", "policy MGS: parameter migration_cost must be a finite number in "
                               "0..1,099,511,627,776 slices, got 'inf'"),
    ("mgs:migration_cost=1e13", "got '1e13'"),
    ("mgs:q=-1", "parameter q must be a whole number in 0..10,000,000, or none, got '-1'"),
    ("easy:kill=maybe", "policy easy: parameter kill must be true or false, got 'maybe'"),
    ("repack:window=widest", "parameter window must be one of least-loaded, leftmost, got 'widest'"),
    ("random:colour=red", "unknown parameter 'colour' (it takes: seed)"),
    ("firstfit:x=1", "policy firstfit takes no parameters, got 'x'"),
    ("repack:cuts", "parameter 'cuts' is not key=value"),
    ("OPT-EPOCH(1):k=2", "parameter k is given twice"),
])
def test_a_bad_spec_is_refused_in_one_line(spec, message):
    with pytest.raises(ParamError, match=None) as err:
        registry.parse(spec)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_limits_are_refused_identically_by_the_compiled_and_reference_loops(engine):
    source = load_source("downey", jobs=20, procs=16)
    messages = set()
    for spec in ("mgs:migration_cost=inf", "mgs:migration_cost=1e13"):
        with pytest.raises(ValueError) as err:
            factory.run(source, spec, engine=engine)
        messages.add(str(err.value).split(", got")[0])
    assert messages == {"policy MGS: parameter migration_cost must be a finite number in "
                        "0..1,099,511,627,776 slices"}


def test_the_command_line_sweep_files_and_api_read_the_same_way(tmp_path, capsys):
    assert main(["run", "downey", "--jobs", "5", "--procs", "16", "--policy",
                 "mgs:migration_cost=inf"]) == 1
    assert "parameter migration_cost must be a finite number" in capsys.readouterr().err
    with pytest.raises(ValueError, match="parameter kill must be true or false, got 'sometimes'"):
        gangviz.simulate("downey", "easy", params={"kill": "sometimes"}, jobs=5, procs=16)
    res = gangviz.simulate("downey", "mgs", params={"charge_migration": "no"}, jobs=5, procs=16)
    assert res.run.policy.charge_migration is False


@given(st.sampled_from([e for e in registry.REGISTRY.values() if e.params]), st.data())
def test_every_value_in_range_reads_back_from_its_spec_text(entry, data):
    for p in entry.params:
        if p.kind == "bool":
            value = data.draw(st.booleans())
            text = data.draw(st.sampled_from(["true", "yes", "1"] if value else ["false", "no", "0"]))
        elif p.kind == "choice":
            value = data.draw(st.sampled_from(p.choices))
            text = value.upper()
        elif p.kind == "int":
            value = data.draw(st.integers(int(p.low), int(min(p.high, 1 << 40))))
            text = str(value)
        else:
            value = data.draw(st.floats(p.low, p.high, allow_nan=False))
            text = repr(value)
        assert p.parse(text, entry.title) == value
        assert p.parse(value, entry.title) == value


@given(st.text(max_size=30))
def test_split_spec_never_raises_anything_but_param_error(text):
    try:
        name, params = split_spec(text)
    except ParamError as exc:
        assert "\n" not in str(exc) or "\n" in text
    else:
        assert name == name.strip() and name
