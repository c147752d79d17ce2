"""The results file of a sweep: one CSV, written row by row as runs complete.

Layout (one header, two kinds of rows, told apart by the first column):

``kind, policy, <grid axes...>, replication, seed, status, n, <m>, <m>_ci95 for each metric, error``

* ``kind = run``: one replication. ``status`` is ``ok`` or ``failed`` (then ``error`` says why
  and the metric columns are empty); ``n`` is 1; ``<m>`` is the metric value, ``<m>_ci95`` empty.
* ``kind = summary``: one cell (grid point and policy), written as soon as all of its
  replications are accounted for. ``<m>`` is the mean over the replications that succeeded and
  where the metric is defined, ``<m>_ci95`` the half-width of the 95 % Student-t interval
  (:func:`gangviz.experiments.stats.mean_ci`; empty for fewer than two values), ``n`` the number of
  successful replications, ``status`` ``ok``, ``partial`` or ``failed``.

Rows are flushed one by one, so a crash loses at most the run being written. Grid values are
written with ``repr`` so that they read back exactly. To get the table a paper prints, keep the
``summary`` rows.

Resuming (:func:`read_completed`) keeps only the ``ok`` run rows whose policy, grid values,
replication and seed match the sweep; a row of another sweep (a seed that does not match) is an
error, so two sweeps never mix in one file. The file is then rewritten with those rows and the
summaries of the cells they complete (a half-written last line is dropped).
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from gangviz.experiments.stats import mean_ci


def fmt(value: Any) -> str:
    """Return the CSV text of a grid value or metric (``repr`` of floats, empty for nan/None)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def header(axes: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """Return the column names of a results file."""
    cols = ["kind", "policy", *axes, "replication", "seed", "status", "n"]
    for m in metrics:
        cols += [m, f"{m}_ci95"]
    return cols + ["error"]


def run_key(policy: str, values: Iterable[Any], replication: int) -> tuple[Any, ...]:
    """Return the identity of one run row: (policy, grid values as text, replication)."""
    return (policy, tuple(fmt(v) for v in values), int(replication))


class ResultsWriter:
    """Appends rows to a results CSV, flushing after each one."""

    def __init__(self, path: Path, axes: Sequence[str], metrics: Sequence[str], *, append: bool) -> None:
        self.path = Path(path)
        self.axes = list(axes)
        self.metrics = list(metrics)
        fresh = not append or not self.path.exists() or self.path.stat().st_size == 0
        self._fh: IO[str] = open(self.path, "w" if fresh else "a", newline="", encoding="utf-8")
        self._csv = csv.writer(self._fh)
        if fresh:
            self._write(header(self.axes, self.metrics))

    def _write(self, row: list[str]) -> None:
        self._csv.writerow(row)
        self._fh.flush()

    def run(self, policy: str, values: Sequence[Any], replication: int, seed: int,
            metrics: dict[str, float] | None, error: str = "") -> None:
        """Write the row of one replication (``metrics`` None when it failed with ``error``)."""
        row = ["run", policy, *map(fmt, values), str(replication), str(seed),
               "ok" if metrics is not None else "failed", "1" if metrics is not None else "0"]
        for m in self.metrics:
            row += [fmt(metrics.get(m)) if metrics is not None else "", ""]
        self._write(row + [error])

    def summary(self, policy: str, values: Sequence[Any], runs: list[dict[str, float]],
                replications: int, errors: list[str]) -> None:
        """Write the summary row of a cell from its successful ``runs`` and its ``errors``."""
        status = "ok" if not errors else ("failed" if not runs else "partial")
        row = ["summary", policy, *map(fmt, values), "", "", status, str(len(runs))]
        for m in self.metrics:
            mean, half, _ = mean_ci([r.get(m, math.nan) for r in runs])
            row += [fmt(mean), fmt(half)]
        note = f"{len(errors)} of {replications} replication{'' if replications == 1 else 's'} failed: {errors[0]}" if errors else ""
        self._write(row + [note])

    def close(self) -> None:
        """Close the file."""
        self._fh.close()


def read_completed(path: Path, axes: Sequence[str], metrics: Sequence[str],
                   expected_seeds: dict[tuple[Any, ...], int]
                   ) -> dict[tuple[Any, ...], dict[str, float]]:
    """Return ``{run_key: metrics}`` of the successful runs already in the results file ``path``.

    ``expected_seeds`` maps each run key of the sweep to its seed. Raises ``ValueError`` (file,
    line, column) when the header does not match this sweep, or a row names a run the sweep does
    not have or a different seed. Returns ``{}`` when the file does not exist.
    """
    path = Path(path)
    if not path.exists():
        return {}
    from gangviz.inputs import check_regular

    check_regular(path)  # a FIFO or a device as --out would block or never end
    want = header(axes, metrics)
    done: dict[tuple[Any, ...], dict[str, float]] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        rows = csv.reader(fh)
        first = next(rows, None)
        if first is None:
            return {}
        if first != want:
            raise ValueError(f"{path}:1: the columns are not those of this sweep "
                             f"(expected {','.join(want)}); use another --out")
        for line, row in enumerate(rows, start=2):
            if len(row) != len(want):
                continue  # a line cut short by a crash
            rec = dict(zip(want, row))
            if rec["kind"] != "run" or rec["status"] != "ok":
                continue
            # the grid's values by place: an axis may share its name with a figure (``jobs``,
            # the workload's size and the jobs finished), whose later column wins in ``rec``
            values = row[2:2 + len(axes)]
            try:
                key = run_key(rec["policy"], values, int(rec["replication"]))
                seed = int(rec["seed"])
            except ValueError:
                raise ValueError(f"{path}:{line}: replication/seed: not a whole number") from None
            if key not in expected_seeds:
                raise ValueError(f"{path}:{line}: policy {rec['policy']} at "
                                 f"{dict(zip(axes, key[1]))} replication {key[2]} is not part of "
                                 f"this sweep; use another --out")
            if expected_seeds[key] != seed:
                raise ValueError(f"{path}:{line}: seed: {seed} was written by another sweep "
                                 f"(this one uses {expected_seeds[key]}); use another --out")
            done[key] = {m: float(rec[m]) if rec[m] != "" else math.nan for m in metrics}
    return done


def replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through ``write(tmp_path)`` and move it into place in one step."""
    from gangviz.outputs import refuse_special

    refuse_special(path)  # a device or a FIFO is never replaced by a file
    tmp = Path(f"{path}.tmp")
    write(tmp)
    os.replace(tmp, path)
