"""Values that parse but that the engine cannot live with: refused with the limit named."""

from __future__ import annotations

import bz2
import lzma
import math
import os
import time

import pytest

from gangviz.cli import main
from gangviz.core.jobs import JobSpec
from gangviz.core.limits import (
    CLOCK_LIMIT,
    MAX_PROCESSORS,
    LimitError,
    check_memory,
    estimate_bytes,
    memory_budget,
    parse_bytes,
)
from gangviz.factory import build
from gangviz.policies import make_policy
from gangviz.sim.engine import ScriptEvent, Simulation
from gangviz.workloads.scenario import ScenarioError, load_scenario
from gangviz.workloads.source import NeedsProcessors, load_source

LINE = "{n} {submit} 0 {run} {size} -1 -1 {size} 100 -1 1 1 1 -1 -1 -1 -1 -1"


def swf(tmp_path, name="t.swf", procs=64, jobs=((1, 0, 10, 4), (2, 1, 10, 4)), header=True):
    text = (f"; MaxProcs: {procs}\n" if header else "") + "\n".join(
        LINE.format(n=n, submit=s, run=r, size=p) for n, s, r, p in jobs) + "\n"
    path = tmp_path / name
    path.write_text(text)
    return path


def cli(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse refused a value: a usage error
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err):
    """The one message line of ``err``: "gangviz: ..." for bad input, or argparse's
    "gangviz X: error: ..." after the usage lines for a malformed option value."""
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if lines and ": error: " in lines[-1]:
        return lines[-1]
    assert len(lines) == 1 and lines[0].startswith("gangviz: "), err
    return lines[0]


# ------------------------------------------------------------------------- sizes and memory


def test_huge_maxprocs_header_is_refused_before_allocating(tmp_path, capsys):
    path = swf(tmp_path, procs=1073741824)
    code, _, err = cli(capsys, "run", path, "--policy", "br")
    assert code in (1, 2)
    assert "over the limit of 4,194,304" in one_error(err) and "MaxProcs" in err


@pytest.mark.parametrize("procs", [1099511627776, 4294967296, MAX_PROCESSORS + 1])
def test_huge_procs_option_is_refused(capsys, procs):
    code, _, err = cli(capsys, "run", "downey", "--procs", procs, "--policy", "repack")
    assert code in (1, 2) and "--procs" in one_error(err) and "limit" in err


def test_scenario_and_sweep_processor_limits(tmp_path, capsys):
    sc = tmp_path / "s.toml"
    sc.write_text("processors = 1000000000\n")
    with pytest.raises(ScenarioError, match=r"s.toml:1: processors 1000000000 is over the limit"):
        load_scenario(sc)
    sw = tmp_path / "w.toml"
    sw.write_text('policies = ["bc"]\n[workload]\nmodel = "downey"\nprocs = 1000000000\n')
    code, _, err = cli(capsys, "sweep", sw, "--out", tmp_path / "r.csv", "--quiet")
    assert code in (1, 2) and "w.toml:4: [workload] procs" in one_error(err)


def test_memory_budget_refuses_with_the_estimate(monkeypatch):
    monkeypatch.setenv("GANGVIZ_MEMORY_BUDGET", "64M")
    assert memory_budget() == 64 << 20
    with pytest.raises(LimitError, match=r"would need about .* over the memory budget of 64.00 MiB"):
        check_memory(MAX_PROCESSORS, 10)
    with pytest.raises(LimitError, match="memory budget"):
        Simulation([JobSpec(0, "a", 0, 1, 1)], make_policy("repack"), MAX_PROCESSORS)
    monkeypatch.delenv("GANGVIZ_MEMORY_BUDGET")
    assert memory_budget() > 64 << 20
    assert estimate_bytes(1024, 10) < estimate_bytes(2048, 10) < estimate_bytes(2048, 1000)
    with pytest.raises(LimitError):
        parse_bytes("lots")


def test_matrix_growth_is_checked_against_the_budget(monkeypatch):
    # 2**18 processors: the estimate counts 2 MiB a slot, so a 100 MiB budget ends at slot 51.
    monkeypatch.setenv("GANGVIZ_MEMORY_BUDGET", "100M")
    jobs = [JobSpec(i, f"J{i}", 0, 1 << 18, 5) for i in range(60)]
    sim = Simulation(jobs, make_policy("repack"), 1 << 18, record=False)
    with pytest.raises(LimitError, match="51 slots of 262,144 processors"):
        sim.run()


# ------------------------------------------------------------------ work, slices and time


