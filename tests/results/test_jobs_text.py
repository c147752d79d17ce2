"""The per-job files are built a column at a time as bytes, and stay byte for byte the text of
writing each cell with ``str``/``repr``; the optional C writer of the rows gives the same bytes
as the numpy path, and a per-job file is the same file with it and without it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.results.jobs import (
    _csv_text,
    compiled_rows,
    csv_cells,
    fraction_reprs,
    joined_rows,
    number_cells,
    number_texts,
)
from gangviz.results.texts import TextColumn

ROOT = Path(__file__).resolve().parents[2]

floats = st.one_of(st.floats(allow_nan=True, allow_infinity=False, width=64),
                   st.integers(-(2**62), 2**62).map(float),
                   st.integers(-10**6, 10**6).map(lambda v: v / 8),
                   st.sampled_from([0.0, -0.0, 2.0**53, -(2.0**53), 1e16, 1e-5, 123456789.125]))
ints = st.integers(-(2**63), 2**63 - 1)
texts = st.text(st.sampled_from(list("ab 0-9,\"é")), max_size=6)
ascii_texts = st.text(st.sampled_from(list("ab 0-9,\"")), max_size=6)


def cell_by_cell(columns: list[np.ndarray], sep: str) -> bytes:
    """The text as written before: every cell formatted on its own, rows joined in Python."""
    if not len(columns[0]):
        return b""
    return ("\n".join(map(sep.join, zip(*[_csv_text(c) for c in columns]))) + "\n").encode("utf-8")


@st.composite
def columns(draw):
    n = draw(st.integers(0, 25))
    out = []
    for kind in draw(st.lists(st.sampled_from(["f", "i", "u", "c"]), min_size=1, max_size=5)):
        if kind == "f":
            out.append(np.array(draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64))
        elif kind == "i":
            out.append(np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=np.int64))
        elif kind == "u":
            out.append(np.array(draw(st.lists(texts, min_size=n, max_size=n)), dtype=str))
        else:  # a constant column, as workload_name is
            out.append(np.full(n, draw(st.sampled_from(["w0", "", "a,b", "-1"]))))
    return out


@given(columns())
@settings(max_examples=200, deadline=None)
def test_csv_rows_are_the_cell_by_cell_text(cols):
    want = cell_by_cell(cols, ",")
    assert joined_rows([csv_cells(c) for c in cols], ",") == want
    # each fractional value formatted once for all the columns (as write_jobs does)
    reprs = fraction_reprs(cols)
    assert joined_rows([csv_cells(c, reprs) for c in cols], ",") == want


@given(st.lists(floats, min_size=1, max_size=40))
@settings(max_examples=200, deadline=None)
def test_numbers_are_str_of_whole_values_and_repr_of_the_others(values):
    col = np.array(values, dtype=np.float64)
    got = joined_rows([number_cells(col)], " ").decode().split("\n")[:-1]
    assert got == number_texts(col)
    other = col[::-1] * 0.5  # a second column sharing some values with the first
    shared = fraction_reprs([col, other])
    assert joined_rows([number_cells(col, shared), number_cells(other, shared)], " ") == \
        joined_rows([number_cells(col), number_cells(other)], " ")
    for text, v in zip(got, values):
        if v != v:
            assert text == ""
        elif v == int(v) and abs(v) < 2.0**53:
            assert text == str(int(v))
        else:
            assert text == repr(v)


def test_the_least_and_greatest_integers_keep_every_digit():
    col = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 10, 100], dtype=np.int64)
    assert joined_rows([number_cells(col)], ",").decode().split("\n")[:-1] == [str(v) for v in col.tolist()]


def _rowtext():
    return pytest.importorskip("gangviz.results._rowtext")


wide_floats = st.one_of(floats, st.floats(width=64), st.integers(1, 10**7).map(lambda v: v / 7),
                        st.sampled_from([float("inf"), -float("inf"), 1e-3, 9.999e-4, 2.0**53 - 0.5,
                                         1e22, 5e-324, 0.1, 1 / 3]))


@st.composite
def mixed_columns(draw):
    n = draw(st.integers(0, 25))
    out = []
    for kind in draw(st.lists(st.sampled_from(["f", "i", "u", "o", "c", "k", "b", "z", "t"]), min_size=1,
                              max_size=6)):
        if kind == "f":
            out.append(np.array(draw(st.lists(wide_floats, min_size=n, max_size=n)), dtype=np.float64))
        elif kind == "i":
            out.append(np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=np.int64))
        elif kind == "b":
            out.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
        elif kind == "u":
            out.append(np.array(draw(st.lists(texts, min_size=n, max_size=n)), dtype=str))
        elif kind == "o":  # texts of any length, as a table's job_id and processors are
            col = np.empty(n, dtype=object)
            col[:] = draw(st.lists(texts, min_size=n, max_size=n))
            out.append(col)
        elif kind == "k":  # a constant number column (consumed_energy)
            out.append(np.full(n, draw(wide_floats)))
        elif kind == "t":  # texts in one buffer, as a long table's processors are
            out.append(TextColumn.of(draw(st.lists(ascii_texts, min_size=n, max_size=n))))
        elif kind == "z":  # one value broadcast, as batsim_columns gives a constant column
            out.append(np.broadcast_to(np.array(draw(st.one_of(wide_floats, texts))), (n,)))
        else:
            out.append(np.full(n, draw(st.sampled_from(["w0", "", "a,b", "-1", 'q"t']))))
    return out


@given(mixed_columns(), st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_c_writer_gives_the_bytes_of_the_numpy_path(cols, csv):
    _rowtext()
    texts = [c.strings().astype(str) if isinstance(c, TextColumn) else np.asarray(c, dtype=str)
             if c.dtype.kind == "O" else c for c in cols]
    if csv:
        want = joined_rows([csv_cells(c) for c in texts], ",")
    else:
        numbers = [c for c in texts if c.dtype.kind in "fiub"]  # (TextColumn texts are "U")
        if not numbers:
            return
        cols = numbers
        want = joined_rows([number_cells(c) for c in numbers], " ")
    got = compiled_rows(cols, "," if csv else " ", quote=csv)
    assert got == want


def test_the_c_writer_writes_every_float_as_repr_does():
    """The shortest repr in C (128-bit integers) against Python's, on values of every kind a
    table holds and on random bit patterns of every exponent."""
    _rowtext()
    rng = np.random.default_rng(7)
    n = 200_000
    values = np.concatenate([
        np.frombuffer(rng.integers(0, 2**63 - 1, n, dtype=np.int64).tobytes(), np.float64),
        np.frombuffer(rng.integers(0x3F50000000000000, 0x4340000000000000, n, dtype=np.int64).tobytes(),
                      np.float64),  # 1e-3 .. 2**53, where the C repr works
        rng.integers(1, 10**7, n) / rng.integers(1, 10**5, n),  # a stretch: one time over another
        rng.integers(0, 2**40, n) + rng.integers(0, 8, n) / 8,
        np.concatenate([np.nextafter(2.0 ** np.arange(-12, 54), d) for d in (0.0, np.inf, -np.inf)]),
        np.concatenate([np.nextafter(10.0 ** np.arange(-5, 17), d) for d in (0.0, np.inf, -np.inf)]),
    ])
    values = np.concatenate([values, -values])
    got = compiled_rows([values], ",", quote=False)
    assert got is not None
    assert got.decode().split("\n")[:-1] == number_texts(values)


def test_the_c_writer_declines_what_it_does_not_write():
    rowtext = _rowtext()
    assert rowtext.rows([np.zeros(3, np.complex128)], ",", True) is None
    assert rowtext.rows([[1, 2]], ",", True) is None  # not texts
    with pytest.raises(ValueError, match="one length"):
        rowtext.rows([np.zeros(2), np.zeros(3)], ",", True)
    data = np.frombuffer(b"0-125", np.uint8)
    assert rowtext.rows([(data, np.array([0, 4, 5], np.int32))], ",", True) is None  # offsets not int64
    assert rowtext.rows([(data, np.array([0, 4, 5]))], ",", True) == b"0-12\n5\n"
    with pytest.raises(ValueError, match="outside"):
        rowtext.rows([(data, np.array([0, 4, 9]))], ",", True)
    with pytest.raises(ValueError, match="outside"):
        rowtext.rows([(data, np.array([0, 4, 2]))], ",", True)


@pytest.mark.parametrize("policy", ["easy", "conservative", "fcfs"])
def test_a_per_job_file_is_the_same_file_without_the_c_parts(tmp_path, monkeypatch, policy):
    """The C writer of the rows, the C placement and the ids written by C against the numpy
    path and the Python placement (``GANGVIZ_PURE_PYTHON=1``): the same bytes, CSV and SWF."""
    _rowtext()
    from gangviz.results.jobs import save_columns_jobs
    from gangviz.spacesharing.backfill import simulate_backfill_columns
    from gangviz.workloads.source import load_trace_columns

    trace = ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    c = load_trace_columns(str(trace), procs=None, slice_seconds=None)
    assert c is not None and c.processors
    res = simulate_backfill_columns(c.arrival, c.size, c.work, c.estimate, c.processors, mode=policy)
    files = {}
    for pure in (False, True):
        if pure:
            monkeypatch.setenv("GANGVIZ_PURE_PYTHON", "1")
        for ext in (".csv", ".swf"):
            out = tmp_path / f"{pure}{ext}"
            save_columns_jobs(trace.name, c, res.start, res.finish, out, label=policy, executed=res.runs)
            files[pure, ext] = out.read_bytes()
    for ext in (".csv", ".swf"):
        assert files[False, ext] == files[True, ext]
    assert b"COMPLETED" in files[False, ".csv"]
