"""Compare time-slot policies on one workload: the numbers of ``gangviz compare`` and the compare window.

:func:`compare` loads the workload once, runs one simulation per policy on the same jobs and
returns a :class:`Comparison`: the final :func:`gangviz.metrics.zhou_metrics`
(Zhou00 §4.3) of each policy and, per metric, which policies are best. The
compare window runs its simulations step by step itself and calls :func:`comparison_from_sims`
on them, so both show the same numbers. Nothing here imports Qt.

Which value is best (:data:`GOALS`): a higher processor active ratio ``r_a`` is better; for the
slot counts ``n_l``, ``n_a`` and the turnaround times ``t_*`` lower is better (Zhou00 §4.3 reads
them that way). When a space-sharing policy (``fcfs``, ``easy``, ``conservative``) takes part,
every policy is measured with the IBM study's figures instead (Zhang01 §2.3,
:func:`gangviz.metrics.ibm.ibm_metrics`: mean wait, response, bounded slowdown, utilisation, loss
of capacity; see :data:`IBM_GOALS`), so gang and space-sharing policies share one table. Ties are all marked best; an undefined value (``nan``, e.g. ``t_la`` when no
large job ran) is never best, and a row where fewer than two policies have a value marks none.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gangviz.experiments.numbers import number
from gangviz.experiments.tasks import METRICS

#: "max" when a higher value is better, "min" when lower is better.
GOALS: dict[str, str] = {"r_a": "max", "n_l": "min", "n_a": "min", "t_ta": "min",
                         "t_sa": "min", "t_ma": "min", "t_la": "min"}

#: One-line meaning of each metric, for table legends and tooltips.
DESCRIPTIONS: dict[str, str] = {
    "r_a": "average processor active ratio",
    "n_l": "largest number of slots",
    "n_a": "time-average number of slots",
    "t_ta": "mean turnaround, all jobs",
    "t_sa": "mean turnaround, small jobs (1-12 slots of work)",
    "t_ma": "mean turnaround, medium jobs (13-60)",
    "t_la": "mean turnaround, large jobs (> 60)",
}


#: The IBM figures (seconds; utilisation and loss of capacity are fractions) and their goals.
IBM_GOALS: dict[str, str] = {"wait": "min", "response": "min", "slowdown": "min",
                             "utilization": "max", "loss_of_capacity": "min"}
DESCRIPTIONS.update({
    "wait": "mean wait (s)",
    "response": "mean response time (s)",
    "slowdown": "mean bounded slowdown (Γ = 10 s)",
    "utilization": "utilisation (eq. 1)",
    "loss_of_capacity": "loss of capacity (eqs. 2-3)",
})


@dataclass(frozen=True)
class Comparison:
    """Final metrics per policy: ``metrics[label][metric]``; ``best[metric]`` = best labels.

    ``keys`` are the metrics in table order (:data:`METRICS`, or the IBM figures when a
    space-sharing policy takes part) and ``goals`` says which way each is better.
    """

    title: str
    processors: int
    labels: tuple[str, ...]
    metrics: dict[str, dict[str, float]]
    best: dict[str, tuple[str, ...]]
    keys: tuple[str, ...] = METRICS
    goals: dict = field(default_factory=lambda: dict(GOALS))

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (``nan`` becomes ``None``)."""
        clean = {lab: {m: (None if math.isnan(v) else v) for m, v in ms.items()}
                 for lab, ms in self.metrics.items()}
        return {"workload": self.title, "processors": self.processors, "policies": list(self.labels),
                "metrics": clean, "best": {m: list(b) for m, b in self.best.items()},
                "goals": dict(self.goals)}

    def to_json(self) -> str:
        """Return :meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=1)

    def to_csv(self) -> str:
        """Return the table as CSV: ``metric, <one column per policy>, best`` (best: labels joined by ``;``)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["metric", *self.labels, "best"])
        for m in self.keys:
            vals = [self.metrics[lab][m] for lab in self.labels]
            w.writerow([m, *("" if math.isnan(v) else repr(v) for v in vals), ";".join(self.best[m])])
        return buf.getvalue()

    def to_text(self) -> str:
        """Return an aligned text table with the best value of each row marked ``*``."""
        head = ["metric", *(lab + "  " for lab in self.labels)]
        rows = [head]
        for m in self.keys:
            row = [m]
            for lab in self.labels:
                v = self.metrics[lab][m]
                text = number(v)
                row.append(text + (" *" if lab in self.best[m] else "  "))
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                 for r in rows]
        higher = [m for m in self.keys if self.goals[m] == "max"]
        lines.append(f"* best in its row ({', '.join(higher)}: higher is better; the others: lower is better)")
        return "\n".join(lines)


