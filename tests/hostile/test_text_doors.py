"""Numbers are ASCII digits wherever they are read, TOML nesting is a syntax error, names print
escaped, and titles, session policies and convert's output are checked where they enter."""

from __future__ import annotations

import pytest

from gangviz.cli import main
from gangviz.core.params import Param, ParamError
from gangviz.inputs import parse_toml, shortened
from gangviz.session import SessionError, read_session
from gangviz.workloads.playlist import load_playlist
from gangviz.workloads.scenario import ScenarioError
from gangviz.workloads.swf import SWFError, read_swf

ARABIC_12 = "\u0661\u0662"  # Arabic-Indic 1 2: Python's int() reads it as 12


@pytest.mark.parametrize("argv", [
    ["run", "downey", "--jobs", ARABIC_12], ["run", "downey", "--procs", ARABIC_12],
    ["run", "downey", "--jobs", "5", "--load", "\u0661"], ["run", "downey", "--jobs", "5", "--seed", ARABIC_12],
    ["run", "fig2-repacking", "--slice", "\u0661"], ["convert", "in.txt", "o.swf", "--procs", ARABIC_12],
    ["validate", "t.swf", "--procs", ARABIC_12], ["open", "fig2-repacking", "--step", ARABIC_12],
])
def test_a_command_line_number_takes_ascii_digits_only(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and "ASCII" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["int", "float"])
def test_a_parameter_takes_ascii_digits_only(kind):
    p = Param("n", kind, 1, low=0, high=100)
    with pytest.raises(ParamError, match="must be"):
        p.parse(ARABIC_12, "P")
    with pytest.raises(ParamError):
        p.parse("\uff11", "P")  # full-width 1
    assert p.parse("12", "P") == 12


def test_a_trace_field_takes_ascii_digits_only(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(f"; MaxProcs: 16\n1 0 0 {ARABIC_12} 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n")
    with pytest.raises(SWFError, match="line 2.*run time.*is not a number"):
        read_swf(path)


def test_nesting_beyond_the_parser_is_a_syntax_error_with_a_line():
    import tomllib

    with pytest.raises(tomllib.TOMLDecodeError, match="nested more than 100 deep.*line 2"):
        parse_toml("a = 1\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    assert parse_toml("x = [[1], [2]]") == {"x": [[1], [2]]}


@pytest.mark.parametrize("name", ["s.toml", "w.toml", "p.toml"])
def test_every_toml_reader_reports_deep_nesting_as_its_own_error(tmp_path, capsys, name):
    (tmp_path / name).write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    argv = {"s.toml": ["run", str(tmp_path / name)],
            "w.toml": ["sweep", str(tmp_path / name), "--out", str(tmp_path / "r.csv")],
            "p.toml": ["validate", str(tmp_path / name)]}[name]
    main(argv)
    err = capsys.readouterr()
    assert "Traceback" not in err.err + err.out and "RecursionError" not in err.err + err.out


def test_the_last_guard_escapes_control_characters(capsys):
    assert shortened("gangviz: \x1b[2J: no such file") == "gangviz: \\x1b[2J: no such file"
    assert main(["run", "\x1b]0;x\x07"]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b" in err


def test_a_playlist_title_is_at_most_two_hundred_characters(tmp_path):
    body = "[[scenario]]\nsource = 'fig2-repacking'\n"
    (tmp_path / "p.toml").write_text("title = '" + "x" * 300 + "'\n" + body)
    with pytest.raises(ScenarioError, match=r"p.toml:1: title must be text of at most 200"):
        load_playlist(tmp_path / "p.toml")
    (tmp_path / "q.toml").write_text("title = 3\n" + body)
    with pytest.raises(ScenarioError, match="title must be text"):
        load_playlist(tmp_path / "q.toml")
    (tmp_path / "r.toml").write_text("title = 'Fig. 1'\n" + body)
    assert load_playlist(tmp_path / "r.toml").title == "Fig. 1"


@pytest.mark.parametrize("name", ["", "  "])
def test_a_session_policy_that_names_nothing_is_refused(tmp_path, name):
    path = tmp_path / "s.toml"
    path.write_text(f'[session]\nversion = 1\n[source]\nname = "fig2-repacking"\n[policy]\nname = "{name}"\n')
    with pytest.raises(SessionError, match="policy.name must name a policy"):
        read_session(path)


SACCT = ("JobID|Submit|Start|End|AllocCPUS|Timelimit|State\n"
         "1|2024-03-01T09:00:00|2024-03-01T09:10:00|2024-03-01T10:00:00|8|02:00:00|COMPLETED\n")


def test_convert_refuses_a_machine_beyond_the_limit_and_its_own_input(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text(SACCT)
    assert main(["convert", "in.txt", "o.swf", "--procs", "99999999999"]) == 1
    assert "--procs must be at most 4,194,304" in capsys.readouterr().err and not (tmp_path / "o.swf").exists()
    assert main(["convert", "in.txt", "./in.txt", "--force"]) == 1
    assert "the output is the input" in capsys.readouterr().err
    assert (tmp_path / "in.txt").read_text() == SACCT
    assert main(["convert", "in.txt", "o.swf", "--procs", "16"]) == 0
    assert read_swf(tmp_path / "o.swf").jobs
