"""gangviz convert: Slurm sacct --parsable2 output to SWF."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.cli import main
from gangviz.workloads.sacct import SacctError, parse_timelimit, read_sacct, write_sacct_swf
from gangviz.workloads.swf import read_swf
from gangviz.workloads.validate import validate_paths

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "sacct-sample.txt"
HEAD = "JobID|Submit|Start|End|AllocCPUS|Timelimit|State\n"


def _write(tmp_path: Path, body: str, head: str = HEAD) -> Path:
    p = tmp_path / "sacct.txt"
    p.write_text(head + body)
    return p


@pytest.mark.parametrize("text, seconds", [
    ("15", 900), ("30:00", 1800), ("01:00:00", 3600), ("1-00", 86400), ("2-00:00:00", 172800),
    ("1-02:03", 93780), ("1-02:03:04", 93784), ("UNLIMITED", -1), ("Partition_Limit", -1), ("", -1),
])
def test_time_limits(text, seconds):
    assert parse_timelimit(text) == seconds


def test_sample_converts_to_a_valid_trace(tmp_path, capsys):
    out = tmp_path / "s.swf"
    assert main(["convert", str(SAMPLE), str(out), "--procs", "128"]) == 0
    io = capsys.readouterr()
    assert "11 jobs, 4 job steps left out" in io.out
    assert "skipped 2 records with no start time (pending, or cancelled before it ran): lines 10, 13" in io.err
    assert "skipped 1 record with no end time (still running): line 14" in io.err
    text = out.read_text()
    assert "; MaxProcs: 128" in text and "; UnixStartTime: 1709539200" in text
    assert "; Conversion: gangviz convert" in text
    wl = read_swf(out)
    assert [j.name for j in wl.jobs] == [f"J{n}" for n in (1001, 1002, 1003, 1004, 1005, 1007, 1008,
                                                           1011, 1012, 1013, 1014)]
    by = {j.name: j.extra["swf"] for j in wl.jobs}
    # 1004: submitted 08:10, started 08:41, ended 10:11 on 64 CPUs, limit 2 days
    assert by["J1004"][1:5] == (600, 1860, 5400, 64) and by["J1004"][8] == 172800
    assert by["J1004"][10] == 1
    assert by["J1002"][10] == 0 and by["J1007"][10] == 5  # TIMEOUT failed, CANCELLED by ...
    assert by["J1003"][15] == 2 and by["J1001"][15] == 1  # partitions numbered by appearance
    assert by["J1001"][11] == by["J1003"][11] == 1  # alice
    with open(tmp_path / "report.txt", "w") as fh:
        assert validate_paths([str(out)], out=fh) == 0


def test_converted_trace_runs(tmp_path, capsys):
    out = tmp_path / "s.swf"
    assert main(["convert", str(SAMPLE), str(out), "--procs", "128"]) == 0
    assert main(["run", str(out), "--policy", "brms", "--jobs-out", str(tmp_path / "j.csv")]) == 0
    capsys.readouterr()
    assert len((tmp_path / "j.csv").read_text().splitlines()) == 12


def test_nodes_column_and_renumbered_array_jobs(tmp_path):
    p = _write(tmp_path, "7_1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|2|COMPLETED\n"
                         "7_2|2024-01-01T00:00:00|2024-01-01T00:00:20|2024-01-01T00:02:20|4|COMPLETED\n",
               head="JobID|Submit|Start|End|NNodes|State\n")
    log = read_sacct(p)
    assert log.size_column == "NNodes"
    assert [f[0] for f in log.records] == [1, 2] and [f[4] for f in log.records] == [2, 4]
    assert any("numbered 1..n" in w for w in log.warnings)
    assert [f[8] for f in log.records] == [-1, -1]  # no Timelimit column


@pytest.mark.parametrize("body, reason", [
    ("1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|4|01:00|COMPLETED|x\n",
     "8 fields where the header has 7"),
    ("1|yesterday|2024-01-01T00:00:10|2024-01-01T00:01:10|4|01:00|COMPLETED\n",
     "a Submit time that is not a date"),
    ("1|2024-01-01T00:00:00|2024-01-01T00:02:00|2024-01-01T00:01:10|4|01:00|COMPLETED\n",
     "times out of order"),
    ("1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|four|01:00|COMPLETED\n",
     "AllocCPUS that is not a whole number"),
    ("1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|4|01:00|REQUEUED\n",
     "a state gangviz does not know (REQUEUED)"),
])
def test_partial_records_are_skipped_with_a_grouped_warning(tmp_path, body, reason):
    good = "2|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|4|01:00|COMPLETED\n"
    p = _write(tmp_path, body + body + good)
    log = read_sacct(p)
    assert len(log.records) == 1
    assert len(log.warnings) == 1 and reason in log.warnings[0] and "lines 2, 3" in log.warnings[0]
    with pytest.raises(SacctError, match=r"line 2: .*strict"):
        read_sacct(p, strict=True)


def test_unusable_files_are_one_line_errors(tmp_path, capsys, monkeypatch):
    p = _write(tmp_path, "1|2024-01-01T00:00:00|2024-01-01T00:00:10|4\n", head="JobID|Submit|Start|AllocCPUS\n")
    assert main(["convert", str(p), str(tmp_path / "o.swf")]) == 1
    err = capsys.readouterr().err
    assert "line 1: the header has no column End, State" in err and "Traceback" not in err
    p = _write(tmp_path, "1|2024-01-01T00:00:00|Unknown|Unknown|0|01:00|PENDING\n")
    assert main(["convert", str(p), str(tmp_path / "o.swf")]) == 1
    assert "has no job that ran to replay" in capsys.readouterr().err
    assert main(["convert", str(SAMPLE), str(tmp_path / "o.swf"), "--procs", "64"]) == 1
    assert "a job uses 96 processors, more than --procs 64" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)  # a short name: a message cuts a long path, and tmp paths vary
    assert main(["convert", "missing.txt", "o.swf"]) == 1
    assert "missing.txt" in capsys.readouterr().err


_JOB = st.fixed_dictionaries({
    "submit": st.integers(0, 50), "wait": st.integers(0, 20), "run": st.integers(0, 90),
    "size": st.integers(1, 64), "user": st.sampled_from(["", "ann", "bob", "cy"]),
    "part": st.sampled_from(["", "big", "small"]), "id": st.integers(1, 99)})


@settings(max_examples=60, deadline=None)
@given(jobs=st.lists(_JOB, min_size=1, max_size=30))
def test_records_are_the_jobs_in_submit_order_numbered_by_first_appearance(tmp_path_factory, jobs):
    def iso(s):
        return f"2024-01-01T00:{s // 60:02d}:{s % 60:02d}"

    body = "".join(f"{j['id']}|{j['user']}|{j['part']}|{iso(j['submit'])}|{iso(j['submit'] + j['wait'])}|"
                   f"{iso(j['submit'] + j['wait'] + j['run'])}|{j['size']}|COMPLETED\n" for j in jobs)
    p = _write(tmp_path_factory.mktemp("s"), body, head="JobID|User|Partition|Submit|Start|End|AllocCPUS|State\n")
    log = read_sacct(p)
    order = sorted(jobs, key=lambda j: j["submit"])  # stable: file order among equal submits
    plain = len({j["id"] for j in jobs}) == len(jobs)

    def numbers(key):
        seen: dict[str, int] = {}
        return [seen.setdefault(j[key], len(seen) + 1) if j[key] else -1 for j in order]

    first = order[0]["submit"]
    expected = [[j["id"] if plain else n, j["submit"] - first, j["wait"], j["run"], j["size"], -1, -1,
                 j["size"], -1, -1, 1, u, -1, -1, -1, q, -1, -1]
                for n, (j, u, q) in enumerate(zip(order, numbers("user"), numbers("part")), start=1)]
    assert list(log.records) == expected
    assert log.records[-1] == expected[-1] and log.records[1:3] == expected[1:3]
    swf = tmp_path_factory.mktemp("o") / "o.swf"
    write_sacct_swf(log, swf)
    lines = [ln for ln in swf.read_text().splitlines() if not ln.startswith(";")]
    assert [[int(x) for x in ln.split()] for ln in lines] == expected


def test_a_reason_met_many_times_names_its_first_lines_and_counts_the_rest(tmp_path):
    bad = "1|2024-01-01T00:00:00|Unknown|Unknown|4|01:00|PENDING\n"
    good = "2|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|4|01:00|COMPLETED\n"
    log = read_sacct(_write(tmp_path, bad * 12 + good))
    assert log.warnings == ["skipped 12 records with no start time (pending, or cancelled before it "
                            "ran): lines 2, 3, 4, 5, 6, ... (7 more)"]
