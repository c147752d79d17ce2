"""The per-job table of a run on a compiled loop is the reference engine's, row for row and
byte for byte: first slice, finish, state, served time, rows held, extra slices and the
processors of the first slice (from the placement log), under every time-slot policy the
compiled loops cover; and the space-sharing placement of processors, now one compiled pass,
is the event-by-event rule's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.factory import run
from gangviz.results.compiled_jobs import has_job_stats, jobs_of_compiled, save_compiled_jobs
from gangviz.results.jobs import JOB_DTYPE, jobs_of_simulation, save_simulation_jobs
from gangviz.results.placement import (
    interval_set,
    interval_texts,
    place_counts,
    place_counts_python,
    place_texts,
)
from gangviz.results.run_jobs import jobs_of_run
from gangviz.results.texts import TextColumn
from gangviz.workloads.source import Source, load_source
from tests.fast.test_compiled_buddy import workloads as buddy_workloads
from tests.fast.test_compiled_gang import workloads as gang_workloads

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
GANG = ["gs", "bgs", "mgs", "mbgs"]
BUDDY = ["bc", "br", "brms", "brmms"]


def assert_same_table(columns: dict[str, np.ndarray], table: np.ndarray) -> None:
    """Every column of the compiled run's table equals the reference table's, row by row."""
    for name in JOB_DTYPE.names or ():
        got, want = np.asarray(columns[name]), table[name]
        if want.dtype.kind == "f":
            assert np.array_equal(got.astype(float), want, equal_nan=True), name
        else:
            assert [str(v) for v in got] == [str(v) for v in want], name


def both(source: Source, spec: str) -> tuple[object, object]:
    compiled = run(source, spec, jobs=True)
    assert compiled.engine.startswith("compiled:") and has_job_stats(compiled)
    return compiled, run(source, spec, jobs=True, engine="reference")


@pytest.mark.parametrize("spec", [*GANG, "gs:mpl=2", "mgs:mpl=3", *BUDDY, "brmms:extra_slots_on=decision"])
def test_a_real_trace_gives_the_reference_engines_file(tmp_path, spec):
    source = load_source(str(KTH), procs=128)
    compiled, reference = both(source, spec)
    scale = source.slice_seconds or 1.0
    assert_same_table(jobs_of_compiled(compiled, time_scale=scale),
                      jobs_of_simulation(reference.simulation, time_scale=scale))
    for suffix in (".csv", ".swf"):
        a = save_compiled_jobs(compiled, source, tmp_path / f"c{suffix}", label=spec)
        b = save_simulation_jobs(reference.simulation, source, tmp_path / f"r{suffix}", label=spec)
        assert a.read_bytes() == b.read_bytes()


def test_the_trace_has_jobs_that_held_several_rows_and_moved():
    """The excerpt exercises what the new columns carry: replicas (rows held > 1, extra
    slices) under BRMMS, and processor lists that are not one interval under MGS."""
    source = load_source(str(KTH), procs=128)
    brmms = jobs_of_compiled(run(source, "brmms", jobs=True), time_scale=1.0)
    assert (brmms["rows_held"] > 1).any() and (brmms["extra_slices"] > 0).any()
    mgs = jobs_of_compiled(run(source, "mgs", jobs=True), time_scale=1.0)
    assert all(p for p in mgs["processors"])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(gang_workloads(), st.sampled_from(GANG), st.integers(1, 4))
def test_random_gang_workloads_give_the_reference_engines_table(workload, policy, mpl):
    procs, jobs = workload
    source = Source("model", "random", procs, jobs)
    compiled, reference = both(source, f"{policy}:mpl={mpl}")
    assert_same_table(jobs_of_compiled(compiled), jobs_of_simulation(reference.simulation))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(buddy_workloads(), st.sampled_from(BUDDY), st.sampled_from(["size", "block"]),
       st.sampled_from([None, "arrival", "decision"]))
def test_random_buddy_workloads_give_the_reference_engines_table(workload, policy, occupy, extra_on):
    procs, jobs = workload
    source = Source("model", "random", procs, jobs)
    spec = f"{policy}:occupy={occupy}"
    if extra_on is not None and policy in ("brms", "brmms"):
        spec += f",extra_slots_on={extra_on}"
    compiled, reference = both(source, spec)
    assert_same_table(jobs_of_compiled(compiled), jobs_of_simulation(reference.simulation))


def test_a_compiled_run_without_its_placement_says_how_to_get_a_table():
    source = load_source(str(KTH), procs=128)
    done = run(source, "gs")
    assert done.engine == "compiled:gang" and not has_job_stats(done)
    with pytest.raises(ValueError, match="jobs=True"):
        jobs_of_run(done)


@st.composite
def schedules(draw):
    """A space-sharing schedule that may or may not fit its machine: starts, finishes (some
    jobs not started, some of no length) and sizes."""
    procs = draw(st.integers(1, 12))
    n = draw(st.integers(0, 25))
    start, finish, size = [], [], []
    for _ in range(n):
        s = draw(st.sampled_from([np.nan, 0.0, 1.0, 2.0, 2.5, 7.0]))
        start.append(s)
        finish.append(s + draw(st.sampled_from([0.0, 0.5, 1.0, 3.0])))
        size.append(draw(st.integers(1, procs)))
    return np.array(start), np.array(finish), np.array(size, np.int64), procs


@settings(max_examples=200, deadline=None, derandomize=True)
@given(schedules())
def test_the_compiled_placement_of_counts_is_the_event_by_event_rules(schedule):
    def outcome(fn):
        try:
            return fn(*schedule)
        except ValueError as exc:
            return str(exc)

    assert outcome(place_counts) == outcome(place_counts_python)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.data())
def test_the_c_placement_is_the_bit_set_placement_on_machines_of_several_words(data):
    # machines past 64 processors: the C loop's free bitmap spans several words
    pytest.importorskip("gangviz.spacesharing._easyloop")
    from gangviz.results import placement

    procs = data.draw(st.integers(1, 200))
    n = data.draw(st.integers(0, 40))
    start = np.array([data.draw(st.sampled_from([np.nan, 0.0, 1.0, 2.0, 2.5, 7.0])) for _ in range(n)])
    finish = start + np.array([data.draw(st.sampled_from([0.0, 0.5, 1.0, 3.0])) for _ in range(n)])
    size = np.array([data.draw(st.integers(1, procs)) for _ in range(n)], np.int64)

    def outcome(pure: bool):
        saved = placement._c_place
        try:
            if pure:
                placement._c_place = lambda *a: None  # the bit-set loop
            return placement.place_counts(start, finish, size, procs)
        except ValueError as exc:
            return str(exc)
        finally:
            placement._c_place = saved

    assert outcome(False) == outcome(True)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sets(st.integers(0, 300), max_size=40), max_size=12))
def test_interval_texts_are_interval_sets(lists):
    cols = np.array([c for cs in lists for c in sorted(cs)], np.int64)
    begins = np.concatenate(([0], np.cumsum([len(cs) for cs in lists]))).astype(np.int64)
    assert interval_texts(cols, begins).tolist() == [interval_set(sorted(cs)) for cs in lists]


@pytest.mark.parametrize("spec", [*GANG, "mgs:mpl=3"])
def test_the_first_slices_texts_are_the_interval_sets_of_their_processors(spec):
    """The texts written straight from the placement log are the interval sets of the
    processors replayed from it, job by job."""
    from gangviz.fast.intervals import first_columns, first_texts

    done = run(load_source(str(KTH), procs=128), spec, jobs=True)
    raw = done.result.raw
    log = raw.placement
    want = interval_texts(*first_columns(log.time, log.entries, log.rows, log.processors, raw.first_run))
    got = TextColumn(*first_texts(log.time, log.entries, log.rows, log.processors, raw.first_run))
    assert got.strings().tolist() == want.tolist() and any(want.tolist())
    order = np.argsort(raw.start, kind="stable")
    assert got.take(order).strings().tolist() == want[order].tolist()


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 40), st.booleans()), max_size=20))
def test_range_texts_are_the_interval_sets_of_the_ranges(jobs):
    from gangviz.fast.intervals import range_texts

    lo = np.array([j[0] for j in jobs], np.int64)
    hi = lo + np.array([j[1] for j in jobs], np.int64)
    first = np.array([0.0 if j[2] else np.nan for j in jobs])
    got = TextColumn(*range_texts(lo, hi, first)).strings().tolist()
    assert got == [interval_set(range(a, b)) if ran else "" for a, b, ran in zip(lo, hi, [j[2] for j in jobs])]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(schedules())
def test_the_placement_as_one_buffer_is_the_placement_of_counts(schedule):
    def outcome(fn):
        try:
            placed = fn(*schedule)
        except ValueError as exc:
            return str(exc)
        return placed.strings().tolist() if isinstance(placed, TextColumn) else placed

    assert outcome(place_texts) == outcome(place_counts)


@pytest.mark.parametrize("spec", ["gs", "mgs:mpl=3", "bgs"])
def test_a_gang_run_of_a_trace_writes_the_general_paths_file_from_its_columns(tmp_path, capsys, monkeypatch,
                                                                              spec):
    """run TRACE --policy gs --jobs-out reads the trace as columns (no job object): the same
    figures as without --jobs-out, and the file the reference engine's run gives, byte for
    byte, with the sidecar of the compiled run."""
    import json

    from gangviz.cli import main
    from gangviz.experiments import headless
    from gangviz.results.run_jobs import save_run_jobs

    assert main(["run", str(KTH), "--policy", spec]) == 0
    plain = capsys.readouterr().out
    out = tmp_path / "columns.csv"
    written = []
    save = headless._save_gang_columns_jobs
    monkeypatch.setattr(headless, "_save_gang_columns_jobs", lambda *a: written.append(save(*a)))
    assert main(["run", str(KTH), "--policy", spec, "--jobs-out", str(out)]) == 0
    assert written and capsys.readouterr().out == plain  # the columns path wrote it
    source = load_source(str(KTH))
    ref = save_run_jobs(run(source, spec, jobs=True, engine="reference"), source, tmp_path / "ref.csv",
                        label=spec)
    assert out.read_bytes() == ref.read_bytes()
    side, ref_side = (json.loads(Path(f"{p}.json").read_text()) for p in (out, ref))
    assert side["policy"]["engine"] == "compiled:gang" and ref_side["policy"]["engine"] == "reference"
    for doc in (side, ref_side):
        del doc["jobs_file"], doc["policy"]["engine"]
    assert side == ref_side
