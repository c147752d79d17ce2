"""A lecture playlist in the window: opened like a file, Page Down / Page Up move through it,
also in presentation mode, and each entry's note is on screen before the first step."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from gangviz.cli import main
from gangviz.workloads.playlist import load_playlist


def test_page_down_and_up_walk_the_builtin_lecture_with_its_notes(window, qtbot):
    pl = load_playlist("repacking-lecture")
    assert window.open_source("repacking-lecture")
    assert window.source_name == pl.items[0].source
    # the note is for the lecturer: the presenter view shows it, the projected caption never
    assert window.board.caption.full_text != pl.items[0].note
    assert window.presenter.note.text() == pl.items[0].note
    assert "1 of 8" in window.board.subtitle.text()
    window.toggle_presentation()
    for k in range(1, len(pl.items)):
        qtbot.keyClick(window, Qt.Key.Key_PageDown)
        assert window.source_name == pl.items[k].source
        assert window.presenter.note.text() == pl.items[k].note
        shown = [w.text() for w in window.findChildren(QLabel) if w.isVisibleTo(window)
                 and w.window() is window]
        assert pl.items[k].note not in shown
        assert f"{k + 1} of 8" in window.board.subtitle.text()
    qtbot.keyClick(window, Qt.Key.Key_PageDown)  # wraps to the first
    assert window.source_name == pl.items[0].source
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert window.source_name == pl.items[-1].source
    window.leave_presentation()


def test_the_presenter_view_is_a_second_window_toggled_by_ctrl_l(window, qtbot):
    assert window.open_source("repacking-lecture")
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    view = window.presenter
    assert view.isVisible() and view.isWindow() and view.window() is not window
    window.player.step_forward(animate=False)
    assert view.step.text() == " ".join(window.player.known[0].narration)
    assert view.explanation.text() == window.explain.text()
    window.toggle_presenter()
    assert not view.isVisible() and not window.act_presenter.isChecked()
    window.toggle_presenter()
    view.close()  # its own close button
    assert not window.act_presenter.isChecked()


def test_opening_another_file_leaves_the_playlist(window, qtbot):
    assert window.open_source("repacking-lecture")
    assert window.open_source("zhang-fig7-replicated")
    assert not window.in_playlist()
    window.cycle_scenario(1)  # back to the Scenarios menu order
    assert window.source_name != load_playlist("repacking-lecture").items[1].source


def test_a_bad_playlist_keeps_the_current_simulation(window, tmp_path, message_boxes):
    before = window.source_name
    bad = tmp_path / "lecture.toml"
    bad.write_text('[[scenario]]\nsource = "nope"\n', encoding="utf-8")
    assert not window.open_source(str(bad))
    assert window.source_name == before
    assert message_boxes and "'nope' is neither a file" in message_boxes[0][-1]


def test_gangviz_open_takes_a_playlist_file(tmp_path, capsys):
    lecture = tmp_path / "lecture.toml"
    lecture.write_text('title = "Two figures"\n[[scenario]]\nsource = "fig2-repacking"\n'
                       'note = "Watch J1 and J2."\n[[scenario]]\nsource = "zhou-fig5-wlv"\n',
                       encoding="utf-8")
    out = tmp_path / "lecture.png"
    assert main(["open", str(lecture), "--screenshot", str(out), "--size", "800x600"]) == 0
    assert out.stat().st_size > 0
