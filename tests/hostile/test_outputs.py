"""Nothing is overwritten without --force; a bad output location fails before any rendering."""

from __future__ import annotations

import os

import pytest

from gangviz.cli import main


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_generate_refuses_an_existing_file(tmp_path, capsys):
    out = tmp_path / "w.swf"
    out.write_text("precious")
    code, _, err = cli(capsys, "generate", "downey", "--jobs", "5", "-o", out)
    assert code in (1, 2) and "exists; add --force" in err and out.read_text() == "precious"
    code, _, err = cli(capsys, "generate", "downey", "--jobs", "5", "-o", out, "--force")
    assert code == 0 and out.read_text().startswith("; Version")


def test_generate_checks_the_folder_first(tmp_path, capsys):
    code, _, err = cli(capsys, "generate", "downey", "--jobs", "5", "-o", tmp_path / "no" / "w.swf")
    assert code in (1, 2) and "does not exist" in err


def test_open_screenshot_refuses_an_existing_file(tmp_path, capsys):
    out = tmp_path / "s.png"
    out.write_bytes(b"precious")
    code, _, err = cli(capsys, "open", "fig2-repacking", "--screenshot", out)
    assert code in (1, 2) and "exists; add --force" in err and out.read_bytes() == b"precious"


def test_plot_sweep_refuses_existing_output_non_csv_and_empty_results(tmp_path, capsys):
    out = tmp_path / "p.png"
    out.write_bytes(b"precious")
    results = tmp_path / "r.csv"
    results.write_bytes(b"x" * 200_000)  # one long non-CSV line
    code, _, err = cli(capsys, "plot-sweep", results, "-o", tmp_path / "q.png")
    assert code in (1, 2) and "not a gangviz sweep results file" in err and "Traceback" not in err
    from gangviz.experiments.results import header
    from gangviz.experiments.tasks import METRICS
    results.write_text(",".join(header(["load"], METRICS)) + "\n")
    code, _, err = cli(capsys, "plot-sweep", results, "-o", tmp_path / "q.png")
    assert code in (1, 2) and "no summary rows" in err
    assert not (tmp_path / "q.png").exists()
    code, _, err = cli(capsys, "plot-sweep", results, "-o", out)
    assert code in (1, 2) and "exists; add --force" in err and out.read_bytes() == b"precious"


def test_export_refuses_existing_output_and_writes_frames_fresh(tmp_path, capsys):
    gif = tmp_path / "a.gif"
    gif.write_bytes(b"precious")
    code, _, err = cli(capsys, "export", "fig2-repacking", gif, "--quiet")
    assert code in (1, 2) and "exists; add --force" in err and gif.read_bytes() == b"precious"
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(1, 200):
        (frames / f"frame_{i:05d}.png").write_bytes(b"stale")
    code, _, err = cli(capsys, "export", "fig2-repacking", frames, "--steps", "1", "--size", "320x200", "--quiet")
    assert code in (1, 2) and "already holds frames" in err
    code, _, err = cli(capsys, "export", "fig2-repacking", frames, "--steps", "1", "--size", "320x200",
                       "--quiet", "--force")
    assert code == 0, err
    written = sorted(frames.glob("frame_*.png"))
    assert written and len(written) < 199 and all(f.read_bytes() != b"stale" for f in written)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_export_to_an_unwritable_folder_fails_before_rendering(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    code, _, err = cli(capsys, "export", "fig2-repacking", locked / "a.gif")
    assert code in (1, 2) and "permission denied" in err and "step" not in err


def test_export_to_a_missing_folder_fails_before_rendering(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    code, _, err = cli(capsys, "export", "fig2-repacking", target / "sub" / "a.gif")
    assert code in (1, 2) and "is not a folder" in err and "step " not in err
    assert err.count("\n") == 1


SACCT = ("JobID|Submit|Start|End|AllocCPUS|Timelimit|State\n"
         "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|4|01:00:00|COMPLETED\n")


@pytest.mark.parametrize("name, argv", [
    ("pipe.swf", ["convert", "{sacct}", "{out}", "--procs", "8", "--force"]),
    ("pipe.csv", ["run", "downey", "--jobs", "5", "--procs", "8", "--jobs-out", "{out}", "--force"]),
    ("pipe.swf", ["generate", "downey", "--jobs", "5", "-o", "{out}", "--force"]),
    ("pipe.png", ["open", "fig2-repacking", "--screenshot", "{out}", "--force"]),
    ("pipe.gif", ["export", "fig2-repacking", "{out}", "--steps", "1", "--force"]),
    ("pipe-bc.csv", ["compare", "downey", "--jobs", "5", "--procs", "8", "--policy", "bc", "--policy",
                     "repack", "--jobs-out", "{dir}/pipe.csv", "--force"]),  # one file per policy
    ("pipe.csv", ["sweep", "resources/sweeps/repack-small.toml", "-o", "{out}", "--force"]),
], ids=lambda a: a[0] if isinstance(a, list) else None)
def test_force_never_replaces_a_fifo_or_other_special_file(tmp_path, capsys, monkeypatch, name, argv):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    fifo = tmp_path / name
    os.mkfifo(fifo)
    sacct = tmp_path / "jobs.txt"
    sacct.write_text(SACCT)
    code, _, err = cli(capsys, *[a.format(out=fifo, sacct=sacct, dir=tmp_path) for a in argv])
    assert code == 1
    assert err.startswith(f"gangviz: {fifo}: is a FIFO (named pipe), not a regular file; an output "
                          "replaces only a regular file")
    assert os.path.exists(fifo) and not os.path.isfile(fifo)  # still the FIFO
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.txt", name]


def test_the_atomic_writer_refuses_a_special_file_too(tmp_path):
    from gangviz.outputs import atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is a FIFO"), atomic(fifo) as tmp:
        tmp.write_text("x")
    assert not os.path.isfile(fifo) and [p.name for p in tmp_path.iterdir()] == ["pipe"]