@pytest.mark.parametrize("work", [1e19, 1e20, 1e25, 1e300])
def test_huge_work_is_refused_quickly(tmp_path, work):
    sc = tmp_path / "s.toml"
    sc.write_text(f'processors = 4\nmatrix = ["A A B B"]\n[jobs]\nA = {{ work = {work} }}\n')
    t = time.process_time()  # this process's CPU time: a busy machine does not lengthen it
    with pytest.raises(ScenarioError, match="over the limit"):
        load_scenario(sc)
    with pytest.raises(LimitError, match="over the limit"):
        Simulation([JobSpec(0, "A", 0, 2, work)], make_policy("repack"), 4)
    assert time.process_time() - t < 5


def test_remaining_slices_are_computed_not_counted():
    # Work just under the limit at a large overhead: the finish is exact and comes at once.
    work = 2.0**39 + 0.5
    sim = Simulation([JobSpec(0, "A", 0, 2, work)], make_policy("repack"), 4, overhead=0.25, record=False)
    t = time.process_time()
    sim.run()
    assert time.process_time() - t < 2
    rec = sim.jobs[0]
    need = math.ceil(work / 0.75)
    assert rec.finish == pytest.approx((need - 1) + 0.25 + (work - (need - 1) * 0.75), abs=1e-3)
    assert rec.turnaround >= work


@pytest.mark.parametrize("slice_", ["1e-300", "1e-18", "0", "-1", "nan", "inf"])
def test_bad_slice_lengths_are_errors(tmp_path, capsys, slice_):
    path = swf(tmp_path)
    code, _, err = cli(capsys, "run", path, "--slice", slice_)
    assert code in (1, 2) and "slice length" in one_error(err)


def test_times_past_the_limit_are_refused(tmp_path, capsys):
    path = swf(tmp_path, jobs=((1, 0, 10, 4), (2, 10**17, 50, 4)))
    code, _, err = cli(capsys, "run", path)
    assert code in (1, 2) and "field 2 (submit time)" in one_error(err) and "2**40" in err
    path = swf(tmp_path, jobs=((1, 0, 9 * 10**18, 4),))
    code, _, err = cli(capsys, "run", path)
    assert code in (1, 2) and "field 4 (run time)" in one_error(err)


