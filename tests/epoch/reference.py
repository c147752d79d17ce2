"""The epoch model's exact arithmetic as first written, with Fractions throughout: the reference
the integer versions of :mod:`gangviz.epoch` are tested equal to (pieces, traces and floats)."""

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, cast

from gangviz.epoch.model import Piece, Schedule, next_power_of_two
from gangviz.epoch.records import Served
from gangviz.epoch.sim import EpochSimulation, _reach
from gangviz.epoch.speedup import s_dynamic, s_static


def _cum(u: float, a: float, b: float) -> float:
    """The running time of a piece [a, b) over quantum time [0, u], as first written (the
    builtins ``min`` and ``max``)."""
    q = math.floor(u)
    return q * (b - a) + min(max(u - q - a, 0.0), b - a)


def _exponent(height: Fraction) -> int:
    return height.denominator.bit_length() - 1


def buddy_pieces(nodes: int, table: Mapping[int, int], start: Fraction = Fraction(0),
                 length: Fraction = Fraction(1), trace: list[Any] | None = None) -> list[Piece]:
    """BUDDY's pieces with Fraction heights and a max() over the open segments."""
    jobs = len(table)
    share = Fraction(nodes, jobs)
    frontier: list[list[Any]] = [[0, nodes, Fraction(0)]]
    pieces: list[Piece] = []
    for job in sorted(table, key=lambda j: (-table[j], j)):
        open_segs = [s for s in frontier if s[2] < 1]
        seg = max(open_segs, key=lambda s: (_exponent(s[2]), -s[0]))
        if trace is not None:
            trace.append((seg[0], seg[1], seg[2]))
        forced = share * (1 << _exponent(seg[2]))
        width = int(cast(Fraction, max(next_power_of_two(table[job]), forced)))
        height = share / width
        if width > seg[1] - seg[0] or seg[2] + height > 1:
            raise RuntimeError(f"BUDDY: job {job} (width {width}) does not fit min-seg {seg}")
        pieces.append(Piece(job, seg[0], width, start + seg[2] * length,
                            start + (seg[2] + height) * length))
        i = frontier.index(seg)
        new = [[seg[0], seg[0] + width, seg[2] + height]]
        if seg[0] + width < seg[1]:
            new.append([seg[0] + width, seg[1], seg[2]])
        frontier[i:i + 1] = new
        merged: list[list[Any]] = []
        for s in frontier:
            if merged and merged[-1][2] == s[2]:
                merged[-1][1] = s[1]
            else:
                merged.append(s)
        frontier = merged
    return pieces


def epochs_to_schedule(epochs: Sequence[list[tuple[int, int]]], nodes: int, policy: str,
                       start: Fraction = Fraction(0), length: Fraction = Fraction(1)) -> Schedule:
    """The epochs laid out by adding Fraction durations one epoch at a time."""
    total = sum(len(e) for e in epochs)
    pieces: list[Piece] = []
    t = start
    for e in epochs:
        if sum(w for _, w in e) != nodes:
            raise ValueError(f"epoch {e} does not use exactly {nodes} nodes")
        dur = length * Fraction(len(e), total)
        node = 0
        for job, w in sorted(e, key=lambda jw: -jw[1]):
            pieces.append(Piece(job, node, w, t, t + dur))
            node += w
        t += dur
    return Schedule(nodes, tuple(pieces), policy, tuple(tuple(j for j, _ in e) for e in epochs))


class ReferenceSimulation(EpochSimulation):
    """The closed system with float(Fraction) rates and _cum called per job, as first written."""

    def _rates(self) -> dict[int, tuple[float, float, float]]:
        sched = self.state.schedule
        if self._rate_cache[0] is not sched:
            rates = {}
            for p in sched.pieces if sched else ():
                beta = self.state.jobs[p.job].beta
                s = (s_static(p.width, beta, self.nodes) if self.static
                     else s_dynamic(p.width, beta))
                rates[p.job] = (float(p.start), float(p.end), s * self.quantum)
            self._rate_cache = (sched, rates)
        return self._rate_cache[1]

    def _compute_next_completion(self) -> tuple[float, int] | None:
        u0 = self.state.time / self.quantum
        best: tuple[float, int] | None = None
        for job, (a, b, rate) in self._rates().items():
            need = self.state.jobs[job].remaining / rate
            u = _reach(_cum(u0, a, b) + need, a, b) if need > 0 else u0
            cand = (max(u, u0) * self.quantum, job)
            if best is None or cand < best:
                best = cand
        return best

    def _served_until(self, t: float, done: int) -> Served:
        u0, u1 = self.state.time / self.quantum, t / self.quantum
        before, after = [], []
        for job, (a, b, rate) in sorted(self._rates().items()):
            rem = self.state.jobs[job].remaining
            new = 0.0 if job == done else max(0.0, rem - rate * (_cum(u1, a, b) - _cum(u0, a, b)))
            before.append((job, rem))
            after.append((job, new))
        return Served(self.state.time, t, tuple(before), tuple(after))


def load_largest(parts: tuple[int, ...], rest: tuple[int, ...]) -> tuple[int, ...] | None:
    """OPT-EPOCH's loading rule as first written: each part scans ``rest`` for the first unused
    job that fits it."""
    used = [False] * len(rest)
    chosen = []
    for p in parts:
        for i, m in enumerate(rest):
            if not used[i] and m <= p:
                used[i] = True
                chosen.append(i)
                break
        else:
            return None
    return tuple(chosen)
