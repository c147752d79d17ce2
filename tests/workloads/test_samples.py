"""The bundled sample workloads load cleanly, and the generated ones still match their seeds."""

from __future__ import annotations

from gangviz.resources import RESOURCES
from gangviz.workloads.swf import read_swf
from gangviz.workloads.synthetic import gangs, uniform_log

SAMPLES = RESOURCES / "workloads"


def test_kth_excerpt_keeps_the_archive_header():
    w = read_swf(SAMPLES / "KTH-SP2-1996-2.1-cln-first300.swf")
    assert len(w.jobs) == 300 and w.warnings == []
    assert w.processors == 100 and w.header["Computer"] == "IBM SP2"
    assert w.header["UnixStartTime"] == "843480031"
    assert w.jobs[0].name == "J15" and w.submit_offset == 599850


def test_generated_samples_are_reproducible_from_their_seeds():
    assert read_swf(SAMPLES / "downey-200-load0.5-seed1.swf").jobs == uniform_log(
        200, 0.5, procs=128, seed=1).jobs
    assert read_swf(SAMPLES / "papazachos-normal3-300.swf").jobs == gangs(
        300, sigma=3.0, lam=2.4, seed=1).jobs
