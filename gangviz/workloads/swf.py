"""Read and write the Standard Workload Format (SWF, version 2.2) of the Parallel Workloads Archive.

The format and the quirks of real archive traces are summarised in SWF-FORMAT.md (shipped with
the project's workload material); this module follows that summary.

Reading (:func:`read_swf`) maps each job line to a :class:`~gangviz.core.jobs.JobSpec`:

* ``arrival`` = (submit time - submit time of the first kept job) / ``slice_seconds``; the
  original first submit time is kept in :attr:`Workload.submit_offset` (seconds) and in the
  header key ``SubmitOffset``.
* ``size`` = allocated processors (field 5), or requested processors (field 8) when field 5 is
  -1.
* ``work`` = run time (field 4) / ``slice_seconds``. A run time of **0** means "ran for under
  half a second and was rounded down" (SWF 2.2), so it is read as **0.5 s**; the simulator
  needs work > 0.
* ``estimate`` = requested time (field 9) / ``slice_seconds``; ``None`` when field 9 is -1 or 0
  (0 is read as "no request": an estimate of nothing cannot guide backfilling).
* ``id`` = 0..n-1 in submit order; ``name`` = ``"J<job number>"`` (field 1); ``extra`` holds
  ``"swf"``: the 18 raw field values as written (ints where a value is whole) and
  ``"line"``: the line number in the file.

Jobs that cannot be simulated are skipped with one summarised warning per reason (count and the
first few line numbers), checked in this order, each job counted under the first that applies:
unknown submit time (field 2 = -1), no usable size (fields 5 and 8 both -1), zero size, unknown
run time (field 4 = -1), more processors than the machine. ``strict=True`` turns the first such
job into an :class:`SWFError` instead. Out-of-order submit times are put back in order by a
stable sort (jobs with equal submit times keep their file order) with a warning; this is a
repair, not a skip, so it stays a warning under ``strict``.

Errors (:class:`SWFError`) name the file, the line, the field by number and name, and the token.
A value that is not a finite number, one beyond the signed 64-bit range, a negative value other
than -1, a fractional job number or processor count, and a line without exactly 18 fields are
errors. Binary, empty and job-less files each get their own message.

Speed: job lines are parsed in bulk with :func:`numpy.loadtxt` after a byte-level character
check; only when that fast path finds something wrong does a line-by-line exact parser run, to
produce the precise message. When every comment comes before the first job and no blank line
sits among the jobs (the archive's layout), the job lines are found without a Python loop over
them and are split one by one only if a message needs one. :func:`read_swf_columns` stops
before making job objects (:class:`TraceColumns`), for callers that need numbers only.
Nothing allocates or loops in proportion to a value written in the file (MaxJobs, MaxProcs, a
huge run time): only in proportion to the file's length.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import IO, Any, TypedDict, Unpack

import numpy as np

from gangviz.core.jobs import JobSpec, checked_specs
from gangviz.core.limits import (
    MAX_JOBS,
    MAX_PROCESSORS,
    MAX_SLICES,
    LimitError,
    check_processors,
    check_slice_seconds,
)
from gangviz.gcpause import collector_resting
from gangviz.inputs import quoted
from gangviz.outputs import atomic
from gangviz.workloads.files import InputFileError, decompress, read_input
from gangviz.workloads.model import Workload

#: The 18 SWF fields, in order (field k is ``FIELDS[k - 1]``).
FIELDS: tuple[str, ...] = (
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user ID",
    "group ID",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
)
N_FIELDS = len(FIELDS)

# 0-based columns.
JOB, SUBMIT, WAIT, RUN, ALLOC, CPU, MEM, REQ_PROCS, REQ_TIME = range(9)
#: Fields that must hold whole numbers (job number, allocated and requested processors).
INTEGER_FIELDS = (JOB, ALLOC, REQ_PROCS)

#: Seconds a run time of 0 stands for (SWF 2.2: "ran for under half a second").
ZERO_RUN_SECONDS = 0.5
#: How many line numbers a skip or repair warning lists.
LINES_SHOWN = 5

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_MAX_TOKEN_CHARS = 64  # longer tokens are out of any 64-bit range whatever they hold
_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z", re.ASCII)  # \d alone takes Arabic-Indic digits too
_INT_RE = re.compile(r"[+-]?\d+\Z", re.ASCII)
_HEADER_RE = re.compile(r"^[ \t]{0,3}([A-Za-z][A-Za-z0-9_]*)[ \t]*:(?!//)[ \t]*(.*)$")
_LEADING_INT_RE = re.compile(r"^\s*([+-]?\d+)", re.ASCII)

_ALLOWED = b"0123456789.+-eE \t\n\x0b\x0c"  # the bytes the bulk parser may meet
#: Rows moved at a time when the skipped jobs are squeezed out of the parsed table in place.
_CHUNK_ROWS = 4096


class SWFError(ValueError):
    """A file that is not usable SWF.

    The message names the file and, where there is one, the line, the field (number and name)
    and the offending token. The parts are also attributes: ``path``, ``line`` (1-based or
    ``None``), ``field`` (1-based or ``None``) and ``token``.
    """

    def __init__(
        self,
        path: str,
        problem: str,
        *,
        line: int | None = None,
        field: int | None = None,
        token: str | None = None,
    ) -> None:
        self.path, self.problem, self.line, self.field, self.token = path, problem, line, field, token
        where = path
        if line is not None:
            where += f": line {line}"
        if field is not None:
            where += f": field {field} ({FIELDS[field - 1]})" if field <= N_FIELDS else f": field {field}"
        if token is not None:
            problem = f"{quoted(token)} {problem}"
        super().__init__(f"{where}: {problem}")


# --------------------------------------------------------------------------------------- reading


class ReadOptions(TypedDict, total=False):
    """How :func:`read_swf` and :func:`read_swf_columns` read a trace (every key optional).

    ``procs`` (default ``None``) sets the machine size and wins over the header; otherwise
    ``MaxProcs`` is used, falling back to ``MaxNodes`` (SMP machines have more processors than
    nodes; jobs are never capped at the node count). ``slice_seconds`` (default 1.0) is the
    length of one slice in seconds. ``strict`` (default ``False``) turns every skipped job into
    an error.
    """

    procs: int | None
    slice_seconds: float
    strict: bool


def read_swf(path: str | os.PathLike[str], **options: Unpack[ReadOptions]) -> Workload:
    """Read an SWF trace (plain, ``.gz``, ``.bz2`` or ``.xz``) into a :class:`Workload`, as
    ``options`` say (:class:`ReadOptions`). See the module docstring for the mapping.

    Returns the workload (ids 0..n-1 in submit order, first arrival at 0). Raises
    :class:`SWFError` for a file that is not usable SWF (including one whose every job is
    skipped), ``ValueError`` for a bad ``procs`` or ``slice_seconds`` (naming the allowed
    range), and ``OSError`` when the file cannot be read.
    """
    return read_swf_columns(path, **options).workload()


def read_swf_columns(path: str | os.PathLike[str], **options: Unpack[ReadOptions]) -> TraceColumns:
    """Read an SWF trace as :func:`read_swf` does, but return its jobs as :class:`TraceColumns`
    (arrays, no job objects): for a caller that only needs the numbers.

    Same checks, warnings and errors as :func:`read_swf`; ``columns.workload()`` gives the
    workload :func:`read_swf` returns.
    """
    name = str(path)
    try:
        data = read_input(path)
    except InputFileError as exc:
        raise SWFError(name, str(exc).removeprefix(f"{name}: ")) from None
    return parse_swf_columns(data, source=name, **options)


def parse_swf(data: bytes, *, source: str = "<bytes>", procs: int | None = None,
              slice_seconds: float = 1.0, strict: bool = False, fast: bool = True) -> Workload:
    """Parse SWF ``data`` (bytes, possibly compressed) into a :class:`Workload`.

    Same contract as :func:`read_swf`; ``source`` names the data in messages. ``fast=False``
    forces the exact line-by-line parser (the fast path must agree with it; tests check this).
    """
    return parse_swf_columns(data, source=source, procs=procs, slice_seconds=slice_seconds,
                             strict=strict, fast=fast).workload()


def parse_swf_columns(data: bytes, *, source: str = "<bytes>", procs: int | None = None,
                      slice_seconds: float = 1.0, strict: bool = False,
                      fast: bool = True) -> TraceColumns:
    """Parse SWF ``data`` as :func:`parse_swf` does; return :class:`TraceColumns`."""
    check_options(procs, slice_seconds)
    with collector_resting():
        return _parse(data, source, procs, slice_seconds, strict, fast)



class _JobLines:
    """The job lines of a trace (bytes, possibly with surrounding blanks), in file order.

    Made from one block of text (the common case: comments only before the first job, no blank
    line among the jobs) the block is split only when a line is asked for, which only a message
    or a value beyond 2**53 needs.
    """

    def __init__(self, *, body: bytes | None = None, lines: list[bytes] | None = None,
                 count: int = 0) -> None:
        self._body, self._lines = body, lines
        self._count = len(lines) if lines is not None else count

    @property
    def body(self) -> bytes:
        """Return every job line, joined by newlines."""
        if self._body is None:
            self._body = b"\n".join(self._lines or [])
        return self._body

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, row: int) -> bytes:
        if self._lines is None:
            self._lines = (self._body or b"").split(b"\n")
        return self._lines[row]


_BLANK_LINE = re.compile(rb"\n[ \t\x0b\x0c]*\n")


def _split_lines(text: bytes) -> tuple[list[tuple[int, bytes]], _JobLines, np.ndarray]:
    """Return the comment lines (line number, stripped text), the job lines and their 1-based
    line numbers (int64)."""
    comments: list[tuple[int, bytes]] = []
    pos, lineno, end = 0, 0, len(text)
    while pos < end:  # the header: comments and blank lines before the first job
        eol = text.find(b"\n", pos)
        eol = end if eol < 0 else eol
        s = text[pos:eol].strip()
        if s and s[0] != 59:  # ';'
            break
        lineno += 1
        if s:
            comments.append((lineno, s))
        pos = eol + 1
    stop = end
    while stop > pos and text[stop - 1] in b" \t\n\x0b\x0c":
        stop -= 1
    body = text[pos:stop]  # one copy (rstrip() of a slice would make two)
    if body and b";" not in body and not _BLANK_LINE.search(body):
        count = body.count(b"\n") + 1
        return comments, _JobLines(body=body, count=count), np.arange(lineno + 1, lineno + 1 + count)
    comments = []
    job_lines: list[bytes] = []
    line_numbers: list[int] = []
    for i, raw in enumerate(text.split(b"\n")):
        s = raw.strip()
        if not s:
            continue
        if s[0] == 59:
            comments.append((i + 1, s))
        else:
            job_lines.append(s)
            line_numbers.append(i + 1)
    return comments, _JobLines(lines=job_lines), np.asarray(line_numbers, dtype=np.int64)


def _parse(data: bytes, source: str, procs: int | None, slice_seconds: float, strict: bool,
           fast: bool) -> TraceColumns:
    # the text is not kept: the job lines hold a copy of the part they need
    comments, job_lines, line_numbers = _split_lines(_to_text(data, source))
    header = _parse_header(comments)
    if not len(job_lines):
        raise SWFError(
            source,
            f"has no job records (only {len(comments)} comment line"
            f"{'s' if len(comments) != 1 else ''} and no data lines)",
        )
    table = None
    if fast:
        table = _parse_fast(job_lines)
    if table is None:
        table = _parse_exact(job_lines, line_numbers, source)
    _check_values(table, job_lines, line_numbers, source)
    return _columns(table, job_lines, line_numbers, header, source, procs, slice_seconds, strict)


def check_options(procs: int | None, slice_seconds: float) -> None:
    """Raise ``ValueError`` naming the allowed range unless procs >= 1 (or None) and the slice
    length is a finite number of seconds > 0."""
    if procs is not None:
        if isinstance(procs, np.integer):
            procs = int(procs)
        if not isinstance(procs, int):
            raise ValueError(f"procs must be a whole number >= 1, got {procs!r}")
        check_processors(procs, "--procs")
    check_slice_seconds(slice_seconds.item() if isinstance(slice_seconds, np.floating) else slice_seconds)


def _to_text(data: bytes, source: str) -> bytes:
    """Decompress, strip a BOM, reject binary/empty data, and normalise line endings."""
    data = _decompress(data, source)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise SWFError(source, "is empty" if not data else "is empty (only blank lines)")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise SWFError(source, f"is a binary file, not SWF text (NUL byte at offset {nul})")
    sample = data[:4096]
    odd = sum(1 for b in sample if b < 9 or 13 < b < 32)
    if odd > len(sample) // 20:
        raise SWFError(source, "is a binary file, not SWF text (control bytes in the first 4 KiB)")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _decompress(data: bytes, source: str) -> bytes:
    try:
        data = decompress(data, source)
    except InputFileError as exc:
        raise SWFError(source, str(exc).removeprefix(f"{source}: ")) from None
    if data[:4] == b"PK\x03\x04":
        raise SWFError(source, "is a zip archive; extract the .swf file from it first")
    return data


def _parse_header(comments: Iterable[tuple[int, bytes]]) -> dict[str, str]:
    """Collect ``; Key: value`` comments; continuation lines extend the previous key."""
    header: dict[str, str] = {}
    key: str | None = None
    for _, raw in comments:
        body = raw[1:].decode("utf-8", errors="replace").rstrip()
        if not body.strip():
            key = None
            continue
        m = _HEADER_RE.match(body)
        if m:
            key, value = m.group(1), m.group(2).strip()
            header[key] = f"{header[key]}\n{value}" if key in header else value
        elif key is not None:
            header[key] = f"{header[key]}\n{body.strip()}"
        else:
            header["Comment"] = (header["Comment"] + "\n" if "Comment" in header else "") + body.strip()
    return header


def header_int(header: dict[str, str], key: str) -> int | None:
    """Return the leading integer of a header value (``"338 (batch partition)"`` -> 338).

    Returns ``None`` when the key is absent, the value does not start with an integer, or the
    integer is not positive (``-1`` means unknown) or is beyond 64 bits.
    """
    value = header.get(key)
    if value is None:
        return None
    m = _LEADING_INT_RE.match(value.split("\n", 1)[0])
    if not m or len(m.group(1)) > 20:
        return None
    n = int(m.group(1))
    return n if 0 < n <= _INT64_MAX else None


def _parse_fast(job_lines: _JobLines) -> np.ndarray | None:
    """Parse all job lines at once; ``None`` when anything looks off (the exact path decides).

    The optional C reader (:mod:`gangviz.workloads._swfscan`, built by the install when a C
    compiler is there; ``GANGVIZ_PURE_PYTHON=1`` skips it) reads the same numbers as
    ``numpy.loadtxt``, bit for bit, in a fifth to a tenth of the time; without it, ``loadtxt``
    does."""
    body = job_lines.body
    scan = _c_scanner()
    if scan is not None:
        table = np.empty((len(job_lines), N_FIELDS), dtype=np.float64)
        return table if scan(body, len(job_lines), N_FIELDS, table) else None
    if body.translate(None, _ALLOWED):  # something else is left: let the exact parser say what
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            table = np.loadtxt(io.BytesIO(body), dtype=np.float64, comments=None, ndmin=2)
    except (ValueError, Warning):
        return None
    if table.shape != (len(job_lines), N_FIELDS):
        return None
    return table


def _c_scanner() -> Callable[[bytes, int, int, np.ndarray], bool] | None:
    """Return the C reader's ``table`` function, or ``None`` when it is not built or
    ``GANGVIZ_PURE_PYTHON`` is set."""
    if os.environ.get("GANGVIZ_PURE_PYTHON"):
        return None
    try:
        from gangviz.workloads import _swfscan
    except ImportError:
        return None
    return _swfscan.table


def _parse_exact(job_lines: _JobLines, line_numbers: np.ndarray, source: str) -> np.ndarray:
    """Parse line by line, raising :class:`SWFError` at the first malformed token."""
    table = np.empty((len(job_lines), N_FIELDS), dtype=np.float64)
    for row, lineno in enumerate(line_numbers.tolist()):
        raw = job_lines[row]
        tokens = raw.split()
        for col, tok in enumerate(tokens[:N_FIELDS]):
            table[row, col] = _exact_value(tok, source, lineno, col)
        if len(tokens) != N_FIELDS:
            if len(tokens) < N_FIELDS:
                raise SWFError(
                    source,
                    f"has {len(tokens)} fields, SWF needs {N_FIELDS}: field {len(tokens) + 1} "
                    f"({FIELDS[len(tokens)]}) and later are missing",
                    line=lineno,
                )
            raise SWFError(
                source,
                f"is an extra value: SWF lines have exactly {N_FIELDS} fields, this one has {len(tokens)}",
                line=lineno,
                field=N_FIELDS + 1,
                token=_decode(tokens[N_FIELDS]),
            )
    return table


def _decode(tok: bytes) -> str:
    return tok.decode("utf-8", errors="replace")


def _exact_value(tok: bytes, source: str, lineno: int, col: int) -> float:
    """Return the value of one token, or raise the precise error for it."""
    text = _decode(tok)
    field = col + 1
    if len(text) > _MAX_TOKEN_CHARS and _NUMBER_RE.match(text):
        raise SWFError(source, "is out of range (beyond 64-bit)", line=lineno, field=field, token=text)
    if not _NUMBER_RE.match(text):
        low = text.lower().lstrip("+-")
        if low in ("nan", "inf", "infinity"):
            raise SWFError(source, "is not a finite number", line=lineno, field=field, token=text)
        raise SWFError(source, "is not a number", line=lineno, field=field, token=text)
    if _INT_RE.match(text):
        n = int(text)
        if not _INT64_MIN <= n <= _INT64_MAX:
            raise SWFError(source, "is out of range (beyond 64-bit)", line=lineno, field=field, token=text)
        value = float(n)
    else:
        value = float(text)
        if not math.isfinite(value):
            raise SWFError(source, "is not a finite number (overflows)", line=lineno, field=field,
                           token=text)
        if abs(value) >= 2.0**63:
            raise SWFError(source, "is out of range (beyond 64-bit)", line=lineno, field=field, token=text)
    _check_one(value, text, source, lineno, col)
    return value


def _check_one(value: float, text: str, source: str, lineno: int, col: int) -> None:
    field = col + 1
    if value < 0 and value != -1:
        raise SWFError(source, "is negative; the only negative value SWF allows is -1 (unknown)",
                       line=lineno, field=field, token=text)
    if col in INTEGER_FIELDS and not float(value).is_integer():
        raise SWFError(source, "is not a whole number", line=lineno, field=field, token=text)


def _check_values(table: np.ndarray, job_lines: _JobLines, line_numbers: np.ndarray,
                  source: str) -> None:
    """Find bad values in bulk; re-examine suspicious cells exactly, in file order."""
    bad = ~np.isfinite(table)
    with np.errstate(invalid="ignore"):
        bad |= (table < 0) & (table != -1)
        # Near or beyond 2**63 the float cannot tell; the exact parser decides from the token.
        bad |= table >= 2.0**62
        bad |= table <= -(2.0**62)  # (two masks cost less than a float copy of the table)
        ints = table[:, INTEGER_FIELDS]
        bad[:, INTEGER_FIELDS] |= ints != np.floor(ints)
    for flat in np.flatnonzero(bad):
        row, col = divmod(int(flat), N_FIELDS)
        tok = job_lines[row].split()[col]
        _exact_value(tok, source, int(line_numbers[row]), col)


def _lines_text(lines: np.ndarray) -> str:
    shown = ", ".join(str(int(n)) for n in lines[:LINES_SHOWN])
    more = len(lines) - LINES_SHOWN
    return f"line {shown}" if len(lines) == 1 else f"lines {shown}" + (f", ... ({more} more)" if more > 0 else "")


@dataclass
class TraceColumns:
    """The usable jobs of a trace as columns, in submit order (job id = index), before any job
    object is made.

    ``arrival``, ``work`` and ``estimate`` are float64 arrays in slices (``estimate`` is NaN
    where the trace has no request), ``size`` an int64 array of processors; ``processors``,
    ``header``, ``warnings``, ``slice_seconds`` and ``submit_offset`` are those of the
    :class:`Workload` that :meth:`workload` builds.
    """

    arrival: np.ndarray
    size: np.ndarray
    work: np.ndarray
    estimate: np.ndarray
    processors: int | None
    source: str
    header: dict[str, str]
    warnings: list[str]
    slice_seconds: float
    submit_offset: float
    _rows: np.ndarray = field(repr=False)
    _exact: dict[int, tuple[float, ...]] = field(repr=False)  # rows beyond 2**53, from their tokens
    _kept: np.ndarray = field(repr=False)
    _line_numbers: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.arrival)

    def raw_fields(self) -> np.ndarray:
        """Return the 18 SWF fields of every job as an ``(jobs, 18)`` float array, rows in the
        columns' order (a view: do not change it)."""
        return self._rows

    def line_numbers(self) -> np.ndarray:
        """Return the line of the trace each job was read from, in the columns' order."""
        lines: np.ndarray = self._line_numbers[self._kept]
        return lines

    def workload(self) -> Workload:
        """Return the :class:`Workload` of these jobs (the mapping of the module docstring)."""
        with collector_resting():
            return self._workload()

    def _workload(self) -> Workload:
        rows, kept = self._rows, self._kept
        lines = self._line_numbers[kept]
        estimate: list[float | None] = self.estimate.tolist()
        for i in np.flatnonzero(np.isnan(self.estimate)).tolist():  # no request
            estimate[i] = None
        min_nodes: list[int | None]
        if self.header.get("MinNodesField", "").strip() == "8":
            min_nodes = [int(v) if v > 0 else None for v in rows[:, REQ_PROCS].tolist()]
        else:
            min_nodes = [None] * len(kept)
        raw = RawFields(_compact(rows), lines, self._exact)
        numbers = rows[:, JOB]
        if numbers.size and numbers.min() >= 0 and numbers.max() < 2.0**53:  # the usual case, in C
            names = list(map("J{}".format, numbers.astype(np.int64).tolist()))
        else:
            names = [f"J{int(n)}" if n >= 0 else f"L{int(ln)}" for n, ln in zip(numbers.tolist(), lines.tolist())]
        ids = list(range(len(names)))  # one int object per job, shared by its spec and its extra
        extras = list(map(SWFExtra, repeat(raw), ids))
        # every value was checked in bulk: size >= 1 and work > 0 (the skip rules), arrival >= 0
        # (from the first submit time, in order)
        jobs = checked_specs(ids, names, self.arrival.tolist(), self.size.tolist(), self.work.tolist(),
                             estimate, min_nodes, extras)
        return Workload(jobs=jobs, processors=self.processors, source=self.source,
                        header=dict(self.header), warnings=list(self.warnings),
                        slice_seconds=self.slice_seconds, submit_offset=self.submit_offset)


