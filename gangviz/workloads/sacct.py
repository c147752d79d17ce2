"""Read Slurm accounting output (``sacct --parsable2``) and write it as SWF.

Input: what ``sacct --parsable2 --format=JobID,Submit,Start,End,AllocCPUS,Timelimit,State``
prints (``|``-separated, a header line naming the columns, any column order). Required columns:
``JobID``, ``Submit``, ``Start``, ``End``, ``State`` and one size column: ``AllocCPUS`` (also
``NCPUS``), or ``NNodes`` when there is no CPU count or ``nodes=True`` asks for node counts.
``Timelimit`` (requested time), ``ReqCPUS``, ``User``, ``Group`` and ``Partition`` are used
when present. Times are ISO (``2024-03-01T09:15:00``), read as UTC; only differences matter to
a simulation.

Each job becomes one SWF line [SWF 2.2 fields]: submit time in seconds after the first kept
submit (the header's ``UnixStartTime`` is that submit's epoch), wait = Start - Submit, run =
End - Start, allocated processors = the size column, requested processors = ``ReqCPUS`` (else
the size), requested time = ``Timelimit`` in seconds (-1 for ``UNLIMITED`` or
``Partition_Limit``), status 1 for ``COMPLETED``, 0 for ``FAILED``, ``TIMEOUT``,
``NODE_FAIL``, ``OUT_OF_MEMORY``, ``BOOT_FAIL``, ``DEADLINE``, ``PREEMPTED``, 5 for
``CANCELLED`` (also ``CANCELLED by N``); users, groups and partitions are numbered 1, 2, ... in
order of first appearance. Job numbers are Slurm's when every kept JobID is a plain integer,
else 1..n in submit order (said in a warning).

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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import overload

import numpy as np

from gangviz.workloads.swf import LINES_SHOWN, _fmt

#: SWF status of each Slurm base state
STATUS = {"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "NODE_FAIL": 0, "OUT_OF_MEMORY": 0,
          "BOOT_FAIL": 0, "DEADLINE": 0, "PREEMPTED": 0, "CANCELLED": 5}
REQUIRED = ("JobID", "Submit", "Start", "End", "State")
_STEP_RE = re.compile(r"^[^.]+\.")
_LIMIT_RE = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


class SacctError(ValueError):
    """An unusable sacct file; the message names the file and, where there is one, the line."""


class Records(Sequence[list]):
    """The kept jobs as SWF records, stored as columns (one array per field, in submit order).

    A record (18 values, :data:`FIELDS` of them set, the rest -1) is made only when asked for:
    ``records[i]`` or iteration; :meth:`lines` gives them as SWF text, a block at a time.
    """

    def __init__(self, columns: dict[int, np.ndarray] | None = None) -> None:
        self.columns = columns or {}

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    @overload
    def __getitem__(self, i: int) -> list: ...
    @overload
    def __getitem__(self, i: slice) -> list[list]: ...
    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        f: list = [-1] * 18
        for at, col in self.columns.items():
            f[at] = col[i].item()
        return f

    def lines(self, block: int = 20000) -> Iterator[str]:
        """Yield the records as SWF lines (no newline), ``block`` records formatted at once."""
        n = len(self)
        for lo in range(0, n, block):
            cols = [(at, col[lo:lo + block].tolist()) for at, col in sorted(self.columns.items())]
            for k in range(min(block, n - lo)):
                f: list = [-1] * 18
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


def parse_time(text: str) -> float | None:
    """Return an ISO time (``2024-03-01T09:15:00``) as seconds since the epoch, read as UTC;
    ``None`` for Slurm's ``Unknown``/``None``/empty. Raises ``ValueError`` for anything else."""
    t = text.strip()
    if t in ("", "Unknown", "None", "N/A"):
        return None
    return datetime.fromisoformat(t).replace(tzinfo=UTC).timestamp()


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
    missing = [c for c in REQUIRED if c not in index]
    size_col = "NNodes" if nodes else next((c for c in ("AllocCPUS", "NCPUS") if c in index), "NNodes")
    if size_col not in index:
        missing.append("AllocCPUS or NNodes" if not nodes else "NNodes")
    if missing:
        raise SacctError(f"{name}: line {head_at + 1}: the header has no column {', '.join(missing)} "
                         f"(found: {', '.join(columns)}); run sacct --parsable2 "
                         "--format=JobID,Submit,Start,End,AllocCPUS,Timelimit,State")
    return columns, size_col


