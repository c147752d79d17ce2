"""Per-job output: the table, the Batsim-layout CSV, SWF and Parquet written by --jobs-out."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from gangviz.cli import main
from gangviz.results.jobs import (
    BATSIM_COLUMNS,
    EXTRA_COLUMNS,
    interval_set,
    job_columns,
    job_table,
    path_for,
)
from gangviz.workloads.swf import read_swf
from gangviz.workloads.validate import validate_paths

ROOT = Path(__file__).resolve().parents[2]
KTH = ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"

# Two whole-machine jobs arriving together: A (3 slices) takes row 1, B (2 slices) row 2.
# Rows alternate, so B is placed at t=0 but first runs in the slice [1, 2).
TWO = """; MaxProcs: 4
7 100 -1 3 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1
9 100 -1 2 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1
"""


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_table_arithmetic_and_states():
    nan = math.nan
    t = job_table(job_columns(["a", "b", "c", "d"], [0, 2, 4, 5], [1, 2, nan, nan], [21, 3, 6, nan],
                              [1, 2, 3, 4], [20, 1, 5, 5], killed=[False, False, True, False], tau=10))
    assert t["wait"][:2].tolist() == [1, 0]
    assert t["response"][:3].tolist() == [21, 1, 2]
    assert t["bounded_slowdown"][0] == pytest.approx(21 / 20)
    assert t["bounded_slowdown"][1] == 1.0  # 1 / max(1, 10) is below the floor of 1
    assert math.isnan(t["bounded_slowdown"][2])  # a terminated job has no slowdown
    assert t["state"].tolist() == ["COMPLETED_SUCCESSFULLY", "COMPLETED_SUCCESSFULLY",
                                   "COMPLETED_KILLED", "SUBMITTED"]
    assert t["rows_held"].tolist() == [1, 1, 0, 0]


def test_table_rejects_ragged_arrays():
    with pytest.raises(ValueError, match="'start' has 1 entries"):
        job_columns([1, 2], [0, 0], [0], [1, 1], [1, 1], [1, 1])


def test_interval_set_and_per_policy_names():
    assert interval_set([5, 0, 1, 2]) == "0-2 5"
    assert interval_set(range(4)) == "0-3"
    assert interval_set(None) == ""
    assert path_for("out/jobs.csv", "random:seed=3") == Path("out/jobs-random_seed_3.csv")


def test_csv_has_batsim_layout_and_the_start_of_the_figures(tmp_path):
    trace = tmp_path / "two.swf"
    trace.write_text(TWO)
    out = tmp_path / "jobs.csv"
    assert main(["run", str(trace), "--policy", "repack", "--jobs-out", str(out)]) == 0
    with open(out) as fh:
        header = fh.readline().strip().split(",")
    assert tuple(header[:17]) == BATSIM_COLUMNS and tuple(header[17:]) == EXTRA_COLUMNS
    a, b = _rows(out)
    assert (a["job_id"], b["job_id"]) == ("7", "9")  # the trace's own job numbers
    assert a["starting_time"] == "0" and a["finish_time"] == "5"  # slices 0, 2, 4
    # b is placed in the second slot on arrival: it starts there, out of the queue, though its
    # first slice is slice 1 (then slice 3)
    assert b["starting_time"] == "0" and b["finish_time"] == "4"
    assert b["waiting_time"] == "0" and b["turnaround_time"] == "4"
    assert b["execution_time"] == "4" and float(b["stretch"]) == pytest.approx(1)
    assert a["allocated_resources"] == "0-3" and a["final_state"] == "COMPLETED_SUCCESSFULLY"
    assert a["success"] == "1" and a["requested_number_of_resources"] == "4"
    assert b["bounded_slowdown"] == "1"  # 4 s turnaround under the 10 s bound


def test_swf_schedule_validates_and_reads_back(tmp_path, capsys):
    out = tmp_path / "jobs.swf"
    assert main(["run", str(KTH), "--procs", "128", "--policy", "br", "--jobs-out", str(out)]) == 0
    csv_out = tmp_path / "jobs.csv"
    assert main(["run", str(KTH), "--procs", "128", "--policy", "br", "--jobs-out", str(csv_out)]) == 0
    capsys.readouterr()
    assert validate_paths([str(out)], out=open(tmp_path / "v.txt", "w")) == 0
    back = read_swf(out)
    original = read_swf(KTH, procs=128)
    rows = _rows(csv_out)
    assert len(back.jobs) == len(original.jobs) == len(rows) == 300
    for job, orig, row in zip(back.jobs, original.jobs, rows):
        raw = job.extra["swf"]
        assert job.name == orig.name and job.arrival == orig.arrival and job.size == orig.size
        assert raw[2] == pytest.approx(float(row["waiting_time"]))  # field 3: wait
        assert raw[3] == pytest.approx(float(row["execution_time"]))  # field 4: run
        assert raw[10] == 1  # completed
        assert raw[8] == orig.extra["swf"][8]  # requested time kept from the input


def test_gang_columns_show_extra_slots_only_under_multi_slot_policies(tmp_path, capsys):
    for policy in ("br", "brms"):
        assert main(["run", str(KTH), "--procs", "128", "--policy", policy,
                     "--jobs-out", str(tmp_path / f"{policy}.csv")]) == 0
    capsys.readouterr()
    br, brms = _rows(tmp_path / "br.csv"), _rows(tmp_path / "brms.csv")
    assert {r["rows_held"] for r in br} == {"1"} and {r["extra_slices"] for r in br} == {"0"}
    assert max(int(r["rows_held"]) for r in brms) > 1
    assert sum(float(r["extra_slices"]) for r in brms) > 0
    # a job that ran in extra slots has more service than its home row gave
    for r in brms:
        assert float(r["execution_time"]) >= float(r["work"]) - 1e-9 or float(r["extra_slices"]) > 0


def test_compare_writes_one_file_per_policy(tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["compare", str(KTH), "--procs", "128", "--policy", "br", "--policy", "bc",
                 "--jobs-out", str(out)]) == 0
    capsys.readouterr()
    br, bc = _rows(tmp_path / "jobs-br.csv"), _rows(tmp_path / "jobs-bc.csv")
    assert len(br) == len(bc) == 300
    assert [r["job_id"] for r in br] == [r["job_id"] for r in bc]
    assert not out.exists()


def test_unknown_extension_is_a_one_line_error(tmp_path, capsys):
    assert main(["run", str(KTH), "--procs", "128", "--policy", "br", "--jobs-out",
                 str(tmp_path / "jobs.xlsx")]) == 1
    err = capsys.readouterr().err
    assert "jobs.xlsx" in err and ".csv, .swf, .parquet" in err and "Traceback" not in err


def test_parquet_matches_csv(tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    assert main(["run", str(KTH), "--procs", "128", "--policy", "br",
                 "--jobs-out", str(tmp_path / "jobs.parquet")]) == 0
    capsys.readouterr()
    table = pq.read_table(tmp_path / "jobs.parquet")
    assert tuple(table.column_names) == BATSIM_COLUMNS + EXTRA_COLUMNS
    assert table.num_rows == 300
    assert table.column("requested_number_of_resources").type == "int64"


def test_evalys_reads_the_csv(tmp_path, capsys):
    from evalys.jobset import JobSet  # in the test extra, so this runs in CI

    out = tmp_path / "jobs.csv"
    assert main(["run", str(KTH), "--procs", "128", "--policy", "br", "--jobs-out", str(out)]) == 0
    capsys.readouterr()
    js = JobSet.from_csv(str(out))
    assert len(js.df) == 300 and js.MaxProcs <= 128
    assert np.allclose(js.df["starting_time"] - js.df["submission_time"], js.df["waiting_time"])


SWEEP = """title = "per-job files"
seed = 3
replications = 2
policies = ["bc", "random"]

