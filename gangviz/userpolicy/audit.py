"""The grader's own check of a finished time-slot run: its recorded change log replayed into a
fresh matrix, step by step, against every rule of the family (Ousterhout82: one process per
processor and slot; a gang in one slot; Zhou99 §3: a process keeps its processor in a re-pack;
Feitelson97 §2: work is conserved).

It runs in the engine's process after the run, on the log the engine recorded, so a policy that
wrote the engine's state directly (run in the engine's process) or a checker that was switched
off is caught here: the first step where the log and the rules disagree is named. It also
measures what is legal but wasteful (warnings, not failures): empty slots kept, processors idle
while a waiting job would fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gangviz.core.matrix import IDLE, OusterhoutMatrix, slot_label
from gangviz.userpolicy.errors import RULES, Declared

__all__ = ["Audit", "audit_matrix_run"]

ONE_PROCESS, GANG, REPACK, BUDDY, ARRIVAL, WORK, DEADLOCK, ARGUMENT, CAPACITY, LOGGED = RULES

#: What a student does instead, for each rule (appended to a violation's message).
HINTS = {
    ONE_PROCESS: "place a job only on processors idle in that slot (view.idle(slot), view.fits)",
    GANG: "place all of a job's processes in one slot: exactly job.size processors",
    REPACK: "move a running job only with act.shift (same processors), or declare migrates = True",
    BUDDY: "with buddy = True, place a job of size s on an aligned block of the next power of two",
    ARRIVAL: "place only jobs from view.waiting",
    WORK: "delete only empty slots, and never take a running job out of the matrix",
    DEADLOCK: "when the machine is idle, place a waiting job (open a slot if none has room)",
    ARGUMENT: "name jobs by job.id and slots in 0..view.slots - 1, as whole numbers",
    CAPACITY: "start a job only when view.free >= job.size",
    LOGGED: "change the matrix only through act (never through private attributes)",
}


@dataclass
class Audit:
    """The replay's verdict: the first broken rule (``None`` when every rule holds) with its
    message, and the warnings (legal but wasteful), each with how often it was seen."""

    rule: str | None = None
    message: str = "ok"
    warnings: dict[str, str] = field(default_factory=dict)


def audit_matrix_run(sim: Any, initial: OusterhoutMatrix | None = None, *,
                     declared: Declared | None = None) -> Audit:
    """Replay the steps ``sim`` recorded (``record=True``) into a fresh matrix (a copy of
    ``initial``, the scenario's starting matrix, or an empty one) and return the :class:`Audit`,
    holding the policy to the rules it ``declared`` (default: neither)."""
    declared = declared if declared is not None else Declared()
    m = initial.copy() if initial is not None else OusterhoutMatrix(sim.processors)
    specs = {j: rec.spec for j, rec in sim.jobs.items()}
    placed: dict[int, float] = {j: 0.0 for j in m.jobs()}  # first placement time
    gone: set[int] = set()
    empty_kept = idle_fit = decisions = 0
    started: dict[float, list[int]] = {}  # the engine's own record: who started when
    for j, rec in sim.jobs.items():
        if rec.start is not None and j not in placed:
            started.setdefault(float(rec.start), []).append(j)
    for step in sim.steps:
        t = float(step.time)
        for change in step.changes:
            bad = _check(change, m, specs, placed, gone, t, declared)
            if bad is not None:
                rule, detail = bad
                return Audit(rule, f"step {step.index} (t={t:g}): {detail}; {HINTS[rule]}")
            try:
                change.apply(m)
            except (ValueError, KeyError, IndexError) as exc:
                return Audit(ONE_PROCESS, f"step {step.index} (t={t:g}): the log cannot be replayed: {exc}")
        unlogged = [j for j in started.get(t, ()) if j not in placed]
        if unlogged:
            return Audit(LOGGED, f"step {step.index} (t={t:g}): {specs[unlogged[0]].name} starts in the engine, "
                                 f"and the log does not place it; {HINTS[LOGGED]}")
        waiting = [j for j, s in specs.items() if s.arrival <= t and j not in placed and j not in gone
                   and not _terminated(sim, j)]
        if waiting and m.n_jobs == 0:
            name = specs[waiting[0]].name
            return Audit(DEADLOCK, f"step {step.index} (t={t:g}): {name} waits while the machine is idle; "
                                   f"{HINTS[DEADLOCK]}")
        if step.cause != "slice":
            decisions += 1
            busy = m.busy_per_row() if m.n_rows else np.zeros(0)
            empty_kept += bool(m.n_rows and (busy == 0).any())
            if waiting and m.n_rows:
                free = m.processors - busy
                idle_fit += bool(min(specs[j].size for j in waiting) <= free.max())
    mismatch = _log_matches_engine(sim, m, placed)
    if mismatch is not None:
        return Audit(LOGGED, f"{mismatch}; {HINTS[LOGGED]}")
    audit = Audit()
    if empty_kept:
        audit.warnings["empty slots kept"] = (f"after {empty_kept} of {decisions} decisions a slot ran no job; "
                                              "delete empty slots (act.delete_slot) so the others run more often")
    if idle_fit:
        audit.warnings["idle processors while a job fits"] = (
            f"after {idle_fit} of {decisions} decisions a waiting job would have fit in the idle processors "
            "of a slot; place it there (view.first_fit) unless the policy means to hold it")
    return audit


def _log_matches_engine(sim: Any, m: OusterhoutMatrix, placed: dict[int, float]) -> str | None:
    """Where the engine's record disagrees with its own log: a job whose start is not the time
    the log places it (earliest first), or a final matrix the log does not give."""
    worst = None
    for job, rec in sim.jobs.items():
        logged = placed.get(job)
        start = rec.start
        if start is not None and logged is None and not rec.terminated:
            worst = worst if worst is not None and worst[0] <= start else (
                start, f"t={start:g}: {rec.spec.name} runs in the engine, and the log never places it")
        elif start is not None and logged is not None and abs(logged - start) > 1e-9:
            at = min(start, logged)
            if worst is None or at < worst[0]:
                worst = (at, f"t={at:g}: {rec.spec.name} starts at t={start:g} in the engine, and the log "
                             f"places it at t={logged:g}")
    if worst is not None:
        return worst[1]
    final = sim.matrix.cells
    if final.shape != m.cells.shape or bool((final != m.cells).any()):
        return (f"t={float(sim.time):g}: the engine's matrix at the end is not the one its log gives (cells "
                "were written directly)")
    return None


def _terminated(sim: Any, job: int) -> bool:
    rec = sim.jobs[job]
    return bool(rec.terminated)


def _check(change: Any, m: OusterhoutMatrix, specs: dict[int, Any], placed: dict[int, float], gone: set[int],
           t: float, declared: Declared) -> tuple[str, str] | None:
    """The rule ``change`` breaks on ``m`` at time ``t``, with the detail, or ``None``."""
    kind = change.kind
    if kind == "job_placed":
        return _check_placed(change, m, specs, placed, gone, t, declared.buddy)
    if kind == "slot_removed":
        if 0 <= change.row < m.n_rows and not m.row_is_empty(change.row):
            return WORK, f"{slot_label(change.row)} is deleted while it holds jobs"
    elif kind == "job_shifted":
        if change.dst_row != change.src_row and 0 <= change.dst_row < m.n_rows and change.job in m:
            cols = list(m.job_cols(change.job))
            row = m.cells[change.dst_row]
            if any(row[p] != IDLE for p in cols):
                return ONE_PROCESS, f"{m.name(change.job)} is shifted into {slot_label(change.dst_row)} onto busy processors"
    elif kind == "job_migrated":
        if not declared.migrates:
            return REPACK, f"{m.name(change.job)} moves to other processors, and the policy does not migrate"
    elif kind == "job_removed":
        gone.add(change.job)
    return None


def _check_placed(change: Any, m: OusterhoutMatrix, specs: dict[int, Any], placed: dict[int, float],
                  gone: set[int], t: float, buddy: bool) -> tuple[str, str] | None:
    job, row, cols = change.job, change.row, list(change.cols)
    spec = specs.get(job)
    if spec is None:
        return ARGUMENT, f"job {job} is not in the workload"
    if spec.arrival > t + 1e-9:
        return ARRIVAL, f"{spec.name} is placed at t={t:g} before it arrives at {spec.arrival:g}"
    if job in placed or job in gone:
        return WORK, f"{spec.name} is placed again after it ran (its work so far would be lost)"
    if not 0 <= row < m.n_rows:
        return ARGUMENT, f"{spec.name} is placed in {slot_label(row)}, which does not exist"
    if len(cols) != spec.size:
        return GANG, f"{spec.name} has {spec.size} processes placed on {len(cols)} processors"
    taken = [p for p in cols if not 0 <= p < m.processors or m.cells[row, p] != IDLE]
    if taken:
        return ONE_PROCESS, f"{spec.name} is placed on P{taken[0] + 1} of {slot_label(row)}, which is not idle"
    if buddy:
        block = 1 << (len(cols) - 1).bit_length()
        if cols[0] % block or cols != list(range(cols[0], cols[0] + len(cols))):
            return BUDDY, f"{spec.name} is not on an aligned block of {block}"
    placed[job] = t
    return None


def served_exactly(sim: Any) -> tuple[str, str] | None:
    """The first job that did not finish with exactly its work served, or started before it
    arrived: ``(rule, message)``, or ``None``."""
    for job, rec in sim.jobs.items():
        name = rec.spec.name or f"J{job}"
        if rec.finish is None and math.isfinite(rec.spec.work) and not rec.terminated:
            return DEADLOCK, f"{name} never finished (it waits at the end of the run); {HINTS[DEADLOCK]}"
        if rec.start is not None and rec.start < rec.spec.arrival:
            return ARRIVAL, f"{name} started at {rec.start:g} before it arrived at {rec.spec.arrival:g}"
        if rec.finish is not None and not rec.terminated and \
                abs(sim.served(job) - rec.spec.work) > 1e-6 * max(1.0, rec.spec.work):
            return WORK, f"{name} was served {sim.served(job):g} of its {rec.spec.work:g} slices"
    return None
