"""Sweep files (TOML): a workload, the policies, a parameter grid, replications and a seed.

Example (``resources/sweeps/downey-load.toml``)::

    title = "Buddy schemes against load"      # optional
    seed = 2024                               # sweep seed (default 1), see gangviz.experiments.seeds
    replications = 5                          # runs per cell (default 1)
    policies = ["bc", "br", "brms", "brmms"]
    ring = false                              # optional, processors form a ring

    [workload]                                # exactly one of model / trace / scenario
    model = "downey"                          # Zhou00 §4.2
    jobs = 200                                # fixed parameters of the model
    procs = 128

    [grid]                                    # one axis per parameter; the cartesian product
    load = [0.2, 0.5, 0.7, 0.9]

    [policy.random]                           # optional parameters of one policy
    seed = 7

A trace is ``trace = "file.swf"`` (relative to the sweep file) with optional ``procs`` and
``slice`` (on a Dask cluster the trace must be readable at the same absolute path on every
worker); a scenario is ``scenario = "fig2-repacking"`` or a path. Grid keys are workload
parameters (a key may not be both fixed and in the grid). A *cell* is one grid point and one
policy; its replications share nothing but the cell.

Every problem raises :class:`SweepFileError` whose message names the file, the line and the key.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gangviz.core.limits import (
    MAX_JOBS,
    MAX_PROCESSORS,
    MAX_SLICE_SECONDS,
    MIN_SLICE_SECONDS,
    LimitError,
    check_memory,
)
from gangviz.core.params import split_spec
from gangviz.experiments.seeds import run_seed
from gangviz.experiments.tasks import MODEL_PARAMS, SOURCE_PARAMS, RunTask
from gangviz.inputs import quoted, read_toml


class SweepFileError(ValueError):
    """A sweep file is malformed; the message is ``file:line: key: problem``."""


@dataclass(frozen=True)
class Cell:
    """One result cell: a grid point (``values``, ``index`` per axis) and a policy."""

    policy: str
    values: tuple[Any, ...]
    index: tuple[int, ...]


@dataclass
class Sweep:
    """A parsed sweep file. :meth:`tasks` lists its runs in cell order."""

    path: Path
    title: str
    workload: str
    fixed: dict[str, Any]
    axes: list[tuple[str, list[Any]]]
    policies: list[str]
    policy_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    replications: int = 1
    seed: int = 1
    ring: bool = False
    #: the reader's warnings about a trace workload (read once with the first procs and slice)
    warnings: list[str] = field(default_factory=list)
    #: policy -> its queue order (``order = "my.py:function"`` in its ``[policy.NAME]`` table,
    #: the file made absolute)
    policy_orders: dict[str, str] = field(default_factory=dict)

    @property
    def axis_names(self) -> list[str]:
        """Names of the grid axes, in file order."""
        return [name for name, _ in self.axes]

    def cells(self) -> list[Cell]:
        """Return every cell: grid points in file order (last axis fastest), then policies."""
        ranges = [range(len(values)) for _, values in self.axes]
        out: list[Cell] = []
        for idx in itertools.product(*ranges):
            values = tuple(self.axes[a][1][i] for a, i in enumerate(idx))
            out.extend(Cell(p, values, tuple(idx)) for p in self.policies)
        return out

    def task(self, cell: Cell, replication: int) -> RunTask:
        """Return the run of ``cell``'s replication ``replication`` (its seed from the grid index)."""
        params = {**self.fixed, **dict(zip(self.axis_names, cell.values))}
        return RunTask.make(self.workload, cell.policy, run_seed(self.seed, cell.index, replication),
                            workload_params=params, policy_params=self.policy_params.get(cell.policy),
                            replication=replication, cell=cell.index, ring=self.ring,
                            order=self.policy_orders.get(cell.policy))

    def tasks(self) -> list[tuple[Cell, RunTask]]:
        """Return ``(cell, task)`` for every run, cell by cell, replications in order."""
        return [(c, self.task(c, r)) for c in self.cells() for r in range(self.replications)]


#: The most runs (cells times replications) one sweep file may ask for.
MAX_RUNS = 100_000
#: the largest sweep file read (sweep files are a few lines of TOML)
MAX_SWEEP_BYTES = 16 << 20

_TOP = {"title", "seed", "replications", "policies", "ring", "workload", "grid", "policy"}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