def best_labels(values: Mapping[str, float], goal: str) -> tuple[str, ...]:
    """Return the labels whose value is best under ``goal`` ("max" or "min"), ties all included.

    ``nan`` values are ignored; fewer than two defined values give ``()``. Raises
    ``ValueError`` for another goal.
    """
    if goal not in ("max", "min"):
        raise ValueError(f"goal must be 'max' or 'min', got {goal!r}")
    defined = {k: v for k, v in values.items() if not math.isnan(v)}
    if len(defined) < 2:
        return ()
    target = max(defined.values()) if goal == "max" else min(defined.values())
    return tuple(k for k, v in defined.items() if v == target)


def comparison_from_metrics(title: str, processors: int,
                            metrics: Mapping[str, Mapping[str, float]], *,
                            goals: Mapping[str, str] | None = None) -> Comparison:
    """Return the :class:`Comparison` of already computed metrics (label -> metric -> value).

    ``goals`` (metric -> "max"/"min", in table order) default to :data:`GOALS`.
    """
    goals = dict(goals or GOALS)
    keys = tuple(goals)
    labels = tuple(metrics)
    table = {lab: {m: _num(metrics[lab].get(m)) for m in keys} for lab in labels}
    best = {m: best_labels({lab: table[lab][m] for lab in labels}, goals[m]) for m in keys}
    return Comparison(title, processors, labels, table, best, keys, goals)


def _num(v) -> float:
    return math.nan if v is None else float(v)


def _space_sharing(sim) -> bool:
    return sim.family == "space-sharing"


def comparison_from_sims(title: str, sims: Mapping[str, Any], *, time_unit: float = 1.0) -> Comparison:
    """Return the :class:`Comparison` of simulations (label -> simulation), finished or paused.

    With a space-sharing simulation among them every column holds the IBM figures (``time_unit``:
    seconds per time unit); an engine simulation's loss of capacity is then left undefined
    (it needs the whole run: :func:`compare` computes it).
    """
    from gangviz.metrics import figures
    from gangviz.metrics.ibm import ibm_metrics

    processors = next(iter(sims.values())).processors if sims else 0
    if not any(_space_sharing(sim) for sim in sims.values()):
        return comparison_from_metrics(title, processors,
                                       {lab: figures(sim) for lab, sim in sims.items()})
    out = {}
    for lab, sim in sims.items():
        try:
            out[lab] = (figures(sim) if _space_sharing(sim)
                        else ibm_metrics(sim.records(), getattr(sim, "real_processors", sim.processors),
                                         time_unit=time_unit))
        except ValueError:  # no job finished yet
            out[lab] = {}
    return comparison_from_metrics(title, processors, out, goals=IBM_GOALS)


def build_simulations(source, specs: Sequence[str], *, ring: bool | None = None,
                      record: bool = False, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return ``{label: simulation}``, one fresh simulation per policy spec on ``source``'s jobs
    (each by :func:`gangviz.factory.build`).

    The label is the spec as given (``"random:seed=3"``); a scenario's own ``[params.NAME]``
    apply unless the spec overrides them, and ``params`` (given to every policy) override both.
    Raises ``ValueError`` for an unknown policy, bad parameters, a policy that cannot run on the
    machine, or a spec given twice.
    """
    from gangviz.factory import build

    if len(set(specs)) != len(specs):
        raise ValueError("each --policy may be given once")
    return {spec: build(source, spec, params=params, record=record, watch=False, ring=ring)
            for spec in specs}


def run_simulations(source, specs: Sequence[str], *, ring: bool | None = None,
                    record: bool = False) -> dict[str, Any]:
    """Return ``{label: Simulation}`` as :func:`build_simulations` does, each run to the end."""
    sims = build_simulations(source, specs, ring=ring, record=record)
    for sim in sims.values():
        sim.run()
    return sims


def compare(source, specs: Sequence[str], *, ring: bool | None = None) -> Comparison:
    """Run every policy spec on ``source`` (a :class:`~gangviz.workloads.source.Source`) to the end.

    Returns the :class:`Comparison`. Raises ``ValueError`` as :func:`build_simulations` does.
    """
    sims = build_simulations(source, specs, ring=ring)
    return finish_and_compare(source.title, sims, time_unit=getattr(source, "slice_seconds", 1.0))


def finish_and_compare(title: str, sims: Mapping[str, Any], *, time_unit: float = 1.0) -> Comparison:
    """Run every simulation (label -> simulation) to its end and return their :class:`Comparison`.

    With a space-sharing simulation among them every column holds the IBM figures, an engine
    run's loss of capacity included (eq. 3, counted while it runs to the end). Raises
    ``ValueError`` when a run finishes no job in that case.
    """
    if not any(_space_sharing(sim) for sim in sims.values()):
        for sim in sims.values():
            while sim.step() is not None:
                pass
        return comparison_from_sims(title, sims)
    from gangviz.metrics import figures
    from gangviz.metrics.ibm import engine_ibm_metrics

    metrics = {}
    for lab, sim in sims.items():
        if _space_sharing(sim):
            sim.run()
            metrics[lab] = figures(sim)
        else:
            metrics[lab] = engine_ibm_metrics(sim, time_unit)
    processors = next(iter(sims.values())).processors
    return comparison_from_metrics(title, processors, metrics, goals=IBM_GOALS)
