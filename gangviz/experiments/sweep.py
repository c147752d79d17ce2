"""Run a sweep file: every cell's replications through :func:`~gangviz.experiments.runner.map_runs`.

:func:`run_sweep` is the Qt-free engine behind ``gangviz sweep`` (and the GUI's sweep dialog):
it writes each run to the results CSV (:mod:`gangviz.experiments.results`) the moment it
completes, writes a cell's summary (mean and 95 % Student-t interval per metric) once its
replications are all accounted for, and returns the summaries. With ``existing="resume"`` the runs
already in the file are kept and only the missing ones (including failed ones) are computed.

A failed run (an exception, a worker that died, a lost cluster) is written as a ``failed`` row
with its message; the other runs go on and the sweep reports the failures at the end.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gangviz.experiments.results import (
    ResultsWriter,
    header,
    read_completed,
    replace_atomically,
    run_key,
)
from gangviz.experiments.runner import RunFailed, map_runs
from gangviz.experiments.stats import mean_ci
from gangviz.experiments.sweepfile import Cell, Sweep
from gangviz.experiments.tasks import METRICS, build_jobs, run_task, run_task_jobs

#: What :func:`run_sweep` does with a results file that exists: refuse it, keep its runs and
#: compute the missing ones, or start it afresh.
Existing = Literal["refuse", "resume", "overwrite"]


class SweepCancelled(Exception):
    """Raise this from ``progress`` to stop a sweep; :func:`run_sweep` then returns early."""


@dataclass
class CellSummary:
    """Mean and 95 % CI half-width per metric of one cell (``values`` = its grid point)."""

    policy: str
    values: tuple[Any, ...]
    n: int
    mean: dict[str, float]
    ci95: dict[str, float]
    errors: list[str] = field(default_factory=list)


@dataclass
class SweepReport:
    """What :func:`run_sweep` did: run counts, failures ``(cell, replication, message)``, cells."""

    total: int
    computed: int
    reused: int
    failures: list[tuple[Cell, int, str]]
    cells: list[CellSummary]
    cancelled: bool = False


def summarize(cell: Cell, runs: list[dict[str, float]], errors: list[str]) -> CellSummary:
    """Return the :class:`CellSummary` of ``cell`` from its successful ``runs``."""
    mean, half = {}, {}
    for m in METRICS:
        mean[m], half[m], _ = mean_ci([r.get(m, math.nan) for r in runs])
    return CellSummary(cell.policy, cell.values, len(runs), mean, half, list(errors))


def check_sweep(sweep: Sweep) -> None:
    """Build the first grid point's workload and every policy on its machine, before any run.

    Raises ``ValueError`` naming the sweep file when the workload cannot be built, a policy
    cannot run on the machine (e.g. a buddy policy on a machine that is not a power of two), or
    the policies would run on different machines (a buddy scheme and another on a trace padded
    by ``procs``: :func:`gangviz.experiments.compare.machine_sources`).
    """
    from gangviz.experiments.compare import machine_sources
    from gangviz.factory.policy import make, resolve

    cell, task = sweep.tasks()[0]
    try:
        source = build_jobs(task.workload, dict(task.workload_params), task.seed)
        machine_sources(source, sweep.policies)
        for p in sweep.policies:
            policy = make("matrix", resolve(source, p, params=sweep.policy_params.get(p, {})))
            policy.check_machine(source.processors, sweep.ring)
    except (ValueError, FileNotFoundError) as exc:
        raise ValueError(f"{sweep.path}: {exc}") from None


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    *,
    workers: int = 1,
    scheduler: Any = None,
    existing: Existing = "refuse",
    progress: Callable[[int, int], None] | None = None,
    fn: Callable[..., Any] = run_task,
    check: bool = True,
    jobs_dir: str | Path | None = None,
) -> SweepReport:
    """Run ``sweep`` and write its results CSV at ``out``; return a :class:`SweepReport`.

    ``progress(done, total)`` counts runs, reused ones included; it may raise
    :class:`SweepCancelled` to stop (a GUI's Cancel button): the runs in flight finish, nothing
    more starts, every finished run stays in the file, and the report says ``cancelled``; a later
    ``existing="resume"`` completes the sweep. ``fn`` is the run function
    (tests substitute one that fails on purpose). With ``jobs_dir`` every computed run also
    writes its per-job table there (:func:`jobs_file_name`; Batsim-layout CSV, see
    :mod:`gangviz.results.jobs`), and runs use the reference engine. Raises ``ValueError`` when ``out`` exists and
    ``existing`` is ``"refuse"``, when the file belongs to another sweep, or when
    :func:`check_sweep` fails.
    """
    out = Path(out)
    fn, jobs_dir = _with_jobs_dir(fn, jobs_dir)
    _check_out(out, existing)
    if check:
        check_sweep(sweep)
    axes = sweep.axis_names
    plan = sweep.tasks()
    keys = [run_key(c.policy, c.values, t.replication) for c, t in plan]
    seeds = dict(zip(keys, (t.seed for _, t in plan)))
    done = read_completed(out, axes, METRICS, seeds) if existing == "resume" else {}

    cells = sweep.cells()
    runs: dict[Cell, dict[int, dict[str, float]]] = {c: {} for c in cells}
    errors: dict[Cell, list[str]] = {c: [] for c in cells}
    todo = _reuse(plan, keys, done, runs)
    summaries: dict[Cell, CellSummary] = {}

    def finish(cell: Cell, writer: ResultsWriter) -> None:
        ok = [runs[cell][r] for r in sorted(runs[cell])]
        writer.summary(cell.policy, cell.values, ok, sweep.replications, errors[cell])
        summaries[cell] = summarize(cell, ok, errors[cell])

    def rewrite(tmp: Path) -> None:
        w = ResultsWriter(tmp, axes, METRICS, append=False)
        try:
            for (cell, task), key in zip(plan, keys):
                if key in done:
                    w.run(cell.policy, cell.values, task.replication, task.seed, done[key])
            for cell in cells:
                if len(runs[cell]) == sweep.replications:
                    finish(cell, w)
        finally:
            w.close()

    replace_atomically(out, rewrite)
    writer = ResultsWriter(out, axes, METRICS, append=True)
    failures: list[tuple[Cell, int, str]] = []
    reused = len(plan) - len(todo)
    pending = {c: sweep.replications - len(runs[c]) for c in cells}
    cancelled = False
    try:
        if progress is not None:
            progress(reused, len(plan))
        finished = reused
        for i, result in map_runs(fn, [t for _, t in todo], workers=workers, scheduler=scheduler,
                                  errors="return"):
            cell, task = todo[i]
            if isinstance(result, RunFailed):
                failures.append((cell, task.replication, result.message))
                errors[cell].append(result.message)
                writer.run(cell.policy, cell.values, task.replication, task.seed, None, result.message)
            else:
                result = _metrics_of(result, cell, task, axes, jobs_dir)
                runs[cell][task.replication] = result
                writer.run(cell.policy, cell.values, task.replication, task.seed, result)
            pending[cell] -= 1
            if pending[cell] == 0:
                finish(cell, writer)
            finished += 1
            if progress is not None:  # after the row is written, so a cancel loses nothing
                progress(finished, len(plan))
    except SweepCancelled:
        cancelled = True
    finally:
        writer.close()
    computed = sum(len(runs[c]) for c in cells) - reused + len(failures)
    return SweepReport(len(plan), computed, reused, failures,
                       [summaries[c] for c in cells if c in summaries], cancelled)


def _with_jobs_dir(fn: Callable[..., Any], jobs_dir: str | Path | None
                   ) -> tuple[Callable[..., Any], Path | None]:
    """Return the run function and the per-job folder (created): with a folder, the default
    :func:`run_task` becomes :func:`run_task_jobs`, which also returns each run's per-job table."""
    if jobs_dir is None:
        return fn, None
    jobs_dir = Path(jobs_dir)
    jobs_dir.mkdir(parents=True, exist_ok=True)
    return (run_task_jobs if fn is run_task else fn), jobs_dir


def _reuse(plan: list[Any], keys: list[Any], done: dict[Any, Any], runs: dict[Any, Any]
           ) -> list[Any]:
    """Put the runs found in ``done`` (by key) into ``runs``; return the ``(cell, task)`` pairs
    of the plan still to run, in plan order."""
    todo = []
    for (cell, task), key in zip(plan, keys):
        if key in done:
            runs[cell][task.replication] = done[key]
        else:
            todo.append((cell, task))
    return todo


def _metrics_of(result: Any, cell: Cell, task: Any, axes: list[str], jobs_dir: Path | None) -> Any:
    """Return a finished run's metrics; a ``(metrics, per-job table, sidecar)`` triple from
    :func:`run_task_jobs` also writes the table into ``jobs_dir``, with its provenance sidecar
    beside it (:func:`gangviz.results.jobs.write_sidecar_document`)."""
    if isinstance(result, tuple):
        result, table, *sidecar = result
        if jobs_dir is not None:
            path = jobs_dir / jobs_file_name(cell, axes, task.replication)
            _write_jobs(table, path, task.workload)
            if sidecar:
                from gangviz.results.jobs import write_sidecar_document

                write_sidecar_document(path, sidecar[0])
    return result


def jobs_file_name(cell: Cell, axes: list[str], replication: int) -> str:
    """Return the name of one run's per-job file: policy, grid point and replication, e.g.
    ``brms_load-0.7_r2.csv`` (characters other than letters, digits, ``.``, ``-`` become ``_``)."""
    parts = [cell.policy, *(f"{a}-{v}" for a, v in zip(axes, cell.values)), f"r{replication}"]
    return re.sub(r"[^A-Za-z0-9.-]", "_", "_".join(str(p) for p in parts)) + ".csv"


def _write_jobs(table: Any, path: Path, workload: str) -> None:
    from gangviz.results.jobs import write_jobs

    write_jobs(table, path, workload_name=re.sub(r"[^A-Za-z0-9._-]", "_", Path(workload).name) or "w0")


def _check_out(out: Path, existing: Existing) -> None:
    """Raise ``ValueError`` when ``out`` is a folder or another special file, or exists and
    ``existing`` refuses it."""
    from gangviz.outputs import refuse_special

    if out.is_dir():
        raise ValueError(f"{out}: is a folder; --out names the results file, e.g. {out / 'results.csv'}")
    refuse_special(out)  # a device or a FIFO is neither read back nor replaced
    if out.exists() and existing == "refuse":
        raise ValueError(f"{out} exists; pass --resume to complete it or --force to overwrite it")


def load_summaries(path: str | Path) -> tuple[list[str], list[CellSummary]]:
    """Return ``(axis names, summaries)`` read from the ``summary`` rows of a results CSV.

    Grid values come back as numbers where they parse as such. Raises ``ValueError`` (file,
    line) for a file that is not a gangviz results file.
    """
    from gangviz.inputs import check_regular

    path = Path(path)
    check_regular(path)
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    if not head.startswith(b"kind,policy,") or b"\n" not in head or b"\x00" in head:
        raise ValueError(f"{path}:1: not a gangviz sweep results file (CSV starting kind,policy,...)")
    try:
        return _read_summaries(path)
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a gangviz sweep results file ({exc})") from None


def _read_summaries(path: Path) -> tuple[list[str], list[CellSummary]]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = csv.reader(fh)
        cols = next(rows, None)
        if not cols or cols[:2] != ["kind", "policy"] or "replication" not in cols:
            raise ValueError(f"{path}:1: not a gangviz sweep results file")
        axes = cols[2:cols.index("replication")]
        if cols != header(axes, METRICS):
            raise ValueError(f"{path}:1: unexpected columns for a gangviz sweep results file")
        out = []
        for row in rows:
            if len(row) != len(cols) or row[0] != "summary":
                continue
            rec = dict(zip(cols, row))
            values = tuple(_number(rec[a]) for a in axes)
            try:
                mean = {m: float(rec[m]) if rec[m] else math.nan for m in METRICS}
                half = {m: float(rec[f"{m}_ci95"]) if rec[f"{m}_ci95"] else math.nan for m in METRICS}
                n = int(rec["n"])
            except ValueError:
                raise ValueError(f"{path}:{rows.line_num}: a summary row holds a value that is not a "
                                 "number") from None
            out.append(CellSummary(rec["policy"], values, n, mean, half,
                                   [rec["error"]] if rec["error"] else []))
    if not out:
        raise ValueError(f"{path}: has no summary rows (no cell of the sweep has finished); "
                         "nothing to plot")
    return axes, out


def _number(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


__all__ = ["CellSummary", "Existing", "SweepCancelled", "SweepReport", "run_sweep", "check_sweep", "summarize", "load_summaries"]
