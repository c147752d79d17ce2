"""SWF reading: the mapping to jobs, every quirk of real traces, and every error message."""

from __future__ import annotations

import bz2
import gzip
import lzma
import pickle

import pytest

from gangviz.workloads.swf import FIELDS, SWFError, parse_swf, read_swf

HEADER = """\
; Version: 2.2
; Computer: IBM SP2
; Information: http://www.pdc.kth.se/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; MaxJobs: 28490
; MaxNodes: 100
; MaxProcs: 100
; Note: uses the EASY scheduler
;
"""


def line(num=1, submit=0, wait=0, run=10, alloc=4, cpu=-1, mem=-1, req=4, reqtime=100,
         reqmem=-1, status=1, user=1, group=1, exe=-1, queue=-1, part=-1, prec=-1, think=-1):
    vals = [num, submit, wait, run, alloc, cpu, mem, req, reqtime, reqmem, status, user, group,
            exe, queue, part, prec, think]
    return "   ".join(str(v) for v in vals)


def write(tmp_path, text, name="t.swf", mode="w"):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, newline="")
    return p


@pytest.fixture(params=[True, False], ids=["fast", "exact"])
def parse(request):
    """Both parsers: the bulk one and the line-by-line one must agree on every case."""

    def run(text, **kw):
        data = text.encode() if isinstance(text, str) else text
        return parse_swf(data, source="t.swf", fast=request.param, **kw)

    return run


def test_mapping_to_jobs(parse):
    text = HEADER + "\n".join([
        line(15, submit=600000, run=3477, alloc=4, reqtime=53940),
        line(16, submit=600022, run=0, alloc=-1, req=25, reqtime=-1),
        line(17, submit=600476, run=90, alloc=5, reqtime=0),
    ]) + "\n"
    w = parse(text, slice_seconds=2.0)
    assert [j.id for j in w.jobs] == [0, 1, 2]
    assert [j.name for j in w.jobs] == ["J15", "J16", "J17"]
    assert [j.arrival for j in w.jobs] == [0.0, 11.0, 238.0]
    assert w.submit_offset == 600000 and w.header["SubmitOffset"] == "600000"
    assert [j.size for j in w.jobs] == [4, 25, 5]  # allocated, else requested
    assert [j.work for j in w.jobs] == [3477 / 2, 0.25, 45.0]  # run time 0 -> 0.5 s
    assert [j.estimate for j in w.jobs] == [26970.0, None, None]
    assert w.jobs[0].extra["swf"] == (15, 600000, 0, 3477, 4, -1, -1, 4, 53940, -1, 1, 1, 1,
                                      -1, -1, -1, -1, -1)
    assert w.jobs[0].extra["line"] == 10
    assert w.processors == 100 and w.slice_seconds == 2.0
    assert w.warnings == []


def test_extra_reads_the_shared_fields_like_a_dict_and_pickles_as_one(parse):
    text = HEADER + "\n".join([line(15, cpu=2), line(16, submit=5, cpu=7.25), line(17, alloc=-1, req=0),
                               line(18, submit=9)]) + "\n"
    w = parse(text)
    extra = w.jobs[1].extra
    assert extra == {"swf": (16, 5, 0, 10, 4, 7.25, -1, 4, 100, -1, 1, 1, 1, -1, -1, -1, -1, -1), "line": 11}
    assert dict(extra) == {"swf": extra["swf"], "line": extra["line"]} and len(extra) == 2
    assert [type(v) for v in w.jobs[0].extra["swf"][:6]] == [int] * 6  # whole values are ints
    assert type(w.jobs[1].extra["swf"][5]) is float and w.jobs[1].extra["line"] == 11
    assert w.jobs[2].extra["line"] == 13  # the skipped line 12 moves nothing
    with pytest.raises(KeyError):
        extra["user"]
    assert pickle.loads(pickle.dumps(extra)) == dict(extra)
    assert repr(extra) == repr(dict(extra))


def test_header_values_followed_by_text_and_continuations(parse):
    text = ("; MaxNodes: 338 (batch partition; 512 total)\n; Note: first\n;    second line\n"
            "; Note: again\n;\n; UnixStartTime: 843480031\n" + line() + "\n")
    w = parse(text)
    assert w.processors == 338
    assert w.header["MaxNodes"] == "338 (batch partition; 512 total)"
    assert w.header["Note"] == "first\nsecond line\nagain"
    assert w.header["UnixStartTime"] == "843480031"


def test_url_continuation_is_not_a_key(parse):
    w = parse(HEADER + line() + "\n")
    assert "http" not in w.header
    assert w.header["Information"].endswith("labs/parallel/workload/")


def test_maxprocs_wins_over_maxnodes_and_procs_wins_over_header(parse):
    text = "; MaxNodes: 16\n; MaxProcs: 128\n" + line(alloc=100, req=100) + "\n"
    assert parse(text).processors == 128  # the 100-processor job is not capped at the node count
    assert len(parse(text).jobs) == 1
    only_nodes = "; MaxNodes: 64\n" + line(alloc=8) + "\n"
    assert parse(only_nodes).processors == 64
    w = parse(text, procs=200)
    assert w.processors == 200


