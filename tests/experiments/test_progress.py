"""The terminal progress bar, driven by a fake clock."""

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from gangviz.experiments.progress import ProgressBar, format_duration


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_plain_lines_with_eta():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(4, stream=out, tty=False, clock=clock)
    for done in range(1, 5):
        clock.t += 10
        bar.update(done)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and "\r" not in out.getvalue()
    assert "1/4 runs" in lines[0] and "ETA 0:30" in lines[0]
    assert "4/4 runs 100%" in lines[-1] and "elapsed 0:40" in lines[-1] and "ETA 0:00" in lines[-1]


def test_tty_redraws_one_line():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(3, start=1, stream=out, tty=True, clock=clock)
    clock.t = 5
    bar.update(2)
    bar.close()
    text = out.getvalue()
    assert text.startswith("\r[") and text.endswith("\n") and text.count("\n") == 1
    assert "2/3" in text and "ETA 0:05" in text  # one new run in 5 s, one to go


@settings(max_examples=30, deadline=None)
@given(total=st.integers(101, 5000))
def test_long_sweeps_print_about_twenty_lines(total):
    out = io.StringIO()
    bar = ProgressBar(total, stream=out, tty=False, clock=Clock())
    for done in range(1, total + 1):
        bar.update(done)
    assert 20 <= len(out.getvalue().splitlines()) <= 21


def test_format_duration():
    assert [format_duration(s) for s in (0, 59.6, 61, 3600, 3725)] == ["0:00", "1:00", "1:01", "1:00:00", "1:02:05"]


def test_short_runs_also_print_at_most_one_line_per_five_percent():
    out = io.StringIO()
    bar = ProgressBar(60, stream=out, tty=False, clock=Clock())
    for done in range(1, 61):
        bar.update(done)
    lines = out.getvalue().splitlines()
    assert len(lines) <= 21 and "60/60 runs 100%" in lines[-1]


def test_begin_keeps_reused_runs_out_of_the_eta():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(10, stream=out, tty=True, clock=clock)
    clock.t = 100.0  # time spent before the work starts (e.g. reading the results file)
    bar.begin(8)  # 8 runs reused by --resume
    assert "ETA ?" in out.getvalue()
    clock.t = 105.0
    bar.update(9)
    assert bar.text().endswith("ETA 0:05")  # one run in 5 s, one to go: not 100 s, not 8 runs' pace


def test_compile_notice_only_when_it_takes_a_while():
    from gangviz.experiments.progress import compile_fast_loop

    quiet = io.StringIO()
    compile_fast_loop(quiet, quiet_for=120.0)  # compiles or loads the cache: well under 120 s
    assert quiet.getvalue() == ""
    loud = io.StringIO()
    compile_fast_loop(loud, quiet_for=0.0)
    assert loud.getvalue().startswith("compiling the fast loop once, about ")
    assert "compiled in" in loud.getvalue()


def test_run_with_progress_shows_jobs_finished_once_it_takes_a_while():
    from gangviz.experiments.progress import run_with_progress
    from gangviz.policies import make_policy
    from gangviz.sim.engine import Simulation
    from gangviz.workloads.synthetic import uniform_log

    jobs = uniform_log(60, 0.6, procs=16, seed=3).jobs
    out = io.StringIO()
    sim = Simulation(jobs, make_policy("br"), 16, record=False)
    run_with_progress(sim, len(jobs), delay=0.0, chunk=20, stream=out)
    assert sim.done and out.getvalue().splitlines()[-1].startswith("[")
    assert "60/60 jobs finished 100%" in out.getvalue()
    quiet = io.StringIO()
    run_with_progress(Simulation(jobs, make_policy("br"), 16, record=False), len(jobs), stream=quiet)
    assert quiet.getvalue() == ""  # well under 2 s: no bar


def test_run_and_compare_announce_the_compiled_loop_before_running_it(monkeypatch, capsys):
    """The first compile of a compiled loop is never silent: run and compare warm the loops
    their policies will take through compile_fast_loop, which says when it compiles."""
    from gangviz.cli import main
    from gangviz.experiments import progress

    warmed = []

    def fake(stream=None, *, warm=None, quiet_for=1.0):
        warmed.append(quiet_for)
        warm()

    monkeypatch.setattr(progress, "compile_fast_loop", fake)
    assert main(["run", "downey", "--jobs", "30", "--policy", "gs"]) == 0
    assert main(["compare", "downey", "--jobs", "30", "--policy", "bc", "--policy", "easy",
                 "--workers", "1"]) == 0
    assert len(warmed) == 2
    assert main(["run", "downey", "--jobs", "30", "--policy", "easy"]) == 0
    assert main(["run", "downey", "--jobs", "30", "--policy", "repack"]) == 0
    assert len(warmed) == 2  # no compiled loop covers these: nothing to announce
    capsys.readouterr()