class RawFields:
    """The 18 SWF fields and the line numbers of a trace's jobs, kept once as arrays and shared
    by every job's :class:`SWFExtra` (a tuple of 18 numbers per job takes about ten times the
    memory of the array).

    ``rows`` is the ``(jobs, 18)`` array (int32 when every value fits, as in the archive's
    traces; else float) and ``lines`` the int array of line numbers, both in job-id order;
    ``exact`` maps a row holding a value of 2**53 or more (which a double cannot hold exactly)
    to its fields read from the tokens.
    """

    __slots__ = ("exact", "lines", "rows")

    def __init__(self, rows: np.ndarray, lines: np.ndarray, exact: dict[int, tuple[float, ...]]) -> None:
        self.rows, self.lines, self.exact = rows, lines, exact

    def fields(self, row: int) -> tuple[float, ...]:
        """Return job ``row``'s 18 fields as written: ints where a value is whole, else floats."""
        done = self.exact.get(row)
        if done is not None:
            return done
        values = self.rows[row].tolist()
        if self.rows.dtype.kind == "i":
            return tuple(values)
        return tuple(int(v) if v.is_integer() else v for v in values)


class SWFExtra(Mapping[str, Any]):
    """The ``extra`` of a job read from SWF, ``{"swf": its 18 raw fields, "line": its line
    number}``, read from the trace's shared :class:`RawFields` when asked.

    Reads like that dict and equals it; pickles and copies as that dict.
    """

    __slots__ = ("_raw", "_row")
    _KEYS = ("swf", "line")

    def __init__(self, raw: RawFields, row: int) -> None:
        self._raw, self._row = raw, row

    @property
    def raw(self) -> RawFields:
        """The trace's shared fields, of which this job's are row :attr:`row`."""
        return self._raw

    @property
    def row(self) -> int:
        """This job's row of :attr:`raw`."""
        return self._row

    def __getitem__(self, key: str) -> Any:
        if key == "swf":
            return self._raw.fields(self._row)
        if key == "line":
            return int(self._raw.lines[self._row])
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)

    def __repr__(self) -> str:
        return repr(dict(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (dict(self),)


def _columns(table: np.ndarray, job_lines: _JobLines, line_numbers: np.ndarray, header: dict[str, str],
             source: str, procs: int | None, slice_seconds: float, strict: bool) -> TraceColumns:
    """Apply the skip rules, the job limit and the submit order to the parsed ``table``."""
    warn: list[str] = []
    machine = procs if procs is not None else _machine_size(header, source, warn)
    if machine is None:
        warn.append("the machine size is unknown (no MaxProcs or MaxNodes header and no --procs); "
                    "job sizes were not checked against it")
    alloc = table[:, ALLOC]
    size = np.where(alloc == -1, table[:, REQ_PROCS], alloc)
    reasons = _skip_reasons(table, size, machine)
    if strict:
        _refuse_skipped(reasons, alloc, job_lines, line_numbers, source)
    kept = _kept_rows(reasons, len(table), line_numbers, warn)
    if kept.size > MAX_JOBS:
        raise SWFError(source, f"has {kept.size:,} usable jobs, over the limit of {MAX_JOBS:,} jobs "
                       "in one workload; cut the trace")
    _warn_duplicates(table[kept, JOB], kept, line_numbers, warn)
    if kept.size == 0:
        raise SWFError(source, f"has no usable jobs: all {len(table)} job records were skipped ("
                       + "; ".join(warn) + ")")
    kept = _submit_order(table[kept, SUBMIT], kept, line_numbers, warn)
    records = len(table)
    rows = _squeezed(table, kept)
    offset = float(rows[0, SUBMIT])
    arrival = (rows[:, SUBMIT] - offset) / slice_seconds
    run_s = rows[:, RUN]
    work = np.where(run_s == 0, ZERO_RUN_SECONDS, run_s) / slice_seconds
    for what, values, col in (("submit time (after the first job)", arrival, SUBMIT), ("run time", work, RUN)):
        _check_slices(what, values, col, slice_seconds, kept, job_lines, line_numbers, source)
    req = rows[:, REQ_TIME]
    with np.errstate(invalid="ignore"):
        estimate = np.where(req > 0, req / slice_seconds, np.nan)
    header = dict(header)
    header["SubmitOffset"] = _fmt(offset)
    header["JobRecords"] = str(records)
    # the job lines go with the parse: only a value beyond 2**53 needs its token later
    return TraceColumns(arrival, size[kept].astype(np.int64), work, estimate, machine, source, header,
                        warn, float(slice_seconds), offset, rows, _beyond_double(rows, job_lines, kept),
                        kept, line_numbers)


def _squeezed(table: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Return the rows ``kept`` of ``table`` in that order; when ``kept`` only leaves rows out
    (ascending), by moving them to the front of ``table`` itself, a chunk at a time (``table``
    is then spent), so a large trace's table is never held twice."""
    if kept.size and not np.all(kept[1:] > kept[:-1]):
        picked: np.ndarray = table[kept]
        return picked
    for at in range(0, kept.size, _CHUNK_ROWS):
        # the rows a chunk reads lie at or after the rows it writes (kept[i] >= i), and a later
        # chunk reads rows beyond every row an earlier one wrote
        part = kept[at:at + _CHUNK_ROWS]
        if part[0] != at or part[-1] != at + part.size - 1:
            table[at:at + part.size] = table[part]
    return table[:kept.size]


def _machine_size(header: dict[str, str], source: str, warn: list[str]) -> int | None:
    """Return the machine size the header gives (MaxProcs, else MaxNodes) or ``None``; warn
    about a header value that is not a processor count."""
    machine = header_int(header, "MaxProcs") or header_int(header, "MaxNodes")
    if machine is not None:
        key = "MaxProcs" if header_int(header, "MaxProcs") else "MaxNodes"
        try:
            check_processors(machine, f"the {key} header; --procs overrides it")
        except LimitError as exc:
            raise SWFError(source, str(exc)) from None
    for key in ("MaxProcs", "MaxNodes"):
        if key in header and header_int(header, key) is None and not header[key].startswith("-1"):
            warn.append(f"header {key} {(header[key].splitlines() or [''])[0]!r} is not a processor count; ignored")
    return machine


def _skip_reasons(table: np.ndarray, size: np.ndarray, machine: int | None) -> list[tuple[str, np.ndarray, int]]:
    """Return (reason, rows it applies to, column) for each rule that skips a job, in order."""
    submit, run = table[:, SUBMIT], table[:, RUN]
    reasons = [
        ("an unknown submit time (field 2 = -1)", submit == -1, SUBMIT),
        ("no usable size (fields 5 and 8 both -1)", size == -1, ALLOC),
        ("zero size (field 5, or field 8 when field 5 is -1, is 0)", size == 0, ALLOC),
        ("an unknown run time (field 4 = -1)", run == -1, RUN),
    ]
    if machine is not None:
        reasons.append((f"more processors than the machine's {machine}", size > machine, ALLOC))
    else:
        reasons.append((f"more processors than the limit of {MAX_PROCESSORS:,}", size > MAX_PROCESSORS, ALLOC))
    return reasons


def _refuse_skipped(reasons: list[tuple[str, np.ndarray, int]], alloc: np.ndarray, job_lines: _JobLines,
                    line_numbers: np.ndarray, source: str) -> None:
    """Strict mode: raise :class:`SWFError` for the first job (in file order) a rule skips."""
    first = None
    for text, mask, col in reasons:
        rows = np.flatnonzero(mask)
        if rows.size and (first is None or rows[0] < first[0]):
            first = (int(rows[0]), text, col)
    if first is not None:
        r, text, col = first
        if col == ALLOC and alloc[r] == -1:
            col = REQ_PROCS
        raise SWFError(source, f"job has {text} (strict mode: skipped jobs are errors)",
                       line=int(line_numbers[r]), field=col + 1, token=_decode(job_lines[r].split()[col]))


def _kept_rows(reasons: list[tuple[str, np.ndarray, int]], count: int, line_numbers: np.ndarray,
               warn: list[str]) -> np.ndarray:
    """Return the rows no rule skips; warn once per rule (each job under the first that applies)."""
    keep = np.ones(count, dtype=bool)
    for text, mask, _ in reasons:
        hit = keep & mask
        if hit.any():
            rows = np.flatnonzero(hit)
            warn.append(f"skipped {len(rows)} job{'s' if len(rows) != 1 else ''} with {text}: "
                        f"{_lines_text(line_numbers[rows])}")
            keep &= ~mask
    return np.flatnonzero(keep)


def _warn_duplicates(numbers: np.ndarray, kept: np.ndarray, line_numbers: np.ndarray, warn: list[str]) -> None:
    """Warn when a job number (field 1) appears more than once among the kept jobs."""
    known = numbers[numbers >= 0]
    if not known.size:
        return
    order = np.sort(known, kind="stable")
    repeats = order[1:][order[1:] == order[:-1]]  # sorted; each repeated number once or more
    # (np.unique would do, but it imports numpy.ma: a tenth of the start-up of a trace run)
    dup_values = repeats[np.concatenate(([True], repeats[1:] != repeats[:-1]))] if repeats.size else repeats
    if dup_values.size:
        dup_rows = kept[np.isin(numbers, dup_values)]
        warn.append(f"{dup_values.size} job number{'s' if dup_values.size != 1 else ''} "
                    f"appear{'s' if dup_values.size == 1 else ''} more than once "
                    f"({dup_rows.size} jobs, {_lines_text(line_numbers[dup_rows])}); "
                    "the jobs are kept, but their names (J<number>) repeat")


def _submit_order(sub: np.ndarray, kept: np.ndarray, line_numbers: np.ndarray, warn: list[str]) -> np.ndarray:
    """Return ``kept`` in submit order (stable); warn where the file's submit times go back."""
    back = np.flatnonzero(sub[1:] < sub[:-1]) + 1
    if not back.size:
        return kept
    warn.append(f"submit times go back in time at {back.size} place{'s' if back.size != 1 else ''} "
                f"({_lines_text(line_numbers[kept[back]])}); jobs were put back in submit order "
                "(stable sort: equal submit times keep their file order)")
    return kept[np.argsort(sub, kind="stable")]


def _check_slices(what: str, values: np.ndarray, col: int, slice_seconds: float, kept: np.ndarray,
                  job_lines: _JobLines, line_numbers: np.ndarray, source: str) -> None:
    """Raise :class:`SWFError` for the first value over :data:`MAX_SLICES` slices."""
    over = np.flatnonzero(~(values <= MAX_SLICES))
    if over.size:
        r = int(over[0])
        raise SWFError(source, f"is {values[r]:.4g} slices at {slice_seconds:g} s per slice, over "
                       f"the limit of {MAX_SLICES:.4g} slices (2**40) for a {what}; "
                       "a longer --slice shortens it",
                       line=int(line_numbers[kept[r]]), field=col + 1,
                       token=_decode(job_lines[kept[r]].split()[col]))


def _compact(rows: np.ndarray) -> np.ndarray:
    """Return ``rows`` as int32 when every value is a whole number within its range (half the
    memory, and the values read back equal), else ``rows`` itself."""
    with np.errstate(invalid="ignore"):
        fits = bool(np.all((rows >= -(2**31)) & (rows < 2**31)))
    if not fits:
        return rows
    ints = rows.astype(np.int32)
    return ints if np.array_equal(ints, rows) else rows


def _beyond_double(rows: np.ndarray, job_lines: _JobLines, kept: np.ndarray) -> dict[int, tuple[float, ...]]:
    """Return, for each row holding a value of 2**53 or more (a double cannot hold it
    exactly), its 18 fields with those values read from the tokens (``job_lines[kept[i]]`` is
    row i's line)."""
    exact = (rows < 2.0**53) & (rows > -(2.0**53))  # (no float copy of the table, as abs() makes)
    out = {}
    for r in np.flatnonzero(~exact.all(axis=1)).tolist():
        toks = job_lines[int(kept[r])].split()
        out[r] = tuple(
            (int(v) if v.is_integer() else v) if ok else (int(t) if _INT_RE.match(_decode(t)) else float(t))
            for v, t, ok in zip(rows[r].tolist(), toks, exact[r].tolist())
        )
    return out


# --------------------------------------------------------------------------------------- writing


def _fmt(v: float | int) -> str:
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    if v.is_integer() and abs(v) < 2.0**53:
        return str(int(v))
    return repr(v)


def write_swf(
    workload: Workload,
    path_or_stream: str | os.PathLike[str] | IO[str],
    *,
    slice_seconds: float | None = None,
) -> None:
    """Write ``workload`` as SWF 2.2 text to a path (``.gz`` compresses) or a text stream.

    Times are written in seconds: slice values times ``slice_seconds`` (default: the
    workload's own), submit times plus :attr:`Workload.submit_offset`. Field 1 is the number in
    the job's name when every name is ``J<n>`` with distinct n (so names survive a round trip),
    else id + 1. Field 5 is the size; field 8 keeps the raw requested processors of a job read
    from SWF, else the size, except that jobs with ``min_nodes`` write it there and the header
    says so (``MinNodesField: 8``), which :func:`read_swf` honours. Field 9 is the estimate or
    -1. Fields without a meaning for the job keep their raw SWF value or are -1. Floats are
    written in their shortest exact form, so reading the file back gives the same jobs.
    Raises ``ValueError`` for a bad ``slice_seconds``.
    """
    sl = workload.slice_seconds if slice_seconds is None else slice_seconds
    check_options(None, sl)
    lines = _header_lines(workload)
    numbers = _job_numbers(workload.jobs)
    off = workload.submit_offset
    for job, number in zip(workload.jobs, numbers):
        raw = job.extra.get("swf") if isinstance(job.extra, Mapping) else None
        f: list[float] = list(raw) if raw is not None and len(raw) == N_FIELDS else [-1] * N_FIELDS
        f[JOB] = number
        f[SUBMIT] = job.arrival * sl + off
        f[RUN] = job.work * sl
        f[ALLOC] = job.size
        if raw is None:
            f[REQ_PROCS] = job.size
        if job.min_nodes is not None:
            f[REQ_PROCS] = job.min_nodes
        f[REQ_TIME] = -1 if job.estimate is None else job.estimate * sl
        lines.append(" ".join(_fmt(v) for v in f))
    text = "\n".join(lines) + "\n"
    if hasattr(path_or_stream, "write"):
        path_or_stream.write(text)
        return
    p = Path(path_or_stream)
    with atomic(p) as tmp:
        if p.suffix == ".gz":
            with gzip.open(tmp, "wt", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        else:
            tmp.write_text(text, encoding="utf-8", newline="\n")


_REGENERATED = {"Version", "MaxJobs", "MaxRecords", "MaxProcs", "MaxNodes", "SubmitOffset",
                "MinNodesField", "JobRecords"}


def _header_lines(workload: Workload) -> list[str]:
    out = ["; Version: 2.2", f"; MaxJobs: {len(workload.jobs)}", f"; MaxRecords: {len(workload.jobs)}"]
    if workload.processors is not None:
        out += [f"; MaxNodes: {workload.processors}", f"; MaxProcs: {workload.processors}"]
    if any(j.min_nodes is not None for j in workload.jobs):
        out.append("; MinNodesField: 8")
    for key, value in workload.header.items():
        if key in _REGENERATED:
            continue
        first, *rest = str(value).split("\n")
        out.append(f"; {key}: {first}".rstrip())
        out.extend(f";        {r}".rstrip() for r in rest)
    return out


def _job_numbers(jobs: list[JobSpec]) -> list[int]:
    nums = []
    for j in jobs:
        m = re.fullmatch(r"J(\d{1,18})", j.name)
        if not m:
            break
        nums.append(int(m.group(1)))
    if len(nums) == len(jobs) and len(set(nums)) == len(nums):
        return nums
    return [j.id + 1 for j in jobs]
