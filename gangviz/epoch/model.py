"""The memory-constrained scheduling model: one quantum's N x 1 rectangle, cut into pieces.

McCann & Zahorjan, McCann94 §2.3: N nodes, J jobs, minimum node requirements
M_j; every job runs once per scheduling quantum T (the unit of time, T = 1 here) and keeps its
allocation for the whole time it runs in the quantum (Fig. 2(b)). A schedule therefore gives each
job one *piece*: a width A_j (nodes) for a time interval inside [0, 1). Pieces partition the
rectangle.

Costs (§2.3, §5.1): the *overhead* of a schedule is sum_j A_j (node reallocations per quantum);
the *normalised overhead* is that divided by N, the average number of reallocations one node
experiences per quantum. For an epoch schedule it equals the number of epochs.

Reading chosen where the paper is silent: pieces are drawn on contiguous node ranges (as in
Fig. 3 and 6). The paper only decides *how many* nodes a job gets (§2.1), so contiguity is a
presentation choice; every policy here produces contiguous pieces anyway.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any


def is_power_of_two(x: int) -> bool:
    """Return True when ``x`` is 1, 2, 4, 8, ..."""
    return x >= 1 and x & (x - 1) == 0


def next_power_of_two(x: int) -> int:
    """Return the smallest power of two >= ``x`` (``x >= 1``)."""
    return 1 << (max(1, x) - 1).bit_length()


@lru_cache(maxsize=4096)
def exact_fraction(numerator: int, denominator: int) -> Fraction:
    """Return ``Fraction(numerator, denominator)`` (``denominator`` > 0), remembered.

    The policies' piece times repeat from schedule to schedule (a few values such as c/J or
    h/2^x per quantum), and building a Fraction normalises with a gcd each time. Raises
    ``ZeroDivisionError`` for a zero denominator.
    """
    return Fraction(numerator, denominator)


@dataclass(frozen=True, slots=True)
class Piece:
    """Job ``job`` runs on nodes ``[node, node + width)`` during ``[start, end)`` of the quantum.

    ``start`` and ``end`` are exact fractions of the quantum (0 <= start < end <= 1).
    """

    job: int
    node: int
    width: int
    start: Fraction
    end: Fraction

    @property
    def duration(self) -> Fraction:
        """Return ``end - start`` (fraction of the quantum)."""
        return self.end - self.start

    @property
    def area(self) -> Fraction:
        """Return width x duration, the node-quanta the job receives."""
        return self.width * (self.end - self.start)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (fractions as strings such as ``"1/4"``)."""
        return {"job": self.job, "node": self.node, "width": self.width,
                "start": str(self.start), "end": str(self.end)}


@dataclass(frozen=True, slots=True)
class Schedule:
    """One quantum of a policy's schedule.

    Attributes:
        nodes: N.
        pieces: one piece per job, in the order the policy made them.
        policy: the policy's display name, e.g. ``"OPT-EPOCH(1)"``.
        epochs: for epoch policies, the job ids of each epoch in time order; empty otherwise.
    """

    nodes: int
    pieces: tuple[Piece, ...]
    policy: str = ""
    epochs: tuple[tuple[int, ...], ...] = ()

    @property
    def overhead(self) -> int:
        """Return sum_j A_j, the node reallocations per quantum (§2.3)."""
        return sum(p.width for p in self.pieces)

    @property
    def normalized_overhead(self) -> Fraction:
        """Return overhead / N, reallocations per node per quantum (§5.1)."""
        return Fraction(self.overhead, self.nodes)

    @property
    def jobs(self) -> tuple[int, ...]:
        """Return the job ids in piece order."""
        return tuple(p.job for p in self.pieces)

    def allocation(self) -> dict[int, int]:
        """Return job id -> A_j (width of its piece)."""
        return {p.job: p.width for p in self.pieces}

    def piece_of(self, job: int) -> Piece:
        """Return the piece of ``job``; raise ``KeyError`` when the job is not scheduled."""
        for p in self.pieces:
            if p.job == job:
                return p
        raise KeyError(job)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict."""
        return {"nodes": self.nodes, "policy": self.policy,
                "pieces": [p.to_dict() for p in self.pieces],
                "epochs": [list(e) for e in self.epochs]}


def normalize_mins(mins: Sequence[int] | Mapping[int, int], nodes: int) -> dict[int, int]:
    """Return ``{job id: M_j}`` from a sequence (ids 0..J-1) or a mapping.

    Raises ``ValueError`` when N < 1, there are no jobs, or some M_j is outside 1..N (the paper's
    requirement that a job fits the machine, §2.3).
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise ValueError(f"number of nodes N must be an integer >= 1, got {nodes!r}")
    table = dict(mins) if isinstance(mins, Mapping) else dict(enumerate(mins))
    if not table:
        raise ValueError("at least one job is needed (J >= 1)")
    for job, m in table.items():
        if type(m) is int and 1 <= m <= nodes:  # the common case, without the checks below
            continue
        if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= nodes:
            raise ValueError(f"job {job}: minimum node requirement M must be in 1..{nodes} "
                             f"(N), got {m!r}")
    return table


def check_schedule(schedule: Schedule, mins: Mapping[int, int] | Sequence[int],
                   equal: bool = False) -> None:
    """Check that ``schedule`` is a valid schedule of the jobs ``mins`` on its N nodes.

    Valid means: exactly one piece per job, A_j >= M_j, pieces inside the N x 1 rectangle, no two
    pieces overlap, and together they cover the rectangle. With ``equal`` every job must also get
    area N / J (the paper's equal allocation, §2.3). Raises ``ValueError`` naming the first fault.
    """
    table = dict(mins) if isinstance(mins, Mapping) else dict(enumerate(mins))
    n = schedule.nodes
    seen = [p.job for p in schedule.pieces]
    if sorted(seen) != sorted(table):
        raise ValueError(f"schedule covers jobs {sorted(seen)}, expected {sorted(table)}")
    share = Fraction(n, len(table))
    for p in schedule.pieces:
        if p.width < table[p.job]:
            raise ValueError(f"job {p.job}: width {p.width} < M = {table[p.job]}")
        if p.node < 0 or p.node + p.width > n or p.start < 0 or p.end > 1 or p.end <= p.start:
            raise ValueError(f"job {p.job}: piece {p} leaves the {n} x 1 rectangle")
        if equal and p.area != share:
            raise ValueError(f"job {p.job}: area {p.area} != N/J = {share}")
    ps = schedule.pieces
    for i, a in enumerate(ps):
        for b in ps[i + 1:]:
            if (a.node < b.node + b.width and b.node < a.node + a.width
                    and a.start < b.end and b.start < a.end):
                raise ValueError(f"pieces of jobs {a.job} and {b.job} overlap")
    total = sum((p.area for p in ps), Fraction(0))
    if total != n:
        raise ValueError(f"pieces cover area {total}, not the whole rectangle {n}")
