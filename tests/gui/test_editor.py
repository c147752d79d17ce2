"""The scenario editor: paint a matrix by mouse drags, script events, save, reopen, play; refused
paintings show their message at the cell; every built-in scenario survives a round trip."""

from __future__ import annotations

import pytest
from gui_helpers import close_rgb, pixel
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gangviz.gui.editor.dialog import ScenarioEditor
from gangviz.gui.editor.grid import REFUSED
from gangviz.resources import list_scenarios
from gangviz.workloads.painting import EditorDoc
from gangviz.workloads.scenario import load_scenario
from gangviz.workloads.scenario_writer import scenario_key


def drag(grid, r0, c0, r1, c1):
    """Press on cell (r0, c0), move to (r1, c1), release there: one painting gesture."""
    a = grid.cell_rect(r0, c0).center().toPoint()
    b = grid.cell_rect(r1, c1).center().toPoint()
    QTest.mousePress(grid, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(grid, b)
    QTest.mouseRelease(grid, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)


@pytest.fixture
def editor(window, qtbot):
    ed = window.new_scenario()
    qtbot.addWidget(ed)
    ed.resize(900, 700)
    qtbot.waitExposed(ed)
    return ed


def paint_fig2_like(ed):
    """A 2 x 8 matrix: S1 = J1 J1 J1 J2 J2 . . . ; S2 = J3 J3 J3 J3 . J4 J4 J4."""
    g = ed.grid
    drag(g, 0, 0, 0, 2)
    drag(g, 0, 4, 0, 3)   # right to left works too
    drag(g, 1, 0, 1, 3)
    drag(g, 1, 5, 1, 7)


def test_file_menu_has_new_scenario(window):
    texts = [a.text() for a in window.menuBar().actions()[0].menu().actions()]
    assert "New scenario…" in texts and "Edit this scenario…" in texts


def test_dragging_paints_jobs_whose_name_and_size_follow_the_drag(editor, qtbot):
    g = editor.grid
    a = g.cell_rect(0, 1).center().toPoint()
    QTest.mousePress(g, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(g, g.cell_rect(0, 3).center().toPoint())
    assert g.drag_preview() == ("J1", 3, None)
    QTest.mouseMove(g, g.cell_rect(0, 5).center().toPoint())
    assert g.drag_preview() == ("J1", 5, None)
    with qtbot.waitSignal(g.painted) as got:
        QTest.mouseRelease(g, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                           g.cell_rect(0, 5).center().toPoint())
    assert got.args == ["J1"]
    assert editor.doc.cells[0] == [None, "J1", "J1", "J1", "J1", "J1", None, None]
    # the painted cells take the job's colour on screen
    img = g.grab().toImage()
    centre = g.cell_rect(0, 2).center()
    idle = g.cell_rect(0, 7).center()
    assert not close_rgb(pixel(img, centre.x() + 10, centre.y() + 10), pixel(img, idle.x(), idle.y()), 20)


def test_a_gang_split_across_slots_is_refused_with_a_message_at_the_cell(editor, qtbot):
    g = editor.grid
    paint_fig2_like(editor)
    before = [row[:] for row in editor.doc.cells]
    with qtbot.waitSignal(g.refused) as got:
        drag(g, 0, 6, 1, 4)
    assert "one slot" in got.args[0] and "S1 and S2" in got.args[0]
    assert editor.doc.cells == before, "nothing painted, nothing lost"
    assert g.message[:2] == (1, 4)
    img = g.grab().toImage()
    r = g.cell_rect(1, 4)
    assert close_rgb(pixel(img, r.left() + 2, r.center().y()), REFUSED, 40), "the cell is outlined in red"
    assert "one slot" in editor.status.text()


def test_painting_a_cell_twice_is_refused_at_that_cell(editor, qtbot):
    g = editor.grid
    paint_fig2_like(editor)
    with qtbot.waitSignal(g.refused) as got:
        drag(g, 0, 6, 0, 3)
    assert "P5 in S1 is already painted with J2" in got.args[0]
    assert g.message[:2] == (0, 4)
    assert editor.doc.cells[0][5:] == [None, None, None]


def test_right_click_erases_a_job(editor):
    paint_fig2_like(editor)
    g = editor.grid
    QTest.mouseClick(g, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier,
                     g.cell_rect(1, 6).center().toPoint())
    assert "J4" not in editor.doc.names()


def test_paint_script_save_reopen_and_play(editor, window, tmp_path, qtbot):
    paint_fig2_like(editor)
    editor.title.setText("Painted in the editor")
    editor.explanation.setPlainText("J3 ends and a five-processor job arrives.")
    editor.add_event("terminate", at=0, name="J3")
    editor.add_event("submit", at=1, name="Jn", size=5, work=3)
    editor.policy.setCurrentText("repack")
    out = tmp_path / "painted.toml"
    assert editor.save(out)
    sc = load_scenario(out)
    assert sc.title == "Painted in the editor" and sc.policy == "repack"
    assert sc.matrix.to_rows() == ["J3 J3 J3 J3 .  J4 J4 J4", "J1 J1 J1 J2 J2 .  .  ."]
    assert [(e.at, e.terminate, e.submit) for e in sc.script] == [(0.0, ("J3",), ()), (1.0, (), (("Jn", 5, 3.0),))]
    # reopen: a new editor on the saved file shows the same matrix and events
    again = ScenarioEditor(window, EditorDoc.from_scenario(sc), str(out))
    qtbot.addWidget(again)
    assert again.doc.cells == editor.doc.cells and again.events.rowCount() == 2
    # play at once in the window (fast: a slot deletion rests on screen at 1x)
    window.speed.setValue(6)
    assert again.play()
    p = window.player
    assert window.source.title == "Painted in the editor"
    qtbot.waitUntil(lambda: p.position >= 2, timeout=5000)
    p.pause()
    names = [line for s in p.sim.steps for line in s.narration]
    assert any("J3 leaves" in line for line in names)
    assert any("Jn is placed on" in line for line in names)


def test_play_without_saving_uses_a_file_the_window_can_reload(editor, window, qtbot):
    paint_fig2_like(editor)
    assert editor.play()
    window.player.pause()
    assert window.source.title == "My scenario"
    window.act_reset.trigger()  # reloads from the file the editor wrote
    assert window.player.position == 0


def test_an_event_the_reader_refuses_is_shown_and_nothing_is_saved(editor, tmp_path, message_boxes):
    paint_fig2_like(editor)
    editor.add_event("terminate", at=0, name="J9")
    out = tmp_path / "bad.toml"
    assert not editor.save(out)
    assert not out.exists()
    assert "unknown job 'J9'" in editor.status.text()
    assert message_boxes and "J9" in message_boxes[0][-1]


@pytest.mark.parametrize("path", list_scenarios(), ids=lambda p: p.stem)
def test_every_builtin_scenario_saved_from_the_editor_is_equal(path, tmp_path, qtbot):
    # saving reads only the editor's document: no main window is built for each scenario
    sc = load_scenario(path)
    ed = ScenarioEditor(None, EditorDoc.from_scenario(sc))
    qtbot.addWidget(ed)
    out = tmp_path / f"{path.stem}.toml"
    assert ed.save(out)
    assert scenario_key(load_scenario(out)) == scenario_key(sc)


def test_a_saved_scenario_opens_and_exports_from_the_command_line(editor, tmp_path, capsys):
    from gangviz.cli import main

    paint_fig2_like(editor)
    editor.add_event("terminate", at=0, name="J3")
    path = tmp_path / "mine.toml"
    assert editor.save(path)
    assert main(["open", str(path), "--screenshot", str(tmp_path / "mine.png"), "--size", "600x400"]) == 0
    out = tmp_path / "mine.gif"
    assert main(["export", str(path), str(out), "--size", "400x300", "--fps", "5", "--steps", "2",
                 "--quiet"]) == 0
    assert out.stat().st_size > 0 and (tmp_path / "mine.png").stat().st_size > 0


@pytest.mark.parametrize("column,text", [(0, "nan"), (0, "inf"), (0, "1e400"), (0, "-1"), (0, "٣"),
                                         (4, "nan"), (4, "0"), (4, "-inf"), (3, "2.5"), (3, "x" * 200)])
def test_an_event_cell_that_is_no_finite_number_is_refused_with_the_reason(editor, tmp_path, message_boxes,
                                                                           column, text):
    from PySide6.QtWidgets import QTableWidgetItem

    paint_fig2_like(editor)
    editor.add_event("submit", at=1, size=2, work=3)
    editor.events.setItem(0, column, QTableWidgetItem(text))
    out = tmp_path / "bad.toml"
    assert not editor.save(out) and not out.exists()
    said = editor.status.text()
    name = {0: "at", 3: "size", 4: "work"}[column]
    assert f"event 1, {name}: " in said and "is not allowed; give" in said
    assert len(said) < 300  # the token is quoted to 80 characters, not echoed whole
    assert message_boxes and message_boxes[0][-1] == said


def test_a_typed_title_or_job_name_stops_at_what_the_reader_takes_back(editor, qtbot, tmp_path):
    from gangviz.core.limits import MAX_NAME_CHARS, MAX_TITLE_CHARS

    editor.title.clear()
    editor.job_name.clear()
    QTest.keyClicks(editor.title, "T" * (MAX_TITLE_CHARS + 5))
    QTest.keyClicks(editor.job_name, "N" * (MAX_NAME_CHARS + 5))
    assert editor.title.text() == "T" * MAX_TITLE_CHARS
    assert editor.job_name.text() == "N" * MAX_NAME_CHARS
    paint_fig2_like(editor)
    assert editor.save(tmp_path / "long.toml")
    assert load_scenario(tmp_path / "long.toml").title == "T" * MAX_TITLE_CHARS  # read back whole
