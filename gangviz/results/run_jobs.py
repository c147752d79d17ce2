"""The per-job table and file of any finished time-slot or space-sharing run, whichever engine
ran it: a compiled loop asked for its placement (:mod:`gangviz.results.compiled_jobs`), the
backfilling simulator or the reference engine (:mod:`gangviz.results.jobs`). The same run gives
the same table and file on every engine.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from gangviz.metrics.ibm import executed_by_id
from gangviz.results.compiled_jobs import has_job_stats, jobs_of_compiled, save_compiled_jobs
from gangviz.results.jobs import (
    job_table,
    jobs_of_backfill,
    jobs_of_simulation,
    save_backfill_jobs,
    save_simulation_jobs,
    write_sidecar,
)
from gangviz.results.provenance import policy_record

__all__ = ["jobs_of_run", "save_run_jobs"]


def jobs_of_run(done: Any, *, time_scale: float = 1.0, tau: float | None = None) -> np.ndarray:
    """Return the per-job table of a finished time-slot or space-sharing run ``done`` (a
    :class:`~gangviz.factory.run.FinishedRun`: on a compiled loop run with ``jobs=True``
    (:func:`gangviz.results.compiled_jobs.jobs_of_compiled`), on the backfilling simulator
    (:func:`gangviz.results.jobs.jobs_of_backfill`, processors named) or on the reference engine
    (:func:`gangviz.results.jobs.jobs_of_simulation`)); times multiplied by ``time_scale``, ``tau`` the bounded
    slowdown's threshold in those units. Raises ``ValueError`` for a compiled run without its
    placement."""
    if done.engine.startswith("compiled:"):
        if not has_job_stats(done):
            raise ValueError(f"the {done.label} run on the {done.engine} engine kept no placement: "
                             "run it with jobs=True")
        return job_table(jobs_of_compiled(done, time_scale=time_scale, tau=tau))
    res = done.backfill
    if res is not None:
        return jobs_of_backfill(res.records, time_scale=time_scale, executed=executed_by_id(res),
                                processors=done.source.processors, tau=tau)
    return jobs_of_simulation(done.simulation, time_scale=time_scale, tau=tau)


def save_run_jobs(done: Any, source: Any, path: str | os.PathLike[str], *, label: str,
                  order: str | None = None, tau: float | None = None) -> Path:
    """Write the per-job table of a finished time-slot or space-sharing run ``done`` (a
    :class:`~gangviz.factory.run.FinishedRun` with its simulation, its backfill result, or its
    compiled loop's result with the placement: ``run(..., jobs=True)``) on
    ``source`` to ``path``, and beside it the sidecar saying what ran (:func:`gangviz.results.jobs.sidecar_path`:
    the policy record with the queue ``order``, the source, gangviz's version); ``tau`` is the
    bounded slowdown's threshold in the file's time unit (default 10). Return the path.
    Raises as :func:`gangviz.results.jobs.write_jobs` does."""
    if has_job_stats(done):
        out = save_compiled_jobs(done, source, path, label=label, tau=tau)
    elif done.backfill is not None:
        res = done.backfill
        out = save_backfill_jobs(res.records, source, path, label=label, executed=executed_by_id(res),
                                 tau=tau)
    else:
        out = save_simulation_jobs(done.simulation, source, path, label=label, tau=tau)
    write_sidecar(out, source, policy_record(source, done.label, done.family, dict(done.parameters),
                                             done.engine, order), tau)
    return out
