"""Scenario files: a machine and a starting matrix drawn the way the papers draw them, plus a script.

Format (TOML)::

    title = "Re-packing, Fig. 2"
    explanation = "One paragraph shown in the window."
    processors = 8
    policy = "repack"            # the policy the scenario is meant for (optional)
    ring = false                 # optional
    allocation = "contiguous"    # or "random": a job's cells in a row need not be adjacent
    guided = false               # true: the window pauses before each re-pack (guided exercise)
    matrix = [                   # top row first, as printed in the papers; "." is idle
      "J5 J5 J5 J6 J6 .  J7 J7",
      "Ja Ja Ja Ja J4 J4 Jb Jb",
      "J1 J1 J2 J2 .  J3 J3 J3",
    ]
    [jobs]                       # optional: work (slices) of jobs in the matrix; default endless
    J1 = { work = 6 }
    [[events]]
    at = 0
    terminate = ["Ja", "Jb"]
    [[events]]
    at = 2
    submit = { name = "Jn", size = 5, work = 4 }   # or a list of such tables
    [expect]                     # optional: the end state a test checks
    final_matrix = ["...", "..."]

A job in the starting matrix has endless work unless ``[jobs]`` gives it some, so a scenario ends
when its script is exhausted and every job with finite work has finished.

``model`` (default ``"matrix"``) chooses the family; the other two are not Ousterhout matrices:

* ``model = "multisite"`` (Papazachos09 §2-§3): ``sites`` (default 2), ``processors``
  per site, ``policy = "AFCFS"`` or ``"AFCFSwM"``, ``[params]`` with any other field of the
  multi-site configuration (``local_overhead``, ``grid_overhead``,
  ``aging_k``, ``afcfs_overtake``), and the gangs in arrival order::

      [[gangs]]
      at = 0.1
      size = 2
      site = 1          # 1-based, as narrated; the grid dispatcher's choice is scripted
      service = 0.5

  Gang i of the file is ``G<i>`` (0-based, as the multi-site narration numbers gangs).
* ``model = "epoch"`` (McCann94 §2.3, §5.2): ``processors`` = N, ``policy`` an
  epoch policy (``"BUDDY"``, ``"OPT-EPOCH(1)"``, ...), ``in_system`` = J (default: every job),
  ``static`` (default false), ``quantum`` (default 10), and the closed system's job sequence::

      [[workload]]
      min = 3           # minimum node requirement M_j
      work = 400        # units of sequential service
      beta = 100        # speedup parameter

  Job i of the file is ``J<i+1>`` (the papers number jobs from 1). The first J are present at
  time 0; each departure brings in the next, and the run ends when the sequence is used up.

Every problem raises :class:`ScenarioError` naming the file, the line and the problem. Whether
the named policies exist, take the ``[params]`` given and apply to the machine is checked where
the policies are known, when a simulation is built (:mod:`gangviz.factory.checks`), with
messages of the same form.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from gangviz.core.jobs import JobSpec, ScriptEvent
from gangviz.core.limits import (
    MAX_NAME_CHARS,
    MAX_SLICES,
    MAX_TITLE_CHARS,
    LimitError,
    check_length,
    check_processors,
    check_slot_growth,
)
from gangviz.core.matrix import IDLE, OusterhoutMatrix, processor_label
from gangviz.inputs import printable, quoted, read_toml
from gangviz.workloads.scenario_families import parse_family
from gangviz.workloads.scenario_types import (
    Fail,
    Scenario,
    ScenarioError,
    ScriptedEpochJob,
    ScriptedGang,
)
from gangviz.workloads.scenario_types import line_of as _line_of

#: What callers take from here: the loader and the types it returns.
__all__ = ["MAX_SCENARIO_BYTES", "Scenario", "ScenarioError", "ScriptedEpochJob",
           "ScriptedGang", "load_scenario", "parse_scenario"]

#: The largest scenario file read (scenarios are hand-written; 16 MiB is far beyond any).
MAX_SCENARIO_BYTES = 16 << 20

IDLE_TOKENS = frozenset({".", "-", "_"})
TOP_KEYS = {"title", "explanation", "processors", "policy", "ring", "allocation", "matrix", "jobs",
            "events", "expect", "params", "model", "sites", "gangs", "workload", "in_system", "static",
            "quantum", "guided"}
MODELS = ("matrix", "multisite", "epoch")
COMMON_KEYS = {"title", "explanation", "processors", "policy", "expect", "params", "model"}
#: The keys each model accepts besides :data:`COMMON_KEYS`.
MODEL_KEYS = {
    "matrix": {"ring", "allocation", "matrix", "jobs", "events", "guided"},
    "multisite": {"sites", "gangs"},
    "epoch": {"workload", "in_system", "static", "quantum"},
}
EVENT_KEYS = {"at", "terminate", "submit", "note"}
SUBMIT_KEYS = {"name", "size", "work"}
JOB_KEYS = {"work"}


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario file and return the :class:`Scenario`.

    Raises :class:`ScenarioError` for a syntax error, an unknown key, a row of the wrong width, a
    job split across non-adjacent columns (unless ``allocation = "random"``), a job whose columns
    differ between rows, or a bad event; ``OSError`` if the file cannot be read.
    """
    path = Path(path)
    data, text = read_toml(path, "scenario (TOML)", MAX_SCENARIO_BYTES, ScenarioError)
    return parse_scenario(data, text, str(path))


