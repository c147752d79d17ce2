"""Animation export: GIF, PNG frames, the MP4 option, the window's dialog."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PIL import Image
from PySide6.QtWidgets import QApplication

from gangviz.cli import main
from gangviz.factory import build
from gangviz.gui import palette
from gangviz.gui.board import Board
from gangviz.gui.export.dialog import ExportDialog, export_with_progress
from gangviz.gui.export.render import (
    ExportCancelled,
    export_animation,
    frames_for,
    hold_ticks,
    pause_ticks,
    render,
)
from gangviz.gui.export.video import output_kind
from gangviz.workloads.source import load_source

SIZE, FPS = (480, 320), 10


def fig2():
    return build(load_source("fig2-repacking"))


def first_step_changes():
    sim = fig2()
    return list(sim.step().changes)


def expected_frames(kinds):
    return 1 + sum(frames_for(k, FPS) for k in kinds)


def expected_ticks(kinds):
    return sum(frames_for(k, FPS) + pause_ticks(k, FPS) for k in kinds) + 2 * hold_ticks(FPS)


def test_gif_has_one_frame_per_distinct_animation_frame_and_the_jobs_colours(tmp_path):
    out = tmp_path / "fig2.gif"
    kinds = first_step_changes()
    res = export_animation(fig2(), out, size=SIZE, fps=FPS, steps=1, title="Fig. 2")
    frames = export_animation(fig2(), tmp_path / "frames", size=SIZE, fps=FPS, steps=1, title="Fig. 2")
    assert res.kind == "gif" and res.steps == 1
    assert res.ticks == frames.ticks == expected_ticks(kinds)
    # a GIF frame per run of identical pictures in the constant-rate PNG sequence (a change that
    # jumps, like the running slot moving on, repeats the picture before it for half its frames)
    pngs = sorted((tmp_path / "frames").glob("*.png"))
    runs = 1 + sum(Image.open(a).tobytes() != Image.open(b).tobytes() for a, b in zip(pngs, pngs[1:]))
    assert res.frames == runs
    assert runs >= expected_frames(kinds) - 2  # at most the two jump frames of this step merge
    with Image.open(out) as im:
        assert im.format == "GIF" and im.size == SIZE
        assert im.n_frames == runs
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
        assert sum(durations) == res.ticks * 1000 // FPS
        # probe the starting picture: where the board draws cell (S3, P1) there is J5's colour
        im.seek(0)
        x, y = _cell_centre(2, 0)
        rgb = im.convert("RGB").getpixel((x, y))
    sim = fig2()
    j5 = int(sim.matrix.cells[2, 0])
    assert sim.matrix.names[j5] == "J5"
    colour = palette.job_colour(j5)
    assert all(abs(a - b) <= 8 for a, b in zip(rgb, colour.getRgb()[:3])), (rgb, colour.name())


def _cell_centre(row, col):
    """Return the board position of a cell's centre in the export's starting frame."""
    found = []

    def on_frame(img, ticks):
        if not found:
            board = next(w for w in QApplication.topLevelWidgets() if isinstance(w, Board) and w.isVisible())
            c = board.matrix.cell_rect(row, col).center().toPoint()
            p = board.matrix.mapTo(board, c)
            found.append((p.x(), p.y()))

    render(fig2(), SIZE, FPS, on_frame, title="Fig. 2", steps=1)
    return found[0]


def test_frames_folder_holds_one_png_per_tick(tmp_path):
    out = tmp_path / "frames"
    kinds = first_step_changes()
    res = export_animation(fig2(), str(out) + "/", size=SIZE, fps=FPS, steps=1)
    pngs = sorted(out.glob("*.png"))
    assert res.kind == "frames" and res.frames == res.ticks == len(pngs)
    assert len(pngs) == expected_ticks(kinds)
    assert [p.name for p in pngs[:2]] == ["frame_00001.png", "frame_00002.png"]
    with Image.open(pngs[0]) as a, Image.open(pngs[1]) as b, Image.open(pngs[-1]) as z:
        assert a.size == SIZE
        assert a.tobytes() == b.tobytes()  # the starting picture rests several ticks
        assert a.tobytes() != z.tobytes()  # and the step changed the picture


def test_family_scenario_exports(tmp_path):
    res = export_animation(build(load_source("mccann-fig3-buddy")), tmp_path / "e.gif",
                           size=SIZE, fps=4)
    assert res.steps == 1 and res.frames >= 2


def test_cancel_removes_the_partial_gif(tmp_path):
    out = tmp_path / "c.gif"
    with pytest.raises(ExportCancelled):
        export_animation(fig2(), out, size=SIZE, fps=FPS, steps=3, progress=lambda d, t: False)
    assert not out.exists()


def test_output_kinds_and_bad_options(tmp_path):
    assert output_kind("a.GIF") == "gif" and output_kind("a.mp4") == "mp4"
    assert output_kind("frames/") == output_kind(tmp_path) == output_kind("frames") == "frames"
    with pytest.raises(ValueError, match="out.gif"):
        output_kind("a.avi")
    with pytest.raises(ValueError, match="1..60"):
        export_animation(fig2(), tmp_path / "x.gif", fps=0)


def test_mp4_says_why_without_imageio_ffmpeg(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # import now raises ImportError
    code = main(["export", "fig2-repacking", str(tmp_path / "x.mp4")])
    err = capsys.readouterr().err
    assert code == 1 and "imageio-ffmpeg" in err and "Traceback" not in err
    assert not (tmp_path / "x.mp4").exists()
    dlg = ExportDialog()
    assert not dlg.mp4_enabled()
    assert "imageio-ffmpeg" in dlg.mp4_note.text() and not dlg.mp4_note.isHidden()
    assert dlg.format.currentData() == "gif"
    dlg.deleteLater()


def test_cli_export_writes_a_gif(tmp_path, capsys):
    out = tmp_path / "lc.gif"
    code = main(["export", "zhou-fig3-4-legal-cuts", "--policy", "repack", str(out), "--size", "400x300",
                 "--fps", "5", "--steps", "2", "--quiet"])
    assert code == 0 and str(out) in capsys.readouterr().out
    with Image.open(out) as im:
        assert im.size == (400, 300) and im.n_frames > 2


def test_window_export_with_progress(window, tmp_path):
    res = export_with_progress(window, str(tmp_path / "w.gif"), SIZE, FPS, 1)
    assert res is not None and res.ticks == expected_ticks(first_step_changes())
    assert window.player.position == 0  # the shown simulation is not disturbed


def test_export_command_imports_without_qt():
    code = ("import sys; sys.modules['PySide6'] = None; import gangviz.commands.export; "
            "import gangviz.gui.export.video")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
