"""The figures of a finished run, the same for every policy of every family, with units.

Every time-slot run (the buddy and re-packing schemes of Zhou00, the gang schemes of Zhang01)
and every space-sharing run (FCFS, EASY, conservative) reports first the *core*, the IBM
study's figures [Zhang01 §2.3] (:mod:`gangviz.metrics.ibm`), then its own paper's figures:

* core: ``wait``, ``response``, ``bounded_slowdown``, ``utilization``, ``loss_of_capacity``,
  ``makespan``, ``throughput``, each also for small and large jobs (suffixes ``_small`` and
  ``_large``; small = at most 32 processors [Zhang01 §2.2], :data:`CLASSES`), and the job
  counts ``jobs``, ``jobs_small``, ``jobs_large``;
* the time-slot family adds Zhou00 §4.3: ``r_a``, ``n_l``, ``n_a``, ``t_ta``, ``t_sa``,
  ``t_ma``, ``t_la`` (its own classes, by work: :data:`ZHOU_CLASSES`); the space-sharing family
  has no figure beyond the core.

Times are in seconds on a trace (its slices times the slice length) and in slices on a
scenario or synthetic model, which have no clock (:func:`clock_of`); :data:`UNITS` says each
figure's unit and :data:`DEFINITIONS` its meaning, and both go into every JSON document.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gangviz.metrics.ibm import (
    GAMMA,
    SERVED_KEYS,
    SMALL_NODES_MAX,
    CapacityLog,
    Column,
    executed_by_id,
    ibm_metrics,
    ibm_metrics_of_columns,
)
from gangviz.metrics.zhou import MEDIUM_WORK_MAX, SMALL_WORK_MAX

__all__ = ["CORE", "CORE_KEYS", "ZHOU_KEYS", "CLASSES", "ZHOU_CLASSES", "GOALS", "Figures",
           "clock_of", "units", "definitions", "run_figures", "family_figures", "OTHER_FIGURES", "columns_figures", "format_value",
           "zhou_own", "title"]

#: the core figures, each also with ``_small`` and ``_large``
CORE = ("wait", "response", "bounded_slowdown", "utilization", "loss_of_capacity", "makespan",
        "throughput")
CORE_KEYS = (tuple(k + s for k in CORE for s in ("", "_small", "_large")) + ("jobs", "jobs_small", "jobs_large")
             + SERVED_KEYS)
#: the time-slot family's own figures [Zhou00 §4.3]
ZHOU_KEYS = ("r_a", "n_l", "n_a", "t_ta", "t_sa", "t_ma", "t_la")

#: the core's job classes, the same for every family [Zhang01 §2.2]
CLASSES = {"small": f"jobs of at most {SMALL_NODES_MAX} processors [Zhang01 §2.2]",
           "large": f"jobs of more than {SMALL_NODES_MAX} processors"}
#: the time-slot family's own classes, by work [Zhou00 §4.3]
ZHOU_CLASSES = {"t_sa": f"small: 1-{SMALL_WORK_MAX} slices of work",
                "t_ma": f"medium: {SMALL_WORK_MAX + 1}-{MEDIUM_WORK_MAX} slices of work",
                "t_la": f"large: more than {MEDIUM_WORK_MAX} slices of work"}

#: which way each figure is better ("min" or "max"); counts have no goal
GOALS: dict[str, str] = {
    **{k + s: ("max" if k in ("utilization", "throughput") else "min")
       for k in CORE for s in ("", "_small", "_large")},
    "r_a": "max", "n_l": "min", "n_a": "min", "t_ta": "min", "t_sa": "min", "t_ma": "min",
    "t_la": "min",
}

_CORE_TEXT = {
    "wait": "mean wait, start - arrival (a time-slot job starts when it is placed in a slot)",
    "response": "mean response time, finish - arrival",
    "bounded_slowdown": "mean bounded slowdown, max(response, Γ) / max(executed, Γ), "
                        "executed = min(work, finish - start), Γ = {gamma:g} {clock}",
    "utilization": "utilisation, work delivered: sum(size x executed) / (processors x makespan), "
                   "executed = the time the job ran [Zhang01 eq. 1]",
    "loss_of_capacity": "loss of capacity, node-time left idle while jobs waited / "
                        "(processors x makespan) [Zhang01 eqs. 2-3]",
    "makespan": "last finish - first arrival",
    "throughput": "jobs finished per {per} over the makespan",
}
_CLASS_TEXT = {"": "", "_small": ", small jobs", "_large": ", large jobs"}
_SERVED_TEXT = {
    "jobs_completed": "jobs that ran to the end of their work",
    "jobs_killed": "jobs stopped at their estimate before the end of their work (kill at estimate)",
    "work_unserved": "work asked for and never run: sum(size x (work - executed))",
    "utilization_requested": "utilisation of the work asked for, sum(size x work) / "
                             "(processors x makespan): above the delivered one when jobs were killed",
}
_ZHOU_TEXT = {
    "r_a": "processor active ratio, sum(size x work) / (processors x T) [Zhou00 §4.3]",
    "n_l": "largest number of slots at once [Zhou00 §4.3]",
    "n_a": "time-average number of slots [Zhou00 §4.3]",
    "t_ta": "mean turnaround, all jobs [Zhou00 §4.3]",
    "t_sa": f"mean turnaround, jobs of 1-{SMALL_WORK_MAX} slices of work [Zhou00 §4.3]",
    "t_ma": f"mean turnaround, jobs of {SMALL_WORK_MAX + 1}-{MEDIUM_WORK_MAX} slices of work",
    "t_la": f"mean turnaround, jobs of more than {MEDIUM_WORK_MAX} slices of work",
}


#: the multi-site [Papazachos09 §4.1] and epoch [McCann94 §5] families' own figures, which
#: count time in the scenario's time units: unit and definition
OTHER_FIGURES: dict[str, tuple[str, str]] = {
    "RT": ("time units", "mean response time of the completed gangs [Papazachos09 §4.1]"),
    "WRT": ("time units", "size-weighted mean response time [Papazachos09 §4.1]"),
    "SLD": ("ratio", "mean slowdown, response / execution [Papazachos09 §4.1]"),
    "WSLD": ("ratio", "size-weighted mean slowdown [Papazachos09 §4.1]"),
    "gangs": ("gangs", "gangs completed"),
    "migrations": ("tasks", "task migrations [Papazachos09 §3.3]"),
    "departed": ("jobs", "jobs departed [McCann94 §5.2]"),
    "reallocations": ("reallocations", "node reallocations over the run [McCann94 §2.3]"),
    "overhead": ("reallocations/node/quantum", "normalised overhead [McCann94 §5.1]"),
}


def clock_of(source: Any) -> str:
    """Return ``"s"`` for a source with a clock (an SWF trace), else ``"slice"``."""
    return "s" if source.kind == "swf" else "slice"


def units(clock: str) -> dict[str, str]:
    """Return figure -> unit for a run whose clock is ``clock`` (``"s"`` or ``"slice"``)."""
    per = {"s": "h", "slice": "slice"}.get(clock, "time unit")
    t = {"s": "s", "slice": "slices"}.get(clock, "time units")
    out: dict[str, str] = {}
    for k in CORE:
        unit = {"wait": t, "response": t, "makespan": t, "bounded_slowdown": "ratio",
                "utilization": "fraction", "loss_of_capacity": "fraction",
                "throughput": f"jobs/{per}"}[k]
        for s in _CLASS_TEXT:
            out[k + s] = unit
    out.update({"jobs_completed": "jobs", "jobs_killed": "jobs", "work_unserved": f"processor-{t}",
                "utilization_requested": "fraction"})
    out.update({"jobs": "jobs", "jobs_small": "jobs", "jobs_large": "jobs", "r_a": "fraction",
                "n_l": "slots", "n_a": "slots"})
    out.update({k: t for k in ("t_ta", "t_sa", "t_ma", "t_la")})
    out.update({k: u for k, (u, _) in OTHER_FIGURES.items()})
    return out


def definitions(clock: str, gamma: float = GAMMA) -> dict[str, str]:
    """Return figure -> one-line definition (with its paper) for a run on ``clock`` whose
    bounded slowdown has the threshold ``gamma`` (in the clock's unit)."""
    per = {"s": "hour", "slice": "slice"}.get(clock, "time unit")
    out = {}
    for k in CORE:
        for s, cls in _CLASS_TEXT.items():
            out[k + s] = _CORE_TEXT[k].format(clock={"s": "s", "slice": "slices"}.get(clock, "time units"),
                                              per=per, gamma=gamma) + cls
    out.update({"jobs": "jobs finished", "jobs_small": "small jobs finished",
                "jobs_large": "large jobs finished"})
    out.update(_SERVED_TEXT)
    out.update(_ZHOU_TEXT)
    out.update({k: d for k, (_, d) in OTHER_FIGURES.items()})
    return out


@dataclass(frozen=True)
class Figures:
    """A run's figures: ``values`` (figure -> number, ``nan`` when undefined), in the order
    core then own; ``family``; ``clock`` (``"s"`` or ``"slice"``); ``std`` the standard
    deviations of the per-job means; ``gamma`` the bounded slowdown's threshold Γ (in the
    clock's unit)."""

    values: dict[str, float]
    family: str
    clock: str
    std: dict[str, float] = field(default_factory=dict)
    gamma: float = GAMMA

    @property
    def units(self) -> dict[str, str]:
        """Figure -> unit, for the figures this run has."""
        every = units(self.clock)
        return {k: every[k] for k in self.values}

    @property
    def definitions(self) -> dict[str, str]:
        """Figure -> definition, for the figures this run has."""
        every = definitions(self.clock, self.gamma)
        return {k: every[k] for k in self.values}

    def json_values(self) -> dict[str, Any]:
        """Return :attr:`values` with ``nan`` as ``None`` and counts as ints."""
        return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in self.values.items()}

    def text(self) -> str:
        """Return the figures as an aligned table: one line per core figure (all jobs, small,
        large, unit, definition), then the family's own figures (value, unit, definition)."""
        unit, text = self.units, self.definitions
        has_core = all(k in self.values for k in CORE_KEYS)
        rows: list[tuple[str, ...]] = [
            ("figure", "all", "small", "large", "unit", "definition") if has_core
            else ("figure", "value", "", "", "unit", "definition")]
        if has_core:
            for k in CORE:
                rows.append((k, *(format_value(self.values[k + s]) for s in _CLASS_TEXT), unit[k], text[k]))
            rows.append(("jobs", *(format_value(self.values["jobs" + s]) for s in _CLASS_TEXT), "jobs",
                         "jobs finished"))
            for k in SERVED_KEYS:
                if k != "utilization_requested" or self.values[k] != self.values["utilization"]:
                    rows.append((k, format_value(self.values[k]), "", "", unit[k], text[k]))
        for k, v in self.values.items():
            if not has_core or k not in CORE_KEYS:
                rows.append((k, format_value(v), "", "", unit[k], text[k]))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        return "\n".join("  " + "  ".join(c.ljust(w) if i in (0, 4) else c.rjust(w)
                                          for i, (c, w) in enumerate(zip(r[:5], widths))) + "  " + r[5]
                         for r in rows)


