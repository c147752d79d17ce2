"""A policy's name, a policy file's path and a workload's title are shown with their control
characters escaped in every window: captions, titles, pane headers, the message bar, tables and
legends, as the command line prints them; the runs still use them as they are."""

from __future__ import annotations

import pytest

from gangviz.gui.compare.window import CompareWindow
from gangviz.workloads.source import load_source

NAME = "\x1b[31mred\nline"
POLICY = f'''
from gangviz.userpolicy import MatrixPolicy


class Red(MatrixPolicy):
    name = {NAME!r}

    def decide(self, view, act):
        for slot in reversed(view.empty_slots()):
            act.delete_slot(slot)
        for job in view.waiting:
            for slot in range(view.slots):
                idle = view.idle(slot)
                if len(idle) >= job.size:
                    act.place(job.id, slot, idle[:job.size])
                    break
            else:
                act.place(job.id, act.open_slot(), range(job.size))
'''


def _clean(text: str) -> bool:
    return all(c.isprintable() for c in text)


@pytest.fixture
def red(tmp_path):
    path = tmp_path / "r\x1b[2Jed\npolicy.py"  # the file's name holds control characters too
    path.write_text(POLICY)
    return str(path)


def test_the_compare_window_shows_a_policy_file_escaped(qtbot, red):
    src = load_source("downey", jobs=40, procs=16, load=0.7)
    win = CompareWindow(src, [red, "firstfit"])
    qtbot.addWidget(win)
    assert win.error is None
    texts = [win.windowTitle(), win.heading.text(), win.subheading.text(), win.table_note.text()]
    texts += [p.title.text() for p in win.panes]
    texts += [win.table.horizontalHeaderItem(j).text() for j in range(win.table.columnCount())]
    keys = [w.getPlotItem().titleLabel.text for w in win.plots.plots]  # each plot's key, in HTML
    assert all("r\\x1b[2Jed\\npolicy.py" in key for key in keys)
    texts += keys
    texts += [win.chooser.list.item(i).text() for i in range(win.chooser.list.count())]
    assert all(_clean(t) for t in texts), [t for t in texts if not _clean(t)]
    assert win.panes[0].title.text().endswith("r\\x1b[2Jed\\npolicy.py")
    assert list(win.table.values())[0] == red  # the label itself is kept whole
    assert red in win.chooser.checked()
    win.set_policies([red + ":\x07bad=1", "firstfit"])
    assert win.error is not None and _clean(win.chooser.message.text())


def test_a_workload_title_is_escaped_in_the_compare_window(qtbot, tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text('title = "\\u001b[31mred\\nline"\nprocessors = 8\npolicy = "repack"\n'
                    'matrix = ["J1 J1 . . . . . ."]\n')
    win = CompareWindow(load_source(str(toml)), ["repack", "bc"])
    qtbot.addWidget(win)
    assert _clean(win.windowTitle()) and _clean(win.heading.text())
    assert "\\x1b[31mred\\nline" in win.heading.text()


def test_the_main_window_shows_a_policy_name_escaped(window, red):
    assert window.open_source("downey", "firstfit", jobs=40, procs=16, load=0.7)
    assert window.load_policy(red)
    texts = [window.windowTitle(), window.statusBar().currentMessage(), window.status.text(),
             window.board.title.text(), window.board.subtitle.text(), window.policy_panel.combo.currentText()]
    assert all(_clean(t) for t in texts), [t for t in texts if not _clean(t)]
    assert "\\x1b[31mred\\nline" in window.statusBar().currentMessage()
    assert "policy \\x1b[31mred\\nline" in window.status.text()
    assert window.policy_panel.policy() == red  # the spec the runs use, not its shown form
