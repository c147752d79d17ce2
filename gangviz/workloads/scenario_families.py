"""Scenario files of the families that are not Ousterhout matrices: ``multisite`` and ``epoch``.

:func:`gangviz.workloads.scenario.parse_scenario` hands a file with ``model = "multisite"`` or
``model = "epoch"`` to :func:`parse_family`; the format of each family is documented there. Every
problem raises :class:`~gangviz.workloads.scenario.ScenarioError` naming the file, the line and the
field, like the matrix format.

Choices:

* Multi-site gangs must be listed in non-decreasing arrival time: gang i of the file is the
  simulation's gang i (``G<i>``), so the file and the narration agree.
* The multi-site ``site`` is 1-based (the narration says "site 1"); the scenario scripts the grid
  dispatcher's choice, which in the paper's model is random (Papazachos09 §3.1).
* An epoch scenario's ``in_system`` defaults to the whole sequence (then no job departs: the
  scenario shows one quantum's schedule). Its policy is checked against Table 2's restrictions
  (McCann94 §4.4) when its simulation is built (:mod:`gangviz.factory.checks`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, TypeGuard

from gangviz.core import registry
from gangviz.core.limits import MAX_SLICES, LimitError, check_processors
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.inputs import printable, quoted
from gangviz.workloads.scenario_types import (
    GANG_KEYS,
    WORKLOAD_KEYS,
    Fail,
    LineOf,
    Scenario,
    ScriptedEpochJob,
    ScriptedGang,
)
from gangviz.workloads.scenario_types import line_of as _line_of


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: object) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def parse_family(model: str, data: dict[str, Any], text: str, where: str, fail: Fail) -> Scenario:
    """Return the :class:`Scenario` of a ``multisite`` or ``epoch`` file.

    ``fail(line, problem)`` builds the :class:`ScenarioError`. Raises it for a bad value of any
    family key (with its line), an unknown policy, or an empty gang list / workload.
    """

    def line(key: str, start: int = 1) -> int:
        return _line_of(text, rf"^\s*{re.escape(key)}\s*=", start)

    policy = data.get("policy")
    if policy is not None and not isinstance(policy, str):
        raise fail(line("policy"), "policy must be a name such as \"AFCFSwM\" or \"BUDDY\"")
    procs = data.get("processors")
    if not _is_int(procs) or procs < 1:
        raise fail(line("processors"), f"processors must be a whole number >= 1, got {quoted(procs)}")
    try:
        check_processors(procs, "the key 'processors'")
    except LimitError as exc:
        raise fail(line("processors"), str(exc)) from None
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise fail(_line_of(text, r"^\s*\[expect\]"), "[expect] must be a table")
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise fail(_line_of(text, r"^\s*\[params\]|^\s*params\s*="), "[params] must be a table")
    sc = Scenario(path=where, title=printable(str(data.get("title", Path(where).stem))),
                  explanation=str(data.get("explanation", "")), processors=procs, ring=False,
                  allocation="contiguous", policy=policy, matrix=OusterhoutMatrix(procs),
                  jobs=[], script=[], expect=expect, params=params, model=model,
                  lines={"policy": line("policy")})
    if model == "multisite":
        return _multisite(sc, data, text, fail, line)
    return _epoch(sc, data, text, fail, line)


def _multisite(sc: Scenario, data: dict[str, Any], text: str, fail: Fail,
              line: LineOf) -> Scenario:
    known = registry.names(registry.MULTISITE)
    if sc.policy is not None and sc.policy.lower() not in (n.lower() for n in known):
        raise fail(line("policy"), f"multisite policy must be one of {', '.join(known)}, "
                   f"got {quoted(sc.policy)}")
    sites = data.get("sites", 2)
    if not _is_int(sites) or not 1 <= sites <= 64:
        raise fail(line("sites"), f"sites must be a whole number in 1..64, got {quoted(sites)}")
    params_line = _line_of(text, r"^\s*\[params\]")
    sc.lines["params"] = params_line
    for key in sc.params:  # names and values are checked against the configuration upstairs
        sc.lines[f"param.{key}"] = line(key, params_line)
    out: list[ScriptedGang] = []
    last = 0.0
    for i, (g, gline) in enumerate(_entries(data, text, "gangs", "a multisite", fail)):
        gang = _gang(g, i, last, sc.processors, sites, gline, fail, line)
        last = gang.at
        out.append(gang)
    sc.sites, sc.gangs = sites, out
    return sc


def _entries(data: dict[str, Any], text: str, key: str, family: str,
             fail: Fail) -> list[tuple[Any, int]]:
    """Return each entry of the array of tables ``[[key]]`` with the line it starts on; raise
    ``fail(line, ...)`` when it is missing or empty (``family``: "a multisite", ...)."""
    entries = data.get(key)
    if not isinstance(entries, list) or not entries:
        raise fail(_line_of(text, rf"^\s*\[\[{key}\]\]|^\s*{key}\s*="),
                   f"{family} scenario needs at least one [[{key}]] entry")
    out = []
    search = 1
    for entry in entries:
        at = _line_of(text, rf"^\s*\[\[{key}\]\]", search)
        search = at + 1
        out.append((entry, at))
    return out


def _epoch(sc: Scenario, data: dict[str, Any], text: str, fail: Fail,
           line: LineOf) -> Scenario:
    out: list[ScriptedEpochJob] = [
        _epoch_job(job, f"J{i + 1}", sc.processors, jline, fail, line)
        for i, (job, jline) in enumerate(_entries(data, text, "workload", "an epoch", fail))]
    in_system = data.get("in_system", len(out))
    if not _is_int(in_system) or not 1 <= in_system <= len(out):
        raise fail(line("in_system"), f"in_system must be a whole number in 1..{len(out)} "
                   f"(the jobs listed), got {quoted(in_system)}")
    static = data.get("static", False)
    if not isinstance(static, bool):
        raise fail(line("static"), "static must be true or false")
    quantum = data.get("quantum", 10.0)
    if not _is_num(quantum) or quantum <= 0:
        raise fail(line("quantum"), f"quantum must be a number > 0, got {quoted(quantum)}")
    longest = max(j.work for j in out)
    if longest / quantum > MAX_SLICES:
        raise fail(line("quantum"), f"quantum {quantum:g} is too short: the longest job needs "
                   f"{longest / quantum:.4g} quanta, over the limit of {MAX_SLICES:.4g} (2**40)")
    sc.lines["in_system"] = line("in_system")
    sc.workload, sc.in_system, sc.static, sc.quantum = out, in_system, static, float(quantum)
    return sc


def _gang(g: Any, i: int, last: float, procs: int, sites: int, gline: int, fail: Fail, line: LineOf) -> ScriptedGang:
    """Return gang ``G<i>`` of a ``[[gangs]]`` entry (starting on line ``gline``), arriving no
    earlier than ``last``; raise ``fail(...)`` for an unknown key or a value out of range."""
    if not isinstance(g, dict):
        raise fail(gline, "each [[gangs]] entry must be a table")
    for key in g:
        if key not in GANG_KEYS:
            raise fail(line(key, gline), f"unknown gang key {quoted(key)} (known: {', '.join(sorted(GANG_KEYS))})")
    at, size, site, service = g.get("at"), g.get("size"), g.get("site", 1), g.get("service")
    if not _is_num(at) or at < 0 or at > MAX_SLICES:
        raise fail(line("at", gline), f"gang G{i}: 'at' must be a number >= 0 and at most {MAX_SLICES:.4g} (2**40), got {quoted(at)}")
    if at < last:
        raise fail(line("at", gline), f"gang G{i}: gangs must be listed in arrival order "
                   f"(at = {at:g} comes after {last:g})")
    if not _is_int(size) or not 1 <= size <= procs:
        raise fail(line("size", gline), f"gang G{i}: size must be a whole number in 1..{procs}, got {quoted(size)}")
    if not _is_int(site) or not 1 <= site <= sites:
        raise fail(line("site", gline), f"gang G{i}: site must be a whole number in 1..{sites}, got {quoted(site)}")
    if not _is_num(service) or service <= 0 or service > MAX_SLICES:
        raise fail(line("service", gline), f"gang G{i}: service must be a number > 0 and at most "
                   f"{MAX_SLICES:.4g} (2**40), got {quoted(service)}")
    return ScriptedGang(float(at), size, site - 1, float(service))


def _epoch_job(job: Any, name: str, procs: int, jline: int, fail: Fail, line: LineOf) -> ScriptedEpochJob:
    """Return job ``name`` of a ``[[workload]]`` entry (starting on line ``jline``); raise
    ``fail(...)`` for an unknown key or a value out of range."""
    if not isinstance(job, dict):
        raise fail(jline, "each [[workload]] entry must be a table")
    for key in job:
        if key not in WORKLOAD_KEYS:
            raise fail(line(key, jline), f"unknown workload key {quoted(key)} (known: {', '.join(sorted(WORKLOAD_KEYS))})")
    mins, work, beta = job.get("min"), job.get("work"), job.get("beta", 100.0)
    if not _is_int(mins) or not 1 <= mins <= procs:
        raise fail(line("min", jline), f"job {name}: min must be a whole number in 1..{procs}, got {quoted(mins)}")
    if not _is_num(work) or work <= 0 or work > MAX_SLICES:
        raise fail(line("work", jline), f"job {name}: work must be a number > 0 and at most "
                   f"{MAX_SLICES:.4g} (2**40), got {quoted(work)}")
    if not _is_num(beta) or beta <= 0:
        raise fail(line("beta", jline), f"job {name}: beta must be a number > 0, got {quoted(beta)}")
    return ScriptedEpochJob(mins, float(work), float(beta))