#: each figure's name in words, as a table row shows it (the key stays the name in JSON and CSV)
_CORE_TITLES = {"wait": "mean wait", "response": "mean response", "bounded_slowdown": "mean bounded slowdown",
                "utilization": "utilisation", "loss_of_capacity": "loss of capacity", "makespan": "makespan",
                "throughput": "throughput"}
_TITLES = {**{k + s: t + {"": "", "_small": ", small jobs", "_large": ", large jobs"}[s]
              for k, t in _CORE_TITLES.items() for s in ("", "_small", "_large")},
           "jobs": "jobs finished", "jobs_small": "small jobs finished", "jobs_large": "large jobs finished",
           "r_a": "processor active ratio", "n_l": "most slots at once", "n_a": "mean number of slots",
           "t_ta": "mean turnaround", "t_sa": "mean turnaround, small work",
           "t_ma": "mean turnaround, medium work", "t_la": "mean turnaround, large work",
           "RT": "mean response", "WRT": "weighted mean response", "SLD": "mean slowdown",
           "WSLD": "weighted mean slowdown", "gangs": "gangs completed", "migrations": "migrations",
           "departed": "jobs departed", "reallocations": "reallocations", "overhead": "overhead",
           "utilization_requested": "utilisation of the work asked for"}


def title(key: str) -> str:
    """Return figure ``key``'s name in words (``"mean bounded slowdown"`` for
    ``bounded_slowdown``); a figure not listed reads as its key with spaces."""
    return _TITLES.get(key, key.replace("_", " "))


