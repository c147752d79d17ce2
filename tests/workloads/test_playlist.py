"""Lecture playlists, without Qt: reading, relative paths, and errors that name the line."""

from __future__ import annotations

import pytest

from gangviz.workloads.playlist import list_playlists, load_playlist, playlist_path
from gangviz.workloads.scenario import ScenarioError


def test_the_builtin_repacking_lecture_covers_fig1_to_fig6_in_order():
    assert [p.stem for p in list_playlists()] == ["repacking-lecture"]
    pl = load_playlist("repacking-lecture")
    figs = [item.note.split(":")[0] for item in pl.items]
    assert figs[0] == "Fig. 1" and figs[-1].startswith("Fig. 6")
    order = [int(f.split()[1].rstrip(",")) for f in figs]
    assert order == sorted(order) and set(order) == {1, 2, 3, 4, 5, 6}
    assert all(item.note for item in pl.items)


def test_a_scenario_is_not_a_playlist():
    assert playlist_path("fig2-repacking") is None
    assert playlist_path("no-such-thing") is None


def test_sources_next_to_the_playlist_and_builtins(tmp_path):
    (tmp_path / "mine.toml").write_text('processors = 2\nmatrix = ["J1 ."]\n', encoding="utf-8")
    (tmp_path / "lecture.toml").write_text(
        'title = "Mine"\n[[scenario]]\nsource = "mine.toml"\nnote = "first"\n'
        '[[scenario]]\nsource = "fig2-repacking"\n', encoding="utf-8")
    pl = load_playlist(tmp_path / "lecture.toml")
    assert pl.title == "Mine"
    assert pl.items[0].source == str(tmp_path / "mine.toml") and pl.items[0].note == "first"
    assert pl.items[1].source == "fig2-repacking" and pl.items[1].note == ""


@pytest.mark.parametrize("body, message", [
    ('[[scenario]]\nsource = "fig2-repacking"\n[[scenario]]\nsource = "nope"\n',
     r"lecture.toml:3: entry 2: 'nope' is neither a file"),
    ('[[scenario]]\nnote = "x"\n', r"lecture.toml:1: entry 1 needs source"),
    ('[[scenario]]\nsource = "fig2-repacking"\ncolour = 1\n', r"lecture.toml:1: entry 1: unknown key 'colour'"),
    ('titel = "x"\n[[scenario]]\nsource = "fig2-repacking"\n', r"lecture.toml:1: unknown key 'titel'"),
    ('[[scenario]]\nsource = "fig2-repacking\n', r"lecture.toml:2: TOML syntax"),
])
def test_bad_playlists_name_file_line_and_problem(tmp_path, body, message):
    path = tmp_path / "lecture.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ScenarioError, match=message):
        load_playlist(path)


def test_validate_names_a_playlist_or_scenario_instead_of_reading_it_as_a_trace(capsys):
    """'gangviz validate' reads SWF traces; a playlist or scenario must not be reported as a
    trace whose first field is not a job number."""
    from gangviz.cli import main
    from gangviz.resources import RESOURCES

    lecture = RESOURCES / "playlists" / "repacking-lecture.toml"
    scenario = RESOURCES / "scenarios" / "fig2-repacking.toml"
    assert main(["validate", str(lecture), str(scenario)]) == 1
    out = capsys.readouterr().out
    assert "job number" not in out
    assert out.count("a TOML file (scenario, playlist or session), not an SWF trace") == 2


def test_run_refuses_a_playlist_or_session_by_what_it_is(tmp_path, capsys):
    """'gangviz run' on a lecture playlist (by path or built-in name) or a saved session says
    what the file is and how to open it, not 'unknown key scenario'."""
    from gangviz.cli import main
    from gangviz.workloads.source import load_source

    lecture = list_playlists()[0]
    for name in (str(lecture), lecture.stem):
        assert main(["run", name]) != 0
        err = capsys.readouterr().err
        assert "a lecture playlist, not a workload" in err and f"gangviz open {name}" in err
    session = tmp_path / "s.toml"
    session.write_text('[session]\nversion = 1\n[source]\nname = "fig2-repacking"\n')
    with pytest.raises(ValueError, match="a saved session, not a workload"):
        load_source(str(session))
    assert load_source("fig2-repacking").title  # scenarios still load
