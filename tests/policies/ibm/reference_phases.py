"""Straightforward versions of the matrix phases (Zhang01 §5.1), written as the
paper's loops: one cell or one row at a time. The library's phases keep incremental counts
instead; the tests run whole simulations with both and require identical results. What is no
scan (FillMatrix's repeated passes, a guarded shift) is the library's own."""

from __future__ import annotations

import numpy as np

from gangviz.core.changes import JobReplicated, JobUnreplicated
from gangviz.core.matrix import IDLE, col_index
from gangviz.policies.ibm.phases import fill_passes, shift_guarded


def row_jobs(m, row):
    """Distinct job ids of ``row``, left to right, by a scan of its cells."""
    seen = {}
    for j in m.cells[row].tolist():
        if j != IDLE:
            seen.setdefault(j, None)
    return list(seen)


def population_order(m):
    busy = np.count_nonzero(m.cells != IDLE, axis=1)
    return sorted(range(m.n_rows), key=lambda r: (int(busy[r]), r))


def clean_matrix(sim):
    m = sim.matrix
    removed = 0
    for row in range(m.n_rows):
        for job in row_jobs(m, row):
            if m.home_row(job) != row:
                sim.emit(JobUnreplicated(job, (row,), m.job_cols(job), "CleanMatrix: not its home row"))
                removed += 1
    return removed


def compaction_moves(m):
    order = population_order(m)
    for pos, i in enumerate(order):
        for j in reversed(order[pos + 1:]):
            for job in row_jobs(m, i):
                if m.home_row(job) == i and len(m.job_rows(job)) == 1:
                    yield job, i, j


def start_order(sim):
    now = sim.time

    def key(j):
        start = sim.jobs[j].start
        return (now if start is None else start, j)
    return sorted(sim.matrix.jobs(), key=key)


def fill_matrix(sim, label="FillMatrix"):
    m = sim.matrix

    def fill(job):
        cols = m.job_cols(job)
        have = set(m.job_rows(job))
        idx = col_index(cols)
        for row in range(m.n_rows):
            if row not in have and np.all(m.cells[row, idx] == IDLE):
                sim.emit(JobReplicated(job, (row,), cols, f"{label}: its processors are idle in this row"))
                return True
        return False

    return fill_passes(sim, fill, order=start_order)


def compact_matrix(sim, guard=None, label="CompactMatrix"):
    m = sim.matrix
    moved = 0
    for job, i, j in compaction_moves(m):
        if not np.all(m.cells[j, col_index(m.job_cols(job))] == IDLE):
            continue
        if shift_guarded(sim, guard, job, i, j, label):
            moved += 1
    return moved