def test_unknown_machine_size_is_a_warning(parse):
    w = parse(line() + "\n")
    assert w.processors is None
    assert any("machine size is unknown" in m for m in w.warnings)


def test_crlf_bom_tabs_no_final_newline_comments_anywhere(parse):
    body = "\ufeff" + HEADER.replace("\n", "\r\n") + "\r\n".join([
        line(1, submit=5), "", "; a comment in the middle", "   ", "\t" + line(2, submit=7).replace("   ", "\t"),
        "  ;indented comment", line(3, submit=9),
    ])
    w = parse(body.encode("utf-8"))
    assert [j.name for j in w.jobs] == ["J1", "J2", "J3"]
    assert [j.arrival for j in w.jobs] == [0.0, 2.0, 4.0]
    assert [j.extra["line"] for j in w.jobs] == [10, 14, 16]


def test_fractional_time_fields(parse):
    text = line(1, submit=0.5, run=12.25, cpu=3.75, reqtime=20.5) + "\n"
    w = parse(text)
    j = w.jobs[0]
    assert j.work == 12.25 and j.estimate == 20.5 and w.submit_offset == 0.5
    assert j.extra["swf"][5] == 3.75


def test_compressed_files(tmp_path):
    text = (HEADER + line(7) + "\n").encode()
    for name, data in [("a.swf.gz", gzip.compress(text)), ("a.swf.bz2", bz2.compress(text)),
                       ("a.swf.xz", lzma.compress(text))]:
        w = read_swf(write(tmp_path, data, name))
        assert [j.name for j in w.jobs] == ["J7"] and w.processors == 100


def test_damaged_gzip(tmp_path):
    data = gzip.compress((HEADER + line() + "\n").encode())[:-12]
    with pytest.raises(SWFError, match="damaged compressed file"):
        read_swf(write(tmp_path, data, "bad.swf.gz"))


def test_skips_are_summarised_once_per_reason(parse):
    rows = [line(1, submit=0)]
    rows += [line(10 + i, submit=10 + i, alloc=-1, req=-1) for i in range(7)]  # lines 2..8
    rows += [line(20, submit=30, alloc=0)]  # line 9
    rows += [line(21, submit=31, run=-1)]  # line 10
    rows += [line(22, submit=32, alloc=101, req=101)]  # line 11
    rows += [line(23, submit=-1, run=-1, alloc=-1, req=-1)]  # line 12: first reason wins
    rows += [line(24, submit=40, alloc=-1, req=0)]  # line 13: zero size via requested
    w = parse("; MaxProcs: 100\n" + "\n".join(rows) + "\n")
    assert [j.name for j in w.jobs] == ["J1"]
    assert len(w.warnings) == 5
    by = {m.split(" with ")[1].split(" (")[0].split(":")[0]: m for m in w.warnings}
    assert by["no usable size"].startswith("skipped 7 jobs")
    assert "lines 3, 4, 5, 6, 7, ... (2 more)" in by["no usable size"]
    assert "skipped 2 jobs" in by["zero size"] and "lines 10, 14" in by["zero size"]
    assert "skipped 1 job " in by["an unknown run time"] and "line 11" in by["an unknown run time"]
    assert "line 13" in by["an unknown submit time"]
    assert "machine's 100" in by["more processors than the machine's 100"]


def test_strict_turns_the_first_skip_into_an_error(parse):
    text = "; MaxProcs: 100\n" + line(1) + "\n" + line(2, submit=3, run=-1) + "\n" + line(3, alloc=-1, req=-1) + "\n"
    with pytest.raises(SWFError) as err:
        parse(text, strict=True)
    e = err.value
    assert (e.line, e.field, e.token) == (3, 4, "-1")
    assert "t.swf: line 3: field 4 (run time): '-1'" in str(e) and "unknown run time" in str(e)
    big = "; MaxProcs: 8\n" + line(1, alloc=-1, req=9) + "\n"
    with pytest.raises(SWFError, match=r"line 2: field 8 \(requested processors\): '9'.*more processors"):
        parse(big, strict=True)


def test_out_of_order_submits_are_stably_resorted(parse):
    rows = [line(1, submit=10), line(2, submit=5), line(3, submit=10), line(4, submit=5),
            line(5, submit=20)]
    w = parse("\n".join(rows) + "\n", procs=8)
    assert [j.name for j in w.jobs] == ["J2", "J4", "J1", "J3", "J5"]
    assert [j.id for j in w.jobs] == [0, 1, 2, 3, 4]
    assert [j.arrival for j in w.jobs] == [0.0, 0.0, 5.0, 5.0, 15.0]
    (msg,) = w.warnings
    assert "2 places" in msg and "lines 2, 4" in msg and "stable" in msg


def test_all_jobs_skipped_is_an_error(parse):
    with pytest.raises(SWFError, match="no usable jobs: all 2 job records were skipped"):
        parse(line(1, run=-1) + "\n" + line(2, run=-1) + "\n", procs=4)