[workload]
model = "downey"
procs = 32

[grid]
load = [0.6]
jobs = [40]
"""


def test_sweep_keeps_one_jobs_file_per_run_next_to_the_results(tmp_path, capsys):
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP)
    out = tmp_path / "results.csv"
    assert main(["sweep", str(sweep), "--out", str(out), "--keep-jobs", "--quiet"]) == 0
    capsys.readouterr()
    folder = tmp_path / "results-jobs"
    names = sorted(p.name for p in folder.glob("*.csv"))
    assert names == ["bc_load-0.6_jobs-40_r0.csv", "bc_load-0.6_jobs-40_r1.csv",
                     "random_load-0.6_jobs-40_r0.csv", "random_load-0.6_jobs-40_r1.csv"]
    # each with its provenance sidecar and nothing else
    assert sorted(p.name for p in folder.iterdir()) == sorted([*names, *(f"{n}.json" for n in names)])
    runs = {(r["policy"], r["replication"]): r for r in _rows(out) if r["kind"] == "run"}
    for policy in ("bc", "random"):
        for rep in ("0", "1"):
            jobs = _rows(folder / f"{policy}_load-0.6_jobs-40_r{rep}.csv")
            assert len(jobs) == 40
            mean = sum(float(j["turnaround_time"]) for j in jobs) / len(jobs)
            assert mean == pytest.approx(float(runs[(policy, rep)]["t_ta"]))
    # the two replications are different workloads, so their files differ
    assert (folder / "bc_load-0.6_jobs-40_r0.csv").read_text() != (folder / "bc_load-0.6_jobs-40_r1.csv").read_text()


def test_easy_jobs_killed_at_their_estimate_are_marked_killed(tmp_path, capsys):
    """EASY stops a job at its requested time [Zhang01 §2.1]: the per-job file must not call
    such a job completed, and its SWF status is 5; its bounded slowdown divides by the time it
    ran, so it is at least 1."""
    out = tmp_path / "easy.csv"
    assert main(["run", str(KTH), "--policy", "easy", "--jobs-out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    short = [r for r in rows if float(r["execution_time"]) < float(r["work"]) - 1e-9]
    assert short, "the KTH excerpt has jobs that outrun their estimate"
    assert all(r["final_state"] == "COMPLETED_KILLED" and float(r["bounded_slowdown"]) >= 1 for r in short)
    full = [r for r in rows if float(r["execution_time"]) == float(r["work"])]
    assert all(r["final_state"] == "COMPLETED_SUCCESSFULLY" for r in full)
    swf = tmp_path / "easy.swf"
    assert main(["run", str(KTH), "--policy", "easy", "--jobs-out", str(swf)]) == 0
    status = {line.split()[0]: line.split()[10] for line in swf.read_text().splitlines()
              if line.strip() and not line.startswith(";")}
    assert {status[r["job_id"]] for r in short} == {"5"}


def test_sweep_keeps_jobs_of_space_sharing_runs_too(tmp_path, capsys):
    """--keep-jobs with easy beside gs: both runs succeed, with the same metrics as without
    --keep-jobs, and easy's file is the backfilling schedule (no job stretched)."""
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP.replace('["bc", "random"]', '["easy", "gs"]').replace("replications = 2", "replications = 1"))
    kept, plain = tmp_path / "kept.csv", tmp_path / "plain.csv"
    assert main(["sweep", str(sweep), "--out", str(kept), "--keep-jobs", "--quiet"]) == 0
    assert main(["sweep", str(sweep), "--out", str(plain), "--quiet"]) == 0
    capsys.readouterr()
    runs = [r for r in _rows(kept) if r["kind"] == "run"]
    assert {r["status"] for r in runs} == {"ok"}
    strip = lambda rows: [{k: v for k, v in r.items() if k != "error"} for r in rows]
    assert strip(_rows(kept)) == strip(_rows(plain))
    jobs = _rows(tmp_path / "kept-jobs" / "easy_load-0.6_jobs-40_r0.csv")
    assert len(jobs) == 40
    assert all(float(j["execution_time"]) <= float(j["work"]) + 1e-9 for j in jobs)
    easy = next(r for r in runs if r["policy"] == "easy")
    mean = sum(float(j["turnaround_time"]) for j in jobs) / len(jobs)
    assert mean == pytest.approx(float(easy["t_ta"]))


