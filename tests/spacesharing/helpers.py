"""What the space-sharing tests share: comparing the compiled loops' results bit for bit, and
the workloads they are drawn on."""

from __future__ import annotations

from hypothesis import strategies as st

from gangviz.core.jobs import JobSpec


def bits(x):
    """A value as its exact bits (float.hex), so -0.0, 0.0 and near-equal floats differ."""
    if isinstance(x, list):
        return [bits(v) for v in x]
    assert x is None or type(x) is float, x
    return None if x is None else x.hex()


def assert_same_bits(c_out, end, capacity, start, finish, reservation):
    """Assert the C loop's ``(end, lost sums, start, finish, reservation)`` equals the Python
    loop's ``end``, :class:`~gangviz.metrics.ibm.CapacityLog` and lists, bit for bit."""
    assert c_out is not None
    c_end, lost, c_start, c_finish, c_resv = c_out
    assert bits(c_end) == bits(end)
    assert bits(list(lost)) == bits([capacity.lost, capacity.lost_small, capacity.lost_large])
    assert bits(c_start) == bits(start)
    assert bits(c_finish) == bits(finish)
    assert bits(c_resv) == bits(reservation)


def draw_jobs(draw, durations, max_jobs=60):
    """Draw up to ``max_jobs`` jobs for 1-16 processors: return ``(processors, arrival, size,
    work, requested)``, with few distinct gaps and ``durations`` (a strategy) for work and
    estimates, so arrivals tie and estimates and ends are often equal; estimates fall below, on
    and above the run time, or are missing (NaN or 0: the run time)."""
    P = draw(st.integers(1, 16))
    n = draw(st.integers(0, max_jobs))
    gaps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0, 0.1]), min_size=n, max_size=n))
    arrival, t = [], draw(st.sampled_from([0.0, 2.0, 1e9]))
    for g in gaps:
        t += g
        arrival.append(t)
    size = draw(st.lists(st.integers(1, P), min_size=n, max_size=n))
    work = draw(st.lists(durations, min_size=n, max_size=n))
    requested = draw(st.lists(st.one_of(durations, st.sampled_from([float("nan"), 0.0])),
                              min_size=n, max_size=n))
    return P, arrival, size, work, requested


@st.composite
def spaced_jobs(draw, max_procs, max_jobs, factors):
    """Draw ``(processors, jobs)``: 1 to ``max_jobs`` jobs for 1 to ``max_procs`` processors,
    from few distinct arrival gaps and works (so arrivals tie and ends coincide), each estimate
    its work times one of ``factors``."""
    procs = draw(st.integers(1, max_procs))
    n = draw(st.integers(1, max_jobs))
    jobs, t = [], 0.0
    for i in range(n):
        t += draw(st.sampled_from([0.0, 0.5, 1.0, 3.0, 7.5]))
        work = draw(st.sampled_from([0.5, 1.0, 2.0, 5.0, 13.0]))
        est = work * draw(st.sampled_from(factors))
        jobs.append(JobSpec(i, f"J{i}", t, draw(st.integers(1, procs)), work, est))
    return procs, jobs


@st.composite
def whole_jobs(draw, max_jobs, slack):
    """Draw ``(jobs, processors)``: 1 to ``max_jobs`` jobs for 1 to 16 processors with whole
    arrivals in 0..40 and works in 1..30, each estimate its work plus a whole number in the
    range ``slack`` (none when that is not positive: the run time is the estimate)."""
    n = draw(st.integers(1, max_jobs))
    procs = draw(st.integers(1, 16))
    jobs = []
    for i in range(n):
        work = draw(st.integers(1, 30))
        arrival = float(draw(st.integers(0, 40)))
        size = draw(st.integers(1, procs))
        est = work + draw(st.integers(*slack))
        jobs.append(JobSpec(i, f"J{i}", arrival, size, float(work), float(est) if est > 0 else None))
    return jobs, procs


def spy_on(monkeypatch, module, name):
    """Wrap ``module.name`` for the test; return the list each call's arguments go to."""
    calls = []
    real = getattr(module, name)

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(module, name, spy)
    return calls