def parse_scenario(data: dict[str, Any], text: str = "", where: str = "<scenario>") -> Scenario:
    """Build a :class:`Scenario` from parsed TOML ``data`` (``text`` is used for line numbers).

    Raises :class:`ScenarioError` naming ``where``, the line and the problem (see
    :func:`load_scenario` for what is checked).
    """

    def fail(line: int, problem: str) -> ScenarioError:
        return ScenarioError(f"{where}:{line}: {problem}")

    model = _check_keys(data, text, fail)
    _check_title(data, text, fail)
    if model != "matrix":
        return parse_family(model, data, text, where, fail)
    guided = data.get("guided", False)
    if not isinstance(guided, bool):
        raise fail(_line_of(text, r"^\s*guided\s*="), "guided must be true or false")
    rows_text = data.get("matrix", [])
    if not isinstance(rows_text, list) or not all(isinstance(r, str) for r in rows_text):
        raise fail(_line_of(text, r"^\s*matrix\s*="), "matrix must be a list of strings")
    token_rows = [r.split() for r in rows_text]
    procs, ring, allocation = _machine(data, token_rows, text, fail)
    try:  # before any row is read: the limits are checked before the work
        check_slot_growth(procs, len(rows_text))
    except LimitError as exc:
        raise fail(_line_of(text, r"^\s*matrix\s*="), f"matrix: {exc}") from None
    matrix, ids, first_cols = _parse_matrix(rows_text, token_rows, procs, ring, allocation, text, fail)
    jobs = _parse_jobs(data.get("jobs", {}), ids, first_cols, text, fail)
    script = _parse_events(data.get("events", []), text, fail, set(ids), procs)
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise fail(_line_of(text, r"^\s*\[expect\]"), "[expect] must be a table")
    policy = data.get("policy")
    if policy is not None and not isinstance(policy, str):
        raise fail(_line_of(text, r"^\s*policy\s*="), "policy must be a name such as \"repack\"")
    params, lines = _check_params(data.get("params", {}), text, fail)
    lines["policy"] = _line_of(text, r"^\s*policy\s*=")
    return Scenario(
        path=where,
        title=printable(str(data.get("title", Path(where).stem))),
        explanation=str(data.get("explanation", "")),
        processors=procs,
        ring=ring,
        allocation=allocation,
        policy=policy,
        matrix=matrix,
        jobs=jobs,
        script=script,
        expect=expect,
        params=params,
        guided=guided,
        lines=lines,
    )


def _check_title(data: dict[str, Any], text: str, fail: Fail) -> None:
    """Raise ``fail(...)`` when the title is longer than :data:`MAX_TITLE_CHARS`."""
    if "title" in data:
        try:
            check_length(str(data["title"]), "title", MAX_TITLE_CHARS, "the key 'title'")
        except LimitError as exc:
            raise fail(_line_of(text, r"^\s*title\s*="), str(exc)) from None


def _check_name(name: str, line: int, fail: Fail, where: str) -> None:
    """Raise ``fail(line, ...)`` when job name ``name`` is longer than :data:`MAX_NAME_CHARS`
    (``where``: the key that gave it)."""
    try:
        check_length(name, "a job name", MAX_NAME_CHARS, where, low=1)
    except LimitError as exc:
        raise fail(line, f"{exc}: {quoted(name)}") from None


