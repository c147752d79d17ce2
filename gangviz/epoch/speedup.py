"""Speedup functions of §5.2 (004_e35f827bdd81cf48.txt).

S_dynamic(n) = (1 + beta) n / (beta + n) (from the paper's reference [3]) for jobs that can
repartition; a static job is split into N threads, so on n nodes it suffers the load imbalance
S_static(n) = S_dynamic(n) ((floor(N/n) / ceil(N/n)) (n - N mod n) + N mod n) / n, which equals
S_dynamic(n) when n divides N.
"""

from __future__ import annotations


def s_dynamic(n: int, beta: float) -> float:
    """Return S_dynamic(n) = (1 + beta) n / (beta + n); raise ``ValueError`` for n < 1 or beta <= 0."""
    if n < 1 or beta <= 0:
        raise ValueError(f"speedup needs n >= 1 and beta > 0, got n={n}, beta={beta}")
    return (1.0 + beta) * n / (beta + n)


def s_static(n: int, beta: float, nodes: int) -> float:
    """Return S_static(n) for a job of ``nodes`` threads on n nodes (n <= nodes)."""
    if not 1 <= n <= nodes:
        raise ValueError(f"static speedup needs 1 <= n <= N = {nodes}, got n = {n}")
    q, r = divmod(nodes, n)
    ceil = q + (1 if r else 0)
    return s_dynamic(n, beta) * ((q / ceil) * (n - r) + r) / n
