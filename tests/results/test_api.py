"""The notebook API (gangviz.simulate / gangviz.compare) and the example script that uses it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gangviz
from gangviz.experiments.compare import compare as compare_table
from gangviz.workloads.source import load_source

ROOT = Path(__file__).resolve().parents[2]
DOWNEY = ROOT / "resources" / "workloads" / "downey-200-load0.5-seed1.swf"
KTH = ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def test_import_gangviz_stays_light():
    code = "import sys, gangviz; print(any(m.startswith(('numpy', 'PySide6')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_simulate_matches_the_command_lines_numbers():
    result = gangviz.simulate(DOWNEY, "brms")
    table = compare_table(load_source(str(DOWNEY)), ["brms", "bc"])
    for metric, value in table.metrics["brms"].items():
        assert result.metrics[metric] == pytest.approx(value, nan_ok=True)
    jobs = result.jobs
    assert len(jobs) == 200 and result.time_unit == "s" and result.processors == 128
    done = jobs["state"] == "COMPLETED_SUCCESSFULLY"
    assert done.all()
    # t_ta is the mean turnaround in slices; the trace's slice is one second
    assert jobs["response"].mean() == pytest.approx(result.metrics["t_ta"])
    assert jobs["response"].mean() == pytest.approx(result.metrics["response"])
    assert np.nanmean(jobs["bounded_slowdown"]) == pytest.approx(result.metrics["bounded_slowdown"])
    assert np.all(jobs["wait"] >= 0) and np.all(jobs["start"] >= jobs["arrival"])
    assert np.all(jobs["finish"] - jobs["start"] >= jobs["work"] - 1e-9)
    assert result.steps == []


def test_record_keeps_steps_and_options_reach_the_source():
    result = gangviz.simulate("downey", "bc", jobs=30, load=0.4, seed=2, record=True)
    assert len(result.jobs) == 30 and result.time_unit == "slice"
    assert result.steps and result.steps[-1].time == result.simulation.time
    assert any(step.changes for step in result.steps)


def test_compare_runs_every_policy_on_the_same_jobs():
    runs = gangviz.compare(KTH, ["br", "brms", "random:seed=3"], procs=128, padding="absent")
    assert list(runs) == ["br", "brms", "random:seed=3"]
    ids = [r.jobs["job_id"].tolist() for r in runs.values()]
    assert ids[0] == ids[1] == ids[2]
    assert runs["brms"].jobs["rows_held"].max() > 1 == runs["br"].jobs["rows_held"].max()


def test_to_pandas_and_write_jobs(tmp_path):
    pd = pytest.importorskip("pandas")
    result = gangviz.simulate(DOWNEY, "br")
    df = result.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 200
    assert list(df.columns) == list(result.jobs.dtype.names)
    path = result.write_jobs(tmp_path / "jobs.csv")
    assert path.read_text().startswith("job_id,workload_name,profile,")


@pytest.mark.parametrize("call, error, text", [
    (lambda: gangviz.simulate("no-such.swf", "bc"), FileNotFoundError, "no-such.swf"),
    (lambda: gangviz.simulate("downey", "nope"), ValueError, "unknown policy 'nope'"),
    (lambda: gangviz.simulate(KTH, "br"), ValueError, "power-of-two"),
    (lambda: gangviz.simulate("downey", "bc", proc=64), TypeError, "unknown option(s) proc"),
    (lambda: gangviz.compare("downey", "bc"), TypeError, "list of names"),
    (lambda: gangviz.compare("downey", ["bc", "bc"]), ValueError, "once"),
])
def test_clear_errors(call, error, text):
    with pytest.raises(error) as info:
        call()
    if text:
        assert text in str(info.value)


def test_multisite_scenario_is_refused_by_name():
    with pytest.raises(ValueError, match="not a time-slot workload"):
        gangviz.simulate("papazachos-migration")


def test_example_script_writes_its_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    out = tmp_path / "cdf.png"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "wait_cdf.py"), str(out)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "brms" in run.stdout and out.exists()
    img = Image.open(out).convert("RGB")
    assert img.size == (1000, 400)
    # the three curves are drawn in matplotlib's first three colours
    colours = {rgb for _, rgb in img.getcolors(maxcolors=1 << 20)}
    for rgb in ((31, 119, 180), (255, 127, 14), (44, 160, 44)):
        assert any(sum(abs(a - b) for a, b in zip(c, rgb)) < 12 for c in colours), rgb


def test_space_sharing_policies_run_through_the_api(tmp_path):
    """easy beside gs: the per-job rows are the backfilling run's, the figures the core that
    'gangviz run' prints (the time-slot family's own ones are gs's only), and write_jobs
    writes them as 'gangviz run --jobs-out' does."""
    runs = gangviz.compare(KTH, ["easy", "gs"])
    easy, gs = runs["easy"], runs["gs"]
    assert len(easy.jobs) == len(gs.jobs) == 300
    assert easy.engine == "backfill" and gs.engine == "compiled:gang"
    assert "t_ta" not in easy.metrics and "t_ta" in gs.metrics
    assert easy.metrics["response"] == pytest.approx(easy.jobs["response"].mean())
    # a job stopped at its estimate has a slowdown too, so the means agree
    assert np.nanmean(easy.jobs["bounded_slowdown"]) == pytest.approx(easy.metrics["bounded_slowdown"])
    assert not np.isnan(easy.jobs["bounded_slowdown"]).any()
    assert not np.allclose(easy.jobs["start"], gs.jobs["start"], equal_nan=True)
    # space sharing never stretches a job: it runs its work in one go (or until killed)
    done = easy.jobs["state"] == "COMPLETED_SUCCESSFULLY"
    assert np.allclose((easy.jobs["finish"] - easy.jobs["start"])[done], easy.jobs["work"][done])
    out = easy.write_jobs(tmp_path / "easy.csv")
    assert len(out.read_text().splitlines()) == 301
    assert gangviz.simulate(KTH, "easy").metrics == easy.metrics


@pytest.mark.parametrize("source, options, argv", [
    ("downey", {"seed": -1}, ["--seed", "-1"]),
    (str(KTH), {"procs": 10**9}, ["--procs", str(10**9)]),
    (str(KTH), {"slice_seconds": 0.0}, ["--slice", "0"]),
    (str(KTH), {"slice_seconds": -1.0}, ["--slice", "-1"]),
])
def test_hostile_options_give_the_command_lines_message(source, options, argv, capsys):
    """The API checks its options with the command line's limits: one line naming the range,
    never a library's own complaint (numpy's 'expected non-negative integer' for a seed)."""
    from gangviz.cli import main

    with pytest.raises(ValueError) as info:
        gangviz.simulate(source, "bc" if source == "downey" else "gs", **options)
    assert main(["run", source, "--policy", "gs", *argv]) != 0
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"gangviz: {info.value}"
    assert " in " in str(info.value) or "over the limit" in str(info.value)


def test_the_readers_warnings_reach_the_notebook(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n"
                     "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 1 0 5 -1 -1 -1 -1 5 -1 1 1 1 1 1 -1 -1 -1\n"
                     "3 2 0 5 4 -1 -1 4 5 -1 1 1 1 1 1 -1 -1 -1\n")
    with pytest.warns(UserWarning, match=r"t\.swf: .*skipped 1 job"):
        result = gangviz.simulate(trace, "easy")
    assert len(result.jobs) == 2
