"""What the tests of the compiled space-sharing loops share: comparing results bit for bit."""

from __future__ import annotations

from hypothesis import strategies as st


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


def draw_jobs(draw, durations):
    """Draw up to 60 jobs for 1-16 processors: return ``(processors, arrival, size, work,
    requested)``, with few distinct gaps and ``durations`` (a strategy) for work and estimates,
    so arrivals tie and estimates and ends are often equal; estimates fall below, on and above
    the run time, or are missing (NaN or 0: the run time)."""
    P = draw(st.integers(1, 16))
    n = draw(st.integers(0, 60))
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


def spy_on(monkeypatch, module, name):
    """Wrap ``module.name`` for the test; return the list each call's arguments go to."""
    calls = []
    real = getattr(module, name)

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(module, name, spy)
    return calls
