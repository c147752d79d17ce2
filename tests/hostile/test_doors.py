"""Every command that reads a file goes through one guard: a FIFO, a device, a binary or
non-UTF-8 file is refused by name before anything is read, and nothing blocks."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gangviz.experiments.results import read_completed
from gangviz.experiments.sweepfile import SweepFileError, load_sweep
from gangviz.session import SessionError, is_session_file, read_session
from gangviz.workloads.files import InputFileError, read_text
from gangviz.workloads.playlist import load_playlist
from gangviz.workloads.sacct import SacctError, read_sacct
from gangviz.workloads.scenario import ScenarioError, load_scenario

#: every reader of a text file, with the error it raises
READERS = [
    (read_sacct, SacctError),
    (load_sweep, SweepFileError),
    (read_session, SessionError),
    (load_scenario, ScenarioError),
]


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("reader,error", READERS, ids=lambda r: getattr(r, "__name__", ""))
def test_a_device_is_refused_by_every_reader(reader, error):
    with pytest.raises(error, match=r"/dev/zero: is a device, not a regular file"):
        reader("/dev/zero")


@pytest.mark.parametrize("reader,error", READERS, ids=lambda r: getattr(r, "__name__", ""))
def test_a_fifo_is_refused_by_every_reader_without_opening_it(reader, error, fifo):
    # opening a FIFO for reading blocks until a writer comes: the guard must not open it
    with pytest.raises(error, match=r"is a FIFO \(named pipe\)"):
        reader(fifo)


@pytest.mark.parametrize("reader,error", READERS, ids=lambda r: getattr(r, "__name__", ""))
def test_binary_and_non_utf8_content_is_refused_with_the_file_and_line(reader, error, tmp_path):
    binary = tmp_path / "b.toml"
    binary.write_bytes(b"title = 1\n\x00\x01\x02")
    with pytest.raises(error, match=r"b\.toml: is a binary file"):
        reader(binary)
    latin = tmp_path / "l.toml"
    latin.write_bytes(b"title = 1\n# caf\xe9\n")
    with pytest.raises(error, match=r"l\.toml:2: is not UTF-8 text \(byte 0xe9"):
        reader(latin)


def test_playlists_and_sessions_are_not_guessed_from_a_fifo(fifo):
    assert not is_session_file(fifo)
    with pytest.raises(FileNotFoundError):
        load_playlist(fifo)


def test_a_playlist_through_the_guard(tmp_path):
    bad = tmp_path / "p.toml"
    bad.write_bytes(b"[[scenario]]\nsource = \"fig2-repacking\"\nnote = \"\xff\"\n")
    with pytest.raises(ScenarioError, match=r"p\.toml:3: is not UTF-8"):
        load_playlist(bad)


def test_the_results_file_of_a_resumed_sweep_must_be_a_file(fifo):
    with pytest.raises(InputFileError, match="FIFO"):
        read_completed(fifo, ["load"], ["mean"], {})


def test_read_text_drops_the_byte_order_mark(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(b"\xef\xbb\xbfhello\n")
    assert read_text(p, "text") == "hello\n"


@pytest.mark.parametrize("argv", [
    ["sweep", "{src}", "-o", "{out}.csv"],
    ["convert", "{src}", "{out}.swf"],
    ["run", "{src}"],
    ["validate", "{src}"],
    ["compare", "{src}", "--policy", "bc", "--policy", "repack"],
])
@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_no_command_hangs_or_grows_on_a_device_or_a_fifo(argv, kind, tmp_path):
    src = "/dev/zero" if kind == "device" else str(tmp_path / "pipe")
    if kind == "fifo":
        os.mkfifo(src)
    args = [a.format(src=src, out=tmp_path / "out") for a in argv]
    proc = subprocess.run([sys.executable, "-m", "gangviz", *args], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    said = proc.stderr + proc.stdout  # validate reports on stdout
    assert "not a regular file" in said and "Traceback" not in said
    assert not any(tmp_path.glob("out*")), "nothing is written for a refused input"


# ---------------------------------------------------------------- playlists and sessions


def test_a_playlist_that_lists_itself_or_another_playlist_is_refused(tmp_path):
    (tmp_path / "a.toml").write_text('[[scenario]]\nsource = "fig2-repacking"\n[[scenario]]\nsource = "b.toml"\n')
    (tmp_path / "b.toml").write_text('[[scenario]]\nsource = "a.toml"\n')
    (tmp_path / "self.toml").write_text('title = "t"\n\n[[scenario]]\nsource = "self.toml"\n')
    with pytest.raises(ScenarioError, match=r"a\.toml:3: entry 2: 'b\.toml' is a playlist, not a scenario"):
        load_playlist(tmp_path / "a.toml")
    with pytest.raises(ScenarioError, match=r"self\.toml:3: entry 1: 'self\.toml' is this playlist itself"):
        load_playlist(tmp_path / "self.toml")


SESSION = '[session]\nversion = 1\n[source]\nname = "downey"\n[compare]\npolicies = {}\n'


@pytest.mark.parametrize("policies,ok", [
    ([], True), (["bc", "br"], True), (["bc", "br", "brms", "repack"], True), (["bc"], False),
    (["bc", "br", "brms", "repack", "firstfit"], False), (["bc", "BC"], False), (["bc", "bc "], False),
    (["random:seed=1", "random: seed=1"], False), (["random:seed=1", "random:seed=2"], True),
])
def test_session_compare_takes_two_to_four_different_policies(tmp_path, policies, ok):
    path = tmp_path / "s.toml"
    path.write_text(SESSION.format(str(policies).replace("'", '"')))
    if ok:
        assert read_session(path).compare == policies
    else:
        with pytest.raises(SessionError, match=r"s\.toml: compare\.policies"):
            read_session(path)
