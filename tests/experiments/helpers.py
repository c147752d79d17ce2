"""Run functions for the runner and sweep tests (module level, so a pool can pickle them)."""

from __future__ import annotations

import os

from gangviz.experiments.tasks import run_task

#: The workload and grid of the small sweep files the tests write (20 Downey jobs on 16
#: processors at two loads).
DOWNEY_GRID = """\
[workload]
model = "downey"
jobs = 20
procs = 16

[grid]
load = [0.5, 0.9]
"""


def square(x: int) -> int:
    """Return x * x."""
    return x * x


def square_but_fail_7(x: int) -> int:
    """Return x * x; raise for 7."""
    if x == 7:
        raise ValueError("seven is unlucky")
    return x * x


def square_but_die_on_5(x: int) -> int:
    """Return x * x; kill the worker process for 5."""
    if x == 5:
        os._exit(3)
    return x * x


def run_but_die_on_replication_1_of_bc(task):
    """run_task, except that replication 1 of policy bc kills its worker."""
    if task.policy == "bc" and task.replication == 1:
        os._exit(3)
    return run_task(task)


def run_but_fail_firstfit(task):
    """run_task, except that policy firstfit raises."""
    if task.policy == "firstfit":
        raise RuntimeError("firstfit broke on purpose")
    return run_task(task)
