"""Hostile input through the later doors: sacct output, sessions, playlists, sweep files as
bytes, and the Python API. Command lines run in the capped child of :mod:`tests.fuzz.harness`
(no case can hang or exhaust memory); readers and the API are also called in-process, where
only their documented errors may come out. ``GANGVIZ_FUZZ_EXAMPLES`` scales every budget
(default 200: about 30 s in all on one core); the screenshots run a tenth as many."""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gangviz
from gangviz.session import SessionError, read_session
from gangviz.workloads.playlist import load_playlist
from gangviz.workloads.scenario import ScenarioError
from gangviz.workloads.swf import read_swf
from tests.fuzz.harness import Child, judge
from tests.fuzz.strategies import (
    HOSTILE_TEXT,
    hostile_float,
    playlist_files,
    sacct_files,
    session_files,
    sweep_files,
)

EXAMPLES = int(os.environ.get("GANGVIZ_FUZZ_EXAMPLES", "200"))
#: a fuzz campaign takes minutes: make test runs it, make test-quick does not
pytestmark = pytest.mark.slow


def budget(n: int) -> settings:
    return settings(max_examples=max(3, n), deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def child():
    c = Child()
    yield c
    c.close()


@budget(EXAMPLES // 2)
@given(text=sacct_files(), strict=st.booleans(), computer=st.one_of(st.none(), st.sampled_from(HOSTILE_TEXT)))
def test_hostile_sacct_output(child, tmp_path_factory, text, strict, computer):
    d = tmp_path_factory.mktemp("sacct")
    (d / "in.txt").write_text(text, encoding="utf-8")
    out = d / "out.swf"
    argv = ["convert", str(d / "in.txt"), str(out)] + (["--strict"] if strict else []) \
        + ([f"--computer={computer}"] if computer is not None else [])
    result = child.run(argv)
    judge(argv, result)
    if result["code"] == 0:  # what convert writes, its own reader reads, one header per line
        assert read_swf(out).jobs
        header = [ln for ln in out.read_text().splitlines() if ln.startswith(";")]
        assert all(ln.isprintable() for ln in header)
        assert sum(1 for ln in out.read_text().splitlines() if not ln.startswith(";")) == len(read_swf(out).jobs)
    else:
        assert not out.exists()
    assert [p.name for p in d.iterdir() if p.name.startswith(".")] == []  # no partial file left


def _session_folder(tmp_path_factory, session: str, playlist: str):
    d = tmp_path_factory.mktemp("session")
    (d / "s.toml").write_text(session, encoding="utf-8")
    (d / "p.toml").write_text(playlist, encoding="utf-8")
    (d / "other.toml").write_text('[[scenario]]\nsource = "p.toml"\n', encoding="utf-8")
    return d


@budget(EXAMPLES)
@given(session=session_files(), playlist=playlist_files())
def test_hostile_sessions_read(tmp_path_factory, session, playlist):
    d = _session_folder(tmp_path_factory, session, playlist)
    try:
        s = read_session(d / "s.toml")
    except SessionError as exc:
        assert "s.toml" in str(exc)
        return
    assert not s.compare or 2 <= len(s.compare) <= 4
    assert len({p.strip().lower() for p in s.compare}) == len(s.compare)


@budget(EXAMPLES)
@given(playlist=playlist_files())
def test_hostile_playlists_read(tmp_path_factory, playlist):
    d = _session_folder(tmp_path_factory, "", playlist)
    try:
        pl = load_playlist(d / "p.toml")
    except (ScenarioError, FileNotFoundError) as exc:
        assert "p.toml" in str(exc)
        return
    assert pl.items and all(not it.source.endswith(("p.toml", "other.toml")) for it in pl.items)
    assert pl.title.isprintable()


@budget(EXAMPLES // 10)
@given(session=session_files(), playlist=playlist_files(), which=st.sampled_from(["s.toml", "p.toml"]))
def test_hostile_sessions_and_playlists_open_offscreen(child, tmp_path_factory, session, playlist, which):
    d = _session_folder(tmp_path_factory, session, playlist)
    out = d / "shot.png"
    argv = ["open", str(d / which), "--screenshot", str(out), "--size", "400x300"]
    result = child.run(argv)
    judge(argv, result)  # (a dialog waiting offscreen would be a timeout)
    assert out.exists() == (result["code"] == 0)


@budget(EXAMPLES // 4)
@given(text=sweep_files(), damage=st.sampled_from(["none", "latin-1", "nul", "bom", "crlf"]))
def test_hostile_sweep_file_bytes(child, tmp_path_factory, text, damage):
    d = tmp_path_factory.mktemp("sweep")
    data = text.encode()
    data = {"none": data, "latin-1": data.replace(b"downey", b"d\xe9wney"), "nul": data + b"\x00",
            "bom": b"\xef\xbb\xbf" + data, "crlf": data.replace(b"\n", b"\r\n")}[damage]
    (d / "w.toml").write_bytes(data)
    argv = ["sweep", str(d / "w.toml"), "--out", str(d / "r.csv"), "--quiet"]
    judge(argv, child.run(argv))


ANY = st.one_of(st.none(), st.booleans(), st.integers(-3, 8), st.sampled_from([2**63, -(2**63)]),
                hostile_float, st.sampled_from(HOSTILE_TEXT + ["bc", "repack", "random:seed=2", "BC "]),
                st.binary(max_size=3), st.lists(st.sampled_from(["bc", "br", None, 3]), max_size=3),
                st.dictionaries(st.one_of(st.text(max_size=4), st.integers(0, 2)),
                                st.one_of(st.integers(0, 3), st.text(max_size=3), st.none()), max_size=2),
                st.just(iter(["bc", "br"])), st.just(iter([])))
ARGUMENTS = ["policy", "ring", "record", "params", "jobs", "load", "seed", "procs", "slice_seconds"]


@budget(EXAMPLES)
@given(call=st.sampled_from(["simulate", "compare"]), argument=st.sampled_from(ARGUMENTS + ["policies"]),
       value=ANY)
def test_hostile_api_arguments(call, argument, value):
    kwargs = {"jobs": 4}
    if argument == "jobs" and isinstance(value, int) and not isinstance(value, bool) and value > 8:
        value = 8  # a valid count stays small: this is about the checks, not the run time
    policies = ["bc", "br"]
    if argument == "policies":
        if call == "simulate":
            return
        policies = value
    elif argument == "policy" and call == "compare":
        policies = ["repack", value]
    else:
        kwargs[argument] = value
    if argument == "slice_seconds" or (argument == "procs" and value not in (None, 8)):
        kwargs.pop("jobs")  # a trace's options: no model options beside them
    source = "fig2-repacking" if argument in ("slice_seconds", "procs") else "downey"
    try:
        if call == "simulate":
            result = gangviz.simulate(source, **kwargs)
            results = [result]
        else:
            results = list(gangviz.compare(source, policies, **kwargs).values())
    except (TypeError, ValueError, FileNotFoundError) as exc:
        text = str(exc)
        assert "Traceback" not in text and len(text) < 2000
        if isinstance(exc, TypeError):  # a wrong kind of value: the argument is named
            assert any(a in text for a in ARGUMENTS + ["policies", "policy", "unknown option"]), text
        return
    for r in results:  # what ran is what was asked: no coercion of a wrong value
        assert r.metrics and all(isinstance(v, (int, float)) for v in r.metrics.values())
        assert all(math.isnan(v) or v >= 0 for v in r.metrics.values())
        if source == "downey":  # jobs=None is "not given": the model's 200
            assert len(r.jobs) == (200 if kwargs.get("jobs") is None else kwargs["jobs"])
