"""How output writes counts, estimates and metrics."""

import math

from gangviz.experiments.numbers import mean_ci, number, plural


def test_plural():
    assert plural(1, "node") == "1 node" and plural(2, "node") == "2 nodes"
    assert plural(0, "slice") == "0 slices" and plural(1, "replication") == "1 replication"
    assert plural(20000, "job") == "20,000 jobs"


def test_mean_and_confidence_half_width():
    assert mean_ci(218.2, 110.4) == "218 ± 110"
    assert mean_ci(218.23, 1.14) == "218.2 ± 1.1"
    assert mean_ci(0.5123, 0.0123) == "0.512 ± 0.012"
    assert mean_ci(3.0, math.nan) == "3" and mean_ci(math.nan, 1.0) == "-"


def test_metric_numbers_never_use_exponents():
    assert number(17685.3) == "17,685" and number(58.947) == "58.95" and number(6) == "6"
    assert number(math.nan) == "-"
