"""The engine's job records as columns: the table reads like a dict of records by id, in the
order the jobs were given, and a record is a view that reads and writes the columns."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from gangviz.core.jobs import JobSpec
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.sim.state import JobRecord, JobTable


def specs(*ids):
    return [JobSpec(i, f"J{i}", float(k), 1, 2.0) for k, i in enumerate(ids)]


def test_reads_like_a_dict_in_the_given_order():
    table = JobTable(specs(3, 0, 5))
    assert list(table) == [3, 0, 5] and len(table) == 3
    assert 5 in table and 1 not in table and -1 not in table and 6 not in table and "J3" not in table
    assert table[0].spec.name == "J0" and table.get(1) is None
    with pytest.raises(KeyError):
        table[4]
    with pytest.raises(KeyError):
        table.spec(4)
    assert table.end == 6


def test_a_record_is_a_view_of_the_columns():
    table = JobTable(specs(0, 1))
    rec = table[1]
    assert (rec.start, rec.finish, rec.terminated, rec.turnaround) == (None, None, False, None)
    table.start[1] = 4.0
    rec.finish = 9.5
    assert rec.start == 4.0 and type(rec.start) is float and table.finish[1] == 9.5
    assert rec.turnaround == 9.5 - 1.0
    rec.terminated = True
    assert table.terminated[1] and table[1] == rec and table[0] != rec
    rec.finish = None
    assert math.isnan(table.finish[1])
    assert "start=4.0" in repr(rec)


def test_completed_leaves_out_terminated_and_running_jobs_and_keeps_the_order():
    table = JobTable(specs(2, 0, 1))
    table.finish[[2, 1]] = [5.0, 3.0]
    table.finish[0] = 4.0
    table.terminated[0] = True
    assert table.completed() == [2, 1]


def test_add_and_remove_a_submitted_job():
    table = JobTable(specs(0, 1))
    table.add(JobSpec(7, "U7", 3.0, 2, 1.0))
    assert list(table) == [0, 1, 7] and table[7].spec.name == "U7" and len(table) == 3
    table[7].finish = 5.0
    table.remove(7)
    assert 7 not in table and list(table) == [0, 1] and len(table) == 2
    table.add(JobSpec(7, "U7", 3.0, 2, 1.0))
    assert table[7].finish is None  # a job submitted again starts afresh


def test_duplicate_ids_are_refused():
    with pytest.raises(ValueError, match="duplicate job id 1"):
        JobTable(specs(1, 0, 1))


def test_the_simulation_keeps_no_record_objects_and_steps_back_exactly():
    jobs = [JobSpec(i, f"J{i}", float(i % 7), 1 + i % 4, float(1 + i % 5)) for i in range(40)]
    sim = Simulation(jobs, make_policy("gs"), 8)
    assert isinstance(sim.jobs, JobTable)
    sim.run(max_steps=25)
    middle = [(r.start, r.finish) for r in sim.records()]
    sim.run()
    end = [(r.start, r.finish) for r in sim.records()]
    assert all(f is not None for _, f in end)
    sim.go_to(25)
    assert [(r.start, r.finish) for r in sim.records()] == middle
    sim.run()
    assert [(r.start, r.finish) for r in sim.records()] == end
    # the columns hold what the records say
    assert np.array_equal(sim.jobs.finish[:40], [f for _, f in end])


def test_a_record_pickles_as_a_view_of_its_table():
    table = JobTable(specs(0))
    table[0].start = 1.0
    again = pickle.loads(pickle.dumps(table[0]))
    assert isinstance(again, JobRecord) and again == table[0]
