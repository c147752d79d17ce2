"""Hypothesis strategies for hostile input: SWF traces, scenarios, sweep files, option values.

Each strategy mixes ordinary values with the ones a hostile user tries: zero, negative, blank,
not-a-number, infinite, just past a limit and far past it, 2**53 and 2**63 neighbours. Valid
values stay small, so every case that should run finishes in well under a second.
"""

from __future__ import annotations

import bz2
import gzip
import lzma

from hypothesis import strategies as st

from gangviz.core.limits import MAX_PROCESSORS, MAX_SLICES

HUGE_INTS = [0, -1, -2, 2**31, 2**32, 2**40, 2**53 + 1, 2**63 - 1, 2**63, 10**20,
             MAX_PROCESSORS, MAX_PROCESSORS + 1, 1073741824]
HUGE_FLOATS = [0.0, -0.0, 1e-300, 1e-18, 0.5, 1e17, 9e18, 1e19, 1e25, 1e300, 1e308,
               MAX_SLICES, MAX_SLICES * 1.0001, 2.0**53]
TOKENS = ["", " ", "0", "-1", "-0", "nan", "inf", "-inf", "1e308", "1e-300", "abc", "1.5",
          "99999999999999999999", "0x10", "1_000", "١٢"]

small_int = st.integers(1, 64)
hostile_int = st.one_of(small_int, st.sampled_from(HUGE_INTS))
hostile_float = st.one_of(st.floats(0.01, 200, allow_nan=False), st.sampled_from(HUGE_FLOATS),
                          st.floats(allow_nan=True, allow_infinity=True))
option_value = st.one_of(st.sampled_from(TOKENS), hostile_int.map(str), hostile_float.map(repr),
                         st.text(max_size=6))


def _field(draw, kind: str):
    if kind == "size":
        return draw(st.one_of(st.integers(1, 16), st.sampled_from([-1, 0, 2**31, 2**63 - 1])))
    if kind == "time":
        return draw(st.one_of(st.integers(0, 500), st.sampled_from([-1, 10**17, 9 * 10**18, 2**53])))
    return draw(st.one_of(st.integers(-1, 100), st.sampled_from(["-1", "1e5", "7.5"])))