def _check_keys(data: dict[str, Any], text: str, fail: Fail) -> str:
    """Return the file's model after checking that every top-level key is known and belongs to
    that model; raise ``fail(...)`` otherwise."""
    for key in data:
        if key not in TOP_KEYS:
            raise fail(_key_line(text, key), f"unknown key {quoted(key)} "
                       f"(known: {', '.join(sorted(TOP_KEYS))})")
    model: str = data.get("model", "matrix")  # a str once found among MODELS
    if model not in MODELS:
        raise fail(_line_of(text, r"^\s*model\s*="),
                   f"model must be one of {', '.join(repr(m) for m in MODELS)}, got {quoted(model)}")
    for key in data:
        if key not in COMMON_KEYS and key not in MODEL_KEYS[model]:
            owner = next(m for m in MODELS if key in MODEL_KEYS[m])
            raise fail(_key_line(text, key), f"key {quoted(key)} belongs to model {quoted(owner)}, "
                       f"not to model {quoted(model)} (set model = {quoted(owner)} or remove it)")
    return model


def _machine(data: dict[str, Any], token_rows: list[list[str]], text: str,
             fail: Fail) -> tuple[int, bool, str]:
    """Return ``(processors, ring, allocation)`` of a matrix scenario; the processors default to
    the width of the first matrix row. Raises ``fail(...)`` for a bad value."""
    procs = data.get("processors")
    if procs is None:
        if not token_rows:
            raise fail(1, "give 'processors' or a 'matrix'")
        procs = len(token_rows[0])
    if not isinstance(procs, int) or isinstance(procs, bool) or procs < 1:
        raise fail(_line_of(text, r"^\s*processors\s*="), f"processors must be a whole number >= 1, got {quoted(procs)}")
    try:
        check_processors(procs, "the key 'processors'")
    except LimitError as exc:
        raise fail(_line_of(text, r"^\s*processors\s*="), str(exc)) from None
    ring = data.get("ring", False)
    if not isinstance(ring, bool):
        raise fail(_line_of(text, r"^\s*ring\s*="), "ring must be true or false")
    allocation = data.get("allocation", "contiguous")
    if allocation not in ("contiguous", "random"):
        raise fail(_line_of(text, r"^\s*allocation\s*="), f"allocation must be \"contiguous\" or \"random\", got {quoted(allocation)}")
    return procs, ring, allocation


def _parse_matrix(rows_text: list[str], token_rows: list[list[str]], procs: int, ring: bool,
                  allocation: str, text: str,
                  fail: Fail) -> tuple[OusterhoutMatrix, dict[str, int], dict[str, tuple[int, ...]]]:
    """Return the matrix drawn by ``rows_text`` (top row first), the job ids by name (numbered
    in the order the jobs first appear from the bottom row up) and each job's columns.

    Raises ``fail(...)`` for a row of the wrong width, a job split across non-adjacent columns
    (unless the allocation is random, or the columns wrap around a ring) or on other columns
    than in another row."""
    matrix_line = _line_of(text, r"^\s*matrix\s*=")
    row_lines = _row_lines(text, rows_text, matrix_line)
    for i, line in enumerate(row_lines):
        if len(token_rows[i]) != procs:
            raise fail(line, f"matrix row has {len(token_rows[i])} cells, expected {procs} processors")

    ids: dict[str, int] = {}
    first_cols: dict[str, tuple[int, ...]] = {}
    first_line: dict[str, int] = {}
    bottom_up: list[list[int]] = []
    for i in range(len(token_rows) - 1, -1, -1):
        tokens, line = token_rows[i], row_lines[i]
        cols_of: dict[str, list[int]] = {}
        for c, tok in enumerate(tokens):
            if tok not in IDLE_TOKENS:
                cols_of.setdefault(tok, []).append(c)
        for name, cols in cols_of.items():
            _check_name(name, line, fail, "the key 'matrix'")
            _check_columns(name, cols, procs, ring, allocation, line, fail)
            if name in first_cols and first_cols[name] != tuple(cols):
                raise fail(line, f"job {name} uses different processors here than on line {first_line[name]}")
            first_cols.setdefault(name, tuple(cols))
            first_line.setdefault(name, line)
            ids.setdefault(name, len(ids))
        bottom_up.append([IDLE if t in IDLE_TOKENS else ids[t] for t in tokens])
    try:
        matrix = OusterhoutMatrix.from_rows(bottom_up, procs, ring=ring) if bottom_up else OusterhoutMatrix(procs, ring)
    except ValueError as exc:
        raise fail(matrix_line, str(exc)) from None
    matrix.names.update({v: k for k, v in ids.items()})
    return matrix, ids, first_cols


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _row_lines(text: str, rows_text: list[str], matrix_line: int) -> list[int]:
    """Return the line of each matrix row in one pass over the file: the strings written from
    the ``matrix`` key on are matched to the rows in order, each looked for among the next few
    strings only, so the work is linear in the rows (a row not found, written with TOML escapes
    say, gets the line of the ``matrix`` key)."""
    written = [(m.group(1).strip(), n)
               for n, ln in enumerate(text.splitlines()[matrix_line - 1:], start=matrix_line)
               for m in _STRING.finditer(ln)]
    out, at = [], 0
    for row in rows_text:
        want = row.strip()
        k = next((k for k in range(at, min(at + 64, len(written))) if written[k][0] == want), None)
        if k is None:
            out.append(matrix_line)
        else:
            out.append(written[k][1])
            at = k + 1
    return out


