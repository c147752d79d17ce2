"""``gangviz validate`` and ``gangviz generate`` through the real command line."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gangviz.cli import main
from gangviz.workloads.swf import read_swf
from gangviz.workloads.synthetic import gangs, min_nodes, uniform_log
from gangviz.workloads.validate import size_histogram

GOOD = """\
; Version: 2.2
; MaxNodes: 400 (48 interactive, 352 batch)
1 0 5 30 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1
2 100 5 4000 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1
3 200 5 0 16 -1 -1 16 60 -1 1 1 1 -1 -1 -1 -1 -1
4 300 5 50 -1 -1 -1 -1 60 -1 1 1 1 -1 -1 -1 -1 -1
"""


@pytest.fixture
def good(tmp_path):
    p = tmp_path / "good.swf"
    p.write_text(GOOD)
    return p


def test_validate_prints_the_summary_and_warnings(good, capsys):
    assert main(["validate", str(good)]) == 0
    out = capsys.readouterr().out
    assert "jobs:         3 usable of 4 job records" in out
    assert "processors:   400 (MaxNodes header)" in out
    assert "time span:    200 s" in out
    # rho = (n-1)/n * (4*30 + 1*4000 + 16*0.5) / (400 * 200)
    assert f"offered load: {2 / 3 * 4128 / 80000:.3f}" in out
    assert "       1 | " in out and "   3-4 | " in out and "  9-16 | " in out
    assert "< 1 s | " in out and "1-10 h | " in out
    assert "skipped 1 job with no usable size" in out and "line 6" in out
    assert out.rstrip().endswith("result: usable")


def test_validate_options_and_strict(good, capsys):
    assert main(["validate", "--procs", "8", "--slice", "10", str(good)]) == 0
    out = capsys.readouterr().out
    assert "processors:   8 (--procs)" in out and "more processors than the machine's 8" in out
    assert "one slice = 10 s" in out
    assert main(["validate", "--strict", str(good)]) == 1
    out = capsys.readouterr().out
    assert "error: " in out and "line 6: field 8 (requested processors): '-1'" in out
    assert "result: not usable" in out


def test_validate_several_files_fails_when_one_is_unusable(good, tmp_path, capsys):
    bad = tmp_path / "bad.swf"
    bad.write_text(GOOD.replace("4000", "4e400"))
    empty = tmp_path / "empty.swf"
    empty.write_bytes(b"")
    assert main(["validate", str(good), str(bad), str(empty), str(tmp_path / "missing.swf")]) == 1
    out = capsys.readouterr().out
    assert out.count("result: usable") == 1 and out.count("result: not usable") == 3
    assert "line 4: field 4 (run time): '4e400' is not a finite number" in out
    assert "empty.swf: is empty" in out and "cannot read" in out


def test_validate_bad_option_is_one_line_without_traceback(good, capsys):
    assert main(["validate", "--slice", "0", str(good)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gangviz: slice length must be") and "Traceback" not in err


def test_generate_downey_round_trips(tmp_path, capsys):
    out = tmp_path / "w.swf"
    assert main(["generate", "downey", "--jobs", "200", "--load", "0.5", "--procs", "128",
                 "--seed", "1", "-o", str(out)]) == 0
    back = read_swf(out)
    assert back.jobs == uniform_log(200, 0.5, procs=128, seed=1).jobs
    assert back.processors == 128 and back.header["Model"] == "downey"


def test_generate_to_stdout_and_other_models(tmp_path, capsys):
    assert main(["generate", "gangs", "--jobs", "50", "--sizes", "uniform", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    p = tmp_path / "g.swf"
    p.write_text(text)
    assert read_swf(p).jobs == gangs(50, sizes="uniform", seed=3).jobs
    q = tmp_path / "m.swf.gz"
    assert main(["generate", "min-nodes", "--jobs", "8", "--count", "20", "-o", str(q)]) == 0
    assert read_swf(q).jobs == min_nodes(8, count=20, seed=1).jobs  # the command line seeds 1 by default
    h = tmp_path / "h.swf"
    assert main(["generate", "hyper-erlang", "--jobs", "100", "--phi", "0.4", "--procs", "64",
                 "--max-size", "32", "--interarrival", "10,300,18000", "-o", str(h), "--slice", "2"]) == 0
    w = read_swf(h, slice_seconds=2)
    assert len(w.jobs) == 100 and all(j.estimate >= j.work * (1 - 1e-12) for j in w.jobs)


def test_generate_hyper_erlang_fitted_to_a_trace(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    from gangviz.workloads.swf import write_swf
    write_swf(uniform_log(500, 0.5, procs=16, seed=2), trace)
    out = tmp_path / "h.swf"
    assert main(["generate", "hyper-erlang", "--fit", str(trace), "--procs", "16", "--jobs", "300",
                 "-o", str(out)]) == 0
    w = read_swf(out)
    assert len(w.jobs) == 300 and w.sizes().max() <= 16


def test_generate_bad_parameters(capsys):
    assert main(["generate", "downey", "--load", "-1"]) == 1
    assert "load must be a finite number > 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["generate", "hyper-erlang", "--service", "1,2"])
    assert "three raw moments" in capsys.readouterr().err


def test_size_histogram_bins_exact_powers_of_two():
    lines = size_histogram(np.array([1, 2, 3, 4, 5, 8, 9, 2**40, 2**40 + 1]))
    got = {ln.split("|")[0].strip(): int(ln.split()[-1]) for ln in lines}
    assert got["1"] == 1 and got["2"] == 1 and got["3-4"] == 2 and got["5-8"] == 2
    assert got["9-16"] == 1 and got[f"{2**39 + 1}-{2**40}"] == 1 and got[f"{2**40 + 1}-{2**41}"] == 1


def test_workloads_import_without_qt():
    code = ("import sys; sys.modules['PySide6'] = None; sys.modules['pyqtgraph'] = None\n"
            "import gangviz.workloads.swf, gangviz.workloads.synthetic, gangviz.workloads.validate\n"
            "import gangviz.commands.validate, gangviz.commands.generate\n")
    subprocess.run([sys.executable, "-c", code], check=True)
