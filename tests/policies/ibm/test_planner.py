"""The BGS planner (Zhang01 §5.2): building it in one pass equals booking
one job at a time."""

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.policies.ibm.bgs import Planner


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.5, 1.0, 2.0, 2.5, 3.0, 7.0]),
                                             st.integers(1, 8)), max_size=12))
def test_planner_from_bookings_equals_adding_one_at_a_time(n_rows, books):
    books = [(r % n_rows, e, s) for r, e, s in books]
    one = Planner(8, n_rows, 1.0)
    for r, e, s in books:
        one.add(r, 1.0, e, s)
    bulk = Planner.from_bookings(8, n_rows, 1.0, [b[0] for b in books], [b[1] for b in books], [b[2] for b in books])
    for r in range(n_rows):
        assert one.profile(r)[0].tolist() == bulk.profile(r)[0].tolist()
        assert one.profile(r)[1].tolist() == bulk.profile(r)[1].tolist()
