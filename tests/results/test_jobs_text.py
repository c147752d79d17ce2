"""The per-job files are built a column at a time as bytes, and stay byte for byte the text of
writing each cell with ``str``/``repr``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.results.jobs import (
    _csv_text,
    csv_cells,
    fraction_reprs,
    joined_rows,
    number_cells,
    number_texts,
)

floats = st.one_of(st.floats(allow_nan=True, allow_infinity=False, width=64),
                   st.integers(-(2**62), 2**62).map(float),
                   st.integers(-10**6, 10**6).map(lambda v: v / 8),
                   st.sampled_from([0.0, -0.0, 2.0**53, -(2.0**53), 1e16, 1e-5, 123456789.125]))
ints = st.integers(-(2**63), 2**63 - 1)
texts = st.text(st.sampled_from(list("ab 0-9,\"é")), max_size=6)


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
