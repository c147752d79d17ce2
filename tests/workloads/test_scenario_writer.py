"""Scenario TOML writer and the editor's document, without Qt: round trips and refusals."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.resources import list_scenarios
from gangviz.workloads.painting import EditorDoc, Event, PaintError
from gangviz.workloads.scenario import ScenarioError, load_scenario, parse_scenario
from gangviz.workloads.scenario_writer import dumps, scenario_key, scenario_toml


@pytest.mark.parametrize("path", list_scenarios(), ids=lambda p: p.stem)
def test_every_builtin_written_and_read_back_is_equal(path, tmp_path):
    sc = load_scenario(path)
    out = tmp_path / "again.toml"
    out.write_text(scenario_toml(sc), encoding="utf-8")
    assert scenario_key(load_scenario(out)) == scenario_key(sc)
    doc = EditorDoc.from_scenario(sc)
    assert scenario_key(doc.to_scenario()) == scenario_key(sc)


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=0, max_size=200))
def test_any_text_survives_as_title_and_explanation(text):
    data = {"title": text, "explanation": text + " " + text, "processors": 2, "matrix": ["J1 ."]}
    back = tomllib.loads(dumps(data))
    assert back["title"] == text and back["explanation"] == text + " " + text


def test_a_painted_document_becomes_a_scenario_with_works_and_events():
    doc = EditorDoc(processors=4, cells=[[None] * 4, [None] * 4])
    assert doc.paint(0, 0, 0, 1) == "J1"
    assert doc.paint(1, 3, 1, 2) == "J2"
    doc.works["J1"] = 3
    doc.events = [Event(0, "terminate", "J2"), Event(2, "submit", "Jn", 4, 1.5)]
    sc = doc.to_scenario()
    assert sc.matrix.to_rows() == [".  .  J2 J2", "J1 J1 .  ."]
    assert [(j.name, j.work) for j in sc.jobs][0] == ("J1", 3.0)
    assert [(e.at, e.terminate, e.submit) for e in sc.script] == [(0.0, ("J2",), ()), (2.0, (), (("Jn", 4, 1.5),))]


def test_refused_paintings_name_the_cell():
    doc = EditorDoc(processors=4, cells=[[None] * 4, [None] * 4])
    doc.paint(0, 1, 0, 2)
    with pytest.raises(PaintError, match="one slot") as split:
        doc.paint(0, 3, 1, 3)
    assert (split.value.row, split.value.col) == (1, 3)
    with pytest.raises(PaintError, match="P3 in S1 is already painted with J1") as twice:
        doc.paint(0, 3, 0, 0)
    assert (twice.value.row, twice.value.col) == (0, 2)
    with pytest.raises(PaintError, match="outside"):
        doc.resize(2, 2)
    assert doc.cells[0] == [None, "J1", "J1", None], "a refused resize loses nothing"


def test_the_reader_refuses_what_the_file_format_refuses():
    doc = EditorDoc(processors=4, cells=[[None] * 4])
    doc.paint(0, 0, 0, 1)
    doc.events = [Event(1, "submit", "Jn", 9, 1)]
    with pytest.raises(ScenarioError, match="size must be a whole number in 1..4"):
        doc.to_scenario()


def test_writer_refuses_values_toml_cannot_hold():
    with pytest.raises(TypeError):
        dumps({"x": None})
    with pytest.raises(TypeError):
        dumps({"x": float("inf")})
    assert parse_scenario(tomllib.loads(dumps({"processors": 3, "matrix": ["J1 J1 ."]}))).processors == 3
