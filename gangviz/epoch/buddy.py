"""BUDDY and its extensions BUDDY* and HYBRID(k).

McCann94 §3. BUDDY needs N = 2^n and J = 2^j; every job gets area N/J as one
piece of power-of-two width. It fills the rectangle bottom-up, jobs in non-increasing M (ties by
job id), always above the *min-seg*: the non-full frontier segment whose height C/2^x (C odd)
has the largest x (ties: the leftmost segment). By Lemma 1 a piece above a segment of height
C/2^x has height <= 1/2^x, i.e. width >= (N/J) 2^x; the job's width is the larger of that forced
width and the smallest power of two >= M_j (the paper's text says "minimum" and writes
2^(n-j-x), but its own example, Fig. 3(b), allocates 8 to a job with M = 3 because the min-seg
forces 8, so the forced width is a lower bound: 2^(n-j+x)). The piece is aligned with the
min-seg's left edge.

BUDDY* (§3.2) splits the jobs, smallest M first, into subsets whose sizes are the powers of two
of J's binary representation in decreasing order, schedules each subset with BUDDY and stacks
the schedules in time (largest subset at the bottom), each rescaled to (subset size)/J of the
quantum. HYBRID(k) schedules the 2^floor(log2 J) smallest jobs with BUDDY and the rest with
HEURISTIC-EPOCH(k), the BUDDY part first. Both equal BUDDY when J is a power of two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from gangviz.epoch.epochs import check_k, check_spread, epochs_to_schedule, heuristic_epoch_epochs
from gangviz.epoch.model import (
    Piece,
    Schedule,
    exact_fraction,
    is_power_of_two,
    normalize_mins,
)


def _require_pow2_nodes(nodes: int, policy: str) -> None:
    if not is_power_of_two(nodes):
        raise ValueError(f"{policy} needs the number of nodes N to be a power of two, got "
                         f"N = {nodes}; use EQUI-EPOCH, OPT-EPOCH(k) or HEURISTIC-EPOCH(k)")


def buddy_pieces(nodes: int, table: Mapping[int, int], start: Fraction = Fraction(0),
                 length: Fraction = Fraction(1), trace: list[Any] | None = None) -> list[Piece]:
    """Return BUDDY's pieces for ``table`` (job -> M) placed in [start, start + length).

    ``trace``, when given, receives one ``(left, right, height)`` per piece, in placement order:
    the min-seg the piece is placed above (the construction of Fig. 3(b), step by step; height
    a Fraction of the window).
    Assumes N and len(table) are powers of two (checked by the callers). Raises
    ``RuntimeError`` if a piece does not fit its min-seg, which Theorem 1's argument rules out.

    Exact integer arithmetic: every height is a multiple of 1 / (J N) of the window. A piece's
    height is (N / J) / width, width a power of two <= N, so in units of 1 / (J N) it is the
    integer N^2 / width; frontier heights are sums of these. J N is a power of two, so the min-seg
    exponent x (height C / 2^x in lowest terms, [McCann94 §3]) is read from the trailing zero
    bits of the integer height. Only the pieces' times become Fractions.
    """
    jobs = len(table)
    scale_bits = (jobs * nodes).bit_length() - 1  # the window is 2^scale_bits units high
    top = 1 << scale_bits
    square = nodes * nodes
    # the piece times start + length * h / top as fractions over one denominator
    den = start.denominator * length.denominator * top
    base = start.numerator * length.denominator * top
    step = length.numerator * start.denominator
    # frontier: [left, right, height] segments covering 0..N, heights in units above
    frontier: list[list[int]] = [[0, nodes, 0]]
    pieces: list[Piece] = []
    for job in sorted(table, key=lambda j: (-table[j], j)):
        # the min-seg: the open segment of largest exponent x (height h / 2^scale_bits =
        # C / 2^x, so x = scale_bits - trailing zero bits of h; 0 for h = 0), the leftmost
        # of equal ones
        i, best = -1, -1
        for n, s in enumerate(frontier):
            h = s[2]
            if h < top:
                x = scale_bits + 1 - (h & -h).bit_length() if h else 0
                if x > best:
                    i, best = n, x
        # the pieces' areas sum to the window, so a segment is open until the last piece
        seg = frontier[i]
        left, right, height = seg
        if trace is not None:
            trace.append((left, right, Fraction(height, top)))
        # the width Lemma 1 forces, (N / J) 2^x, is a power of two, below 1 only when J > N
        forced = (nodes << best) // jobs
        width = max(1 << (table[job] - 1).bit_length(), forced)  # M_j >= 1 rounded up to 2^m
        if width > right - left or height + square // width > top:
            raise RuntimeError(f"BUDDY: job {job} (width {width}) does not fit min-seg "
                               f"[{left}, {right}, {Fraction(height, top)}]")
        new_height = height + square // width
        pieces.append(Piece(job, left, width, exact_fraction(base + step * height, den),
                            exact_fraction(base + step * new_height, den)))
        # raise [left, left + width) to new_height; the frontier has no two neighbours of equal
        # height, so only the raised segment can join a neighbour (the rest of the min-seg keeps
        # its height, which differs from new_height and from its right neighbour's)
        if left + width < right:
            seg[0] = left + width
            frontier.insert(i, [left, left + width, new_height])
        else:
            seg[2] = new_height
            if i + 1 < len(frontier) and frontier[i + 1][2] == new_height:
                seg[1] = frontier.pop(i + 1)[1]
        if i > 0 and frontier[i - 1][2] == new_height:
            frontier[i - 1][1] = frontier.pop(i)[1]
    return pieces


def buddy(nodes: int, mins: Sequence[int] | Mapping[int, int]) -> Schedule:
    """Return the BUDDY schedule (§3).

    Raises ``ValueError`` unless N and J are powers of two (Table 2), or for bad minima.
    """
    table = normalize_mins(mins, nodes)
    _require_pow2_nodes(nodes, "BUDDY")
    if not is_power_of_two(len(table)):
        raise ValueError(f"BUDDY needs the number of jobs J to be a power of two, got "
                         f"J = {len(table)}; use BUDDY* or HYBRID(k)")
    return Schedule(nodes, tuple(buddy_pieces(nodes, table)), "BUDDY")


def binary_subsets(jobs: int) -> list[int]:
    """Return the powers of two summing to ``jobs``, largest first (7 -> [4, 2, 1])."""
    return [1 << b for b in range(jobs.bit_length() - 1, -1, -1) if jobs >> b & 1]


def buddy_star(nodes: int, mins: Sequence[int] | Mapping[int, int]) -> Schedule:
    """Return the BUDDY* schedule (§3.2, Fig. 5).

    Raises ``ValueError`` unless N is a power of two (Table 2), or for bad minima.
    """
    table = normalize_mins(mins, nodes)
    _require_pow2_nodes(nodes, "BUDDY*")
    order = sorted(table, key=lambda j: (table[j], j))
    total = len(order)
    pieces: list[Piece] = []
    t = Fraction(0)
    for size in binary_subsets(total):
        part, order = order[:size], order[size:]
        length = Fraction(size, total)
        pieces += buddy_pieces(nodes, {j: table[j] for j in part}, t, length)
        t += length
    return Schedule(nodes, tuple(pieces), "BUDDY*")


def hybrid(nodes: int, mins: Sequence[int] | Mapping[int, int], k: int = 1,
           spread: str = "shares") -> Schedule:
    """Return the HYBRID(k) schedule: BUDDY then HEURISTIC-EPOCH(k) (§3.2, §4.4).

    ``spread`` is HEURISTIC-EPOCH(k)'s rule for an epoch's free nodes
    (:func:`gangviz.epoch.epochs.heuristic_epoch_epochs`). Raises ``ValueError`` unless N is a
    power of two and k >= 1, for an unknown ``spread``, or for bad minima.
    """
    table = normalize_mins(mins, nodes)
    _require_pow2_nodes(nodes, "HYBRID(k)")
    check_k(k, 1, "HYBRID(k)")
    check_spread(spread)
    order = sorted(table, key=lambda j: (table[j], j))
    total = len(order)
    power = binary_subsets(total)[0]
    head, tail = order[:power], order[power:]
    length = Fraction(power, total)
    pieces = buddy_pieces(nodes, {j: table[j] for j in head}, Fraction(0), length)
    epochs: tuple[Any, ...] = ()
    if tail:
        rest = epochs_to_schedule(heuristic_epoch_epochs(nodes, {j: table[j] for j in tail}, k,
                                                         spread),
                                  nodes, "", length, 1 - length)
        pieces += list(rest.pieces)
        epochs = rest.epochs
    return Schedule(nodes, tuple(pieces), f"HYBRID({k})", epochs)
