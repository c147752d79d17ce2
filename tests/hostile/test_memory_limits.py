"""Input files read under a memory limit, and a refused allocation said plainly.

A read asks for what the file holds (its size, a gzip trailer's size), never for the 1 GiB
input limit at once: a process under ``ulimit -v`` (a cluster job's limit) reads a small trace.
A ``MemoryError`` anywhere in a command ends with one line, not a traceback.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap

import pytest

from gangviz import cli
from gangviz.commands.errors import EXIT_BAD_INPUT
from gangviz.inputs import InputFileError, decompress, read_bounded, read_input

LIMITED_READ = textwrap.dedent("""
    import resource, sys
    from gangviz.inputs import read_input
    with open("/proc/self/status") as fh:
        size = next(int(ln.split()[1]) for ln in fh if ln.startswith("VmSize")) * 1024
    room = 256 << 20  # well under the 1 GiB input limit
    resource.setrlimit(resource.RLIMIT_AS, (size + room, size + room))
    for path in sys.argv[1:]:
        print(len(read_input(path)))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and sets RLIMIT_AS")
def test_a_small_file_reads_in_a_process_with_a_memory_limit(tmp_path):
    text = b"1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n" * 1000
    plain, packed = tmp_path / "t.swf", tmp_path / "t.swf.gz"
    plain.write_bytes(text)
    packed.write_bytes(gzip.compress(text))
    res = subprocess.run([sys.executable, "-c", LIMITED_READ, str(plain), str(packed)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == [str(len(text))] * 2


def test_every_gzip_member_is_read_though_the_trailer_names_the_last_ones_size(tmp_path):
    first, last = b"a" * 300_000, b"b" * 1_000
    path = tmp_path / "two.gz"
    path.write_bytes(gzip.compress(first) + gzip.compress(last))
    assert read_input(path) == first + last


def test_content_over_the_limit_is_refused_whatever_the_first_guess():
    data = gzip.compress(b"x" * 5_000)
    assert decompress(data, "x.gz", limit=5_000) == b"x" * 5_000
    with pytest.raises(InputFileError, match="decompresses to more than 4,999 bytes"):
        decompress(data, "x.gz", limit=4_999)
    lying = data[:-4] + (10).to_bytes(4, "little")  # a trailer that says 10 bytes: read on
    with pytest.raises(InputFileError, match="decompresses to more than 4,999 bytes"):
        decompress(lying, "x.gz", limit=4_999)
    with pytest.raises(InputFileError, match="damaged compressed file"):  # gzip checks the length
        decompress(lying, "x.gz", limit=10_000)


@pytest.mark.parametrize("hint", [0, 10, 999, 1_000, 1_001, 5_000])
def test_a_bounded_read_returns_everything_up_to_one_byte_past_the_limit(hint):
    import io

    assert read_bounded(io.BytesIO(b"y" * 1_000), 2_000, hint) == b"y" * 1_000
    assert read_bounded(io.BytesIO(b"y" * 1_000), 500, hint) == b"y" * 501


def test_a_refused_allocation_ends_the_command_with_one_line(monkeypatch, capsys):
    def refuse(argv):
        raise MemoryError

    monkeypatch.setattr(cli, "_main", refuse)
    assert cli.main(["run", "downey"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("gangviz: out of memory") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1

