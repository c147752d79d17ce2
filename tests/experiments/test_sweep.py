"""run_sweep and ``gangviz sweep``: CSV rows as runs complete, summaries, resume, failures."""

import csv
import math

import pytest

from gangviz.cli import main
from gangviz.experiments.stats import mean_ci
from gangviz.experiments.sweep import load_summaries, run_sweep
from gangviz.experiments.sweepfile import load_sweep
from gangviz.experiments.tasks import METRICS, run_task

from . import helpers

TEXT = """\
seed = 5
replications = 3
policies = ["bc", "firstfit"]

""" + helpers.DOWNEY_GRID


@pytest.fixture
def sweep(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(TEXT)
    return load_sweep(p)


def rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def runs_of(path):
    return {(r["policy"], r["load"], r["replication"]): r for r in rows(path) if r["kind"] == "run"}


def test_csv_has_every_run_and_a_summary_per_cell(sweep, tmp_path):
    out = tmp_path / "r.csv"
    report = run_sweep(sweep, out)
    assert (report.total, report.computed, report.reused, report.failures) == (12, 12, 0, [])
    runs = runs_of(out)
    assert len(runs) == 12 and all(r["status"] == "ok" for r in runs.values())
    # each run row is exactly run_task of its task
    for cell, task in sweep.tasks():
        row = runs[(cell.policy, repr(cell.values[0]), str(task.replication))]
        assert int(row["seed"]) == task.seed
        expected = run_task(task)
        for m in METRICS:
            assert (row[m] == "" and math.isnan(expected[m])) or float(row[m]) == expected[m]
    summaries = [r for r in rows(out) if r["kind"] == "summary"]
    assert len(summaries) == 4
    for s in summaries:
        vals = [float(r["t_ta"]) for k, r in runs.items() if k[:2] == (s["policy"], s["load"])]
        mean, half, n = mean_ci(vals)
        assert (float(s["t_ta"]), float(s["t_ta_ci95"]), int(s["n"])) == pytest.approx((mean, half, n))
    axes, cells = load_summaries(out)
    assert axes == ["load"] and [c.values for c in cells] == [(0.5,), (0.5,), (0.9,), (0.9,)]
    assert cells == report.cells


def test_same_results_with_one_and_two_workers(sweep, tmp_path):
    run_sweep(sweep, tmp_path / "a.csv", workers=1)
    run_sweep(sweep, tmp_path / "b.csv", workers=2)
    key = lambda r: (r["kind"], r["policy"], r["load"], r["replication"])
    assert sorted(rows(tmp_path / "a.csv"), key=key) == sorted(rows(tmp_path / "b.csv"), key=key)


def test_resume_computes_only_the_missing_runs(sweep, tmp_path):
    out = tmp_path / "r.csv"
    run_sweep(sweep, out)
    full = runs_of(out)
    lines = out.read_text().splitlines(keepends=True)
    # keep the header and five rows, and cut the sixth in half, as a crash would
    out.write_text("".join(lines[:6]) + lines[6][:10])
    kept = len([ln for ln in lines[1:6] if ln.startswith("run,")])
    report = run_sweep(sweep, out, existing="resume")
    assert (report.reused, report.computed) == (kept, 12 - kept)
    assert runs_of(out) == full
    assert len([r for r in rows(out) if r["kind"] == "summary"]) == 4
    again = run_sweep(sweep, out, existing="resume")
    assert again.computed == 0 and runs_of(out) == full


def test_resume_reads_a_grid_axis_that_shares_its_name_with_a_figure(tmp_path):
    """A ``jobs`` axis (the workload's size) sits beside the figure ``jobs`` (jobs finished) in
    the results file: resuming reads the axis's own column, not the figure's."""
    p = tmp_path / "s.toml"
    p.write_text('seed = 7\nreplications = 2\npolicies = ["firstfit"]\n\n[workload]\nmodel = "downey"\n'
                 'procs = 16\nload = 0.5\n\n[grid]\njobs = [10, 12]\n')
    sweep = load_sweep(p)
    out = tmp_path / "r.csv"
    run_sweep(sweep, out)
    header = out.read_text().splitlines()[0].split(",")
    assert header.count("jobs") == 2  # the axis and the figure
    again = run_sweep(sweep, out, existing="resume")
    assert (again.reused, again.computed) == (4, 0)


def test_failed_runs_are_written_and_retried_on_resume(sweep, tmp_path):
    out = tmp_path / "r.csv"
    report = run_sweep(sweep, out, fn=helpers.run_but_fail_firstfit)
    assert len(report.failures) == 6
    assert all("firstfit broke on purpose" in msg for _, _, msg in report.failures)
    runs = runs_of(out)
    assert sum(r["status"] == "failed" for r in runs.values()) == 6
    assert all(r["status"] == "ok" for k, r in runs.items() if k[0] == "bc")
    summary = {(r["policy"], r["load"]): r for r in rows(out) if r["kind"] == "summary"}
    assert summary[("firstfit", "0.5")]["status"] == "failed"
    assert "3 of 3 replications failed" in summary[("firstfit", "0.5")]["error"]
    fixed = run_sweep(sweep, out, existing="resume")
    assert (fixed.computed, fixed.failures) == (6, [])
    assert all(r["status"] == "ok" for r in runs_of(out).values())


def test_a_dying_worker_fails_its_cells_and_keeps_the_rest(sweep, tmp_path):
    out = tmp_path / "r.csv"
    report = run_sweep(sweep, out, workers=2, fn=helpers.run_but_die_on_replication_1_of_bc)
    assert sorted((c.policy, c.values, rep) for c, rep, _ in report.failures) == [
        ("bc", (0.5,), 1), ("bc", (0.9,), 1)]
    assert all("worker process died" in msg for _, _, msg in report.failures)
    assert sum(r["status"] == "ok" for r in runs_of(out).values()) == 10
    partial = [r for r in rows(out) if r["kind"] == "summary" and r["policy"] == "bc"]
    assert [r["status"] for r in partial] == ["partial", "partial"] and partial[0]["n"] == "2"


def test_existing_output_needs_resume_or_force(sweep, tmp_path):
    out = tmp_path / "r.csv"
    out.write_text("precious\n")
    with pytest.raises(ValueError, match="--resume"):
        run_sweep(sweep, out)
    with pytest.raises(ValueError, match="columns are not those of this sweep"):
        run_sweep(sweep, out, existing="resume")


def test_resume_refuses_rows_of_another_sweep(sweep, tmp_path):
    out = tmp_path / "r.csv"
    run_sweep(sweep, out)
    sweep.seed = 6
    with pytest.raises(ValueError, match=r"r\.csv:2: seed: .* another sweep"):
        run_sweep(sweep, out, existing="resume")


def test_buddy_policy_on_a_bad_machine_fails_before_any_run(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(TEXT.replace("procs = 16", "procs = 12"))
    with pytest.raises(ValueError, match=str(p)):
        run_sweep(load_sweep(p), tmp_path / "r.csv")
    assert not (tmp_path / "r.csv").exists()


def test_cli(tmp_path, capsys):
    p = tmp_path / "s.toml"
    p.write_text(TEXT)
    out = tmp_path / "r.csv"
    assert main(["sweep", str(p), "--out", str(out), "--workers", "2"]) == 0
    captured = capsys.readouterr()
    assert "12/12 runs 100%" in captured.err and "ETA" in captured.err
    assert "12 runs computed, 0 reused, 0 failed" in captured.err
    assert "firstfit" in captured.out and "±" in captured.out
    assert main(["sweep", str(p), "--out", str(out)]) == 1
    assert "--resume" in capsys.readouterr().err
    assert main(["sweep", str(p), "--out", str(out), "--resume", "--quiet"]) == 0
    assert "0 runs computed, 12 reused" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text(TEXT.replace("replications = 3", "replications = many"))
    assert main(["sweep", str(bad), "--out", str(tmp_path / "x.csv")]) == 1
    assert f"{bad}:2" in capsys.readouterr().err


def test_cancel_from_progress_keeps_what_finished(sweep, tmp_path):
    from gangviz.experiments.sweep import SweepCancelled

    out = tmp_path / "r.csv"

    def stop_after_four(done, total):
        if done == 4:
            raise SweepCancelled

    report = run_sweep(sweep, out, progress=stop_after_four)
    assert report.cancelled and report.computed == 4
    assert len(runs_of(out)) == 4
    rest = run_sweep(sweep, out, existing="resume")
    assert (rest.reused, rest.computed, rest.cancelled) == (4, 8, False)
