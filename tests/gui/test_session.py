"""Saved sessions: File > Save session writes every field; opening the file restores it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gangviz.gui import session as gsession
from gangviz.session import Session, SessionError, is_session_file, read_session, write_session

ROOT = Path(__file__).resolve().parents[2]
DOWNEY = ROOT / "resources" / "workloads" / "downey-200-load0.5-seed1.swf"


def _new_window(qtbot, settings):
    from gangviz.gui.window import MainWindow

    win = MainWindow(source="", settings=settings)
    win.resize(1200, 800)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def _close(win):
    for child in list(win._children):
        child.close()
    win.close()


def test_save_and_reopen_restores_every_field(qtbot, settings, tmp_path):
    win = _new_window(qtbot, settings)
    assert win.open_source("downey", "random", {"seed": 3}, watch=True, jobs=30, load=0.4, seed=2, procs=64)
    win.player.go_to(17, now=True)
    rows = win.player.sim.matrix.to_rows()
    win.metrics.refresh()
    plot = win.metrics.plots[2]  # the jobs plot (the ratio plot keeps its 0-1 range)
    plot.plot.getViewBox().setRange(xRange=(2.0, 9.0), yRange=(0.0, 4.0), padding=0)
    win.board.matrix.column_range.show(16.0, 24.0)  # the matrix zoomed to P17..P40
    cmp = win.open_compare(["bc", "br"])
    assert cmp is not None
    win.toggle_presentation()
    path = gsession.save_session(win, tmp_path / "s.toml")
    saved = read_session(path)
    assert saved == Session("downey", {"procs": 64, "jobs": 30, "load": 0.4, "seed": 2}, "random",
                            {"seed": 3}, True, 17, True, {plot.title: (2.0, 9.0, 0.0, 4.0)}, ["bc", "br"],
                            (16.0, 24.0))
    _close(win)

    again = _new_window(qtbot, settings)
    assert gsession.open_session(again, path)
    assert gsession.capture(again) == saved
    assert again.player.position == 17 and again.player.sim.watch
    assert len(again.player.sim.jobs) == 30 and again.player.sim.processors == 64
    assert again.presentation.active
    view = again.board.matrix.column_range
    assert (view.first, view.count) == (16.0, 24.0)
    assert again.player.sim.matrix.to_rows() == rows  # the same seeded placements at step 17
    assert gsession.recent(settings)[0] == str(path.resolve())
    assert [a.text() for a in again.recent_sessions_menu.actions()] == [str(path.resolve())]
    again.presentation.leave()
    _close(again)


def test_trace_source_is_kept_relative_to_the_session(qtbot, settings, tmp_path):
    trace = tmp_path / "traces" / DOWNEY.name
    trace.parent.mkdir()
    trace.write_bytes(DOWNEY.read_bytes())
    win = _new_window(qtbot, settings)
    assert win.open_source(str(trace), "brms")
    win.player.go_to(5, now=True)
    path = gsession.save_session(win, tmp_path / "s.toml")
    assert 'name = "traces/downey-200-load0.5-seed1.swf"' in path.read_text()
    assert is_session_file(path)
    _close(win)
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "traces").mkdir()
    (moved / "traces" / trace.name).write_bytes(trace.read_bytes())
    (moved / "s.toml").write_text(path.read_text())
    again = _new_window(qtbot, settings)
    assert gsession.open_session(again, moved / "s.toml")
    assert Path(again.source_name).resolve() == (moved / "traces" / trace.name).resolve()
    assert again.player.position == 5 and gsession.capture(again).compare == []
    _close(again)


def test_bad_session_shows_a_message_and_keeps_the_simulation(qtbot, settings, tmp_path, message_boxes):
    win = _new_window(qtbot, settings)
    assert win.open_source("fig2-repacking")
    sim = win.player.sim
    bad = tmp_path / "bad.toml"
    bad.write_text('[session]\nversion = 1\n[source]\nname = "downey"\n[view]\nstep = -2\n')
    assert not gsession.open_session(win, bad)
    assert win.player.sim is sim
    assert message_boxes and "view.step must be >= 0, got -2" in message_boxes[0][2]
    _close(win)


@pytest.mark.parametrize("text, message", [
    ('[session]\nversion = 1\n[source]\nname = "x"\nspeed = 3\n', "unknown key 'source.speed'"),
    ('[session]\nversion = 2\n[source]\nname = "x"\n', "session.version must be 1"),
    ('[session]\nversion = 1\n[source]\n', "source.name is missing"),
    ('[session]\nversion = 1\n[source]\nname = "x"\n[view]\nstep = "3"\n', "view.step must be a whole number"),
    ('[session]\nversion = 1\n[source]\nname = "x"\n[view]\nzoom = { a = [1, 0, 0, 1] }\n', "x0 < x1"),
    ('[session]\nversion = 1\n[source]\nname = "x"\n[compare]\npolicies = ["bc", "bc"]\n', "twice"),
    ('[session\n', "not valid TOML"),
])
def test_session_checks_name_the_key(tmp_path, text, message):
    p = tmp_path / "s.toml"
    p.write_text(text)
    with pytest.raises(SessionError) as info:
        read_session(p)
    assert str(p) in str(info.value) and message in str(info.value)


def test_scenario_files_are_not_sessions(tmp_path):
    assert not is_session_file(ROOT / "resources" / "scenarios" / "fig2-repacking.toml")
    p = write_session(Session("fig2-repacking"), tmp_path / "s.toml")
    assert is_session_file(p) and read_session(p) == Session("fig2-repacking", watch=None)


def test_open_command_takes_a_session(tmp_path, capsys):
    from PIL import Image

    from gangviz.cli import main

    path = write_session(Session(str(DOWNEY), policy="brms", step=12), tmp_path / "s.toml")
    out = tmp_path / "s.png"
    assert main(["open", str(path), "--screenshot", str(out), "--size", "900x600"]) == 0
    assert Image.open(out).size[0] == 900  # (the window does not shrink below its minimum height)
    bad = tmp_path / "bad.toml"
    bad.write_text('[session]\nversion = 1\n[source]\nname = "downey"\nextra = 1\n')
    assert main(["open", str(bad), "--screenshot", str(tmp_path / "bad.png")]) == 1
    assert "unknown key 'source.extra'" in capsys.readouterr().err


def test_an_unsaved_editor_scenario_is_not_saved_as_a_vanishing_path(qtbot, settings, tmp_path, message_boxes):
    """Play in the editor runs an unsaved scenario from a temporary folder; a session naming
    that folder could never be reopened, so saving says to save the scenario first."""
    from gangviz.gui.editor.dialog import open_editor

    win = _new_window(qtbot, settings)
    ed = open_editor(win)
    ed.doc.paint(0, 0, 0, 2, "A")
    assert ed.play()
    win.player.stop()
    assert gsession.save_session(win, tmp_path / "s.toml") is None
    assert not (tmp_path / "s.toml").exists()
    assert message_boxes and "save the scenario in the editor first" in message_boxes[-1][2]
    # once saved under a name, the session can be written and names that file
    ed.save(tmp_path / "mine.toml")
    assert ed.play()
    win.player.stop()
    path = gsession.save_session(win, tmp_path / "s.toml")
    assert path is not None and read_session(path).source.endswith("mine.toml")
    ed.close()
    _close(win)


def test_compare_window_keeps_its_pane_order_and_space_sharing_policies(qtbot, settings, tmp_path):
    """An easy run beside gs and mgs (no buddy scheme: on a padded trace it would need a --padding choice): the session names the compare panes in the order shown,
    and reopening shows the same panes in that order on the same easy step."""
    kth = ROOT / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
    win = _new_window(qtbot, settings)
    assert win.open_source(str(kth), "easy", procs=128)
    win.player.go_to(12, now=True)
    cmp = win.open_compare(["easy", "gs", "mgs"])
    assert cmp is not None and list(cmp.sims) == ["easy", "gs", "mgs"]
    path = gsession.save_session(win, tmp_path / "s.toml")
    assert read_session(path).compare == ["easy", "gs", "mgs"]
    _close(win)
    again = _new_window(qtbot, settings)
    assert gsession.open_session(again, path)
    assert again.player.position == 12 and again.player.sim.family == "space-sharing"
    shown = next(c for c in again._children if getattr(c, "chooser", None) is not None)
    assert list(shown.sims) == ["easy", "gs", "mgs"]
    _close(again)


def test_a_session_saved_in_a_lecture_playlist_reopens_in_it(qtbot, settings, tmp_path):
    """The third entry of the built-in lecture: the session names the playlist and the entry,
    and reopening shows that entry with the lecture around it (Page Down goes on)."""
    win = _new_window(qtbot, settings)
    assert win.open_source("repacking-lecture")
    assert win.show_playlist_entry(2)
    third = win.source_name
    path = gsession.save_session(win, tmp_path / "s.toml")
    saved = read_session(path)
    assert (saved.playlist, saved.entry, saved.source) == ("repacking-lecture", 2, third)
    _close(win)
    again = _new_window(qtbot, settings)
    assert gsession.open_session(again, path)
    assert again.in_playlist() and again.playlist_index == 2 and again.source_name == third
    assert "3 of" in again.board.subtitle.text()
    fourth = again.playlist.items[3].source
    assert again.cycle_scenario(1)
    assert again.source_name == fourth
    _close(again)


def test_session_playlist_entry_is_checked(tmp_path):
    bad = tmp_path / "s.toml"
    bad.write_text('[session]\nversion = 1\n[source]\nname = "fig2-repacking"\nplaylist = "x"\nentry = -1\n')
    with pytest.raises(SessionError, match="source.entry must be >= 0"):
        read_session(bad)


def test_a_session_in_presentation_mode_is_drawn_at_the_asked_size(tmp_path):
    from PIL import Image

    from gangviz.cli import main

    path = write_session(Session("fig2-repacking", step=2, presentation=True), tmp_path / "s.toml")
    out = tmp_path / "s.png"
    assert main(["open", str(path), "--screenshot", str(out), "--size", "1280x720"]) == 0
    assert Image.open(out).size == (1280, 720)  # was the offscreen screen's 800 x 800


def test_open_presentation_draws_presentation_mode_at_the_size(tmp_path):
    from PIL import Image

    from gangviz.cli import main

    normal, present = tmp_path / "n.png", tmp_path / "p.png"
    assert main(["open", "fig2-repacking", "--size", "1920x1080", "--screenshot", str(normal)]) == 0
    assert main(["open", "fig2-repacking", "--presentation", "--size", "1920x1080",
                 "--screenshot", str(present)]) == 0
    a, b = Image.open(normal).convert("RGB"), Image.open(present).convert("RGB")
    assert a.size == b.size == (1920, 1080)
    # presentation mode has no tool bar or metric plots: the bottom strip is the caption's cream
    assert b.getpixel((960, 1075)) == (0xFB, 0xF7, 0xEC)
    assert a.getpixel((960, 1075)) != (0xFB, 0xF7, 0xEC)
