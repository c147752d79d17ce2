"""Epoch policies: EQUI-EPOCH, OPT-EPOCH(k), HEURISTIC-EPOCH(k).

McCann94 §4: all N nodes are reallocated at each epoch boundary, so the
overhead is N x (number of epochs) and an optimal epoch schedule is one with the fewest epochs.
Within an epoch the widths of any two jobs differ by at most the inequity k (§4.2).

Choices where the paper is silent (all documented in the functions):

* Epoch durations are proportional to the number of jobs in the epoch (stated for EQUI-EPOCH in
  §4.1 and used for every epoch policy), so a job in an epoch of c jobs gets c/J of the quantum.
* Jobs of equal M are ordered by job id (smaller id first) in every sort.
* Within an epoch, pieces are laid out left to right in decreasing width, ties by the policy's
  job order; epochs are stacked bottom (t = 0) to top in the order the policy formed them.
* Widths inside an OPT-EPOCH(k) epoch are the most even ones the minima allow ("water
  filling": raise the smallest widths first; a tie goes to the job listed first).
* HEURISTIC-EPOCH(k) hands out an epoch's unallocated nodes in equal shares (§4.3, "distributed
  as evenly as possible among the jobs in the epoch, with any excess allocated to jobs with the
  smallest total allocation"); water filling is the other reading (``spread="level"``). See
  :func:`heuristic_epoch_epochs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from operator import itemgetter
from typing import Any

from gangviz.epoch.model import Piece, Schedule, exact_fraction, normalize_mins
from gangviz.epoch.partitions import partitions_with_parts

Epoch = list[tuple[int, int]]  # (job id, width) pairs of one epoch


def _free_nodes(base: Sequence[int], total: int) -> tuple[list[int], int]:
    """Return the widths as a list and the nodes ``total`` leaves free beyond them; raise
    ``ValueError`` when they exceed ``total``."""
    widths = list(base)
    extra = total - sum(widths)
    if extra < 0:
        raise ValueError(f"widths {widths} exceed {total} nodes")
    return widths, extra


def water_fill(base: Sequence[int], total: int) -> list[int]:
    """Return widths >= ``base`` summing to ``total``, as even as possible.

    Extra nodes go one at a time to the job with the smallest width so far; a tie goes to the
    earliest position. Raises ``ValueError`` when ``sum(base) > total``.
    """
    widths, extra = _free_nodes(base, total)
    if not widths:
        return widths
    order = sorted(range(len(widths)), key=lambda i: (widths[i], i))
    # raise the lowest group to the next level until the extra nodes run out
    level = widths[order[0]]
    count = 1
    while extra > 0:
        while count < len(order) and widths[order[count]] <= level:
            count += 1
        nxt = widths[order[count]] if count < len(order) else None
        step = extra // count if nxt is None else min(extra // count, nxt - level)
        if step == 0:
            for i in sorted(order[:count])[:extra]:
                widths[i] = level + 1
            for i in order[:count]:
                widths[i] = max(widths[i], level)
            extra = 0
            break
        level += step
        extra -= step * count
        for i in order[:count]:
            widths[i] = level
    return widths


def share_out(base: Sequence[int], total: int) -> list[int]:
    """Return ``base`` plus equal shares of the ``total - sum(base)`` free nodes.

    Each width gets ``free // h`` more nodes (h = number of widths); the ``free % h`` nodes left
    over (the "excess") go one each to the widths that are then smallest, a tie to the earliest
    position. The differences between widths are kept, except that the excess narrows them by
    at most one (the §4.3 reading of HEURISTIC-EPOCH(k); :func:`water_fill` is the other one).
    Raises ``ValueError`` when ``sum(base) > total``.
    """
    widths, extra = _free_nodes(base, total)
    if not widths:
        return widths
    share, excess = divmod(extra, len(widths))
    widths = [w + share for w in widths]
    for i in sorted(range(len(widths)), key=lambda i: (widths[i], i))[:excess]:
        widths[i] += 1
    return widths


SPREADS = {"shares": share_out, "level": water_fill}


def check_spread(spread: str) -> None:
    """Raise ``ValueError`` unless ``spread`` names a rule of :data:`SPREADS`."""
    if spread not in SPREADS:
        raise ValueError(f"spread must be one of {', '.join(map(repr, SPREADS))}, got {spread!r}")


def epoch_widths(mins_desc: Sequence[int], nodes: int, k: int) -> list[int] | None:
    """Return the most even widths for one epoch of these jobs, or None if none exist.

    ``mins_desc`` lists the jobs' M in the epoch's order. The water-filled widths minimise the
    largest and maximise the smallest width at once, so the jobs fit one epoch of inequity <= k
    exactly when these widths differ by at most k.
    """
    if sum(mins_desc) > nodes or not mins_desc:
        return None
    widths = water_fill(mins_desc, nodes)
    return widths if max(widths) - min(widths) <= k else None


_width = itemgetter(1)  # of a (job, width) pair


def epochs_to_schedule(epochs: Sequence[Epoch], nodes: int, policy: str,
                       start: Fraction = Fraction(0), length: Fraction = Fraction(1),
                       ) -> Schedule:
    """Lay out ``epochs`` in the time window [start, start + length) of one quantum.

    Each epoch lasts ``length x (its jobs) / (all jobs)``; pieces go left to right in decreasing
    width (ties keep the epoch's order). Raises ``ValueError`` when an epoch's widths do not sum
    to N.
    """
    total = sum(len(e) for e in epochs)
    pieces: list[Piece] = []
    # the boundary after c of the total jobs is start + length c / total: one exact fraction per
    # boundary, shared by the epoch's pieces (equal to summing the durations one by one)
    den = start.denominator * length.denominator * total
    base = start.numerator * length.denominator * total
    step = length.numerator * start.denominator
    t, done = start, 0
    for e in epochs:
        done += len(e)
        end = exact_fraction(base + step * done, den)
        node = 0
        # widest first; a reverse sort keeps equal widths in the epoch's order (it is stable)
        for job, w in sorted(e, key=_width, reverse=True):
            pieces.append(Piece(job, node, w, t, end))
            node += w
        if node != nodes:
            raise ValueError(f"epoch {e} does not use exactly {nodes} nodes")
        t = end
    return Schedule(nodes, tuple(pieces), policy, tuple([tuple([j for j, _ in e]) for e in epochs]))


def _ascending(table: Mapping[int, int]) -> list[int]:
    return sorted(table, key=lambda j: (table[j], j))


def _descending(table: Mapping[int, int]) -> list[int]:
    return sorted(table, key=lambda j: (-table[j], j))


def equi_epoch_epochs(nodes: int, mins: Sequence[int] | Mapping[int, int],
                      order: str = "ascending") -> list[Epoch]:
    """Return EQUI-EPOCH's epochs (§4.1).

    Jobs are taken in non-decreasing M (``order="ascending"``, the paper's policy) and each epoch
    takes as many of the next jobs as can share the N nodes exactly equally: the largest c with
    c | N and N / c >= M of every job taken. ``order="descending"`` is the non-optimal greedy of
    §4.1.3 (Fig. 8), which starts from the largest jobs. Raises ``ValueError`` for bad input.
    """
    table = normalize_mins(mins, nodes)
    if order not in ("ascending", "descending"):
        raise ValueError(f"order must be 'ascending' or 'descending', got {order!r}")
    rest = _ascending(table) if order == "ascending" else _descending(table)
    epochs: list[Epoch] = []
    while rest:
        for c in range(min(len(rest), nodes), 0, -1):
            if nodes % c:
                continue
            biggest = table[rest[c - 1]] if order == "ascending" else table[rest[0]]
            if nodes // c >= biggest:
                epochs.append([(j, nodes // c) for j in rest[:c]])
                rest = rest[c:]
                break
    return epochs


def equi_epoch(nodes: int, mins: Sequence[int] | Mapping[int, int],
               order: str = "ascending") -> Schedule:
    """Return the EQUI-EPOCH schedule (§4.1); see :func:`equi_epoch_epochs`."""
    name = "EQUI-EPOCH" if order == "ascending" else "GREEDY-LARGEST-EPOCH"
    return epochs_to_schedule(equi_epoch_epochs(nodes, mins, order), nodes, name)


def check_k(k: int, low: int, policy: str) -> None:
    """Raise ``ValueError`` unless ``k`` is an integer >= ``low``."""
    if isinstance(k, bool) or not isinstance(k, int) or k < low:
        hint = " (k = 0 is EQUI-EPOCH)" if low == 1 else ""
        raise ValueError(f"{policy}: inequity k must be an integer >= {low}{hint}, got {k!r}")


class SearchStats:
    """Counts of the OPT-EPOCH(k) search: epoch assignments tested and subproblems solved."""

    def __init__(self) -> None:
        self.assignments = 0
        self.subproblems = 0


def _load_largest(parts: tuple[int, ...], rest: tuple[int, ...]) -> tuple[int, ...] | None:
    """Fill ``parts`` (non-increasing) with the largest fitting jobs of ``rest`` (non-increasing).

    Returns the positions in ``rest`` loaded, part by part, or None when some part stays empty.
    The largest part takes the largest job that fits it, and so on (an exchange argument shows
    this leaves the pairwise-smallest remaining set, §4.2).

    One pass: the jobs that fit a part are a suffix of ``rest``, which only shrinks as the parts
    shrink, and every earlier part took a position before that part's; so a part takes the first
    position that fits it after the previous part's, and the positions returned increase.
    """
    chosen = []
    i, end = 0, len(rest)
    for p in parts:
        while i < end and rest[i] > p:
            i += 1
        if i == end:
            return None
        chosen.append(i)
        i += 1
    return tuple(chosen)


def _opt_epoch_search(nodes: int, k: int, stats: SearchStats | None) -> Any:
    @cache
    def best(rest: tuple[int, ...]) -> tuple[int, tuple[Any, ...]]:
        # rest: M values, non-increasing; returns (epochs, ((positions, parts), ...)) relative
        # to rest at each level
        if not rest:
            return 0, ()
        if stats is not None:
            stats.subproblems += 1
        bound = max(1, -(-sum(rest) // nodes))
        top: tuple[int, tuple[Any, ...]] | None = None
        seen: set[tuple[int, ...]] = set()
        for h in range(min(len(rest), nodes), 0, -1):
            stop = False
            for parts in partitions_with_parts(nodes, k, h):
                if parts[0] < rest[-1]:
                    continue
                loaded = _load_largest(parts, rest)
                if loaded is None:
                    continue
                key = tuple(sorted(loaded))
                if key in seen:
                    continue
                seen.add(key)
                if stats is not None:
                    stats.assignments += 1
                gone = set(loaded)
                remaining = tuple([m for i, m in enumerate(rest) if i not in gone])
                sub = best(remaining)
                if top is None or 1 + sub[0] < top[0]:
                    top = (1 + sub[0], ((loaded, parts),) + (sub[1],))
                if top[0] == bound:
                    return top
                if k >= 1 and key == tuple(range(h)):
                    # The h largest jobs were loaded: an assignment of <= h jobs leaves a
                    # superset of (or pairwise larger) remaining jobs, which needs no fewer
                    # epochs when k >= 1 (dropping jobs from an epoch and spreading their
                    # nodes keeps the inequity <= k). With k = 0 this fails (Fig. 7), so
                    # OPT-EPOCH(0) searches every level.
                    stop = True
                    break
            if stop:
                break
        assert top is not None  # a single job always fits an epoch of its own
        return top

    return best


def opt_epoch_epochs(nodes: int, mins: Sequence[int] | Mapping[int, int], k: int = 1,
                     stats: SearchStats | None = None) -> list[Epoch]:
    """Return an OPT-EPOCH(k) schedule's epochs: the fewest epochs of inequity <= k (§4.2).

    The search follows §4.2: for the remaining jobs (largest first) it tries the valid partitions
    of N with the most parts first and loads each with the largest jobs that fit. For k >= 1,
    where §4.2's subset argument holds, a level stops as soon as the jobs loaded are the largest
    remaining ones in a row (with k = 0 that rule is wrong, Fig. 7, so every level is searched).
    Equal remaining sets are solved once (memoised) and a level also stops when it meets the
    lower bound ceil(sum M / N). Each epoch's widths are then the most even ones its jobs allow
    (:func:`epoch_widths`). ``stats`` collects search counts. Raises ``ValueError`` for k < 0 or
    bad input.
    """
    check_k(k, 0, "OPT-EPOCH(k)")
    table = normalize_mins(mins, nodes)
    order = _descending(table)
    rest_ids = order
    search = _opt_epoch_search(nodes, k, stats)
    _, plan = search(tuple(table[j] for j in order))
    epochs: list[Epoch] = []
    while plan:
        (loaded, _parts), plan = plan[0], plan[1]
        ids = [rest_ids[i] for i in sorted(loaded)]
        widths = epoch_widths([table[j] for j in ids], nodes, k)
        assert widths is not None
        epochs.append(list(zip(ids, widths)))
        gone = set(loaded)
        rest_ids = [j for i, j in enumerate(rest_ids) if i not in gone]
    return epochs


def opt_epoch(nodes: int, mins: Sequence[int] | Mapping[int, int], k: int = 1) -> Schedule:
    """Return the OPT-EPOCH(k) schedule (§4.2); see :func:`opt_epoch_epochs`."""
    return epochs_to_schedule(opt_epoch_epochs(nodes, mins, k), nodes, f"OPT-EPOCH({k})")


def heuristic_epoch_epochs(nodes: int, mins: Sequence[int] | Mapping[int, int],
                           k: int = 1, spread: str = "shares") -> list[Epoch]:
    """Return HEURISTIC-EPOCH(k)'s epochs, the greedy form of OPT-EPOCH(k) (§4.3).

    Reading of §4.3: jobs are taken largest M first. The first job of an epoch gets its M; every
    later job gets max(M_j, top - k), top being the first job's width, so the inequity stays
    <= k. When the next job needs more nodes than are left, but the free nodes are at least
    top - k, that job is skipped and the largest remaining job that fits is placed instead; when
    none fits (or too few nodes are free) the epoch closes, its free nodes are handed out, and
    a new epoch begins.

    The free nodes: §4.3 says they "are distributed as evenly as possible among the jobs in the
    epoch, with any excess allocated to jobs with the smallest total allocation". We read that
    literally (``spread="shares"``, the default): the *nodes* are divided evenly, every job
    getting free // h of them, and the excess free % h goes one node each to the jobs whose
    total width is then smallest (ties: the job placed first), :func:`share_out`. The widths
    keep their differences of up to k, which is what lets the static-workload penalty grow with
    k (§5.2.1). ``spread="level"`` is the other reading: make the *widths* as even as possible
    by raising the smallest first (:func:`water_fill`). With k = 1 both give the same widths.
    The number of epochs, hence the overhead, does not depend on ``spread``.

    k = 0 is not defined by this rule (the spread could break equality): use EQUI-EPOCH.
    Raises ``ValueError`` for k < 1, an unknown ``spread`` or bad input.
    """
    check_k(k, 1, "HEURISTIC-EPOCH(k)")
    check_spread(spread)
    table = normalize_mins(mins, nodes)
    fill = SPREADS[spread]
    rest = _descending(table)
    epochs: list[Epoch] = []
    while rest:
        jobs: list[int] = []
        widths: list[int] = []
        free = nodes
        while rest:
            floor = max(1, widths[0] - k) if widths else 1
            first = rest[0]
            need = max(table[first], floor)
            if need <= free:
                pick = first
            elif widths and free >= floor:
                found = next((j for j in rest if table[j] <= free), None)
                if found is None:
                    break
                pick = found
                need = max(table[pick], floor)
            else:
                break
            rest.remove(pick)
            jobs.append(pick)
            widths.append(need)
            free -= need
        epochs.append(list(zip(jobs, fill(widths, nodes))))
    return epochs


def heuristic_epoch(nodes: int, mins: Sequence[int] | Mapping[int, int], k: int = 1,
                    spread: str = "shares") -> Schedule:
    """Return the HEURISTIC-EPOCH(k) schedule (§4.3); see :func:`heuristic_epoch_epochs`."""
    return epochs_to_schedule(heuristic_epoch_epochs(nodes, mins, k, spread), nodes,
                              f"HEURISTIC-EPOCH({k})")
