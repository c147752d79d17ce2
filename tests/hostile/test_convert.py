"""``convert`` writes nothing its own reader refuses, and reads Slurm's text for what it says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.cli import main
from gangviz.workloads.sacct import (
    SacctError,
    convert_sacct,
    parse_time,
    parse_timelimit,
    read_sacct,
)
from gangviz.workloads.swf import read_swf

HEAD = "JobID|Submit|Start|End|AllocCPUS|Timelimit|State"
TIMES = "2024-03-01T09:00:00|2024-03-01T09:10:00|2024-03-01T10:00:00"


def sacct(tmp_path, *rows, head=HEAD):
    path = tmp_path / "sacct.txt"
    path.write_text("\n".join([head, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("row,said", [
    (f"1|{TIMES}|99999999999|01:00:00|COMPLETED", r"line 2: AllocCPUS '99999999999' is over the limit"),
    (f"1|{TIMES}|4|100000000000000000000-00|COMPLETED", r"line 2: Timelimit '100000000000000000000-00' gives"),
    (f"12345678901234567890123|{TIMES}|4|01:00:00|COMPLETED", r"line 2: JobID '12345678901234567890123' is beyond"),
])
def test_values_the_swf_reader_would_refuse_are_refused_with_file_line_and_column(tmp_path, row, said):
    out = tmp_path / "o.swf"
    with pytest.raises(SacctError, match=r"sacct\.txt: " + said):
        convert_sacct(sacct(tmp_path, row), out)
    assert not out.exists()


def test_a_column_named_twice_is_an_error(tmp_path):
    path = sacct(tmp_path, f"1|{TIMES}|4|8|01:00:00|COMPLETED",
                 head="JobID|Submit|Start|End|AllocCPUS|AllocCPUS|Timelimit|State")
    with pytest.raises(SacctError, match=r"line 1: the header names column 'AllocCPUS' twice \(fields 5 and 6\)"):
        read_sacct(path)


def test_job_numbers_that_repeat_by_value_are_renumbered_with_the_warning(tmp_path):
    log = read_sacct(sacct(tmp_path, f"0123|{TIMES}|4|01:00:00|COMPLETED", f"123|{TIMES}|4|01:00:00|COMPLETED"))
    assert [r[0] for r in log.records] == [1, 2] and any("numbered 1..n" in w for w in log.warnings)
    log = read_sacct(sacct(tmp_path, f"0123|{TIMES}|4|01:00:00|COMPLETED", f"124|{TIMES}|4|01:00:00|COMPLETED"))
    assert [r[0] for r in log.records] == [123, 124] and log.warnings == []


def test_time_zone_offsets_are_honoured():
    assert parse_time("2024-03-01T09:15:00+02:00") == parse_time("2024-03-01T07:15:00")
    assert parse_time("2024-03-01T07:15:00Z") == parse_time("2024-03-01T07:15:00")


def test_offsets_change_the_wait_and_run_times(tmp_path):
    log = read_sacct(sacct(tmp_path, "1|2024-03-01T09:00:00+02:00|2024-03-01T07:10:00Z|"
                           "2024-03-01T09:00:00+01:00|4|01:00:00|COMPLETED"))
    assert log.records[0][2:4] == [600.0, 3000.0]  # wait 10 min, run 50 min, once in UTC


@pytest.mark.parametrize("text", ["00:61:99", "1:60", "2-24:00:00", "1-23:60", "٣٠", "1²", "１０"])
def test_time_limits_out_of_their_units_or_not_in_ascii_digits_are_refused(text):
    with pytest.raises(ValueError):
        parse_timelimit(text)


@pytest.mark.parametrize("text,seconds", [("90", 5400), ("1:30", 90), ("01:02:03", 3723),
                                          ("2-03", 2 * 86400 + 3 * 3600), ("1-23:59:59", 86400 + 86399)])
def test_time_limits_in_slurms_forms(text, seconds):
    assert parse_timelimit(text) == seconds


def test_non_ascii_digits_are_not_numbers(tmp_path):
    log = read_sacct(sacct(tmp_path, f"²|{TIMES}|4|01:00:00|COMPLETED", f"1|{TIMES}|٤|01:00:00|COMPLETED",
                           f"2|{TIMES}|4|01:00:00|COMPLETED"))
    assert len(log.records) == 2 and any("AllocCPUS that is not a whole number" in w for w in log.warnings)
    assert [r[0] for r in log.records] == [1, 2]  # ² is no JobID: renumbered, said in a warning


def test_a_computer_name_cannot_inject_a_job_line(tmp_path, capsys):
    src = sacct(tmp_path, f"1|{TIMES}|4|01:00:00|COMPLETED")
    out = tmp_path / "o.swf"
    assert main(["convert", str(src), str(out), "--computer", "x\n1 0 0 10 4 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"]) == 1
    assert "control character" in capsys.readouterr().err and not out.exists()
    cluster = sacct(tmp_path, f"1|{TIMES}|4|01:00:00|COMPLETED|evil\x1b[2J", head=HEAD + "|Cluster")
    convert_sacct(cluster, out)
    assert read_swf(out).jobs and "\x1b" not in out.read_text()


@settings(max_examples=80, deadline=None)
@given(size=st.integers(1, 2**70), limit=st.integers(0, 10**30), jobid=st.integers(0, 10**25),
       run=st.integers(0, 10**6))
def test_what_convert_writes_its_reader_reads(tmp_path_factory, size, limit, jobid, run):
    tmp = tmp_path_factory.mktemp("c")
    row = f"{jobid}|2024-03-01T09:00:00|2024-03-01T09:10:00|2024-03-01T09:10:{run % 60:02d}|{size}|{limit}|COMPLETED"
    src, out = sacct(tmp, row), tmp / "o.swf"
    try:
        convert_sacct(src, out)
    except SacctError as exc:
        assert "line 2:" in str(exc) and "Traceback" not in str(exc)
        assert not out.exists()
        return
    assert len(read_swf(out).jobs) == 1


def test_control_characters_in_a_scenario_title_are_escaped_when_printed(tmp_path, capsys):
    path = tmp_path / "evil.toml"
    path.write_text('title = "evil\\u001b[2J\\u000afake line"\nprocessors = 4\nmatrix = ["J1 J1 . ."]\n')
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "evil\\x1b[2J\\nfake line" in out


def test_records_end_at_line_feeds_only(tmp_path):
    log = read_sacct(sacct(tmp_path, f"1|{TIMES}|4|01:00:00|COMPLETED|a\u2028b\x1cc", head=HEAD + "|Cluster"))
    assert len(log.records) == 1 and log.warnings == [] and log.cluster == "a\u2028b\x1cc"
    with_crlf = tmp_path / "crlf.txt"
    with_crlf.write_bytes(f"{HEAD}\r\n1|{TIMES}|4|01:00:00|COMPLETED\r\n".encode())
    assert len(read_sacct(with_crlf).records) == 1
