"""The four buddy schemes and the engine as one compiled loop, for headless runs.

Zhou00 §3-§4 (BC, BR, BRMS, BRMMS) on the time model of
:mod:`gangviz.sim.engine`. This is the reference implementation
(:class:`gangviz.sim.engine.Simulation` with :mod:`gangviz.policies.buddy`) written again
without change records, history or narration: every rule, order and tie-break is the
reference's, so both give the same start and finish for every job and the same slot counts,
bit for bit (a property test compares them on random workloads for all four schemes, both
fragment rules and both extra-slot readings). Its use is the long reproductions: Table 2 of
001 is 80 runs of 20,000 jobs.

Limits: no overhead (every slice gives one unit of service), no scripted events, no initial
matrix, a linear array whose size is a power of two. :func:`run_buddy` checks them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from gangviz.fast.buddy_kernel import Config, Jobs, simulate, simulate_placed, simulate_stats
from gangviz.fast.jobchecks import check_job_arrays
from gangviz.fast.placed_run import PlacedRun

if TYPE_CHECKING:  # pragma: no cover  (annotations only)
    from gangviz.core.jobs import JobSpec

#: Scheme codes of the compiled loop.
SCHEMES = {"BC": 0, "BR": 1, "BRMS": 2, "BRMMS": 3}
#: the per-job statistics of the loop's result (:class:`gangviz.fast.buddy_kernel.Result`)
_PER_JOB = ("first_run", "rows_held", "extra_slices", "first_lo", "first_hi")


@dataclass(frozen=True)
class BuddyRun(PlacedRun):
    """What a headless run returns: per job (in the order given) its start and finish; the
    end time, the largest number of slots (n_l), slots x time and busy processors x time."""

    start: np.ndarray
    finish: np.ndarray
    time: float
    max_slots: int
    slot_time: float
    busy_time: float
    #: with the placement or ``stats``, per job (``Simulation.run_stats``) the time of its first
    #: slice and its processors then (``first_lo .. first_hi - 1``), besides ``rows_held`` and
    #: ``extra_slices`` (:class:`~gangviz.fast.placed_run.PlacedRun`, where slots are rows)
    first_run: np.ndarray | None = None
    first_lo: np.ndarray | None = None
    first_hi: np.ndarray | None = None


def run_buddy(ids: npt.ArrayLike, arrival: npt.ArrayLike, size: npt.ArrayLike, work: npt.ArrayLike,
              scheme: str, processors: int, occupy: str = "size",
              extra_slots_on: str | None = None, usable: int | None = None,
              placement: bool = False, stats: bool = False, progress: np.ndarray | None = None) -> BuddyRun:
    """Simulate a workload under a buddy scheme with the compiled loop; return a :class:`BuddyRun`.

    ``ids``, ``arrival``, ``size`` and ``work`` describe the jobs (any order; ids unique).
    ``extra_slots_on`` is ``"arrival"`` or ``"decision"`` (``None``: the scheme's default, as
    :class:`gangviz.policies.buddy.BRMS` and ``BRMMS`` define it). Raises ``ValueError`` for an
    unknown scheme or option, a processor count that is not a power of two, repeated ids, a job
    size outside ``1..processors``, work that is not finite and positive, or an arrival that
    is not finite. ``usable`` is the machine's real size when the processors from it on are
    padding (a trace run on the next power of two): no job is placed there, as
    :class:`gangviz.policies.buddy.BR` with ``usable`` does; a job that would hold a padded
    processor raises ``ValueError``. ``placement`` also keeps where every job ran, and ``stats``
    (implied by ``placement``) what a per-job table needs of each job (the run's figures are
    the same either way). ``progress``, a one-element float64 array, gets the simulated time
    after every decision, for another thread to read while the loop runs (it holds no GIL).
    """
    from gangviz.policies.buddy import BRMMS, BRMS

    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    if occupy not in ("block", "size"):
        raise ValueError(f"occupy must be 'block' or 'size', got {occupy!r}")
    if extra_slots_on is None:
        extra_slots_on = {"BRMS": BRMS.default_extra_slots_on, "BRMMS": BRMMS.default_extra_slots_on}.get(scheme, "arrival")
    if extra_slots_on not in ("arrival", "decision"):
        raise ValueError(f"extra_slots_on must be 'arrival' or 'decision', got {extra_slots_on!r}")
    if processors < 1 or processors & (processors - 1):
        raise ValueError(f"buddy allocation needs a power-of-two number of processors, got {processors}")
    ids = np.asarray(ids, dtype=np.int64)
    arrival = np.asarray(arrival, dtype=np.float64)
    size = np.asarray(size, dtype=np.int64)
    work = np.asarray(work, dtype=np.float64)
    check_job_arrays(ids, arrival, size, work, processors)
    if usable is not None:
        if not 1 <= usable <= processors:
            raise ValueError(f"usable must be in 1..{processors} processors, got {usable}")
        held = size if occupy == "size" else np.array([1 << (int(p) - 1).bit_length() for p in size], dtype=np.int64)
        if len(held) and int(held.max()) > usable:
            raise ValueError(f"a job holds {int(held.max())} processors under occupy={occupy!r}, more "
                             f"than the {usable} real processors")
    # Inside, jobs are numbered by ascending id (the order the reference visits them in);
    # they arrive in order of (arrival, id), as the reference sorts them.
    by_id = np.argsort(ids, kind="stable")
    arrival_order = np.lexsort((ids[by_id], arrival[by_id]))
    need = np.ceil(work[by_id])  # whole slices of service (one slice gives one unit)
    loop = simulate_placed if placement else simulate_stats if stats else simulate
    result = loop(Jobs(arrival[by_id], size[by_id], work[by_id], need, arrival_order),
                  Config(int(processors), SCHEMES[scheme], occupy == "block", extra_slots_on == "decision",
                         0 if usable is None or usable >= processors else int(usable)),
                  np.zeros(1) if progress is None else progress)
    out_start = np.empty(len(ids))
    out_finish = np.empty(len(ids))
    out_start[by_id] = result.start
    out_finish[by_id] = result.finish
    placed = None
    if placement:
        from gangviz.fast.placement import PlacementLog

        placed = PlacementLog.of_loop(result.log_t, result.log_e, int(result.max_slots), processors, jobs=by_id)
    per_job: dict[str, np.ndarray | None] = dict.fromkeys(_PER_JOB)
    for name in _PER_JOB if placement or stats else ():
        values = getattr(result, name)
        per_job[name] = stat = np.empty_like(values)
        stat[by_id] = values
    return BuddyRun(out_start, out_finish, float(result.time), int(result.max_slots), float(result.slot_time),
                    float(result.busy_time), placement=placed, **per_job)


def zhou_metrics_compiled(jobs: Iterable[JobSpec], scheme: str, processors: int, occupy: str = "size",
                          extra_slots_on: str | None = None) -> dict[str, float]:
    """Run ``jobs`` (:class:`~gangviz.core.jobs.JobSpec`) with :func:`run_buddy` and return
    :func:`gangviz.metrics.zhou_metrics` of the run, equal to the reference engine's to the bit.
    Raises ``ValueError`` as :func:`run_buddy` does."""
    from gangviz.metrics.zhou import zhou_metrics_of

    specs = sorted(jobs, key=lambda j: (j.arrival, j.id))  # the reference engine's job order
    run = run_buddy([j.id for j in specs], [j.arrival for j in specs], [j.size for j in specs],
                    [j.work for j in specs], scheme, processors, occupy, extra_slots_on)
    done = [(j.arrival, j.size, j.work, f) for j, f in zip(specs, run.finish.tolist())]
    return zhou_metrics_of(done, processors, run.time, run.max_slots, run.slot_time)
