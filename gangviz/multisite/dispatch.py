"""Grid and local dispatchers (Papazachos09 §3.1).

The grid dispatcher's uniform choice of a site is drawn with the gang
(:class:`gangviz.multisite.workload.GangStream`). The local dispatcher places a gang's tasks on
distinct queues by Join-the-Shortest-Queue, implemented here.
"""

from __future__ import annotations


def jsq(lengths: list[int], n: int) -> list[int]:
    """Return the indices of the ``n`` shortest queues, shortest first.

    ``lengths[i]`` is queue i's length: its waiting tasks plus one when its processor is busy
    or reserved (the usual JSQ count of tasks at a server). Tie-break: among equal lengths the
    lower processor index wins. Sibling tasks go to distinct queues, so the result has ``n``
    distinct indices. Raises ValueError when ``n`` exceeds the number of queues.
    """
    if not 0 <= n <= len(lengths):
        raise ValueError(f"a gang of {n} tasks does not fit {len(lengths)} processors")
    return sorted(range(len(lengths)), key=lengths.__getitem__)[:n]
