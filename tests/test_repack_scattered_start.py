"""repack refuses a starting matrix with a job on scattered processors, naming the job."""

import pytest

from gangviz import factory
from gangviz.workloads.source import load_source


def test_repack_refuses_a_start_with_a_scattered_job_and_random_runs_it():
    src = load_source("zhou-fig1-random-trap")
    with pytest.raises(ValueError, match="job J1 on P2..P3, P5, P8 does not hold consecutive processors"):
        factory.run(src, "repack")
    assert factory.run(src, "random").metrics["t_ta"] > 0