def format_value(v: float) -> str:
    """Return a figure as the tables print it: ``n/a`` when undefined, integers as they are,
    floats to four significant digits and from 1,000 up whole with thousands separators."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, (float, np.floating)):
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    return f"{v:,}" if isinstance(v, (int, np.integer)) else str(v)


def _core(metrics: dict[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    return {k: metrics[k] for k in CORE_KEYS}, dict(metrics.get("std", {}))


def _empty_core() -> dict[str, float]:
    return {k: (0 if k.startswith("jobs") else math.nan) for k in CORE_KEYS}



def columns_figures(arrival: Column, start: Column, finish: Column, work: Column, size: Column,
                    processors: int, *, slice_seconds: float,
                    clock: str, capacity: CapacityLog | None, family: str = "space-sharing",
                    own: dict[str, float] | None = None, block: int | None = None,
                    executed: Column | None = None, gamma: float = GAMMA) -> Figures:
    """Return the :class:`Figures` of finished jobs given as columns in the run's time unit
    (slices; ``slice_seconds`` turns them into seconds on a trace). ``own`` are the family's
    own figures; ``executed`` the time each job ran (default: its work); ``gamma`` the bounded
    slowdown's threshold in the clock's unit (seconds on a trace). No finished job gives
    undefined (``nan``) core figures. With ``block`` the
    core is computed ``block`` jobs at a time
    (:func:`gangviz.metrics.ibm_blocks.ibm_metrics_of_column_blocks`: the same numbers, to the
    bit, without a temporary array per job)."""
    per = 3600.0 if clock == "s" else 1.0
    unit = slice_seconds if clock == "s" else 1.0
    if len(arrival):
        if block is None:
            metrics = ibm_metrics_of_columns(arrival, start, finish, work, size, processors,
                                             time_unit=unit, capacity=capacity, throughput_per=per,
                                             executed=executed, gamma=gamma)
        else:
            from gangviz.metrics.ibm_blocks import ibm_metrics_of_column_blocks

            metrics = ibm_metrics_of_column_blocks(arrival, start, finish, work, size, processors,
                                                   time_unit=unit, capacity=capacity,
                                                   throughput_per=per, block=block, gamma=gamma)
        core, std = _core(metrics)
    else:
        core, std = _empty_core(), {}
    return Figures({**core, **(own or {})}, family, clock, std, gamma)


def family_figures(sim: Any) -> Figures:
    """Return the :class:`Figures` of a finished multi-site or epoch simulation: its own
    paper's figures only (its jobs have no single start or dedicated run, so the core does not
    apply but for the epoch family's mean response, given as ``response``)."""
    from gangviz.metrics import figures

    own = dict(figures(sim))
    return Figures(own, sim.family, "time")


