"""Hypothesis strategies: random Ousterhout matrices that obey the linear-array rules."""

from __future__ import annotations

from hypothesis import strategies as st

from gangviz.core.changes import JobPlaced, JobReplicated, SlotAdded
from gangviz.core.matrix import OusterhoutMatrix


@st.composite
def matrices(draw, max_procs: int = 12, max_rows: int = 6, ring: bool | None = False, min_rows: int = 0):
    """A matrix with random contiguous jobs (wrapping ones on a ring) and some extra rows."""
    procs = draw(st.integers(1, max_procs))
    is_ring = draw(st.booleans()) if ring is None else ring
    m = OusterhoutMatrix(procs, ring=is_ring)
    rows = draw(st.integers(min_rows, max_rows))
    job = 0
    for r in range(rows):
        SlotAdded(r).apply(m)
        offset = draw(st.integers(0, procs - 1)) if is_ring else 0
        c = 0
        while c < procs:
            if draw(st.booleans()):
                length = draw(st.integers(1, procs - c))
                cols = [(offset + k) % procs for k in range(c, c + length)]
                if cols == list(range(cols[0], cols[0] + length)):
                    placed = range(cols[0], cols[0] + length)
                else:
                    placed = tuple(cols)
                JobPlaced(job, r, placed).apply(m)
                m.names[job] = f"J{job}"
                job += 1
                c += length
            else:
                c += draw(st.integers(1, 2))
    # Some jobs also run in other rows where their processors are idle there.
    for j in list(m.jobs()):
        for r in range(m.n_rows):
            if r not in m.job_rows(j) and m.is_idle(r, m.job_cols(j)) and draw(st.integers(0, 4)) == 0:
                JobReplicated(j, (r,), m.job_cols(j)).apply(m)
    return m


def signature(m: OusterhoutMatrix) -> dict:
    """What re-packing must preserve: each job's processors and how many rows it holds."""
    return {j: (tuple(m.job_cols(j)), len(m.job_rows(j))) for j in m.jobs()}


def assert_wlv_places_a_job(m: OusterhoutMatrix, size: int) -> None:
    """Place a job of ``size`` processors on ``m`` by WLV allocation; assert it holds one row
    and ``size`` columns, every other job is where it was, and ``m`` is consistent."""
    from gangviz.core.allocation import place_wlv

    before = signature(m)
    row = place_wlv(m, 12345, size, [])
    assert m.job_rows(12345) == [row] and len(m.job_cols(12345)) == size
    after = signature(m)
    del after[12345]
    assert after == before
    m.check()