def test_jobs_out_of_a_non_time_slot_scenario_is_refused_in_one_readable_line(tmp_path, capsys):
    out = tmp_path / "j.csv"
    assert main(["run", "mccann-fig3-buddy", "--jobs-out", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    assert err.endswith("--jobs-out needs a time-slot workload, not an epoch scenario")
    assert not out.exists()
    assert main(["run", "papazachos-migration", "--jobs-out", str(out)]) != 0
    assert "not a multisite scenario" in capsys.readouterr().err


@pytest.mark.parametrize("policy, engine", [("gs", "auto"), ("repack", "reference"), ("gs", "reference")])
def test_the_per_job_wait_is_the_figures_wait(policy, engine):
    # one meaning of a job's start and wait, in the per-job table and in the figures: the
    # moment the job leaves the queue [Zhang01 §2.3]
    from gangviz.factory import run
    from gangviz.results.figures import run_figures
    from gangviz.results.run_jobs import jobs_of_run
    from gangviz.workloads.source import load_source

    source = load_source(str(KTH))
    done = run(source, policy, engine=engine, jobs=True)
    table = jobs_of_run(done, time_scale=source.slice_seconds)
    figures = run_figures(done).values
    assert float(table["wait"].mean()) == pytest.approx(figures["wait"], rel=1e-12)
    assert float(np.nanmean(table["bounded_slowdown"])) == pytest.approx(figures["bounded_slowdown"], rel=1e-12)