@st.composite
def swf_files(draw) -> tuple[str, bytes]:
    """Return ``(file name, bytes)`` of a possibly hostile SWF trace, possibly compressed or
    named as something else."""
    lines = []
    if draw(st.booleans()):
        procs = draw(st.one_of(st.sampled_from([1, 4, 16, 64]), st.sampled_from(HUGE_INTS).map(str),
                               st.sampled_from(["lots", "", "-1", "1e9"])))
        lines.append(f"; MaxProcs: {procs}")
    if draw(st.booleans()):
        lines.append(f"; MaxJobs: {draw(hostile_int)}")
    n = draw(st.integers(0, 12))
    number = 1
    for _ in range(n):
        fields = [draw(st.one_of(st.just(number), st.sampled_from([1, -1, 2**62])))]  # duplicates too
        number += 1
        fields.append(_field(draw, "time"))
        fields.append(_field(draw, "other"))
        fields.append(_field(draw, "time"))
        size = _field(draw, "size")
        fields += [size, -1, -1, size, _field(draw, "time")]
        fields += [-1, 1, 1, 1, -1, -1, -1, -1, -1]
        text = " ".join(str(f) for f in fields)
        if draw(st.integers(0, 9)) == 0:
            text = draw(st.sampled_from([text + " 5", " ".join(text.split()[:-2]),
                                         text.replace("1", draw(st.sampled_from(TOKENS)), 1)]))
        lines.append(text)
    data = ("\n".join(lines) + ("\n" if lines else "")).encode()
    if draw(st.integers(0, 15)) == 0:
        data = draw(st.binary(max_size=64))
    how = draw(st.sampled_from(["plain", "plain", "gz", "bz2", "xz"]))
    data = {"plain": lambda d: d, "gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[how](data)
    name = draw(st.sampled_from(["t.swf", "t.txt", "t.data", "t.swf.gz", "t.swf.xz", "trace"]))
    return name, data


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


@st.composite
def scenarios(draw) -> str:
    """Return the text of a possibly hostile matrix scenario."""
    procs = draw(st.one_of(st.sampled_from([4, 8]), st.sampled_from(HUGE_INTS)))
    width = procs if isinstance(procs, int) and 1 <= procs <= 16 else 8
    names = ["A", "B", "C"]
    rows = []
    for _ in range(draw(st.integers(0, 3))):
        cells = [draw(st.sampled_from(names + ["."] * 3)) for _ in range(width)]
        rows.append(" ".join(cells))
    out = [f"processors = {_toml(procs)}", f"matrix = {_toml(rows)}"]
    if draw(st.booleans()):
        out.append(f"policy = {_toml(draw(st.sampled_from(['repack', 'br', 'bc', 'firstfit', '', 'nope'])))}")
    if draw(st.integers(0, 5)) == 0:
        out.append(draw(st.sampled_from(["params = 5", "colour = 1", "[params.random]\nsede = 3",
                                         "[params.random]\nseed = 3"])))
    used = sorted({c for r in rows for c in r.split() if c != "."})
    if used and draw(st.booleans()):
        out.append("[jobs]")
        for n in used:
            if draw(st.booleans()):
                out.append(f"{n} = {{ work = {_toml(draw(hostile_float))} }}")
    for _ in range(draw(st.integers(0, 2))):
        out.append("[[events]]")
        out.append(f"at = {_toml(draw(hostile_float))}")
        if used and draw(st.booleans()):
            out.append(f"terminate = {_toml([draw(st.sampled_from(used))])}")
        if draw(st.booleans()):
            sub = {"name": f"N{draw(st.integers(0, 3))}", "size": draw(hostile_int),
                   "work": draw(hostile_float)}
            out.append(f"submit = {_toml(sub)}")
    return "\n".join(out) + "\n"


@st.composite
def sweep_files(draw) -> str:
    """Return the text of a possibly hostile sweep file over the downey model (no compiled policy,
    so no case waits for a compilation)."""
    policies = draw(st.lists(st.sampled_from(["repack", "firstfit", "random", "nope", ""]),
                             min_size=0, max_size=2))
    out = [f"policies = {_toml(policies)}",
           f"replications = {_toml(draw(st.one_of(st.integers(1, 2), st.sampled_from([0, -1, 10**9]))))}",
           "[workload]", 'model = "downey"',
           f"jobs = {_toml(draw(st.one_of(st.integers(1, 30), st.sampled_from([0, 10**8, 2**63 - 1]))))}"]
    if draw(st.booleans()):
        out.append(f"procs = {_toml(draw(st.one_of(st.sampled_from([8, 16, 32]), st.sampled_from(HUGE_INTS))))}")
    if draw(st.booleans()):
        out.append(f"max_work = {_toml(draw(st.one_of(st.integers(1, 50), st.sampled_from(HUGE_INTS))))}")
    out.append("[grid]")
    loads = draw(st.lists(st.one_of(st.floats(0.1, 0.9), st.sampled_from([0.0, -1.0, 1e308])),
                          min_size=0, max_size=2))
    out.append(f"load = {_toml(loads)}")
    return "\n".join(out) + "\n"


#: text a hostile user puts where a name or a label goes
HOSTILE_TEXT = ["", " ", "x" * 300, "a\nb", "\x1b[2J", "J1\u2028", "١٢", "²", "../../etc/passwd", "nan"]
hostile_text = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=8))

SACCT_COLUMNS = ["JobID", "Submit", "Start", "End", "AllocCPUS", "NCPUS", "NNodes", "Timelimit",
                 "State", "ReqCPUS", "User", "Cluster"]
DATES = ["2024-03-01T09:00:00", "2024-03-01T09:10:00", "2024-03-01T10:00:00",
         "2024-03-01T09:00:00+02:00", "2024-03-01T08:00:00Z", "Unknown", "None", "",
         "2024-13-01T00:00:00", "２０２４-03-01T09:00:00", "0001-01-01T00:00:00", "9999-12-31T23:59:59"]
LIMITS = ["01:00:00", "00:61:99", "1-00:00:00", "UNLIMITED", "Partition_Limit", "90", "1:30",
          "100000000000000000000-00", "٣٠", "-5", ""]
STATES = ["COMPLETED", "FAILED", "CANCELLED by 0", "TIMEOUT", "RUNNING", "PENDING", "", "x" * 500]


