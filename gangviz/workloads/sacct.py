"""Read Slurm accounting output (``sacct --parsable2``) and write it as SWF.

Input: what ``sacct --parsable2 --format=JobID,Submit,Start,End,AllocCPUS,Timelimit,State``
prints (``|``-separated, a header line naming the columns, any column order). Required columns:
``JobID``, ``Submit``, ``Start``, ``End``, ``State`` and one size column: ``AllocCPUS`` (also
``NCPUS``), or ``NNodes`` when there is no CPU count or ``nodes=True`` asks for node counts.
``Timelimit`` (requested time), ``ReqCPUS``, ``User``, ``Group`` and ``Partition`` are used
when present. Times are ISO (``2024-03-01T09:15:00``), read as UTC; only differences matter to
a simulation.

Times with a UTC offset (``2024-03-01T09:15:00+02:00``) are converted to UTC; digits are ASCII
digits only (``²`` or Arabic-Indic digits are not numbers). A time limit's minutes and seconds
are 0-59 and its hours 0-23 after a day count (``00:61:99`` is no time). A header naming a
column twice is an error (which of the two would be meant?).

Each job becomes one SWF line [SWF 2.2 fields]: submit time in seconds after the first kept
submit (the header's ``UnixStartTime`` is that submit's epoch), wait = Start - Submit, run =
End - Start, allocated processors = the size column, requested processors = ``ReqCPUS`` (else
the size), requested time = ``Timelimit`` in seconds (-1 for ``UNLIMITED`` or
``Partition_Limit``), status 1 for ``COMPLETED``, 0 for ``FAILED``, ``TIMEOUT``,
``NODE_FAIL``, ``OUT_OF_MEMORY``, ``BOOT_FAIL``, ``DEADLINE``, ``PREEMPTED``, 5 for
``CANCELLED`` (also ``CANCELLED by N``); users, groups and partitions are numbered 1, 2, ... in
order of first appearance. Job numbers are Slurm's when every kept JobID is a plain integer,
else 1..n in submit order (said in a warning; also when two JobIDs are the same number written
differently, ``0123`` and ``123``).

What is written is what the SWF reader accepts: a job number beyond 64 bits, a size over
:data:`~gangviz.core.limits.MAX_PROCESSORS` or a time over 2**40 seconds is an error naming the
file, line, column and value, and the ``Computer`` header (``computer=`` or the ``Cluster``
column) may hold no control character (a line break would write a fake job line).

Job steps (``123.batch``, ``123.0``, ``123.extern``) are parts of a job, not jobs: they are
left out and counted in the report. Records that cannot be replayed are skipped with one
grouped warning per reason (count and first line numbers), as the SWF reader does: a line
with the wrong number of fields, a time that is not a date, no start (pending, or cancelled
before it ran), no end (still running), end before start, a size that is not a whole number
>= 1, and a state gangviz does not know. ``strict=True`` makes the first such record an error.
A file without a header line or without a required column is an error naming what is missing.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict, overload

import numpy as np
import numpy.typing as npt

from gangviz.core.limits import MAX_PROCESSORS, MAX_SLICES
from gangviz.inputs import InputFileError, printable, quoted, text_lines
from gangviz.outputs import atomic
from gangviz.workloads.swf import LINES_SHOWN, _fmt

#: SWF status of each Slurm base state
STATUS = {"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "NODE_FAIL": 0, "OUT_OF_MEMORY": 0,
          "BOOT_FAIL": 0, "DEADLINE": 0, "PREEMPTED": 0, "CANCELLED": 5}
REQUIRED = ("JobID", "Submit", "Start", "End", "State")
_STEP_RE = re.compile(r"^[^.]+\.")
_LIMIT_RE = re.compile(r"^(?:([0-9]+)-)?([0-9]+)(?::([0-9]+))?(?::([0-9]+))?$")
_ASCII_INT = re.compile(r"[0-9]+")
#: the largest SWF job number the reader takes (signed 64-bit)
MAX_JOB_NUMBER = (1 << 63) - 1


class _Row(TypedDict):
    """One replayable job of the file: times in seconds since the epoch, limit in seconds."""

    submit: float
    start: float
    end: float
    size: int
    req: int
    limit: float
    status: int


class SacctError(ValueError):
    """An unusable sacct file; the message names the file and, where there is one, the line."""


class Records(Sequence[list[float]]):
    """The kept jobs as SWF records, stored as columns (one array per field, in submit order).

    A record (18 values, :data:`FIELDS` of them set, the rest -1) is made only when asked for:
    ``records[i]`` or iteration; :meth:`lines` gives them as SWF text, a block at a time.
    """

    def __init__(self, columns: dict[int, np.ndarray] | None = None) -> None:
        self.columns = columns or {}

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    @overload
    def __getitem__(self, i: int) -> list[float]: ...
    @overload
    def __getitem__(self, i: slice) -> list[list[float]]: ...
    def __getitem__(self, i: int | slice) -> list[float] | list[list[float]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        f: list[float] = [-1] * 18
        for at, col in self.columns.items():
            f[at] = col[i].item()
        return f

    def lines(self, block: int = 20000) -> Iterator[str]:
        """Yield the records as SWF lines (no newline), ``block`` records formatted at once."""
        n = len(self)
        for lo in range(0, n, block):
            cols = [(at, col[lo:lo + block].tolist()) for at, col in sorted(self.columns.items())]
            for k in range(min(block, n - lo)):
                f: list[float] = [-1] * 18
                for at, values in cols:
                    f[at] = values[k]
                yield " ".join(_fmt(v) for v in f)


@dataclass
class SacctLog:
    """The jobs of a sacct file as SWF records (18 values each, submit order) and the report."""

    source: str
    records: Records = field(default_factory=Records)
    warnings: list[str] = field(default_factory=list)
    steps: int = 0
    first_submit: float = 0.0
    size_column: str = "AllocCPUS"
    cluster: str = ""


def whole(text: str) -> int | None:
    """Return ``text`` as a whole number when it is ASCII digits only, else ``None``."""
    return int(text) if _ASCII_INT.fullmatch(text) else None


def parse_time(text: str) -> float | None:
    """Return an ISO time (``2024-03-01T09:15:00``) as seconds since the epoch: read as UTC,
    or converted from the UTC offset it carries (``+02:00``); ``None`` for Slurm's
    ``Unknown``/``None``/empty. Raises ``ValueError`` for anything else, a time written with
    other than ASCII digits included."""
    t = text.strip()
    if t in ("", "Unknown", "None", "N/A"):
        return None
    if not t.isascii():
        raise ValueError(f"time {t!r} is not an ISO time")
    when = datetime.fromisoformat(t)
    return (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).timestamp()


def parse_timelimit(text: str) -> float:
    """Return a Slurm time limit in seconds (``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH``,
    ``D-HH:MM``, ``D-HH:MM:SS``); -1 for ``UNLIMITED``, ``Partition_Limit`` or empty.
    Raises ``ValueError`` for another text."""
    t = text.strip()
    if t in ("", "UNLIMITED", "Partition_Limit", "INVALID", "NONE"):
        return -1
    m = _LIMIT_RE.match(t)
    if not m:
        raise ValueError(f"time limit {t!r} is not D-HH:MM:SS")
    days, a, b, c = m.groups()
    parts = [int(x) for x in (a, b, c) if x is not None]
    # every part after the first is bounded by the next larger unit: 0-23 h after days, else 0-59
    bounds = ([24] if days is not None else []) + [60, 60]
    if any(v >= bound for v, bound in zip(parts[1:] if days is None else parts, bounds)):
        raise ValueError(f"time limit {t!r} has hours over 23 or minutes or seconds over 59")
    if days is not None:  # D-HH[:MM[:SS]]
        h, mi, s = (parts + [0, 0])[:3]
        return float(int(days) * 86400 + h * 3600 + mi * 60 + s)
    if len(parts) == 1:
        return float(parts[0] * 60)  # minutes
    if len(parts) == 2:
        return float(parts[0] * 60 + parts[1])  # MM:SS
    return float(parts[0] * 3600 + parts[1] * 60 + parts[2])


def _header(name: str, line: str | None, head_at: int, nodes: bool) -> tuple[list[str], str]:
    """Return the columns of the header ``line`` (the first non-blank one, at 0-based index
    ``head_at``; ``None`` when there is none) and the column that gives a job's size (``NNodes``
    with ``nodes``, else ``AllocCPUS`` or ``NCPUS``). Raises :class:`SacctError` for an empty
    file or a header without a required column."""
    if line is None:
        raise SacctError(f"{name}: is empty")
    columns = [c.strip() for c in line.split("|")]
    index = {c: i for i, c in enumerate(columns)}
    twice = next((c for c in columns if columns.count(c) > 1 and c), None)
    if twice is not None:
        at = [str(i + 1) for i, c in enumerate(columns) if c == twice]
        raise SacctError(f"{name}: line {head_at + 1}: the header names column {quoted(twice)} twice "
                         f"(fields {' and '.join(at)}); keep one")
    missing = [c for c in REQUIRED if c not in index]
    size_col = "NNodes" if nodes else next((c for c in ("AllocCPUS", "NCPUS") if c in index), "NNodes")
    if size_col not in index:
        missing.append("AllocCPUS or NNodes" if not nodes else "NNodes")
    if missing:
        raise SacctError(f"{name}: line {head_at + 1}: the header has no column {', '.join(missing)} "
                         f"(found: {', '.join(columns)}); run sacct --parsable2 "
                         "--format=JobID,Submit,Start,End,AllocCPUS,Timelimit,State")
    return columns, size_col


def read_sacct(path: str | os.PathLike[str], *, nodes: bool = False, strict: bool = False) -> SacctLog:
    """Read a ``sacct --parsable2`` file into a :class:`SacctLog` (see the module docstring).

    Raises :class:`SacctError` for a file without a header or a required column, one whose
    every record is skipped, or (``strict``) the first record that would be skipped;
    ``OSError`` when it cannot be read.
    """
    name = str(path)
    try:
        return _read(name, text_lines(path, "sacct --parsable2 output"), nodes, strict)
    except InputFileError as exc:
        raise SacctError(str(exc)) from None


def _read(name: str, fh: Iterable[str], nodes: bool, strict: bool) -> SacctLog:  # noqa: C901
    """Read the lines ``fh`` (records end at a line feed only: a field may hold a \u2028 or a
    file separator) into columns; see :func:`read_sacct`."""
    head_at, header = 0, None
    for line in fh:
        if line.strip():
            header = line.rstrip("\r\n")
            break
        head_at += 1
    columns, size_col = _header(name, header, head_at, nodes)
    log = SacctLog(name, size_column=size_col)
    skipped: dict[str, list[int]] = {}  # the first LINES_SHOWN lines of each reason
    n_skipped: dict[str, int] = {}
    submit, start, end, limit = array("d"), array("d"), array("d"), array("d")
    size, req, status = array("q"), array("q"), array("b")
    ids = array("q")  # Slurm's job numbers while every JobID is a plain integer
    plain = True
    all_whole, oversized = True, None  # every JobID ASCII digits; the first beyond 64 bits
    linenos = array("q")  # each record's line, to name it after sorting
    names = ("User", "Group", "Partition")
    codes = {col: array("q") for col in names}  # per job: the value's number in file order, or 0
    seen: dict[str, dict[str, int]] = {col: {} for col in names}
    present = [col for col in names if col in columns]
    for lineno, raw in enumerate(fh, start=head_at + 2):
        raw = raw.rstrip("\r\n")
        if not raw.strip():
            continue
        values = raw.split("|")
        reason = None
        if len(values) != len(columns):
            reason = f"{len(values)} fields where the header has {len(columns)}"
        else:
            rec = dict(zip(columns, (v.strip() for v in values)))
            if _STEP_RE.match(rec["JobID"]):
                log.steps += 1
                continue
            try:
                row, reason = _job(rec, size_col)
            except ValueError as exc:
                row, reason = None, _reason_of(exc)
        if reason is not None:
            if strict:
                raise SacctError(f"{name}: line {lineno}: {reason} (strict mode: skipped records are errors)")
            shown_lines = skipped.setdefault(reason, [])
            if len(shown_lines) < LINES_SHOWN:
                shown_lines.append(lineno)
            n_skipped[reason] = n_skipped.get(reason, 0) + 1
            continue
        assert row is not None
        _check_swf_range(name, lineno, rec, row, size_col)
        submit.append(row["submit"])
        start.append(row["start"])
        end.append(row["end"])
        size.append(row["size"])
        req.append(row["req"])
        limit.append(row["limit"])
        status.append(row["status"])
        linenos.append(lineno)
        number = whole(rec["JobID"])  # ASCII digits only, read by value: 0123 and 123 repeat
        if number is not None and number > MAX_JOB_NUMBER and oversized is None:
            oversized = (lineno, rec["JobID"])
        all_whole = all_whole and number is not None
        if plain:
            if number is not None and number <= MAX_JOB_NUMBER:
                ids.append(number)
            else:
                plain, ids = False, array("q")
        for col in names:
            value = rec.get(col) if col in present else None
            codes[col].append(seen[col].setdefault(value, len(seen[col]) + 1) if value else 0)
        log.cluster = log.cluster or rec.get("Cluster", "")
    for reason, shown_lines in skipped.items():
        count = n_skipped[reason]
        shown = ", ".join(map(str, shown_lines)) + (f", ... ({count - LINES_SHOWN} more)" if count > LINES_SHOWN else "")
        log.warnings.append(f"skipped {count} record{'s' if count != 1 else ''} with {reason}: "
                            f"line{'s' if count != 1 else ''} {shown}")
    if not submit:
        raise SacctError(f"{name}: has no job that ran to replay"
                         + (f" ({'; '.join(log.warnings)})" if log.warnings else ""))
    if all_whole and oversized is not None:  # every JobID a number: the SWF would keep them
        raise SacctError(f"{name}: line {oversized[0]}: JobID {quoted(oversized[1])} is beyond the 64-bit "
                         f"range of SWF job numbers (at most {MAX_JOB_NUMBER:,}); an SWF reader would "
                         "refuse the converted trace")
    # the file's columns go one by one into the sorted ones, so that the two never all coexist
    order = np.argsort(np.frombuffer(submit, dtype=np.float64), kind="stable")  # ties keep order

    def sort(column: array[int] | array[float], dtype: npt.DTypeLike) -> np.ndarray:
        out = np.frombuffer(column, dtype=dtype)[order]
        del column[:]
        return out

    sub = sort(submit, np.float64)
    log.first_submit = float(sub[0])
    lines_sorted = sort(linenos, np.int64)
    late = np.flatnonzero(sub - log.first_submit > MAX_SLICES)
    if len(late):
        at = int(late[0])
        raise SacctError(f"{name}: line {int(lines_sorted[at])}: Submit is "
                         f"{sub[at] - log.first_submit:.4g} s after the first submit, over the limit of "
                         f"{MAX_SLICES:.4g} s (2**40); an SWF reader would refuse the converted trace")
    del lines_sorted
    id_col = sort(ids, np.int64) if plain else None
    if id_col is None or len(np.unique(id_col)) != len(id_col):
        log.warnings.append("some JobIDs are not plain numbers (array or heterogeneous jobs) or "
                            "repeat; jobs are numbered 1..n in submit order")
        id_col = np.arange(1, len(order) + 1, dtype=np.int64)
    st = sort(start, np.float64)
    cols = {0: id_col, 1: sub - log.first_submit, 2: st - sub, 3: sort(end, np.float64) - st,
            4: sort(size, np.int64), 7: sort(req, np.int64), 8: sort(limit, np.float64),
            10: sort(status, np.int8).astype(np.int64)}
    del sub, st
    for col, at in zip(names, (11, 12, 15)):
        cols[at] = _renumber(sort(codes[col], np.int64))
    log.records = Records(cols)
    return log


def _check_swf_range(name: str, lineno: int, rec: dict[str, str], row: _Row,
                     size_col: str) -> None:
    """Raise :class:`SacctError` (file, line, column, value) for a value of one job that the SWF
    reader would refuse: a size over the processor limit, a time over 2**40 seconds. (A job
    number beyond 64 bits and a submit time too far after the first are checked once every
    record is read.)"""
    def refuse(column: str, problem: str) -> SacctError:
        return SacctError(f"{name}: line {lineno}: {column} {quoted(rec.get(column, ''))} {problem}; "
                          "an SWF reader would refuse the converted trace")

    for column, value in ((size_col, row["size"]), ("ReqCPUS" if size_col != "NNodes" else "ReqNodes", row["req"])):
        if value > MAX_PROCESSORS:
            raise refuse(column if column in rec else size_col,
                         f"is over the limit of {MAX_PROCESSORS:,} processors")
    times = (("Start", row["start"] - row["submit"]), ("End", row["end"] - row["start"]),
             ("Timelimit", row["limit"]))
    for column, seconds in times:
        if seconds > MAX_SLICES:
            raise refuse(column, f"gives {seconds:.4g} s, over the limit of {MAX_SLICES:.4g} s (2**40)")


def _renumber(codes: np.ndarray) -> np.ndarray:
    """Number the values 1, 2, ... in order of first appearance in ``codes`` (0 stays -1)."""
    out = np.full(len(codes), -1, dtype=np.int64)
    values, first = np.unique(codes, return_index=True)
    keep = values > 0
    values, first = values[keep], first[keep]
    rank = np.empty(len(values), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(1, len(values) + 1)
    lookup = np.zeros(int(values.max()) + 1 if len(values) else 1, dtype=np.int64)
    lookup[values] = rank
    mask = codes > 0
    out[mask] = lookup[codes[mask]]
    return out


def _reason_of(exc: ValueError) -> str:
    return str(exc)


def _job(rec: dict[str, str], size_col: str) -> tuple[_Row | None, str | None]:
    """Return the values of one job record, or ``(None, reason)`` when it cannot be replayed."""
    state = rec["State"].split()[0] if rec["State"] else ""
    times: dict[str, float | None] = {}
    for col in ("Submit", "Start", "End"):
        try:
            times[col] = parse_time(rec[col])
        except ValueError:
            return None, f"a {col} time that is not a date"
    submit, start, end = times["Submit"], times["Start"], times["End"]
    if submit is None:
        return None, "no submit time"
    if start is None:
        return None, "no start time (pending, or cancelled before it ran)"
    if end is None:
        return None, "no end time (still running)"
    if end < start or start < submit:
        return None, "times out of order (start before submit or end before start)"
    size = whole(rec[size_col])
    if size is None or size < 1:
        return None, f"a {size_col} that is not a whole number >= 1"
    if state not in STATUS:
        return None, f"a state gangviz does not know ({printable(state) or 'empty'})"
    req = whole(rec.get("ReqCPUS", "") if size_col != "NNodes" else rec.get("ReqNodes", ""))
    req = req if req is not None and req >= 1 else size
    try:
        limit = parse_timelimit(rec.get("Timelimit", ""))
    except ValueError:
        return None, "a Timelimit that is not D-HH:MM:SS (hours 0-23, minutes and seconds 0-59)"
    return {"submit": submit, "start": start, "end": end, "size": size,
            "req": req, "limit": limit, "status": STATUS[state]}, None


def write_sacct_swf(log: SacctLog, path: str | os.PathLike[str], *, procs: int | None = None,
                    computer: str | None = None) -> Path:
    """Write ``log`` as SWF 2.2 with the Parallel Workloads Archive header; return the path.

    ``procs`` is the machine size for ``MaxProcs`` (default: the largest job, said in a
    ``Note``). Raises ``ValueError`` when a job is larger than ``procs``.
    """
    if computer is not None and not computer.isprintable():
        raise ValueError(f"--computer {quoted(computer)} holds a control character (a line break "
                         "would start a fake job line in the SWF file); give one line of text")
    cols = log.records.columns
    biggest = int(cols[4].max())
    if procs is not None and biggest > procs:
        raise ValueError(f"a job uses {biggest} {'nodes' if log.size_column == 'NNodes' else 'processors'}, "
                         f"more than --procs {procs}")
    size = procs or biggest
    start = datetime.fromtimestamp(log.first_submit, tz=UTC)
    end = datetime.fromtimestamp(log.first_submit + float((cols[1] + cols[2] + cols[3]).max()), tz=UTC)
    unit = "nodes" if log.size_column == "NNodes" else "processors (CPUs)"
    head = [
        "Version: 2.2",
        f"Computer: {computer or printable(log.cluster) or 'unknown (Slurm cluster)'}",
        "Installation: unknown",
        "Acknowledge: unknown",
        "Information: https://slurm.schedmd.com/sacct.html",
        f"Conversion: gangviz convert from Slurm sacct --parsable2 output {printable(Path(log.source).name)}",
        f"MaxJobs: {len(log.records)}",
        f"MaxRecords: {len(log.records)}",
        "Preemption: No",
        f"UnixStartTime: {_fmt(log.first_submit)}",
        "TimeZoneString: UTC",
        f"StartTime: {start:%a %b %d %H:%M:%S %Z %Y}",
        f"EndTime: {end:%a %b %d %H:%M:%S %Z %Y}",
        f"MaxNodes: {size}",
        f"MaxProcs: {size}",
        f"Note: job sizes are {unit} from the {log.size_column} column"
        + ("" if procs else "; MaxProcs is the largest job (pass --procs for the machine size)"),
    ]
    if log.steps:
        head.append(f"Note: {log.steps} job step record{'s' if log.steps != 1 else ''} "
                    "(JobID with a dot) left out; steps are parts of their job")
    with atomic(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.writelines(f"; {h}\n" for h in head)
        for line in log.records.lines():
            fh.write(line)
            fh.write("\n")
    return Path(path)


def convert_sacct(src: str | os.PathLike[str], out: str | os.PathLike[str], *, procs: int | None = None,
                  nodes: bool = False, strict: bool = False, computer: str | None = None) -> SacctLog:
    """Read ``src`` (:func:`read_sacct`) and write it to ``out`` (:func:`write_sacct_swf`);
    return the log (its ``warnings`` say what was skipped). Raises as those two do."""
    if procs is not None and procs < 1:
        raise ValueError(f"--procs must be a whole number >= 1, got {procs}")
    log = read_sacct(src, nodes=nodes, strict=strict)
    write_sacct_swf(log, out, procs=procs, computer=computer)
    return log


__all__ = ["Records", "SacctError", "SacctLog", "convert_sacct", "parse_time", "parse_timelimit", "read_sacct",
           "write_sacct_swf"]
