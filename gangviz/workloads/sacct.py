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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from gangviz.core.limits import MAX_PROCESSORS, MAX_SLICES
from gangviz.inputs import printable, quoted
from gangviz.outputs import write_text_atomically
from gangviz.workloads.files import InputFileError, read_text
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


class SacctError(ValueError):
    """An unusable sacct file; the message names the file and, where there is one, the line."""


@dataclass
class SacctLog:
    """The jobs of a sacct file as SWF records (18 values each, submit order) and the report."""

    source: str
    records: list[list] = field(default_factory=list)
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


def _header(name: str, lines: list[str], nodes: bool) -> tuple[int, list[str], str]:
    """Return the index of the header line (the first non-blank one), its columns and the
    column that gives a job's size (``NNodes`` with ``nodes``, else ``AllocCPUS`` or ``NCPUS``).
    Raises :class:`SacctError` for an empty file or a header without a required column."""
    head_at = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if head_at is None:
        raise SacctError(f"{name}: is empty")
    columns = [c.strip() for c in lines[head_at].split("|")]
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
    return head_at, columns, size_col


def read_sacct(path: str | os.PathLike, *, nodes: bool = False, strict: bool = False) -> SacctLog:
    """Read a ``sacct --parsable2`` file into a :class:`SacctLog` (see the module docstring).

    Raises :class:`SacctError` for a file without a header or a required column, one whose
    every record is skipped, or (``strict``) the first record that would be skipped;
    ``OSError`` when it cannot be read.
    """
    name = str(path)
    try:
        text = read_text(path, "sacct --parsable2 output")
    except InputFileError as exc:
        raise SacctError(str(exc)) from None
    # records end at a line feed only: splitlines() would also break a field at \u2028 or \x1c
    lines = text.replace("\r\n", "\n").split("\n")
    head_at, columns, size_col = _header(name, lines, nodes)
    log = SacctLog(name, size_column=size_col)
    skipped: dict[str, list[int]] = {}
    rows = []
    for lineno, raw in enumerate(lines[head_at + 1:], start=head_at + 2):
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
            skipped.setdefault(reason, []).append(lineno)
            continue
        rows.append((row, rec, lineno))
        log.cluster = log.cluster or rec.get("Cluster", "")
    for reason, at in skipped.items():
        shown = ", ".join(map(str, at[:LINES_SHOWN])) + (f", ... ({len(at) - LINES_SHOWN} more)"
                                                         if len(at) > LINES_SHOWN else "")
        log.warnings.append(f"skipped {len(at)} record{'s' if len(at) != 1 else ''} with {reason}: "
                            f"line{'s' if len(at) != 1 else ''} {shown}")
    if not rows:
        raise SacctError(f"{name}: has no job that ran to replay"
                         + (f" ({'; '.join(log.warnings)})" if log.warnings else ""))
    rows.sort(key=lambda r: r[0]["submit"])  # stable: equal submits keep their order
    log.first_submit = rows[0][0]["submit"]
    ids = [whole(r[1]["JobID"]) for r in rows]
    plain = None not in ids and len(set(ids)) == len(ids)  # by value: 0123 and 123 repeat
    if not plain:
        log.warnings.append("some JobIDs are not plain numbers (array or heterogeneous jobs) or "
                            "repeat; jobs are numbered 1..n in submit order")
    numbering: dict[str, dict[str, int]] = {"User": {}, "Group": {}, "Partition": {}}
    for n, (row, rec, lineno) in enumerate(rows, start=1):
        _check_swf_range(name, lineno, rec, row, log.first_submit, size_col, plain)
        f = [-1] * 18
        f[0] = int(rec["JobID"]) if plain else n
        f[1] = row["submit"] - log.first_submit
        f[2] = row["start"] - row["submit"]
        f[3] = row["end"] - row["start"]
        f[4] = row["size"]
        f[7] = row["req"]
        f[8] = row["limit"]
        f[10] = row["status"]
        for col, at in (("User", 11), ("Group", 12), ("Partition", 15)):
            value = rec.get(col)
            if value:
                f[at] = numbering[col].setdefault(value, len(numbering[col]) + 1)
        log.records.append(f)
    return log


