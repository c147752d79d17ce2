"""The backfilling simulator's schedule does not depend on the order the jobs are handed over:
jobs queue by arrival, then id, whether or not the list is already in id order."""

from __future__ import annotations

import random

import pytest

from gangviz.core.jobs import JobSpec
from gangviz.spacesharing.backfill import simulate_backfill


def _jobs(seed: int) -> list[JobSpec]:
    rnd = random.Random(seed)
    # few distinct arrival times, so many jobs arrive together and the id tie-break matters
    return [JobSpec(i, f"J{i}", float(rnd.randrange(0, 40, 10)), rnd.randint(1, 8),
                    float(rnd.randint(1, 30)), float(rnd.randint(1, 40))) for i in range(60)]


@pytest.mark.parametrize("mode", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("seed", range(5))
def test_shuffled_input_gives_the_same_schedule(mode, seed):
    jobs = _jobs(seed)
    shuffled = jobs[:]
    random.Random(seed + 100).shuffle(shuffled)
    a = simulate_backfill(jobs, 8, mode=mode)
    b = simulate_backfill(shuffled, 8, mode=mode)
    assert [s.id for s in a.order] == [s.id for s in b.order]
    assert [(r.spec.id, r.start, r.finish, r.reservation) for r in a.records] == \
        [(r.spec.id, r.start, r.finish, r.reservation) for r in b.records]
    ordered = sorted(jobs, key=lambda j: (j.arrival, j.id))
    assert [s.id for s in a.order] == [j.id for j in ordered]