#: Checks of workload parameter values: name -> (test, what is allowed).
_PARAM_CHECKS: dict[str, tuple[Any, str]] = {
    "jobs": (lambda v: _is_int(v) and 1 <= v <= MAX_JOBS, f"a whole number in 1..{MAX_JOBS:,}"),
    "procs": (lambda v: _is_int(v) and 1 <= v <= MAX_PROCESSORS, f"a whole number in 1..{MAX_PROCESSORS:,}"),
    "max_work": (lambda v: _is_int(v) and 1 <= v <= MAX_PROCESSORS, f"a whole number in 1..{MAX_PROCESSORS:,}"),
    "load": (lambda v: _is_num(v) and v > 0, "a number > 0"),
    "slice": (lambda v: _is_num(v) and MIN_SLICE_SECONDS <= v <= MAX_SLICE_SECONDS,
              f"a number of seconds in {MIN_SLICE_SECONDS:g}..{MAX_SLICE_SECONDS:g}"),
}


class _Where:
    """Finds the line of a key inside a table of the sweep file's text."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line(self, key: str | None, table: str | None = None) -> int:
        start = 0
        if table is not None:
            rx = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
            start = next((i for i, ln in enumerate(self.lines) if rx.search(ln)), 0)
            if key is None:
                return start + 1
        if key is None:
            return 1
        rx = re.compile(rf"^\s*(\"?){re.escape(key)}\1\s*=")
        for i in range(start, len(self.lines)):
            if i > start and table is not None and re.match(r"^\s*\[", self.lines[i]):
                break
            if rx.search(self.lines[i]):
                return i + 1
        if table is None:
            return 1
        dotted = re.compile(rf"^\s*{re.escape(table)}\.{re.escape(key)}\s*=")
        return next((i + 1 for i, ln in enumerate(self.lines) if dotted.search(ln)), start + 1)

    def error(self, key: str | None, problem: str, table: str | None = None) -> SweepFileError:
        label = f"[{table}] {key}" if table and key else (f"[{table}]" if table else key)
        return SweepFileError(f"{self.path}:{self.line(key, table)}: {label}: {problem}")


def load_sweep(path: str | Path) -> Sweep:
    """Read and check the sweep file at ``path``; return the :class:`Sweep`.

    Raises :class:`SweepFileError` (``file:line: key: problem``) for any mistake, including a
    missing trace file, and ``FileNotFoundError`` when ``path`` itself does not exist.
    """
    path = Path(path)
    data, text = read_toml(path, "sweep file (TOML)", MAX_SWEEP_BYTES, SweepFileError)
    return parse_sweep(data, text, path)


def parse_sweep(data: dict[str, Any], text: str, path: Path) -> Sweep:
    """Build a :class:`Sweep` from parsed TOML ``data`` (``text`` gives the line numbers).

    Raises :class:`SweepFileError` naming the line and key of the first problem.
    """
    w = _Where(path, text)
    for key in data:
        if key not in _TOP:
            raise w.error(key, f"unknown key; allowed: {', '.join(sorted(_TOP))}")
    title, seed, reps, ring = _scalars(w, data, path)
    policies, policy_params, orders = _policies(w, data)
    kind, name, workload, allowed, fixed = _workload(w, data.get("workload"), path)
    axes = _grid(w, data.get("grid", {}), kind, name, allowed, fixed)
    _check_memory(w, kind, fixed, axes)
    runs = reps * len(policies) * math.prod(len(v) for _, v in axes)
    if runs > MAX_RUNS:
        raise w.error("replications" if "replications" in data else None,
                      f"the sweep has {runs:,} runs ({reps:,} replications x {len(policies)} policies x "
                      f"{math.prod(len(v) for _, v in axes):,} grid points), over the limit of {MAX_RUNS:,}")
    warnings = _trace_warnings(w, kind, workload, fixed, axes)
    return Sweep(path, title, workload, fixed, axes, policies, policy_params, reps, seed, ring, warnings,
                 orders)


def _scalars(w: _Where, data: dict[str, Any], path: Path) -> tuple[str, int, int, bool]:
    """Return ``title`` (default: the file's stem), ``seed``, ``replications`` and ``ring``."""
    title = data.get("title", path.stem)
    if not isinstance(title, str):
        raise w.error("title", "must be a string")
    from gangviz.inputs import printable

    title = printable(title)
    seed = data.get("seed", 1)
    if not _is_int(seed) or seed < 0:
        raise w.error("seed", f"must be a whole number >= 0, got {quoted(seed)}")
    reps = data.get("replications", 1)
    if not _is_int(reps) or reps < 1:
        raise w.error("replications", f"must be a whole number >= 1, got {quoted(reps)}")
    ring = data.get("ring", False)
    if not isinstance(ring, bool):
        raise w.error("ring", "must be true or false")
    return title, seed, reps, ring


def _policies(w: _Where, data: dict[str, Any]) -> tuple[list[str], dict[str, dict[str, Any]], dict[str, str]]:
    """Return the policy names (lower case, each once), the ``[policy.NAME]`` parameters, each
    table accepted by its policy, and the queue orders (a table's ``order`` key, its file
    relative to the sweep file)."""
    from gangviz.core import registry
    from gangviz.policies import build as build_policy

    policies = data.get("policies")
    if policies is None:
        raise w.error(None, "missing key 'policies' (a list of policy names)")
    if not isinstance(policies, list) or not policies or not all(isinstance(p, str) for p in policies):
        raise w.error("policies", "must be a non-empty list of policy names")
    from gangviz.userpolicy.loader import is_user_spec

    policies = [_user_path(p, w.path) if is_user_spec(p) else p.lower() for p in policies]
    known = registry.menu(registry.MATRIX)
    for p in policies:
        if is_user_spec(p):
            _check_user(w, p)
        elif p not in known:
            raise w.error("policies", f"unknown policy {quoted(p)}; known: {', '.join(known)} "
                                      "(or a policy file: my.py, my.py:Class)")
    if len(set(policies)) != len(policies):
        raise w.error("policies", "names a policy twice")

    pparams = data.get("policy", {})
    if not isinstance(pparams, dict):
        raise w.error("policy", "must be tables such as [policy.random]")
    policy_params: dict[str, dict[str, Any]] = {}
    orders: dict[str, str] = {}
    for name, params in pparams.items():
        table = f"policy.{name}"
        if name.lower() not in policies:
            raise w.error(None, f"policy {quoted(name)} is not in policies", table)
        if is_user_spec(name):
            raise w.error(None, "give a policy file's parameters in its spec (my.py:key=value)", table)
        if not isinstance(params, dict):
            raise w.error(None, "must be a table of parameters", table)
        params = dict(params)
        if "order" in params:
            orders[name.lower()] = _order(w, table, params.pop("order"), name)
        try:
            build_policy(registry.lookup(name)[0], params)
        except ValueError as exc:
            key = next((k for k in params if k in str(exc)), None)
            raise w.error(key, str(exc), table) from None
        policy_params[name.lower()] = dict(params)
    return policies, policy_params, orders


def _order(w: _Where, table: str, order: Any, policy: str) -> str:
    """Return a table's queue order with its file made absolute (relative to the sweep file),
    once it loads and the policy takes one; raise the sweep file's error otherwise."""
    from gangviz.core import registry
    from gangviz.userpolicy.loader import order_key

    if not isinstance(order, str) or ":" not in order:
        raise w.error("order", f"must be text such as \"my.py:shortest_first\", got {quoted(order)}", table)
    entry = registry.lookup(policy)[0]
    if entry.family not in (registry.MATRIX, registry.SPACE_SHARING):
        raise w.error("order", f"policy {quoted(policy)} takes no queue order", table)
    text: str = order
    target, _, func = text.rpartition(":")
    if target.endswith(".py") and not os.path.isabs(target):
        text = os.path.join(os.path.dirname(os.path.abspath(str(w.path))), target) + ":" + func
    try:
        order_key(text)
    except ValueError as exc:
        raise w.error("order", str(exc), table) from None
    return text


def _user_path(spec: str, sweep_path: Any) -> str:
    """A user's policy file named relative to the sweep file, as an absolute path (so worker
    processes import the same file wherever they start)."""
    from gangviz.userpolicy.loader import split_user_spec

    target = split_user_spec(spec)
    if target is None or not target[0].endswith(".py") or os.path.isabs(target[0]):
        return spec
    return os.path.join(os.path.dirname(os.path.abspath(str(sweep_path))), target[0]) + spec[len(target[0]):]


def _check_user(w: _Where, spec: str) -> None:
    """Raise the sweep file's error for a user's policy that does not load."""
    from gangviz.userpolicy.loader import user_entry

    try:
        found = user_entry(spec)
    except ValueError as exc:
        raise w.error("policies", str(exc)) from None
    if found is not None:
        entry, text = found
        try:
            entry.coerce(split_spec(f"{entry.title}:{text}")[1])
        except ValueError as exc:
            raise w.error("policies", str(exc)) from None


def _workload(w: _Where, wl: Any, path: Path) -> tuple[str, str, str, list[str], dict[str, Any]]:
    """Return the ``[workload]`` table read: its kind (model, trace or scenario), the name as
    given, the workload (a model name, or a file found relative to the sweep file), the
    parameters it allows and those it fixes."""
    if not isinstance(wl, dict):
        raise w.error(None, "missing table [workload] (model, trace or scenario)")
    kinds = [k for k in ("model", "trace", "scenario") if k in wl]
    if len(kinds) != 1:
        raise w.error(None, "give exactly one of model, trace or scenario", "workload")
    kind = kinds[0]
    name = wl[kind]
    if not isinstance(name, str) or not name:
        raise w.error(kind, "must be a non-empty string", "workload")
    if kind == "model":
        if name.lower() not in MODEL_PARAMS:
            raise w.error(kind, f"unknown model {quoted(name)}; known: {', '.join(MODEL_PARAMS)}", "workload")
        workload = name.lower()
        allowed = list(MODEL_PARAMS[workload])
    else:
        allowed = list(SOURCE_PARAMS) if kind == "trace" else []
        candidate = (path.parent / name) if not Path(name).is_absolute() else Path(name)
        if kind == "trace" and not candidate.exists():
            raise w.error(kind, f"no such file: {candidate}", "workload")
        workload = str(candidate) if candidate.exists() else name
    fixed: dict[str, Any] = {}
    for key, value in wl.items():
        if key == kind:
            continue
        if key not in allowed:
            raise w.error(key, f"unknown parameter; {kind} {name} takes "
                          f"{', '.join(allowed) or 'no parameters'}", "workload")
        _check_value(w, key, value, "workload")
        fixed[key] = value
    return kind, name, workload, allowed, fixed


def _grid(w: _Where, grid: Any, kind: str, name: str, allowed: list[str],
          fixed: dict[str, Any]) -> list[tuple[str, list[Any]]]:
    """Return the ``[grid]`` axes in file order: each a parameter the workload allows, not fixed
    in ``[workload]``, with a non-empty list of distinct valid values."""
    if not isinstance(grid, dict):
        raise w.error("grid", "must be a table such as [grid] load = [0.5, 0.7]")
    axes: list[tuple[str, list[Any]]] = []
    for key, values in grid.items():
        if key not in allowed:
            raise w.error(key, f"not a parameter of {kind} {name}; allowed: "
                          f"{', '.join(allowed) or 'none'}", "grid")
        if key in fixed:
            raise w.error(key, "is fixed in [workload] too; keep one", "grid")
        if not isinstance(values, list) or not values:
            raise w.error(key, "must be a non-empty list of values", "grid")
        for v in values:
            _check_value(w, key, v, "grid")
        if len(set(values)) != len(values):
            raise w.error(key, "lists a value twice", "grid")
        axes.append((key, list(values)))
    return axes


def _trace_warnings(w: _Where, kind: str, workload: str, fixed: dict[str, Any],
                    axes: list[tuple[str, list[Any]]]) -> list[str]:
    """Read a trace workload once (with the first ``procs`` and ``slice``) so that a trace no
    run can use is an error now, not one failed row per run, and return its warnings."""
    if kind != "trace":
        return []
    from gangviz.workloads.source import load_source

    grid = dict(axes)
    procs = fixed.get("procs", grid.get("procs", [None])[0])
    slice_seconds = fixed.get("slice", grid.get("slice", [None])[0])
    try:
        return list(load_source(workload, procs=procs, slice_seconds=slice_seconds).warnings)
    except (ValueError, OSError) as exc:
        raise w.error("trace", str(exc), "workload") from None


def _check_memory(w: _Where, kind: str, fixed: dict[str, Any], axes: list[tuple[str, list[Any]]]) -> None:
    """Refuse a model sweep whose largest run (most processors, most jobs) is over the memory
    budget, naming the key that sets the processors."""
    if kind != "model":
        return
    grid = dict(axes)
    procs = max(grid.get("procs", [fixed.get("procs", 128)]))
    jobs = max(grid.get("jobs", [fixed.get("jobs", 200)]))
    try:
        check_memory(procs, jobs, what="the largest run of this sweep")
    except LimitError as exc:
        table = "grid" if "procs" in grid else "workload"
        raise w.error("procs", str(exc), table) from None


def _check_value(w: _Where, key: str, value: Any, table: str) -> None:
    test, allowed = _PARAM_CHECKS.get(key, (lambda v: True, ""))
    if not test(value):
        raise w.error(key, f"must be {allowed}, got {quoted(value)}", table)
