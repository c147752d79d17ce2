"""Per-job files that analysis tools read whole: processor lists of any length in the interval
syntax of Batsim and evalys, a space-sharing job's processors named, and every family's file
loaded by evalys and drawn as a Gantt chart."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from gangviz import api
from gangviz.cli import main
from gangviz.results.jobs import JOB_DTYPE, job_columns, job_table, write_jobs
from gangviz.results.placement import interval_set, place_counts

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
POLICIES = ("gs", "easy", "brmms")


def test_interval_sets_are_batsims_syntax():
    assert interval_set([5, 0, 1, 2, 2, 28, 29, 25]) == "0-2 5 25 28-29"
    assert interval_set([]) == "" and interval_set([7]) == "7"


def test_no_text_field_of_the_table_has_a_width():
    assert all(JOB_DTYPE[k].kind == "O" for k in ("job_id", "processors"))
    scattered = interval_set(range(0, 128, 2))  # 64 processors, one interval each: 200+ characters
    assert len(scattered) > 64
    cols = job_columns(["a-job-whose-name-is-longer-than-thirty-two-characters"], [0.0], [1.0], [3.0],
                       [64], [2.0], processors=[scattered])
    table = job_table(cols)
    assert table["processors"][0] == scattered
    assert table["job_id"][0] == "a-job-whose-name-is-longer-than-thirty-two-characters"


def test_a_long_processor_list_is_written_whole_and_evalys_reads_it(tmp_path):
    from evalys.jobset import JobSet

    scattered = interval_set(range(0, 128, 2))
    table = job_table(job_columns(["1", "2"], [0.0, 0.0], [0.0, 0.0], [5.0, 5.0], [64, 64], [5.0, 5.0],
                                  processors=[scattered, interval_set(range(1, 128, 2))]))
    path = write_jobs(table, tmp_path / "jobs.csv")
    rows = list(csv.DictReader(path.open()))
    assert rows[0]["allocated_resources"] == scattered
    js = JobSet.from_csv(str(path))
    assert js.df["proc_alloc"].tolist() == [64, 64] and js.MaxProcs == 128


def test_a_space_sharing_schedule_gets_processors_that_never_overlap():
    # jobs start as others end (5, 9, 12), one has no length; the whole machine at 12
    start = [0.0, 0.0, 5.0, 5.0, 9.0, 12.0]
    finish = [5.0, 10.0, 9.0, 5.0, 12.0, 13.0]
    size = [2, 1, 2, 1, 3, 4]
    named = place_counts(start, finish, size, 4)
    assert named == ["0-1", "2", "0-1", "3", "0-1 3", "0-3"]  # the lowest free, ends first
    held = [set() for _ in named]
    for k, text in enumerate(named):
        for part in text.split():
            lo, _, hi = part.partition("-")
            held[k] |= set(range(int(lo), int(hi or lo) + 1))
        assert len(held[k]) == size[k]
    for a in range(6):
        for b in range(a + 1, 6):
            if start[a] < finish[b] and start[b] < finish[a]:
                assert not held[a] & held[b]
    with pytest.raises(ValueError, match="more than 4"):
        place_counts([0.0, 0.0], [1.0, 1.0], [3, 2], 4)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    out = tmp_path_factory.mktemp("jobs") / "jobs.csv"
    argv = ["compare", str(KTH), "--procs", "128", "--padding", "absent", "--jobs-out", str(out),
            *[a for p in POLICIES for a in ("--policy", p)]]
    assert main(argv) == 0
    return {p: out.with_name(f"jobs-{p}.csv") for p in POLICIES}


@pytest.mark.parametrize("policy", POLICIES)
def test_evalys_loads_every_familys_file_and_draws_its_gantt(files, policy, capsys):
    import matplotlib

    matplotlib.use("Agg")
    from evalys.jobset import JobSet
    from evalys.visu import core
    from evalys.visu.gantt import GanttVisualization

    js = JobSet.from_csv(str(files[policy]))
    df = js.df
    assert len(df) == 300 and js.MaxProcs <= 100  # the trace's own machine, as chosen
    assert (df["proc_alloc"] == df["requested_number_of_resources"]).all()  # every list whole
    layout = core.SimpleLayout(wtitle=policy)
    plot = layout.inject(GanttVisualization, spskey="all", title=policy)
    plot.build(js)
    drawn = [p for p in plot._ax.patches]
    assert len(drawn) >= len(df)  # a rectangle per interval of every job
    matplotlib.pyplot.close("all")
    if policy == "easy":  # space sharing: no processor holds two jobs at once
        spans = [(r.starting_time, r.finish_time, set(r.allocated_resources)) for r in df.itertuples()]
        for i, (s0, f0, p0) in enumerate(spans):
            for s1, f1, p1 in spans[i + 1:]:
                assert not (s0 < f1 and s1 < f0 and p0 & p1)


def test_the_apis_table_names_a_space_sharing_jobs_processors():
    runs = api.compare(str(KTH), ["easy", "gs"])
    table = runs["easy"].jobs
    assert all(len(t) for t in table["processors"])
    assert np.all([sum(int(b or a) - int(a) + 1 for a, _, b in (p.partition("-") for p in t.split()))
                   for t in table["processors"]] == table["size"])
