"""``gangviz run`` of a synthetic model under a gang policy, run a stretch at a time and measured
a block at a time, prints what the whole run prints: the same text and JSON, byte for byte."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from unittest import mock

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from gangviz.cli import main
from gangviz.commands import run_model


def _printed(argv: list[str], *, streamed: bool) -> str:
    """What ``gangviz run ARGV`` prints, streamed in stretches of 3 jobs and blocks of 5, or on
    the general path (the whole run, job objects, one array per figure)."""
    out = io.StringIO()
    real = run_model.run_model_columns
    taken = []

    def spy(args):
        taken.append(real(args))
        return taken[-1]

    with mock.patch.object(run_model, "STRETCH", 3), mock.patch.object(run_model, "BLOCK", 5), \
            mock.patch.object(run_model, "run_model_columns", spy if streamed else (lambda args: None)), \
            redirect_stdout(out):
        assert main(argv) == 0
    assert taken == ([0] if streamed else [])  # the path asked for is the one that ran
    return out.getvalue()


@seed(20261126)
@settings(max_examples=30, deadline=None)
@given(policy=st.sampled_from(["gs", "bgs", "mgs", "mbgs"]), mpl=st.integers(1, 4),
       jobs=st.integers(1, 300), load=st.sampled_from([0.2, 0.6, 1.0, 1.4]),
       procs=st.sampled_from([8, 32, 64, 128]), model_seed=st.integers(0, 10**6),
       as_json=st.booleans())
def test_a_streamed_model_run_prints_what_the_whole_run_prints(policy, mpl, jobs, load, procs,
                                                               model_seed, as_json):
    argv = ["run", "downey", "--policy", f"{policy}:mpl={mpl}", "--jobs", str(jobs), "--load", str(load),
            "--procs", str(procs), "--seed", str(model_seed)] + (["--json"] if as_json else [])
    assert _printed(argv, streamed=True) == _printed(argv, streamed=False)


def test_runs_the_stream_cannot_give_take_the_general_path():
    from argparse import Namespace

    base = dict(source="downey", policy="gs", steps=None, jobs_out=None, ring=False, order=None,
                procs=None, slice=None, jobs=10, load=None, seed=None, json=False, check=True,
                decision_limit=None)
    for change in ({"steps": True}, {"jobs_out": "x.csv"}, {"ring": True}, {"policy": None},
                   {"policy": "repack"}, {"policy": "gs:decide=slice"}, {"source": "fig2-repacking"},
                   {"policy": "nope"}, {"jobs": 0}):
        assert run_model.run_model_columns(Namespace(**{**base, **change})) is None, change
