"""Speedup functions of §5.2 (McCann94).

S_dynamic(n) = (1 + beta) n / (beta + n) (from the paper's reference [3]) for jobs that can
repartition; a static job is split into N threads, so on n nodes it suffers the load imbalance
S_static(n) = S_dynamic(n) ((floor(N/n) / ceil(N/n)) (n - N mod n) + N mod n) / n, which equals
S_dynamic(n) when n divides N.

Reading (§5.2, "we assume that the jobs have been partitioned into N threads, so that they can
make use of the full machine should it become available"): N is the machine's node count, the
same for every static job, and n is the width of the job's current piece, so a static job's
speed changes whenever the policy rebuilds the schedule (the threads are re-mapped onto the new
nodes; only their number is fixed). The bracket divided by n simplifies to
:func:`static_factor` = N / (n ceil(N/n)), the busy fraction of the n nodes.

Consequence used by ``gangviz repro mccann``: for n <= N/2 the factor exceeds N / (N + n) >= 2/3,
and an epoch of h >= 2 jobs with inequity k has no width above (N + k) / 2, so under every epoch
policy of §5 (k <= 6 < N/2) a static job runs at least 2/3 as fast as a dynamic job on the same
nodes: load imbalance alone slows no static job by a factor of 1.5 or more. (For N = 128 the
OPT-EPOCH(1) widths floor(N/h), ceil(N/h) keep at least 0.76 of the speed; most keep over 0.9.)
"""

from __future__ import annotations


def s_dynamic(n: int, beta: float) -> float:
    """Return S_dynamic(n) = (1 + beta) n / (beta + n); raise ``ValueError`` for n < 1 or beta <= 0."""
    if n < 1 or beta <= 0:
        raise ValueError(f"speedup needs n >= 1 and beta > 0, got n={n}, beta={beta}")
    return (1.0 + beta) * n / (beta + n)


def static_factor(n: int, nodes: int) -> float:
    """Return S_static(n) / S_dynamic(n) = N / (n ceil(N/n)) for N = ``nodes`` threads on n nodes.

    Raises ``ValueError`` unless 1 <= n <= N.
    """
    if not 1 <= n <= nodes:
        raise ValueError(f"static speedup needs 1 <= n <= N = {nodes}, got n = {n}")
    q, r = divmod(nodes, n)
    ceil = q + (1 if r else 0)
    return ((q / ceil) * (n - r) + r) / n


def s_static(n: int, beta: float, nodes: int) -> float:
    """Return S_static(n) for a job of ``nodes`` threads on n nodes.

    Raises ``ValueError`` unless 1 <= n <= N and beta > 0.
    """
    factor = static_factor(n, nodes)
    return s_dynamic(n, beta) * factor
