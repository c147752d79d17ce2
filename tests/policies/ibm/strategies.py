"""Random workloads for the property tests of the IBM policies (hypothesis)."""

from __future__ import annotations

from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec


@st.composite
def workloads(draw, max_procs: int = 12, jobs: tuple[int, int] = (1, 18), max_gap: float = 3.0,
              max_work: float = 8.0, overestimate: tuple[float, float] = (1.0, 3.0)):
    """Return ``(processors, jobs)``: up to ``max_procs`` processors and jobs whose user
    estimate is their work times a factor drawn from ``overestimate``."""
    procs = draw(st.integers(4, max_procs))
    n = draw(st.integers(*jobs))
    out, t = [], 0.0
    for i in range(n):
        t += draw(st.floats(0, max_gap, allow_nan=False))
        work = draw(st.floats(0.2, max_work, allow_nan=False))
        factor = draw(st.floats(*overestimate, allow_nan=False))
        out.append(JobSpec(i, f"J{i}", t, draw(st.integers(1, procs)), work, work * factor))
    return procs, out
