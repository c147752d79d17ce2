"""The notebook API checks every argument at its door: TypeError/ValueError naming it."""

from __future__ import annotations

import numpy as np
import pytest

import gangviz
from gangviz.api import to_pandas


@pytest.mark.parametrize("kwargs,error,said", [
    ({"policy": 7}, TypeError, "policy must be a policy name such as 'bc' or 'random:seed=3' (str), got int 7"),
    ({"policy": ["bc"]}, TypeError, "policy must be a policy name"),
    ({"policy": b"bc"}, TypeError, "got bytes b'bc'"),
    ({"policy": ""}, ValueError, "policy is empty"),
    ({"policy": "  "}, ValueError, "policy is empty"),
    ({"params": {1: 2}}, TypeError, "params keys must be parameter names (non-empty str), got int 1"),
    ({"params": [("seed", 1)]}, TypeError, "params must be a dict"),
    ({"params": {"seed": [1]}}, TypeError, "params['seed'] must be a bool, a number or text"),
    ({"load": True}, TypeError, "load must be a finite number > 0, got bool True"),
    ({"load": float("nan")}, ValueError, "load must be a finite number > 0"),
    ({"slice_seconds": "1"}, TypeError, "slice_seconds must be a finite number of seconds > 0, got str '1'"),
    ({"jobs": 5.0}, TypeError, "jobs must be a whole number >= 1, got float 5.0"),
    ({"jobs": 0}, ValueError, "--jobs"),
    ({"seed": -1}, ValueError, "--seed"),
    ({"procs": "64"}, TypeError, "procs must be a whole number >= 1, got str '64'"),
    ({"record": "no"}, TypeError, "record must be True or False, got str 'no'"),
    ({"record": 1}, TypeError, "record must be True or False"),
    ({"ring": "yes"}, TypeError, "ring must be True, False or None"),
    ({"colour": "red"}, TypeError, "unknown option(s) colour; the options are procs"),
])
def test_simulate_refuses_each_argument_by_name(kwargs, error, said):
    with pytest.raises(error) as exc:
        gangviz.simulate("downey", **{"jobs": 3, **kwargs})
    assert said in str(exc.value)


@pytest.mark.parametrize("source,error", [(7, TypeError), (None, TypeError), (b"downey", TypeError),
                                          ("", ValueError), ("   ", ValueError)])
def test_the_source_is_checked_first(source, error):
    with pytest.raises(error, match="source"):
        gangviz.simulate(source, "bc")


@pytest.mark.parametrize("policies,error,said", [
    ([1, 2], TypeError, "policies[0] must be a policy name"),
    (iter([]), ValueError, "policies is empty"),
    ([], ValueError, "policies is empty"),
    (["bc", None], TypeError, "policies[1] must be a policy name"),
    (["bc", "BC "], ValueError, "'BC ' is the same policy as 'bc'"),
    ("bc", TypeError, "policies must be a list of names"),
    (b"bc", TypeError, "policies must be a list of names"),
    (5, TypeError, "policies must be a list of names"),
])
def test_compare_refuses_its_policies_by_name(policies, error, said):
    with pytest.raises(error) as exc:
        gangviz.compare("downey", policies, jobs=3)
    assert said in str(exc.value)


def test_compare_takes_a_generator_once():
    runs = gangviz.compare("downey", (p for p in ["bc", "br"]), jobs=5)
    assert list(runs) == ["bc", "br"]


def test_good_arguments_still_run():
    r = gangviz.simulate("downey", "random", params={"seed": 3}, jobs=5, load=0.4, seed=2, record=True)
    assert r.policy == "random" and r.steps and r.metrics["t_ta"] > 0


def test_to_pandas_and_write_jobs_check_their_argument(tmp_path):
    with pytest.raises(TypeError, match="table must be a per-job table"):
        to_pandas([1, 2])
    with pytest.raises(TypeError, match="table must be a per-job table"):
        to_pandas(np.zeros(3))
    r = gangviz.simulate("downey", "bc", jobs=3)
    with pytest.raises(TypeError, match="path must be a file name"):
        r.write_jobs(3)
    with pytest.raises(ValueError, match="path is empty"):
        r.write_jobs("")
