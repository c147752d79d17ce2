"""Shortest-job backfilling: EASY (Zhang01 §3) with the queue ordered by the user's estimate,
shortest first, instead of by arrival. The head of that order holds EASY's one reservation;
every other job may start early if it delays it not.

    gangviz run downey --jobs 500 --procs 64 --load 0.9 --policy easy --order examples/policies/sjf_backfill.py:shortest_estimate
"""


def shortest_estimate(job):
    """Sort key of a waiting job: its estimate (its work where it has none), then its arrival."""
    return (job.estimate if job.estimate else job.work, job.arrival)