def _check_swf_range(name: str, lineno: int, rec: dict[str, str], row: dict, first_submit: float,
                     size_col: str, plain: bool) -> None:
    """Raise :class:`SacctError` (file, line, column, value) for a value of one job that the SWF
    reader would refuse: a job number beyond 64 bits, a size over the processor limit, a time
    over 2**40 seconds."""
    def refuse(column: str, problem: str) -> SacctError:
        return SacctError(f"{name}: line {lineno}: {column} {quoted(rec.get(column, ''))} {problem}; "
                          "an SWF reader would refuse the converted trace")

    if plain and int(rec["JobID"]) > MAX_JOB_NUMBER:
        raise refuse("JobID", f"is beyond the 64-bit range of SWF job numbers (at most {MAX_JOB_NUMBER:,})")
    for column, value in ((size_col, row["size"]), ("ReqCPUS" if size_col != "NNodes" else "ReqNodes", row["req"])):
        if value > MAX_PROCESSORS:
            raise refuse(column if column in rec else size_col,
                         f"is over the limit of {MAX_PROCESSORS:,} processors")
    times = (("Submit", row["submit"] - first_submit), ("Start", row["start"] - row["submit"]),
             ("End", row["end"] - row["start"]), ("Timelimit", row["limit"]))
    for column, seconds in times:
        if seconds > MAX_SLICES:
            raise refuse(column, f"gives {seconds:.4g} s, over the limit of {MAX_SLICES:.4g} s (2**40)")


def _reason_of(exc: ValueError) -> str:
    return str(exc)


def _job(rec: dict[str, str], size_col: str) -> tuple[dict | None, str | None]:
    """Return the values of one job record, or ``(None, reason)`` when it cannot be replayed."""
    state = rec["State"].split()[0] if rec["State"] else ""
    times = {}
    for col in ("Submit", "Start", "End"):
        try:
            times[col] = parse_time(rec[col])
        except ValueError:
            return None, f"a {col} time that is not a date"
    if times["Submit"] is None:
        return None, "no submit time"
    if times["Start"] is None:
        return None, "no start time (pending, or cancelled before it ran)"
    if times["End"] is None:
        return None, "no end time (still running)"
    if times["End"] < times["Start"] or times["Start"] < times["Submit"]:
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
    return {"submit": times["Submit"], "start": times["Start"], "end": times["End"], "size": size,
            "req": req, "limit": limit, "status": STATUS[state]}, None


def write_sacct_swf(log: SacctLog, path: str | os.PathLike, *, procs: int | None = None,
                    computer: str | None = None) -> Path:
    """Write ``log`` as SWF 2.2 with the Parallel Workloads Archive header; return the path.

    ``procs`` is the machine size for ``MaxProcs`` (default: the largest job, said in a
    ``Note``). Raises ``ValueError`` when a job is larger than ``procs``.
    """
    if computer is not None and not computer.isprintable():
        raise ValueError(f"--computer {quoted(computer)} holds a control character (a line break "
                         "would start a fake job line in the SWF file); give one line of text")
    biggest = max(int(f[4]) for f in log.records)
    if procs is not None and biggest > procs:
        raise ValueError(f"a job uses {biggest} {'nodes' if log.size_column == 'NNodes' else 'processors'}, "
                         f"more than --procs {procs}")
    size = procs or biggest
    start = datetime.fromtimestamp(log.first_submit, tz=UTC)
    end = datetime.fromtimestamp(log.first_submit + max(f[1] + f[2] + f[3] for f in log.records),
                                 tz=UTC)
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
    lines = [f"; {h}" for h in head]
    lines += [" ".join(_fmt(v) for v in f) for f in log.records]
    return write_text_atomically(path, "\n".join(lines) + "\n")


def convert_sacct(src: str | os.PathLike, out: str | os.PathLike, *, procs: int | None = None,
                  nodes: bool = False, strict: bool = False, computer: str | None = None) -> SacctLog:
    """Read ``src`` (:func:`read_sacct`) and write it to ``out`` (:func:`write_sacct_swf`);
    return the log (its ``warnings`` say what was skipped). Raises as those two do."""
    if procs is not None and procs < 1:
        raise ValueError(f"--procs must be a whole number >= 1, got {procs}")
    log = read_sacct(src, nodes=nodes, strict=strict)
    write_sacct_swf(log, out, procs=procs, computer=computer)
    return log


__all__ = ["SacctError", "SacctLog", "convert_sacct", "parse_time", "parse_timelimit", "read_sacct",
           "write_sacct_swf"]
