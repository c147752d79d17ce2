"""``gangviz run`` of a synthetic model or a trace under a gang policy, run a stretch at a time
and measured a block at a time, prints what the whole run prints: the same text and JSON, byte
for byte."""

from __future__ import annotations

import io
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from gangviz.cli import main
from gangviz.experiments import headless as stream


def _printed(argv: list[str], *, streamed: bool) -> tuple[str, str]:
    """What ``gangviz run ARGV`` prints (stdout, stderr), streamed in stretches of 3 jobs and
    blocks of 5, or on the general path (the whole run, job objects, one array per figure)."""
    out, err = io.StringIO(), io.StringIO()
    real = stream._gang_columns
    taken = []

    def spy(*args, **kwargs):
        taken.append(real(*args, **kwargs))
        return taken[-1]

    with mock.patch.object(stream, "STRETCH", 3), mock.patch.object(stream, "BLOCK", 5), \
            mock.patch.object(stream, "_gang_columns", spy if streamed else (lambda *a, **k: None)), \
            redirect_stdout(out), redirect_stderr(err):
        assert main(argv) == 0
    assert [isinstance(t, stream.HeadlessRun) for t in taken] == ([True] if streamed else [])  # the path asked for is the one that ran
    # stderr: the reader's warnings; a first compile of the loop is announced by whichever runs first
    return out.getvalue(), [ln for ln in err.getvalue().splitlines() if not ln.startswith(("compil", "compiled in"))]


POLICIES = st.sampled_from(["gs", "bgs", "mgs", "mbgs"])


@seed(20261126)
@settings(max_examples=30, deadline=None)
@given(policy=POLICIES, mpl=st.integers(1, 4), jobs=st.integers(1, 300),
       load=st.sampled_from([0.2, 0.6, 1.0, 1.4]), procs=st.sampled_from([8, 32, 64, 128]),
       model_seed=st.integers(0, 10**6), as_json=st.booleans())
def test_a_streamed_model_run_prints_what_the_whole_run_prints(policy, mpl, jobs, load, procs,
                                                               model_seed, as_json):
    argv = ["run", "downey", "--policy", f"{policy}:mpl={mpl}", "--jobs", str(jobs), "--load", str(load),
            "--procs", str(procs), "--seed", str(model_seed)] + (["--json"] if as_json else [])
    assert _printed(argv, streamed=True) == _printed(argv, streamed=False)


LINE = "{n} {submit} 0 {run} {size} -1 -1 {size} {req} -1 1 1 1 -1 -1 -1 -1 -1"
JOB = st.tuples(st.integers(0, 400), st.integers(1, 900), st.integers(1, 64),
                st.sampled_from([-1, 0, 1]) | st.integers(1, 2000))


@seed(20261126)
@settings(max_examples=30, deadline=None)
@given(policy=POLICIES, mpl=st.integers(1, 4), jobs=st.lists(JOB, min_size=1, max_size=120),
       slice_=st.sampled_from([None, "1", "30", "7.5"]), as_json=st.booleans())
def test_a_streamed_trace_run_prints_what_the_whole_run_prints(policy, mpl, jobs, slice_, as_json):
    # submit times repeat and come out of order (the reader sorts them, with a warning); some
    # jobs ask for less time than they run, none, or 0 (no estimate): BGS and MBGS use them
    lines = [LINE.format(n=i + 1, submit=s, run=r, size=p, req=q) for i, (s, r, p, q) in enumerate(jobs)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.swf"
        path.write_text("; MaxProcs: 64\n" + "\n".join(lines) + "\n")
        argv = ["run", str(path), "--policy", f"{policy}:mpl={mpl}"] + (["--slice", slice_] if slice_ else []) \
            + (["--json"] if as_json else [])
        assert _printed(argv, streamed=True) == _printed(argv, streamed=False)


def _columns(source: str = "downey", policy: str | None = "gs", **options):
    """The gang columns path's run of ``source``, or ``None`` when it leaves the run to the
    general path."""
    given = dict(procs=None, slice_seconds=None, jobs=10, load=None, seed=None, steps=None, ring=False,
                 order=None, params={}, jobs_out=None, tau=10.0)
    return stream._gang_columns(source, policy, **{**given, **options})


def test_runs_the_stream_cannot_give_take_the_general_path():
    for change in ({"steps": True}, {"jobs_out": "x.csv"}, {"ring": True}, {"policy": None},
                   {"policy": "repack"}, {"policy": "gs:decide=slice"}, {"source": "fig2-repacking"},
                   {"policy": "nope"}, {"jobs": 0}, {"policy": "gs:mpl=0"}, {"params": {"check": False}}):
        assert _columns(**change) is None, change


def test_a_trace_s_warnings_are_printed_as_the_general_path_prints_them(tmp_path):
    path = tmp_path / "big.swf"
    path.write_text("; MaxProcs: 4\n" + LINE.format(n=1, submit=0, run=5, size=2, req=-1) + "\n"
                    + LINE.format(n=2, submit=1, run=5, size=9, req=-1) + "\n")
    streamed = _printed(["run", str(path), "--policy", "bgs"], streamed=True)
    assert streamed == _printed(["run", str(path), "--policy", "bgs"], streamed=False)
    assert "skipped 1 job with more processors than the machine's 4: line 3" in streamed[1][1]


def test_a_model_run_over_the_job_objects_budget_fits_in_columns(monkeypatch):
    # 20,000 jobs: about 20 MB as job objects, about 1.3 MB as columns
    monkeypatch.setenv("GANGVIZ_MEMORY_BUDGET", "4M")
    done = _columns(jobs=20_000)
    assert isinstance(done, stream.HeadlessRun) and done.document()["metrics"]["jobs"] == 20_000
    monkeypatch.setenv("GANGVIZ_MEMORY_BUDGET", "1M")
    assert _columns(jobs=20_000) is None  # and the general path refuses it, with its estimate
