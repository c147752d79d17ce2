"""A queue order for any built-in time-slot policy: the job with the least work first.

    gangviz run downey --jobs 200 --procs 32 --policy gs --order examples/policies/shortest_first.py:shortest_first
"""


def shortest_first(job):
    """Sort key of a waiting job: its work, then its arrival."""
    return (job.work, job.arrival)
