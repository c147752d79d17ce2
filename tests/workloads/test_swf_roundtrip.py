"""SWF writing: round trips through the reader, and the bulk parser agrees with the exact one."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec
from gangviz.workloads.model import Workload
from gangviz.workloads.swf import parse_swf, read_swf, write_swf

times = st.one_of(st.integers(0, 10**9).map(float),
                  st.floats(0, 1e9, allow_nan=False, allow_infinity=False))
works = st.one_of(st.integers(1, 10**7).map(float),
                  st.floats(1e-3, 1e7, allow_nan=False, allow_infinity=False))


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 30))
    gaps = draw(st.lists(times, min_size=n - 1, max_size=n - 1))
    arrivals = [0.0]
    for g in gaps:
        arrivals.append(arrivals[-1] + g)
    procs = draw(st.integers(1, 512))
    use_min = draw(st.booleans())
    numbered = draw(st.booleans())
    numbers = draw(st.lists(st.integers(0, 10**9), min_size=n, max_size=n, unique=True))
    jobs = []
    for i, a in enumerate(arrivals):
        size = draw(st.integers(1, procs))
        jobs.append(JobSpec(
            id=i,
            name=f"J{numbers[i]}" if numbered else f"job{i}",
            arrival=a,
            size=size,
            work=draw(works),
            estimate=draw(st.one_of(st.none(), works)),
            min_nodes=draw(st.integers(1, size)) if use_min else None,
        ))
    return Workload(jobs=jobs, processors=procs, source="test", header={"Note": "random\nworkload"})


@settings(max_examples=80, deadline=None)
@given(workloads())
def test_write_then_read_gives_the_same_jobs(w):
    buf = io.StringIO()
    write_swf(w, buf)
    back = parse_swf(buf.getvalue().encode(), source="rt.swf")
    assert back.jobs == [
        j if j.name.startswith("J") else JobSpec(j.id, f"J{j.id + 1}", j.arrival, j.size, j.work,
                                                 j.estimate, j.min_nodes)
        for j in w.jobs
    ]
    assert back.processors == w.processors
    assert back.header["Note"] == "random\nworkload"
    assert back.warnings == []


@settings(max_examples=40, deadline=None)
@given(workloads(), st.sampled_from([0.5, 2.0, 5.0, 0.1]))
def test_round_trip_with_another_slice_length(w, sl):
    buf = io.StringIO()
    write_swf(w, buf, slice_seconds=sl)
    back = parse_swf(buf.getvalue().encode(), slice_seconds=sl)
    for a, b in zip(w.jobs, back.jobs):
        assert np.isclose(a.arrival, b.arrival, rtol=1e-12, atol=1e-9)
        assert np.isclose(a.work, b.work, rtol=1e-12)
        assert a.size == b.size


def test_read_write_read_of_a_trace_keeps_raw_fields_and_offset(tmp_path):
    text = ("; MaxProcs: 64\n; UnixStartTime: 843480031\n"
            "15 600000 192180 3477 4 -1 -1 4 53940 -1 1 12 12 -1 -1 -1 -1 -1\n"
            "16 600022 11940 0 -1 2.5 -1 25 3600 -1 0 13 13 7 -1 -1 -1 -1\n")
    p = tmp_path / "a.swf"
    p.write_text(text)
    first = read_swf(p)
    out = tmp_path / "b.swf.gz"
    write_swf(first, out)
    second = read_swf(out)
    assert second.jobs == first.jobs
    assert second.submit_offset == 600000
    assert second.header["UnixStartTime"] == "843480031"
    assert second.jobs[0].extra["swf"] == first.jobs[0].extra["swf"]
    # The half-second run stays half a second; size 25 is now written as allocated.
    assert second.jobs[1].extra["swf"][3] == 0.5 and second.jobs[1].extra["swf"][4] == 25
    assert second.jobs[1].extra["swf"][5] == 2.5 and second.jobs[1].extra["swf"][13] == 7


# --- the bulk parser and the exact parser agree --------------------------------------------------

cells = st.one_of(st.just("-1"), st.integers(0, 10**12).map(str),
                  st.floats(0, 1e6, allow_nan=False).map(repr),
                  st.sampled_from(["1e3", "+7", "0.", ".5", "2E2", "007"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(cells, min_size=18, max_size=18), min_size=1, max_size=12),
       st.sampled_from([" ", "\t", "   "]))
def test_fast_and_exact_parsers_agree(rows, sep):
    for r in rows:
        r[0] = str(abs(hash(r[0])) % 1000)  # whole job numbers and processor counts
        r[4] = r[4].split(".")[0].split("e")[0].split("E")[0].lstrip("+") or "1"
        r[7] = "3"
        r[3] = "10"
    data = ("; MaxProcs: 10000000000000\n" + "\n".join(sep.join(r) for r in rows) + "\n").encode()
    results = []
    for fast in (True, False):
        try:
            w = parse_swf(data, fast=fast)
            results.append(([(j, j.extra) for j in w.jobs], w.warnings))
        except ValueError as exc:
            results.append(str(exc))
    assert results[0] == results[1]