def zhou_own(metrics: dict[str, float], clock: str, slice_seconds: float) -> dict[str, float]:
    """Return the Zhou00 §4.3 figures of ``metrics`` (:func:`gangviz.metrics.zhou.zhou_metrics`'s
    keys, times in slices) as a time-slot run reports them: turnarounds in seconds on a trace."""
    scale = slice_seconds if clock == "s" else 1.0
    return {k: (float(metrics[k]) * scale if k.startswith("t_") else metrics[k]) for k in ZHOU_KEYS}


def _real_processors(done: Any) -> int:
    """The processors that exist in ``done``'s run: the source's, less the padding of a trace
    run on a larger machine when the policy leaves the padding alone (a buddy policy's
    ``usable``, :attr:`gangviz.workloads.source.Source.absent_from`)."""
    absent = done.source.absent_from
    if absent is not None and hasattr(done.policy, "usable"):
        return int(absent)
    return int(done.source.processors)


def run_figures(done: Any, gamma: float = GAMMA) -> Figures:
    """Return the :class:`Figures` of a :class:`~gangviz.factory.run.FinishedRun` of a
    time-slot or space-sharing policy, whichever engine ran it (the compiled loops, the
    reference engine, the backfilling simulator): the same numbers for the same run.
    ``gamma`` is the bounded slowdown's threshold Γ in the run's clock (seconds on a trace,
    slices otherwise; Zhang01 §2.3 takes 10 s).

    Raises ``ValueError`` for the multi-site and epoch families (:func:`family_figures`).
    """
    source = done.source
    clock = clock_of(source)
    slice_seconds = float(source.slice_seconds or 1.0)
    family = done.family
    if family not in ("matrix", "space-sharing"):
        raise ValueError(f"a {family} run has its own figures")
    unit = slice_seconds if clock == "s" else 1.0
    per = 3600.0 if clock == "s" else 1.0
    n = _real_processors(done)
    capacity = done.capacity
    if done.engine.startswith("compiled:"):
        specs = sorted(source.jobs, key=lambda j: (j.arrival, j.id))
        order = np.argsort(np.fromiter((j.id for j in specs), np.int64, len(specs)), kind="stable")
        col = {k: np.fromiter((getattr(j, k) for j in specs), np.float64, len(specs))[order]
               for k in ("arrival", "work", "size")}
        raw = done.result.raw
        metrics = ibm_metrics_of_columns(col["arrival"], np.asarray(raw.start)[order],
                                         np.asarray(raw.finish)[order], col["work"], col["size"], n,
                                         time_unit=unit, capacity=capacity, throughput_per=per,
                                         gamma=gamma) if len(specs) else None
    else:
        executed = None
        if done.simulation is not None and family == "matrix":
            records = done.simulation.records()
        else:
            res = done.result if done.result is not None else done.simulation.result
            records = res.records
            executed = executed_by_id(res)
        try:
            metrics = ibm_metrics(records, n, time_unit=unit, capacity=capacity, throughput_per=per,
                                  executed=executed, gamma=gamma)
        except ValueError:
            metrics = None
    core, std = _core(metrics) if metrics is not None else (_empty_core(), {})
    own = zhou_own(done.metrics, clock, slice_seconds) if family == "matrix" else {}
    return Figures({**core, **own}, family, clock, std, gamma)