def read_sacct(path: str | os.PathLike, *, nodes: bool = False, strict: bool = False) -> SacctLog:
    """Read a ``sacct --parsable2`` file into a :class:`SacctLog` (see the module docstring).

    Raises :class:`SacctError` for a file without a header or a required column, one whose
    every record is skipped, or (``strict``) the first record that would be skipped;
    ``OSError`` when it cannot be read.
    """
    name = str(path)
    with open(path, encoding="utf-8", errors="replace", newline=None) as fh:
        return _read(name, fh, nodes, strict)


def _read(name: str, fh, nodes: bool, strict: bool) -> SacctLog:  # noqa: C901
    """Read the open file ``fh`` line by line into columns; see :func:`read_sacct`."""
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
            at = skipped.setdefault(reason, [])
            if len(at) < LINES_SHOWN:
                at.append(lineno)
            n_skipped[reason] = n_skipped.get(reason, 0) + 1
            continue
        assert row is not None
        submit.append(row["submit"])
        start.append(row["start"])
        end.append(row["end"])
        size.append(row["size"])
        req.append(row["req"])
        limit.append(row["limit"])
        status.append(row["status"])
        if plain:
            job_id = rec["JobID"]
            if job_id.isdigit() and int(job_id) < 2**63:
                ids.append(int(job_id))
            else:
                plain, ids = False, array("q")
        for col in names:
            value = rec.get(col) if col in present else None
            codes[col].append(seen[col].setdefault(value, len(seen[col]) + 1) if value else 0)
        log.cluster = log.cluster or rec.get("Cluster", "")
    for reason, at in skipped.items():
        count = n_skipped[reason]
        shown = ", ".join(map(str, at)) + (f", ... ({count - LINES_SHOWN} more)" if count > LINES_SHOWN else "")
        log.warnings.append(f"skipped {count} record{'s' if count != 1 else ''} with {reason}: "
                            f"line{'s' if count != 1 else ''} {shown}")
    if not submit:
        raise SacctError(f"{name}: has no job that ran to replay"
                         + (f" ({'; '.join(log.warnings)})" if log.warnings else ""))
    # the file's columns go one by one into the sorted ones, so that the two never all coexist
    order = np.argsort(np.frombuffer(submit, dtype=np.float64), kind="stable")  # ties keep order

    def sort(column: array, dtype) -> np.ndarray:
        out = np.frombuffer(column, dtype=dtype)[order]
        del column[:]
        return out

    sub = sort(submit, np.float64)
    log.first_submit = float(sub[0])
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
    size_text = rec[size_col]
    if not size_text.isdigit() or int(size_text) < 1:
        return None, f"a {size_col} that is not a whole number >= 1"
    if state not in STATUS:
        return None, f"a state gangviz does not know ({state or 'empty'})"
    size = int(size_text)
    req_text = rec.get("ReqCPUS", "") if size_col != "NNodes" else rec.get("ReqNodes", "")
    req = int(req_text) if req_text.isdigit() and int(req_text) >= 1 else size
    try:
        limit = parse_timelimit(rec.get("Timelimit", ""))
    except ValueError:
        return None, "a Timelimit that is not D-HH:MM:SS"
    return {"submit": times["Submit"], "start": times["Start"], "end": times["End"], "size": size,
            "req": req, "limit": limit, "status": STATUS[state]}, None


def write_sacct_swf(log: SacctLog, path: str | os.PathLike, *, procs: int | None = None,
                    computer: str | None = None) -> Path:
    """Write ``log`` as SWF 2.2 with the Parallel Workloads Archive header; return the path.

    ``procs`` is the machine size for ``MaxProcs`` (default: the largest job, said in a
    ``Note``). Raises ``ValueError`` when a job is larger than ``procs``.
    """
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
        f"Computer: {computer or log.cluster or 'unknown (Slurm cluster)'}",
        "Installation: unknown",
        "Acknowledge: unknown",
        "Information: https://slurm.schedmd.com/sacct.html",
        f"Conversion: gangviz convert from Slurm sacct --parsable2 output {Path(log.source).name}",
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
    out = Path(path)
    with open(out, "w", encoding="utf-8") as fh:
        fh.writelines(f"; {h}\n" for h in head)
        for line in log.records.lines():
            fh.write(line)
            fh.write("\n")
    return out


def convert_sacct(src: str | os.PathLike, out: str | os.PathLike, *, procs: int | None = None,
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