@pytest.mark.parametrize(
    "token, col, message",
    [
        ("abc", 3, "is not a number"),
        ("0x10", 3, "is not a number"),
        ("1,5", 1, "is not a number"),
        ("nan", 3, "is not a finite number"),
        ("-inf", 1, "is not a finite number"),
        ("1e400", 3, "is not a finite number"),
        ("9223372036854775808", 2, "out of range (beyond 64-bit)"),
        ("-9223372036854775809", 6, "out of range (beyond 64-bit)"),
        ("1e19", 1, "out of range (beyond 64-bit)"),
        ("9" * 5000, 3, "out of range (beyond 64-bit)"),
        ("-2", 3, "is negative"),
        ("-0.5", 2, "is negative"),
        ("4.5", 4, "is not a whole number"),
        ("1.5", 0, "is not a whole number"),
        ("1+2", 3, "is not a number"),
        ("1.2.3", 3, "is not a number"),
        ("5e", 17, "is not a number"),
        ("é", 11, "is not a number"),
    ],
)
def test_bad_values_name_file_line_field_and_token(parse, token, col, message):
    fields = line().split()
    fields[col] = token
    text = HEADER + line(1) + "\n" + "  ".join(fields) + "\n" + line(3) + "\n"
    with pytest.raises(SWFError) as err:
        parse(text)
    e = err.value
    assert (e.line, e.field) == (11, col + 1)
    assert message in str(e)
    assert str(e).startswith(f"t.swf: line 11: field {col + 1} ({FIELDS[col]}): ")
    assert len(str(e)) < 300  # a 5000-digit token is shortened


def test_largest_64_bit_values_are_accepted(parse):
    fields = line().split()
    fields[12] = "9223372036854775807"
    fields[9] = "5e18"
    w = parse(" ".join(fields) + "\n")
    assert w.jobs[0].extra["swf"][12] == 9223372036854775807
    assert w.jobs[0].extra["swf"][9] == 5e18


def test_first_error_in_file_order(parse):
    a = line().split()
    a[7] = "-3"
    b = line().split()
    b[2] = "zz"
    with pytest.raises(SWFError, match=r"line 2: field 8"):
        parse(line() + "\n" + " ".join(a) + "\n" + " ".join(b) + "\n")


def test_wrong_field_counts(parse):
    short = " ".join(line().split()[:17])
    with pytest.raises(SWFError, match=r"line 2: has 17 fields, SWF needs 18: field 18 \(think time\)"):
        parse(line() + "\n" + short + "\n")
    long = line() + " 7"
    with pytest.raises(SWFError, match=r"line 1: field 19: '7' is an extra value"):
        parse(long + "\n")


def test_trailing_comment_on_a_job_line_is_reported(parse):
    with pytest.raises(SWFError, match=r"field 19: ';' is an extra value"):
        parse(line() + " ; note\n")


@pytest.mark.parametrize("name, content, message", [
    ("e.swf", b"", r"e\.swf: is empty$"),
    ("e.swf", b"\n  \r\n\t\n", "is empty \\(only blank lines\\)"),
    ("b.swf", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is a binary file"),
    ("b.swf", bytes(range(1, 9)) * 200, "is a binary file"),
    ("h.swf", HEADER, r"has no job records \(only 9 comment lines"),
    ("z.swf", b"PK\x03\x04rest", "zip archive"),
])
def test_empty_binary_and_jobless_files_have_their_own_messages(tmp_path, name, content, message):
    with pytest.raises(SWFError, match=message):
        read_swf(write(tmp_path, content, name))


def test_missing_file_is_an_oserror(tmp_path):
    with pytest.raises(OSError):
        read_swf(tmp_path / "nope.swf")


@pytest.mark.parametrize("kw, msg", [({"procs": 0}, "processors must be a whole number"), ({"slice_seconds": 0}, "slice"),
                                     ({"slice_seconds": float("nan")}, "slice")])
def test_bad_options(parse, kw, msg):
    with pytest.raises(ValueError, match=msg):
        parse(line() + "\n", **kw)


def test_work_does_not_scale_with_values_in_the_file(parse):
    # A huge run time and MaxProcs are just numbers: nothing is allocated by them.
    # Values past the input limits are refused with the limit named, before any allocation.
    text = "; MaxProcs: 9223372036854775807\n; MaxJobs: 9223372036854775807\n" + line(
        run=9 * 10**17, alloc=4) + "\n"
    with pytest.raises(SWFError, match=r"processors 9223372036854775807 is over the limit .*MaxProcs header"):
        parse(text)
    with pytest.raises(SWFError, match=r"line 2: field 4 \(run time\).*over the limit"):
        parse("; MaxProcs: 64\n" + line(run=9 * 10**17, alloc=4) + "\n")
    w = parse("; MaxJobs: 9223372036854775807\n" + line(run=10**9, alloc=4) + "\n", procs=8)
    assert w.jobs[0].work == 1e9 and w.processors == 8


def test_unusable_header_processor_count_is_a_warning(parse):
    w = parse("; MaxProcs: lots\n" + line() + "\n")
    assert w.processors is None
    assert any("MaxProcs 'lots'" in m for m in w.warnings)