def _check_columns(name: str, cols: list[int], procs: int, ring: bool, allocation: str, line: int,
                   fail: Fail) -> None:
    """Raise ``fail(...)`` when job ``name``'s columns of one row are not adjacent (around the
    ring on a ring) and the allocation is not random."""
    contiguous = cols == list(range(cols[0], cols[0] + len(cols)))
    if not contiguous and allocation != "random" and not (ring and _wraps(cols, procs)):
        raise fail(line, f"job {name} is split across non-adjacent columns "
                   f"({', '.join(processor_label(c) for c in cols)}); "
                   f"set allocation = \"random\" to allow it")


def _parse_jobs(job_table: Any, ids: dict[str, int], first_cols: dict[str, tuple[int, ...]],
                text: str, fail: Fail) -> list[JobSpec]:
    """Return a :class:`JobSpec` per job of the matrix (in id order), its work from ``[jobs]``
    (endless when not given). Raises ``fail(...)`` for a name not in the matrix, a key other
    than ``work``, or a work that is not a number in (0, 2**40]."""
    jobs_line = _line_of(text, r"^\s*\[jobs\]")
    if not isinstance(job_table, dict):
        raise fail(jobs_line, "[jobs] must be a table of job names")
    for name, spec in job_table.items():
        line = _line_of(text, rf"^\s*{re.escape(name)}\s*=", jobs_line)
        if name not in ids:
            raise fail(line, f"[jobs] names {quoted(name)}, which is not in the matrix")
        if not isinstance(spec, dict) or set(spec) - JOB_KEYS:
            raise fail(line, f"job {name}: only 'work' may be given")
    jobs = []
    for name, jid in ids.items():
        work = job_table.get(name, {}).get("work", math.inf)
        if not isinstance(work, (int, float)) or isinstance(work, bool) or not work > 0:
            raise fail(_line_of(text, rf"^\s*{re.escape(name)}\s*=", jobs_line), f"job {name}: work must be a number > 0")
        if not math.isinf(work) and work > MAX_SLICES:
            raise fail(_line_of(text, rf"^\s*{re.escape(name)}\s*=", jobs_line),
                       f"job {name}: work {work:g} slices is over the limit of {MAX_SLICES:.4g} slices (2**40; "
                       "leave work out for an endless job)")
        jobs.append(JobSpec(jid, name, 0.0, len(first_cols[name]), float(work)))
    return jobs


def _check_params(params: Any, text: str, fail: Fail) -> tuple[dict[str, Any], dict[str, int]]:
    """Return ``[params]`` of a matrix scenario (one table per policy) and the line of each
    table (keys ``params.NAME``). Only the shape is checked here: whether each policy exists
    and takes its parameters is :func:`gangviz.factory.checks.check_scenario`'s question."""
    line = _line_of(text, r"^\s*(?:params\s*=|\[\s*params)")
    if not isinstance(params, dict):
        raise fail(line, f"params must be tables such as [params.random] seed = 3, got {quoted(params)}")
    lines: dict[str, int] = {}
    for name, table in params.items():
        pline = _line_of(text, rf"^\s*(?:\[\s*params\.{re.escape(name)}\s*\]|{re.escape(name)}\s*=)", line)
        if not isinstance(table, dict):
            raise fail(pline, f"[params.{name}] must be a table of parameters, got {quoted(table)}")
        lines[f"params.{name}"] = pline
    return params, lines


def _key_line(text: str, key: str) -> int:
    """Line of ``key = ...``, ``[key]`` or ``[[key]]`` (1 if not found)."""
    k = re.escape(key)
    return _line_of(text, rf"^\s*(?:{k}\s*=|\[\[?\s*{k}\s*\]\]?)")


