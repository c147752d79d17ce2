"""Offscreen, an error never opens a dialog: it is printed and the exit status says so."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtWidgets import QDialog, QMessageBox

from gangviz.cli import main
from gangviz.gui.kit.headless import DialogError, dialogs_raise

SESSION = '[session]\nversion = 1\n[source]\nname = "fig2-repacking"\n{source}\n[compare]\npolicies = {compare}\n'


def _session(tmp_path, source="", compare="[]", name="s.toml"):
    path = tmp_path / name
    path.write_text(SESSION.format(source=source, compare=compare))
    return path


def test_every_dialog_raises_inside_and_comes_back_after():
    original = QMessageBox.__dict__["critical"]
    with dialogs_raise():
        with pytest.raises(DialogError, match="^Cannot open: no such file$"):
            QMessageBox.critical(None, "Cannot open", "no such file")
        with pytest.raises(DialogError, match="Pick one: needs an answer"):
            dlg = QDialog()
            dlg.setWindowTitle("Pick one")
            dlg.exec()
    assert QMessageBox.__dict__["critical"] is original


@pytest.mark.parametrize("source,compare,said", [
    ('playlist = "missing.toml"', "[]", "source.playlist: missing.toml: no such playlist"),
    ('playlist = "one.toml"\nentry = 3', "[]", "source.entry: 3 is out of range"),
    ('playlist = "loop.toml"', "[]", "is this playlist itself"),
    ("", '["repack", "nosuch"]', "compare.policies: unknown policy 'nosuch'"),
    ("", '["repack"]', "compare.policies must name 2 to 4 policies (the compare window's panes), or none, got 1"),
    ("", str(["repack"] * 5 + ["bc", "br", "brms", "brmms", "random", "firstfit"]).replace("'", '"'),
     "got 11"),
    ("", '["repack", " REPACK"]', "lists a policy twice"),
])
def test_a_session_that_does_not_apply_whole_fails_the_screenshot(tmp_path, capsys, message_boxes,
                                                                  source, compare, said):
    (tmp_path / "one.toml").write_text('[[scenario]]\nsource = "fig2-repacking"\n')
    (tmp_path / "loop.toml").write_text('[[scenario]]\nsource = "loop.toml"\n')
    path = _session(tmp_path, source, compare)
    out = tmp_path / "s.png"
    assert main(["open", str(path), "--screenshot", str(out), "--size", "600x400"]) == 1
    err = capsys.readouterr().err
    assert said in err and "s.toml" in err and "Traceback" not in err
    assert not out.exists() and message_boxes == []


def test_a_good_session_with_a_compare_window_still_renders(tmp_path, message_boxes):
    path = _session(tmp_path, compare='["repack", "firstfit"]')
    out = tmp_path / "s.png"
    assert main(["open", str(path), "--screenshot", str(out), "--size", "600x400"]) == 0
    assert out.stat().st_size > 0 and message_boxes == []


def test_a_broken_playlist_entry_never_hangs_the_process(tmp_path):
    path = _session(tmp_path, 'playlist = "missing.toml"')
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "gangviz", "open", str(path), "--screenshot",
                           str(tmp_path / "s.png")], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 1 and "source.playlist" in proc.stderr
