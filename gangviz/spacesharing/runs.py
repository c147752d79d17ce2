"""Run a space-sharing policy headless, and give gang and space-sharing runs one metric set.

The IBM study (003_1fd1fd192052cc5d.txt §2.3) measures both families with the same figures:
:func:`gangviz.metrics_ibm.ibm_metrics`. :func:`engine_ibm_metrics` computes them for a time-slot
engine run, :func:`run_space_sharing` for a backfilling run, so a table may mix them. A sweep
keeps the time-slot metrics of 001_c175c8c1780c2fd0.txt §4.3 for every policy;
:func:`zhou_metrics_of_result` gives them for a space-sharing run (one row of the machine: a
slot is in use while any job runs).
"""

from __future__ import annotations

from gangviz.metrics import zhou_metrics_of
from gangviz.metrics_ibm import ibm_metrics, run_with_capacity
from gangviz.spacesharing.backfill import BackfillResult, simulate_backfill
from gangviz.spacesharing.policy import SpaceSharingPolicy

__all__ = ["run_space_sharing", "engine_ibm_metrics", "zhou_metrics_of_result", "IBM_TABLE"]

#: The IBM figures a comparison table shows, in order.
IBM_TABLE = ("wait", "response", "slowdown", "utilization", "loss_of_capacity")


def run_space_sharing(jobs, processors: int, policy: SpaceSharingPolicy, *,
                      time_unit: float = 1.0) -> tuple[BackfillResult, dict]:
    """Run ``policy`` on ``jobs`` to the end; return the result and its IBM metrics.

    Raises ``ValueError`` for a job larger than the machine, or when no job finished.
    """
    res = simulate_backfill(jobs, processors, mode=policy.mode, estimates=policy.estimates,
                            kill_at_estimate=policy.kill)
    return res, ibm_metrics(res.records, processors, time_unit=time_unit, capacity=res.capacity)


def engine_ibm_metrics(sim, time_unit: float = 1.0) -> dict:
    """Run an engine simulation to the end and return its IBM metrics (lost capacity by eq. 3).

    Raises ``ValueError`` when no job finished.
    """
    cap = run_with_capacity(sim)
    return ibm_metrics(sim.records(), sim.processors, time_unit=time_unit, capacity=cap)


def zhou_metrics_of_result(res: BackfillResult, processors: int) -> dict[str, float]:
    """Return the §4.3 metrics of 001_c175c8c1780c2fd0.txt for a backfilling run.

    The machine is one row: ``n_l`` is 1 when any job ran, ``n_a`` the share of time some job
    runs; the run ends at the last completion.
    """
    recs = sorted(res.records, key=lambda r: (r.spec.arrival, r.spec.id))
    done = [(r.spec.arrival, r.spec.size, r.spec.work, r.finish) for r in recs if r.finish is not None]
    spans = sorted((r.start, r.finish) for r in recs if r.start is not None and r.finish is not None)
    busy, cur_a, cur_b = 0.0, None, None
    for a, b in spans:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                busy += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        busy += cur_b - cur_a
    end = res.end
    return zhou_metrics_of(done, processors, end, 1 if spans else 0, busy)