def _wraps(cols: list[int], procs: int) -> bool:
    """Whether ``cols`` is one run that wraps around the end of a ring."""
    s = set(cols)
    start = next((c for c in cols if (c - 1) % procs not in s), None)
    if start is None:
        return len(cols) == procs
    return all((start + k) % procs in s for k in range(len(cols)))


def _parse_events(events: Any, text: str, fail: Fail, names: set[str], procs: int) -> list[ScriptEvent]:
    """Return the ``[[events]]`` as script events, in file order. ``names`` are the matrix's jobs;
    a job submitted by one event can be terminated by a later one. Raises ``fail(...)`` for an
    unknown key, a bad time, an unknown job to terminate or a bad submission."""
    if not isinstance(events, list):
        raise fail(_line_of(text, r"events"), "events must be an array of tables: [[events]]")
    script: list[ScriptEvent] = []
    search_from = 1
    known = set(names)
    for event in events:
        line = _line_of(text, r"^\s*\[\[events\]\]", search_from)
        search_from = line + 1
        at = _event_time(event, text, line, fail)
        terminate = event.get("terminate", [])
        if isinstance(terminate, str):
            terminate = [terminate]
        if not isinstance(terminate, list) or not all(isinstance(t, str) for t in terminate):
            raise fail(_line_of(text, r"^\s*terminate\s*=", line), "terminate must be a list of job names")
        for name in terminate:
            if name not in known:
                raise fail(_line_of(text, r"^\s*terminate\s*=", line), f"terminate names unknown job {quoted(name)}")
        submit = event.get("submit", [])
        if isinstance(submit, dict):
            submit = [submit]
        if not isinstance(submit, list):
            raise fail(_line_of(text, r"submit", line), "submit must be a table or a list of tables")
        subs = []
        for sub in submit:
            job = _submission(sub, known, procs, _line_of(text, r"submit", line), fail)
            known.add(job[0])
            subs.append(job)
        script.append(ScriptEvent(at, tuple(terminate), tuple(subs)))
    return script


def _event_time(event: Any, text: str, line: int, fail: Fail) -> float:
    """Return the time ``at`` of one ``[[events]]`` entry after checking that the entry is a table
    of known keys and the time a number in [0, 2**40]; raise ``fail(...)`` otherwise."""
    if not isinstance(event, dict):
        raise fail(line, "each [[events]] entry must be a table")
    for key in event:
        if key not in EVENT_KEYS:
            raise fail(_line_of(text, rf"^\s*{re.escape(key)}\s*=", line),
                       f"unknown event key {quoted(key)} (known: {', '.join(sorted(EVENT_KEYS))})")
    at = event.get("at")
    if not isinstance(at, (int, float)) or isinstance(at, bool) or at < 0 or not math.isfinite(at):
        raise fail(line, f"event time 'at' must be a number >= 0, got {quoted(at)}")
    if at > MAX_SLICES:
        raise fail(line, f"event time 'at' = {at:g} is over the limit of {MAX_SLICES:.4g} slices (2**40)")
    return float(at)


def _submission(sub: Any, known: set[str], procs: int, sline: int, fail: Fail) -> tuple[str, int, float]:
    """Return ``(name, size, work)`` of one ``submit`` table: a new job name, a size in
    1..``procs`` and a work in (0, 2**40]. Raises ``fail(sline, ...)`` otherwise."""
    if not isinstance(sub, dict):
        raise fail(sline, "submit must be a table such as { name = \"Jn\", size = 5, work = 4 }")
    extra = set(sub) - SUBMIT_KEYS
    if extra:
        raise fail(sline, f"unknown submit key {quoted(sorted(extra)[0])} (known: name, size, work)")
    name, size, work = sub.get("name"), sub.get("size"), sub.get("work")
    if not isinstance(name, str) or not name or name in IDLE_TOKENS:
        raise fail(sline, "submit needs a job name")
    _check_name(name, sline, fail, "a submit's 'name'")
    if name in known:
        raise fail(sline, f"a job named {quoted(name)} already exists")
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= procs:
        raise fail(sline, f"job {name}: size must be a whole number in 1..{procs}, got {quoted(size)}")
    if not isinstance(work, (int, float)) or isinstance(work, bool) or not work > 0:
        raise fail(sline, f"job {name}: work must be a number > 0, got {quoted(work)}")
    if work > MAX_SLICES:
        raise fail(sline, f"job {name}: work {work:g} slices is over the limit of {MAX_SLICES:.4g} "
                   "slices (2**40)")
    return name, size, float(work)
