"""Every message names the file, the line and the field, and quotes at most 80 characters of
the bad token, through one helper (gangviz.inputs.quoted), with one last guard in the CLI."""

from __future__ import annotations

import re

import pytest

from gangviz.cli import main
from gangviz.inputs import QUOTE_CHARS, quoted, shortened

HUGE = "x" * 2_000_000


def _longest_word(text: str) -> int:
    return max((len(w) for w in re.split(r"\s+", text)), default=0)


def test_quoted_cuts_escapes_and_counts():
    assert quoted("abc") == "'abc'"
    assert quoted("a\x1b[2J") == "'a\\x1b[2J'"
    long = quoted("y" * 100)
    assert long == repr("y" * QUOTE_CHARS) + " (and 20 more characters)"
    assert quoted(7) == "7" and quoted(b"bc") == "b'bc'"
    assert quoted(list(range(1000))).endswith("more characters)") and len(quoted(list(range(1000)))) < 130


def test_shortened_cuts_every_long_word():
    msg = shortened(f"f.toml:3: name: '{HUGE}' is unknown")
    assert msg.startswith("f.toml:3: name: 'x") and msg.endswith("is unknown") and len(msg) < 200


def test_a_long_path_keeps_its_file_name_and_line():
    deep = "data/" + "/".join(["folder-of-many-letters"] * 6) + "/trace.swf:12:"
    msg = shortened(f"{deep} field 5 (run time): '-7' is negative")
    assert "trace.swf:12:" in msg and msg.startswith("data/folder-of-many-letters")
    assert "characters cut" in msg and msg.endswith("is negative")
    assert _longest_word(msg) <= QUOTE_CHARS


@pytest.mark.parametrize("kind", ["sweep", "session", "sacct", "swf", "scenario", "playlist"])
def test_a_two_megabyte_token_is_never_echoed_whole(tmp_path, capsys, kind):
    path = tmp_path / ("in.txt" if kind in ("sacct", "swf") else "in.toml")
    text = {
        "sweep": f'policies = ["bc", "{HUGE}"]\n[workload]\nmodel = "downey"\n',
        "session": f'[session]\nversion = 1\n[source]\nname = "downey"\n[policy]\nname = 3\nwatch = "{HUGE}"\n',
        "sacct": "JobID|Submit|Start|End|AllocCPUS|Timelimit|State\n"
                 f"1|2024-03-01T09:00:00|2024-03-01T09:10:00|2024-03-01T10:00:00|4|01:00:00|{HUGE}\n",
        "swf": f"; MaxProcs: 8\n1 0 0 10 {HUGE} -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
        "scenario": f'title = "t"\nprocessors = 4\nmatrix = ["J1 J1 . ."]\npolicy = "{HUGE}"\n',
        "playlist": f'[[scenario]]\nsource = "{HUGE}"\n',
    }[kind]
    path.write_text(text)
    argv = {"sweep": ["sweep", path, "-o", tmp_path / "r.csv"], "sacct": ["convert", path, tmp_path / "o.swf", "--strict"],
            "session": ["open", path, "--screenshot", tmp_path / "s.png"], "swf": ["run", path],
            "scenario": ["run", path], "playlist": ["open", path, "--screenshot", tmp_path / "s.png"]}[kind]
    assert main([str(a) for a in argv]) == 1
    err = capsys.readouterr().err
    assert len(err) < 1000 and _longest_word(err) <= QUOTE_CHARS + 5, err[:300]
    assert str(path.name) in err


def test_sweep_out_naming_a_folder_says_so(tmp_path, capsys):
    sweep = tmp_path / "w.toml"
    sweep.write_text('policies = ["bc", "br"]\n[workload]\nmodel = "downey"\njobs = 5\n')
    assert main(["sweep", str(sweep), "-o", str(tmp_path)]) == 1
    assert "is a folder; --out names the results file" in capsys.readouterr().err


def test_a_playlist_whose_scenario_key_is_no_table_list_is_explained(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text('title = "t"\nscenario = []\n')
    assert main(["open", str(path), "--screenshot", str(tmp_path / "p.png")]) == 1
    err = capsys.readouterr().err
    assert "p.toml:2: scenario: a playlist lists its entries as [[scenario]] tables" in err
    assert "unknown key" not in err


def test_a_scenario_job_name_with_control_characters_is_printed_escaped(tmp_path, capsys):
    path = tmp_path / "ctl.toml"
    path.write_text('title = "ctl"\nprocessors = 4\npolicy = "repack"\nmatrix = ["A A B B"]\n'
                    '[jobs]\nA = { work = 3 }\nB = { work = 2 }\n[[events]]\nat = 1\n'
                    'submit = { name = "x\\u001b[2Jy\\nz", size = 2, work = 4 }\n')
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "x\\x1b[2Jy\\nz is placed on P1..P2" in out
    assert all(line.startswith(("  ", "ctl ", "final matrix", "policy ", "source ", "bounded slowdown"))
               for line in out.splitlines())
