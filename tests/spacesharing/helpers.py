"""What the tests of the compiled space-sharing loops share: comparing results bit for bit."""

from __future__ import annotations


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
