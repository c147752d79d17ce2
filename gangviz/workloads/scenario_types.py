"""The types of a loaded scenario file, shared by the matrix format
(:mod:`gangviz.workloads.scenario`) and the other families' formats
(:mod:`gangviz.workloads.scenario_families`), which both build a :class:`Scenario`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from gangviz.core.jobs import JobSpec, ScriptEvent
from gangviz.core.matrix import OusterhoutMatrix

#: The keys of a multi-site ``[[gangs]]`` entry and of an epoch ``[[workload]]`` entry.
GANG_KEYS = {"at", "size", "site", "service"}
WORKLOAD_KEYS = {"min", "work", "beta"}


class ScenarioError(ValueError):
    """A scenario file is malformed; the message names the file, the line and the problem."""


#: ``fail(line, problem)`` builds the :class:`ScenarioError` of the file being read (the parsers
#: raise what it returns).
Fail = Callable[[int, str], ScenarioError]


class LineOf(Protocol):
    """``line(key, start)``: the line of the file that sets ``key``, searching from ``start``."""

    def __call__(self, key: str, start: int = 1) -> int: ...


@dataclass(frozen=True)
class ScriptedGang:
    """One gang of a multi-site scenario: arrival time, size, site (0-based) and service time."""

    at: float
    size: int
    site: int
    service: float


@dataclass(frozen=True)
class ScriptedEpochJob:
    """One job of an epoch scenario's sequence: minimum nodes, work and speedup parameter beta."""

    min_nodes: int
    work: float
    beta: float


@dataclass
class Scenario:
    """A loaded scenario: everything needed to start a simulation of it.

    ``model`` says which family it belongs to; ``matrix``/``jobs``/``script`` serve the matrix
    family, ``sites``/``gangs``/``params`` the multi-site one and ``workload``/``in_system``/
    ``static``/``quantum`` the epoch one. For the other families ``matrix`` is an empty matrix
    and ``jobs``/``script`` are empty.
    """

    path: str
    title: str
    explanation: str
    processors: int
    ring: bool
    allocation: str
    policy: str | None
    matrix: OusterhoutMatrix
    jobs: list[JobSpec]
    script: list[ScriptEvent]
    expect: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    model: str = "matrix"
    guided: bool = False
    sites: int = 1
    gangs: list[ScriptedGang] = field(default_factory=list)
    workload: list[ScriptedEpochJob] = field(default_factory=list)
    in_system: int = 0
    static: bool = False
    quantum: float = 10.0
    #: where the policy-dependent values are written (``policy``, ``params.NAME``, ``param.KEY``,
    #: ``in_system``), for the messages of the checks made where the policies are known
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)


def line_of(text: str, pattern: str, start: int = 0) -> int:
    """1-based line of the first match of ``pattern`` at or after line ``start`` (1 if none)."""
    lines = text.splitlines()
    rx = re.compile(pattern)
    for i in range(max(start - 1, 0), len(lines)):
        if rx.search(lines[i]):
            return i + 1
    return 1
