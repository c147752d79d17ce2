"""The optional C reader of SWF job lines (gangviz.workloads._swfscan) reads what numpy.loadtxt
and Python's float() read, bit for bit, and gives up (so the exact line-by-line reader names
the fault) on anything else: a token outside the number syntax, a missing or extra field, a
missing or extra line. Skipped when the extension is not built (no C compiler at install
time): ``loadtxt`` then reads alone."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gangviz.resources import RESOURCES
from gangviz.workloads import swf
from gangviz.workloads.swf import N_FIELDS, SWFError, parse_swf_columns, read_swf_columns

swfscan = pytest.importorskip("gangviz.workloads._swfscan")


def scan(body: bytes, rows: int, fields: int) -> np.ndarray | None:
    out = np.full((rows, fields), np.nan)
    return out if swfscan.table(body, rows, fields, out) else None


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


digits = st.text("0123456789", min_size=1, max_size=25)


@st.composite
def numbers(draw) -> str:
    """A token of Python's float syntax (no underscores): every shape the grammar allows,
    short and long mantissas, leading zeros, exponents near and far beyond the fast path."""
    sign = draw(st.sampled_from(["", "+", "-"]))
    shape = draw(st.sampled_from(["int", "int.", "int.frac", ".frac"]))
    whole, frac = draw(digits), draw(digits)
    mantissa = {"int": whole, "int.": whole + ".", "int.frac": f"{whole}.{frac}", ".frac": "." + frac}[shape]
    exponent = ""
    if draw(st.booleans()):
        exponent = draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+", "-"])) + str(
            draw(st.one_of(st.integers(0, 30), st.integers(0, 400))))
    return sign + mantissa + exponent


@settings(max_examples=600, deadline=None, derandomize=True)
@given(numbers())
@example("489.00")
@example("-0")
@example("9007199254740993")  # 2**53 + 1: past the exact integers, rounds to even
@example("0.1e23")
@example("1e-400")
@example("1e999")
@example("-1e999")
@example("000000000000000000000000000001.5")
def test_a_number_reads_as_float_reads_it(token):
    got = scan(token.encode(), 1, 1)
    assert got is not None, token
    assert bits(float(got[0, 0])) == bits(float(token)), token


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.text("0123456789.+-eE", max_size=8))
@example("1e")
@example(".")
@example("+-1")
@example("1.2.3")
@example("e5")
@example("1e+")
@example("--1")
@example(".e1")
def test_a_token_is_read_exactly_when_the_exact_reader_calls_it_a_number(token):
    """Any string of the bytes numbers are made of: accepted iff the exact reader's syntax
    accepts it, and then with float()'s value."""
    got = scan(token.encode(), 1, 1) if token else None
    if swf._NUMBER_RE.match(token):
        assert got is not None, token
        assert bits(float(got[0, 0])) == bits(float(token)), token
    else:
        assert got is None, token


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.lists(numbers(), min_size=N_FIELDS, max_size=N_FIELDS), min_size=1, max_size=3),
       st.sampled_from([" ", "\t", "  ", " \t "]))
def test_a_table_is_what_loadtxt_reads(rows, gap):
    body = "\n".join(gap + gap.join(r) + gap for r in rows).encode()
    want = np.loadtxt(io.BytesIO(body), dtype=np.float64, comments=None, ndmin=2)
    got = scan(body, len(rows), N_FIELDS)
    assert got is not None
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("body, rows", [
    (b"1 2 3\n4 5", 2),       # a field missing on the last line
    (b"1 2\n4 5 6", 2),       # ... on the first
    (b"1 2 3 4\n4 5 6", 2),   # an extra field
    (b"1 2 3\n4 5 6", 1),     # an extra line
    (b"1 2 3\n4 5 6", 3),     # a line missing
    (b"1 2 3\n\n4 5 6", 2),   # a blank line
    (b"1 2 3\n4 5 6\n", 2),   # a line ending after the last line
    (b"1 2 3\r\n4 5 6", 2),   # a carriage return
    (b"1 2 x\n4 5 6", 2),     # a letter
    (b"1 2 nan\n4 5 6", 2),
    (b"1 2 inf\n4 5 6", 2),
    (b"1 2 1_0\n4 5 6", 2),   # float() takes underscores; SWF does not
    (b"", 1),
])
def test_anything_else_is_left_to_the_exact_reader(body, rows):
    assert scan(body, rows, 3) is None


def test_the_out_buffer_must_hold_the_table():
    with pytest.raises(ValueError, match="rows \\* fields"):
        swfscan.table(b"1 2", 1, 2, np.empty(1))
    with pytest.raises(BufferError):
        swfscan.table(b"1 2", 1, 2, b"read-only bytes..")


@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln-first300.swf", "downey-200-load0.5-seed1.swf",
                                  "papazachos-normal3-300.swf"])
def test_a_shipped_trace_reads_the_same_with_and_without_it(name, monkeypatch):
    path = RESOURCES / "workloads" / name
    with_c = read_swf_columns(path)
    monkeypatch.setenv("GANGVIZ_PURE_PYTHON", "1")
    without = read_swf_columns(path)
    for key in ("arrival", "size", "work", "estimate", "_rows"):
        a, b = getattr(with_c, key), getattr(without, key)
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), key


def test_the_reader_uses_it_and_a_bad_token_still_gets_its_line_field_and_token(monkeypatch):
    calls = []
    real = swfscan.table
    monkeypatch.setattr(swfscan, "table", lambda *a: calls.append(a) or real(*a))
    good = " ".join(["1", "0", "5", "60", "4"] + ["-1"] * 13)
    cols = parse_swf_columns(f"{good}\n{good.replace('1', '2', 1)}\n".encode())
    assert len(calls) == 1 and len(cols.arrival) == 2
    bad = good.split()
    bad[3] = "6O"  # a letter O for a zero
    with pytest.raises(SWFError) as err:
        parse_swf_columns(f"{good}\n{' '.join(bad)}\n".encode(), source="t.swf")
    assert (err.value.line, err.value.field, err.value.token) == (2, 4, "6O")
    assert len(calls) == 2
