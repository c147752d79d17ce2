"""The window and hostile sources: limits and memory errors keep the simulation, a trace without
a machine size asks for one, and warnings live in a dismissable bar that the next source clears."""

from __future__ import annotations

from PySide6.QtGui import QColor

LINE = "{n} {s} 0 10 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1"


def trace(tmp_path, name, header, jobs):
    path = tmp_path / name
    path.write_text(header + "\n".join(LINE.format(n=n, s=s) for n, s in jobs) + "\n")
    return str(path)


def test_limit_and_memory_errors_show_a_box_and_keep_the_simulation(window, tmp_path, message_boxes,
                                                                   monkeypatch):
    sim = window.player.sim
    big = trace(tmp_path, "big.swf", "; MaxProcs: 1073741824\n", [(1, 0)])
    assert window.open_source(big) is False
    assert message_boxes and "over the limit of 4,194,304" in message_boxes[-1][2]
    assert window.player.sim is sim

    def no_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(window, "build_simulation", no_memory)
    assert window.open_source("fig2-repacking") is False
    assert "not enough memory" in message_boxes[-1][2] and window.player.sim is sim


def test_trace_without_machine_size_asks_for_processors(window, tmp_path, monkeypatch):
    import gangviz.gui.source_notes as notes

    path = trace(tmp_path, "nohdr.swf", "", [(1, 0), (2, 3)])
    asked = []

    def answer(parent, name, reason, current):
        asked.append(reason)
        return {"procs": 16, "slice_seconds": 2.0}

    monkeypatch.setattr(notes, "ask_source_options", answer)
    assert window.open_source(path) is True
    assert asked and "MaxProcs" in asked[0] and "--procs" not in asked[0]
    assert window.source.processors == 16 and window.source_args["procs"] == 16
    assert window.source.jobs[1].arrival == 1.5  # submit 3 s at 2 s per slice

    monkeypatch.setattr(notes, "ask_source_options", lambda *a: None)  # cancelled: nothing changes
    sim = window.player.sim
    assert window.open_source(path) is False and window.player.sim is sim


def test_source_options_dialog_limits_and_values(qtbot):
    from gangviz.core.limits import MAX_PROCESSORS
    from gangviz.gui.source_notes import SourceOptionsDialog

    dlg = SourceOptionsDialog("t.swf", "no MaxProcs", procs=None)
    qtbot.addWidget(dlg)
    assert dlg.procs.maximum() == MAX_PROCESSORS and dlg.procs.minimum() == 1
    dlg.procs.setValue(0)
    assert dlg.procs.value() == 1  # zero cannot be entered
    dlg.procs.setValue(64)
    dlg.slice.setValue(0.5)
    assert dlg.options() == {"procs": 64, "slice_seconds": 0.5}


def test_warnings_bar_shows_count_details_and_is_cleared_by_the_next_source(window, tmp_path, qtbot,
                                                                           message_boxes):
    path = trace(tmp_path, "dup.swf", "; MaxProcs: 8\n", [(1, 5), (1, 1), (3, 2)])
    window.statusBar().showMessage("an old message")
    assert window.open_source(path) is True
    bar = window.warnings_bar
    assert bar.isVisible() and "2 warnings about dup.swf" in bar.label.text()
    assert "more than once" in bar.details_text() and "go back in time" in bar.details_text()
    assert window.statusBar().currentMessage() == ""
    img = window.grab().toImage()
    y = bar.mapTo(window, bar.rect().center()).y()
    assert img.pixelColor(bar.mapTo(window, bar.rect().topLeft()).x() + 4, y) == QColor("#FFF4CE")
    bar.close_button.click()
    assert not bar.isVisible()
    window.open_source(path)
    assert bar.isVisible()
    assert window.open_source("fig2-repacking") is True
    assert not bar.isVisible() and bar.warnings == []
