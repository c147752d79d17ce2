"""A run's schedule handed back through a file comes back as the worker had it."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from gangviz.experiments import schedule
from gangviz.experiments.spill import spill, unspill
from gangviz.workloads.source import load_source

TRACE = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def _arrays(value, into, where=""):
    """Collect every numpy array reachable through ``value``'s fields, dicts and sequences."""
    if isinstance(value, np.ndarray):
        into[where] = value
    elif isinstance(value, dict):
        for k, v in value.items():
            _arrays(v, into, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _arrays(v, into, f"{where}[{i}]")
    elif hasattr(value, "__dict__"):
        for k, v in vars(value).items():
            _arrays(v, into, f"{where}.{k}")
    return into


def test_a_schedule_spilled_and_read_back_is_the_schedule_array_for_array(tmp_path, monkeypatch):
    monkeypatch.setattr(schedule, "_progress", None)
    src = load_source(str(TRACE))
    sent = schedule.schedule_task(("g", "gs"), src, "gs")
    sent.matrix_at(sent.end / 2)  # the placement's copies of the matrix go along too
    spilled = spill(sent, str(tmp_path))
    assert len(spilled.head) < 64 * 1024  # the arrays' bytes are in the file, not in the pickle
    assert Path(spilled.path).parent == tmp_path
    got = unspill(spilled)
    assert not list(tmp_path.iterdir())  # the file is gone once read
    want, have = _arrays(sent, {}), _arrays(got, {})
    assert want.keys() == have.keys() and len(want) > 10
    for name, array in want.items():
        assert have[name].dtype == array.dtype and have[name].shape == array.shape, name
        assert np.array_equal(have[name], array, equal_nan=array.dtype.kind == "f"), name
        assert have[name].flags.aligned and have[name].flags.writeable, name
    assert got.figures == sent.figures and got.end == sent.end and got.label == sent.label
    for t in (0.0, got.end / 3, got.end):  # it answers as the schedule sent does
        assert np.array_equal(got.matrix_at(t), sent.matrix_at(t))
        assert got.counts(t) == sent.counts(t)


def test_a_value_without_arrays_and_an_empty_array_go_through_too(tmp_path):
    for value in ({"a": 1, "b": [2.5, "x"]}, np.empty((0, 4), np.int32), np.arange(3)[::2]):
        got = unspill(spill(value, str(tmp_path)))
        assert pickle.dumps(got) == pickle.dumps(value)
    assert not list(tmp_path.iterdir())


def test_a_file_gone_before_it_is_read_raises_oserror(tmp_path):
    spilled = spill(np.arange(10), str(tmp_path))
    Path(spilled.path).unlink()
    with pytest.raises(OSError):
        unspill(spilled)


def test_a_worker_s_run_is_read_back_and_drawn_without_numba(tmp_path, monkeypatch):
    """The compare window's process reads each run's matrix from the copies the worker made:
    it never imports numba (nor loads a compiled loop), which the workers need every core for."""
    import subprocess
    import sys

    monkeypatch.setattr(schedule, "_progress", None)
    src = load_source(str(TRACE))
    spilled = schedule.spilled_schedule_task(str(tmp_path), ("g", "mgs"), src, "mgs")
    probe = tmp_path / "spilled.pickle"
    probe.write_bytes(pickle.dumps(spilled))
    want = schedule.schedule_task(("g", "mgs"), src, "mgs")
    times = [0.0, want.end / 3, want.end / 2, want.end]
    code = (
        "import pickle, sys\n"
        "from gangviz.experiments.spill import unspill\n"
        f"got = unspill(pickle.loads(open({str(probe)!r}, 'rb').read()))\n"
        f"mats = [got.matrix_at(t).tolist() for t in {times!r}]\n"
        "print('numba' in sys.modules)\n"
        "print(mats)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    imported, mats = out.splitlines()
    assert imported == "False"
    assert mats == str([want.matrix_at(t).tolist() for t in times])