@st.composite
def sacct_files(draw) -> str:
    """Return possibly hostile ``sacct --parsable2`` output: columns in any order, some missing
    or repeated, records with dates in and out of ISO, offsets, odd digits and huge values."""
    cols = draw(st.lists(st.sampled_from(SACCT_COLUMNS), min_size=0, max_size=9))
    if draw(st.integers(0, 3)):  # mostly a usable header
        cols = ["JobID", "Submit", "Start", "End", "AllocCPUS", "Timelimit", "State"] + cols[:3]
    values = {
        "JobID": st.one_of(st.integers(0, 5000).map(str), st.sampled_from(["0123", "123", "12.batch", "7_1",
                                                                          "²", "9" * 25])),
        "Submit": st.sampled_from(DATES), "Start": st.sampled_from(DATES), "End": st.sampled_from(DATES),
        "Timelimit": st.sampled_from(LIMITS), "State": st.sampled_from(STATES),
        "Cluster": hostile_text, "User": hostile_text,
    }
    size = st.one_of(st.integers(1, 64).map(str), st.sampled_from(["0", "-1", "99999999999", "٤", "1.5", ""]))
    lines = ["|".join(cols)]
    for _ in range(draw(st.integers(0, 6))):
        row = [draw(values.get(c, size)) for c in cols]
        if draw(st.integers(0, 9)) == 0:
            row.append("extra")
        lines.append("|".join(r.replace("|", "/").replace("\n", " ") for r in row))
    return "\n".join(lines) + "\n"


BUILTIN_SOURCES = ["fig2-repacking", "downey", "zhou-fig1-random-trap"]


@st.composite
def session_files(draw, playlist: str = "p.toml") -> str:
    """Return a possibly hostile session file: sources, policies, compare lists of any length
    (repeats, case and spaces included), playlists and entries in and out of range."""
    source = draw(st.one_of(st.sampled_from(BUILTIN_SOURCES + ["missing.toml", playlist]), hostile_text))
    out = ["[session]", f"version = {_toml(draw(st.sampled_from([1, 1, 1, 2, 0])))}", "[source]",
           f"name = {_toml(source)}"]
    if draw(st.booleans()):
        out.append(f"playlist = {_toml(draw(st.sampled_from([playlist, 'missing.toml', 's.toml', ''])))}")
        out.append(f"entry = {_toml(draw(st.sampled_from([0, 1, 5, -1, 2**63 - 1])))}")
    if source == "downey" and draw(st.booleans()):
        out.append(f"jobs = {_toml(draw(st.sampled_from([5, 0, -1, 10**9])))}")
    out.append("[policy]")
    if draw(st.booleans()):
        out.append(f"name = {_toml(draw(st.sampled_from(['repack', 'bc', 'firstfit', 'nope', '', 'BC '])))}")
    if draw(st.integers(0, 4)) == 0:
        out.append(f"watch = {_toml(draw(st.sampled_from([True, False, 'no', 1])))}")
    out.append("[view]")
    out.append(f"step = {_toml(draw(st.sampled_from([0, 3, -1, 10**12])))}")
    if draw(st.integers(0, 3)) == 0:
        out.append(f"zoom = {{ \"Slots over time\" = {_toml(draw(st.lists(hostile_float, max_size=5)))} }}")
    out.append("[compare]")
    names = st.sampled_from(["repack", "firstfit", "random", "bc", "nope", "REPACK", " repack", ""])
    out.append(f"policies = {_toml(draw(st.lists(names, max_size=11)))}")
    return "\n".join(out) + "\n"


@st.composite
def playlist_files(draw, name: str = "p.toml") -> str:
    """Return a possibly hostile playlist: entries naming built-ins, itself, another playlist,
    missing files and hostile text; notes and titles of any text."""
    out = []
    if draw(st.booleans()):
        out.append(f"title = {_toml(draw(hostile_text))}")
    if draw(st.integers(0, 5)) == 0:
        out.append(draw(st.sampled_from(["scenario = []", "scenario = 3", "colour = 1"])))
        return "\n".join(out) + "\n"
    for _ in range(draw(st.integers(0, 4))):
        out.append("[[scenario]]")
        if draw(st.integers(0, 6)):
            src = draw(st.one_of(st.sampled_from(BUILTIN_SOURCES[::2] + [name, "other.toml", "missing.toml"]),
                                 hostile_text))
            out.append(f"source = {_toml(src)}")
        if draw(st.booleans()):
            out.append(f"note = {_toml(draw(st.one_of(hostile_text, st.integers(0, 3))))}")
    return "\n".join(out) + "\n"
