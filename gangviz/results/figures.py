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
scenario or synthetic model, which have no clock (:func:`clock_of`); :func:`units` says each
figure's unit and :func:`definitions` its meaning, and both go into every JSON document. Each
figure's key, unit, goal, definition, name and families are declared once, in
:data:`gangviz.metrics.table.TABLE`; this module reads them from there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gangviz.metrics import table
from gangviz.metrics.ibm import (
    GAMMA,
    CapacityLog,
    executed_by_id,
    ibm_metrics,
    ibm_metrics_of_columns,
)
from gangviz.metrics.reduce import Column
from gangviz.metrics.table import MEDIUM_WORK_MAX, SMALL_NODES_MAX, SMALL_WORK_MAX

__all__ = ["CORE", "CORE_KEYS", "ZHOU_KEYS", "CLASSES", "ZHOU_CLASSES", "GOALS", "Figures",
           "clock_of", "units", "definitions", "run_figures", "family_figures", "columns_figures", "format_value",
           "zhou_own", "title"]

#: the core figures split by size class (each also with ``_small`` and ``_large``), but the
#: job counts
CORE = tuple(f.key for f in table.TABLE if f.split and f.reduce.how != "count")
CORE_KEYS = table.keys(table.SPACE_SHARING)
#: the time-slot family's own figures [Zhou00 §4.3]
ZHOU_KEYS = table.keys(table.MATRIX, reduced=False)

#: the core's job classes, the same for every family [Zhang01 §2.2]
CLASSES = {"small": f"jobs of at most {SMALL_NODES_MAX} processors [Zhang01 §2.2]",
           "large": f"jobs of more than {SMALL_NODES_MAX} processors"}
#: the time-slot family's own classes, by work [Zhou00 §4.3]
ZHOU_CLASSES = {"t_sa": f"small: 1-{SMALL_WORK_MAX} slices of work",
                "t_ma": f"medium: {SMALL_WORK_MAX + 1}-{MEDIUM_WORK_MAX} slices of work",
                "t_la": f"large: more than {MEDIUM_WORK_MAX} slices of work"}

#: which way each figure is better ("min" or "max"); counts have no goal
GOALS: dict[str, str] = table.goals()


def clock_of(source: Any) -> str:
    """Return ``"s"`` for a source with a clock (an SWF trace), else ``"slice"``."""
    return "s" if source.kind == "swf" else "slice"


def units(clock: str) -> dict[str, str]:
    """Return figure -> unit for a run whose clock is ``clock`` (``"s"`` or ``"slice"``), every
    figure of :data:`gangviz.metrics.table.TABLE`."""
    return {k: f.unit(clock) for f in table.TABLE for k in table.split_keys(f)}


def definitions(clock: str, gamma: float = GAMMA) -> dict[str, str]:
    """Return figure -> one-line definition (with its paper) for a run on ``clock`` whose
    bounded slowdown has the threshold ``gamma`` (in the clock's unit)."""
    return {k: table.definition(k, clock, gamma) for f in table.TABLE for k in table.split_keys(f)}


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
            for f in table.TABLE:
                if table.SPACE_SHARING not in f.families:
                    continue
                k = f.key
                if f.split:
                    rows.append((k, *(format_value(self.values[k + s]) for s in table.SIZE_CLASSES), unit[k],
                                 text[k]))
                elif not f.shown_unless_equal or self.values[k] != self.values[f.shown_unless_equal]:
                    rows.append((k, format_value(self.values[k]), "", "", unit[k], text[k]))
        for k, v in self.values.items():
            if not has_core or k not in CORE_KEYS:
                rows.append((k, format_value(v), "", "", unit[k], text[k]))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        return "\n".join("  " + "  ".join(c.ljust(w) if i in (0, 4) else c.rjust(w)
                                          for i, (c, w) in enumerate(zip(r[:5], widths))) + "  " + r[5]
                         for r in rows)


def title(key: str) -> str:
    """Return figure ``key``'s name in words (``"mean bounded slowdown"`` for
    ``bounded_slowdown``); a figure not listed reads as its key with spaces."""
    return table.title(key)


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
    (:func:`gangviz.metrics.reduce.core_figures`: the same numbers, to the bit, without a
    temporary array per job)."""
    per = 3600.0 if clock == "s" else 1.0
    unit = slice_seconds if clock == "s" else 1.0
    if len(arrival):
        metrics = ibm_metrics_of_columns(arrival, start, finish, work, size, processors,
                                         time_unit=unit, capacity=capacity, throughput_per=per,
                                         executed=executed, gamma=gamma, block=block)
        core, std = _core(metrics)
    else:
        core, std = _empty_core(), {}
    return Figures({**core, **(own or {})}, family, clock, std, gamma)


def family_figures(sim: Any) -> Figures:
    """Return the :class:`Figures` of a finished multi-site or epoch simulation: the core
    figures its jobs have, then its own paper's (:mod:`gangviz.metrics.table`)."""
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
    family, kind = done.family, done.kind
    if not kind.measured:
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
        if done.simulation is not None and kind.matrix:
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
    own = zhou_own(done.metrics, clock, slice_seconds) if kind.matrix else {}
    return Figures({**core, **own}, family, clock, std, gamma)