def test_event_at_1e308_is_refused(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text('processors = 4\nmatrix = ["A A . ."]\n[jobs]\nA = { work = 4 }\n'
                  '[[events]]\nat = 1e308\nsubmit = { name = "B", size = 1, work = 1 }\n')
    with pytest.raises(ScenarioError, match=r"s.toml:5: event time 'at' = 1e\+308 is over the limit"):
        load_scenario(sc)
    with pytest.raises(LimitError):
        Simulation([], make_policy("repack"), 4, script=[ScriptEvent(1e308, submit=(("B", 1, 1.0),))])


def test_the_clock_never_passes_its_limit():
    # Sequential jobs of the largest allowed work add up beyond the clock limit: refused.
    jobs = [JobSpec(i, f"J{i}", 0, 4, 2.0**40) for i in range(20)]
    sim = Simulation(jobs, make_policy("repack"), 4, record=False)
    with pytest.raises(LimitError, match="clock would pass"):
        sim.run()
    assert sim.time <= CLOCK_LIMIT


# ------------------------------------------------------------------------ no silent defaults


@pytest.mark.parametrize("argv", [
    ("run", "downey", "--procs", "0"),
    ("compare", "downey", "--procs", "0", "--policy", "bc", "--policy", "br"),
    ("run", "downey", "--policy", ""),
    ("run", "fig2-repacking", "--procs", "3"),
    ("run", "fig2-repacking", "--slice", "2"),
    ("run", "downey", "--jobs", "0"),
    ("run", "downey", "--load", "0"),
])
def test_zero_blank_and_unhonourable_options_are_errors(capsys, argv):
    code, out, err = cli(capsys, *argv)
    assert code in (1, 2) and not out
    msg = one_error(err)
    if "fig2-repacking" in argv and "--procs" in argv:
        assert "fixes its machine" in msg


def test_trace_without_machine_size_asks_for_processors(tmp_path):
    path = swf(tmp_path, header=False)
    with pytest.raises(NeedsProcessors, match="pass --procs"):
        load_source(str(path))
    assert load_source(str(path), procs=8).processors == 8


MATRIX = 'processors = 4\nmatrix = ["A A . ."]\n'


@pytest.mark.parametrize("text, msg", [
    (MATRIX + "params = 5\n", "params must be tables"),
    (MATRIX + "[params.repakc]\nx = 1\n", "unknown policy 'repakc'"),
    (MATRIX + "[params.random]\nsede = 3\n", "sede"),
    (MATRIX + "[params]\nrandom = 3\n", "must be a table of parameters"),
    ('model = "multisite"\nprocessors = 1000000000\n[[gangs]]\nat = 0\nsize = 1\nservice = 1\n',
     "processors 1000000000 is over the limit"),
    ('model = "multisite"\nprocessors = 4\n[[gangs]]\nat = 1e308\nsize = 1\nservice = 1\n', "'at' must be"),
    ('model = "epoch"\nprocessors = 4\nquantum = 1e-300\n[[workload]]\nmin = 1\nwork = 400\n', "too short"),
    ('model = "epoch"\nprocessors = 4\n[[workload]]\nmin = 1\nwork = 1e300\n', "work must be"),
])
def test_scenario_params_and_limits_are_checked(tmp_path, text, msg):
    """Every family's scenario file checks its limits, and a matrix scenario its policies'
    parameters (those checks come with the first simulation)."""
    sc = tmp_path / "s.toml"
    sc.write_text(text)
    with pytest.raises(ScenarioError, match=msg):
        build(load_scenario(sc))


def test_unaligned_start_matrix_is_refused_under_buddy_policies(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text('processors = 8\nmatrix = [". A A . . . . ."]\n')
    source = load_source(str(sc))
    with pytest.raises(ValueError, match=r"job A on P2..P3 is not inside an aligned buddy block of 2"):
        Simulation(source.jobs, make_policy("br"), 8, initial=source.matrix)
    Simulation(source.jobs, make_policy("repack"), 8, initial=source.matrix)  # fine elsewhere
    sc.write_text('processors = 8\nmatrix = [". . . . . A A A"]\n')  # 3 on P6..P8: inside P5..P8
    source = load_source(str(sc))
    Simulation(source.jobs, make_policy("br"), 8, initial=source.matrix)


def test_terminating_a_finished_job_again_is_an_error():
    jobs = [JobSpec(0, "A", 0, 1, 1)]
    sim = Simulation(jobs, make_policy("repack"), 4, script=[ScriptEvent(5, terminate=("A",))])
    with pytest.raises(ValueError, match="'A' has already finished"):
        sim.run()


# ----------------------------------------------------------------------------- warnings, files


def test_warnings_reach_the_user_in_run_and_compare(tmp_path, capsys):
    path = swf(tmp_path, jobs=((1, 0, 10, 4), (1, 5, 10, 4), (3, 6, 10, 999)))
    code, out, err = cli(capsys, "run", path)
    assert code == 0 and "2 warnings about t.swf" in err
    assert "job number appears more than once (2 jobs, lines 2, 3)" in err
    assert "skipped 1 job with more processors than the machine's 64: line 4" in err
    code, out, err = cli(capsys, "compare", path, "--policy", "bc", "--policy", "br")
    assert code == 0 and "skipped 1 job" in err


def test_warnings_reach_the_user_in_sweep(tmp_path, capsys):
    path = swf(tmp_path, jobs=((1, 0, 10, 4), (2, 5, 10, 999)))
    sw = tmp_path / "w.toml"
    sw.write_text(f'policies = ["bc"]\n[workload]\ntrace = "{path.name}"\n')
    code, _, err = cli(capsys, "sweep", sw, "--out", tmp_path / "r.csv", "--quiet")
    assert code == 0 and "skipped 1 job with more processors" in err


def test_compressed_and_misnamed_traces_are_read_by_content(tmp_path, capsys):
    plain = swf(tmp_path).read_bytes()
    for name, data in (("a.swf.bz2", bz2.compress(plain)), ("a.swf.xz", lzma.compress(plain)),
                       ("a.txt", plain), ("a.data", bz2.compress(plain))):
        (tmp_path / name).write_bytes(data)
        source = load_source(str(tmp_path / name))
        assert source.kind == "swf" and len(source.jobs) == 2, name
        code, out, err = cli(capsys, "run", tmp_path / name)
        assert code == 0 and "64 processors" in out, (name, err)


def test_fifo_and_oversize_files_are_refused_before_reading(tmp_path, capsys):
    fifo = tmp_path / "pipe.swf"
    os.mkfifo(fifo)
    t = time.process_time()
    code, out, err = cli(capsys, "validate", fifo)
    assert code == 1 and "FIFO" in out
    code, _, err = cli(capsys, "run", fifo)
    assert code in (1, 2) and "FIFO" in one_error(err)
    big = tmp_path / "big.swf"
    with open(big, "wb") as fh:
        fh.truncate((1 << 30) + 1)  # sparse: nothing is written
    code, out, err = cli(capsys, "validate", big)
    assert code == 1 and "over the limit of 1,073,741,824 bytes" in out
    assert time.process_time() - t < 5


def test_sweep_with_a_billion_replications_is_refused_at_once(tmp_path, capsys):
    sw = tmp_path / "w.toml"
    sw.write_text('policies = ["repack"]\nreplications = 1000000000\n[workload]\nmodel = "downey"\n'
                  'jobs = 1\n[grid]\nload = [0.5]\n')
    t = time.process_time()
    code, _, err = cli(capsys, "sweep", sw, "--out", tmp_path / "r.csv", "--quiet")
    assert code in (1, 2) and "w.toml:2: replications" in one_error(err) and "over the limit of 100,000" in err
    assert time.process_time() - t < 5


def test_headerless_trace_with_a_huge_job_is_skipped_not_wrapped(tmp_path):
    path = swf(tmp_path, header=False, jobs=((1, 0, 10, 2**63 - 1), (2, 1, 10, 4)))
    source = load_source(str(path), procs=8)
    assert [j.size for j in source.jobs] == [4]
    from gangviz.workloads.swf import read_swf
    w = read_swf(path)
    assert [j.size for j in w.jobs] == [4] and any("limit of 4,194,304" in m for m in w.warnings)


def test_blank_maxprocs_header_is_a_warning_not_a_crash(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: \n1 0 0 0 1 -1 -1 1 0 -1 1 1 1 -1 -1 -1 -1 -1\n")
    from gangviz.workloads.swf import read_swf
    w = read_swf(path)
    assert any("header MaxProcs '' is not a processor count" in m for m in w.warnings)


def test_a_scenario_over_the_slot_limit_is_refused_before_its_rows_are_read(tmp_path):
    from gangviz.core.limits import MAX_SLOTS

    rows = ",\n".join(f'  "J{i} J{i}"' for i in range(MAX_SLOTS + 1))
    path = tmp_path / "s.toml"
    path.write_text(f"processors = 2\nmatrix = [\n{rows}\n]\n")
    start = time.process_time()
    with pytest.raises(ScenarioError, match=r"s\.toml:2: matrix: .*65,537 slots, over the limit of 65,536"):
        load_scenario(path)
    assert time.process_time() - start < 30  # (a bound against a hang, not a speed goal)


def test_matrix_rows_get_their_own_lines_in_one_pass(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('processors = 2\nmatrix = [\n  "J1 J1",\n  "J2 J2",\n  "J3 J3 J3",\n]\n')
    with pytest.raises(ScenarioError, match=r"s\.toml:5: matrix row has 3 cells"):
        load_scenario(path)



@pytest.mark.parametrize("text, line, message", [
    ('title = "{title}"\nmatrix = ["A A B B"]\n', 1, "title has 201 characters, allowed 0..200 (set by the key 'title')"),
    ('model = "epoch"\ntitle = "{title}"\n', 2, "title has 201 characters, allowed 0..200 (set by the key 'title')"),
    ('processors = 4\nmatrix = [\n  "A A B B",\n  "{name} {name} C C",\n]\n', 4,
     "a job name has 65 characters, allowed 1..64 (set by the key 'matrix')"),
    ('matrix = ["A A B B"]\n[[events]]\nat = 1\nsubmit = {{ name = "{name}", size = 1, work = 1 }}\n', 4,
     "a job name has 65 characters, allowed 1..64 (set by a submit's 'name')"),
])
def test_scenario_titles_and_job_names_have_a_length_limit(tmp_path, text, line, message):
    from gangviz.core.limits import MAX_NAME_CHARS, MAX_TITLE_CHARS

    path = tmp_path / "long.toml"
    path.write_text(text.format(title="T" * (MAX_TITLE_CHARS + 1), name="N" * (MAX_NAME_CHARS + 1)))
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(err.value).startswith(f"{path}:{line}: {message}")
    if "epoch" not in text:  # at the limits the file is read, title and names whole
        path.write_text(text.format(title="T" * MAX_TITLE_CHARS, name="N" * MAX_NAME_CHARS))
        sc = load_scenario(path)
        assert sc.title in ("T" * MAX_TITLE_CHARS, "long")
        names = set(sc.matrix.names.values()) | {s[0] for e in sc.script for s in e.submit}
        assert ("{name}" in text) == ("N" * MAX_NAME_CHARS in names)
