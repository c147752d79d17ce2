"""File → Load policy…: a user's policy in the policy menu, animated, reloaded on save (the run
replayed to the time shown), and a broken save reported while the previous policy keeps running."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from PySide6.QtGui import QColor

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policies"


def _advance(window, steps: int) -> None:
    for _ in range(steps):
        window.player._advance(False)


def _bump(path: Path, text: str) -> None:
    path.write_text(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a new stamp at once


def test_a_loaded_policy_joins_the_menu_runs_and_reloads_on_save(window, qtbot, tmp_path):
    path = tmp_path / "mine.py"
    shutil.copy(EXAMPLES / "best_fit_slot.py", path)
    assert window.open_source("downey", jobs=60, procs=16, load=0.9)
    assert window.load_policy(str(path))
    assert window.policy_panel.policy() == str(path)
    assert window.player.sim.policy_name == "best-fit-slot"
    _advance(window, 20)
    at = window.player.sim.time
    assert any("placed by the policy" in line for s in window.player.sim.steps for line in s.narration)
    # pixels: some cell of the matrix shows a job's colour (not the idle background)
    image = window.board.grab().toImage()
    colours = {QColor(image.pixel(x, y)).name() for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert len(colours) > 8

    # a save that breaks the file: the message bar says so, the run goes on unchanged
    old = window.player.sim
    _bump(path, path.read_text().replace("def decide(self, view, act):", "def decide(self, view, act)"))
    qtbot.waitUntil(lambda: window.reloader.last.startswith("Policy not reloaded"), timeout=5000)
    assert window.player.sim is old
    assert "SyntaxError" in window.statusBar().currentMessage() and "mine.py" in window.statusBar().currentMessage()

    # a good save: the new policy runs, replayed to the time shown
    _bump(path, (EXAMPLES / "best_fit_slot.py").read_text().replace('name = "best-fit-slot"',
                                                                     'name = "best-fit-v2"'))
    qtbot.waitUntil(lambda: window.reloader.last == "reloaded", timeout=5000)
    assert window.player.sim is not old
    assert window.player.sim.policy_name == "best-fit-v2"
    assert window.player.sim.time == at
    assert "replayed to t=" in window.statusBar().currentMessage()


def _run_a_broken_rule(window, tmp_path):
    """Open a Downey workload, load the example policy that breaks a rule (line 16 of bad.py)
    and advance 200 steps."""
    path = tmp_path / "bad.py"
    shutil.copy(EXAMPLES / "broken_overlap.py", path)
    assert window.open_source("downey", jobs=60, procs=16, load=0.9)
    assert window.load_policy(str(path))
    _advance(window, 200)


def test_a_broken_rule_stops_the_player_with_its_line(window, tmp_path):
    _run_a_broken_rule(window, tmp_path)
    assert window.player.failure is not None
    assert "no processor holds two processes in one slot" in window.player.failure
    assert "bad.py:16" in window.statusBar().currentMessage()


def test_a_broken_rule_is_marked_on_the_matrix_the_timeline_and_the_narration(window, tmp_path):
    _run_a_broken_rule(window, tmp_path)
    player = window.player
    v = player.violation
    assert v is not None and v.rule == "no processor holds two processes in one slot"
    assert v.where.endswith("bad.py:16") and v.slot == 0 and v.processors
    assert player.position == len(player.known)
    view = window.board.matrix
    assert view.violation_cells() == (0, v.processors)
    red = QColor("#E0001B")

    def is_red(c: QColor) -> bool:
        return abs(c.red() - red.red()) + abs(c.green() - red.green()) + abs(c.blue() - red.blue()) < 40

    # the outline: red on the left edge of the asked-for cells, not elsewhere in that row
    image = view.grab().toImage()
    ratio = image.devicePixelRatio()
    first = view.cell_rect(0, v.processors[0])
    y = int(first.center().y() * ratio)
    assert is_red(QColor(image.pixel(int((first.left() + 1.5) * ratio), y)))
    free = [c for c in range(window.player.sim.matrix.processors) if c not in v.processors]
    if free:
        other = view.cell_rect(0, free[-1])
        assert not is_red(QColor(image.pixel(int((other.left() + 1.5) * ratio), y)))
    # the timeline: a red marker where the run stopped
    line = window.board.timeline
    timg = line.grab().toImage()
    tr = timg.devicePixelRatio()
    assert is_red(QColor(timg.pixel(int(line.failure_x() * tr), int(3 * tr))))
    # the narration ends with the rule and the policy's file and line
    model = window.narration.model_
    assert model.refused
    last = model.row_text[-1]
    assert "no processor holds two processes in one slot" in last and "bad.py:16" in last

    # one step back: the picture is no longer the refused one, the mark goes
    player.go_to(player.position - 1)
    assert view.violation_cells() is None
    image = view.grab().toImage()
    assert not is_red(QColor(image.pixel(int((first.left() + 1.5) * ratio), y)))


def test_the_parameter_field_shows_the_chosen_policys_declared_parameters(window):
    panel = window.policy_panel
    panel.set_policy("mgs")
    assert panel.params.placeholderText() == ("mpl=5, q=none, migration_cost=0.0, "
                                              "charge_migration=true, decide=event, cut_at_departure=true, "
                                              "after_cut=next")
    assert "migration_cost: a finite number in 0..1,099,511,627,776 slices" in panel.params.toolTip()
    panel.set_policy(str(EXAMPLES / "best_fit_slot.py"))
    assert panel.params.placeholderText().startswith("max_slots=64, seed=0, check=true")


def test_declared_parameters_are_typed_fields_with_their_ranges(window):
    from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QSpinBox

    panel = window.policy_panel
    panel.set_policy("mgs")
    f = panel.fields.fields
    assert list(f) == ["mpl", "q", "migration_cost", "charge_migration", "decide", "cut_at_departure", "after_cut"]
    assert isinstance(f["mpl"], QSpinBox) and (f["mpl"].minimum(), f["mpl"].maximum()) == (1, 65536)
    assert f["mpl"].value() == 5
    assert isinstance(f["q"], QSpinBox) and f["q"].specialValueText() == "none"
    assert f["q"].value() == f["q"].minimum()  # none, the default
    assert isinstance(f["migration_cost"], QDoubleSpinBox) and f["migration_cost"].minimum() == 0.0
    assert isinstance(f["charge_migration"], QCheckBox) and f["charge_migration"].isChecked()
    assert isinstance(f["decide"], QComboBox)
    assert [f["decide"].itemText(i) for i in range(f["decide"].count())] == ["event", "boundary"]
    assert panel.chosen_params() == {}  # untouched fields leave the source's parameters alone
    f["mpl"].setValue(2)
    f["q"].setValue(3)
    f["charge_migration"].setChecked(False)
    f["decide"].setCurrentText("boundary")
    assert panel.chosen_params() == {"mpl": 2, "q": 3, "charge_migration": False, "decide": "boundary"}
    panel.params.setText("mpl=4")  # the text field still works, and wins
    assert panel.chosen_params()["mpl"] == 4
    panel.params.setText("")

    # Apply runs the policy with the fields' values; the window shows them back in the fields
    assert window.open_source("downey", jobs=40, procs=16, load=0.9)
    panel.set_policy("mgs")
    panel.fields.fields["mpl"].setValue(2)
    panel.apply_button.click()
    assert window.player.sim.policy_name.lower().startswith("mgs")
    assert window.source_params == {"mpl": 2}
    assert panel.fields.fields["mpl"].value() == 2 and panel.params.text() == ""


def test_a_policy_files_declared_parameters_are_fields_too(window, qtbot):
    from PySide6.QtWidgets import QCheckBox, QSpinBox

    panel = window.policy_panel
    panel.set_policy(str(EXAMPLES / "best_fit_slot.py"))
    f = panel.fields.fields
    assert isinstance(f["max_slots"], QSpinBox) and f["max_slots"].value() == 64
    assert isinstance(f["check"], QCheckBox) and f["check"].isChecked()
    qtbot.waitUntil(lambda: f["check"].isVisible())

    def dark_pixels() -> int:  # the tick of the check box, in the panel's picture
        image = panel.grab().toImage()
        r = f["check"].geometry().translated(f["check"].parentWidget().mapTo(panel, f["check"].pos() * 0))
        ratio = image.devicePixelRatio()
        return sum(QColor(image.pixel(int(x * ratio), int(y * ratio))).lightness() < 90
                   for x in range(r.left(), r.left() + min(r.width(), 20)) for y in range(r.top(), r.bottom()))

    ticked = dark_pixels()
    f["check"].setChecked(False)
    assert ticked > dark_pixels()
    assert panel.chosen_params() == {"check": False}


RETRY_LOOP = '''from gangviz.userpolicy import MatrixPolicy


class Retry(MatrixPolicy):
    name = "retry"

    def decide(self, view, act):
        while True:
            try:
                self.place_all(view, act)
            except:
                pass

    def place_all(self, view, act):
        n = 0
        while True:
            try:
                n += 1
            except:
                pass
'''


def test_a_policy_looping_in_a_bare_except_is_stopped_and_the_lecture_goes_on(window, tmp_path, message_boxes):
    path = tmp_path / "retry.py"
    path.write_text(RETRY_LOOP)
    assert window.open_source("downey", f"{path}:decision_limit=0.2", jobs=30, procs=8, load=0.9)
    window.player.step_forward(animate=False)  # returns: the limit ends the loop from outside
    assert window.player.failure is not None
    message = window.statusBar().currentMessage()
    assert message.startswith("Stopped: policy retry.decide")
    # a line of the loops the decision was stopped in (decide's or its helper's)
    assert re.search(rf"{re.escape(str(path))}:(9|1[0-9]|20) in (decide|place_all)", message), message
    assert "limit of 0.2 s (decision_limit)" in message
    assert not window.status.isVisible()  # the running figures give the message the whole bar
    # the lecture goes on: another policy runs on the same workload
    assert window.open_source("downey", "firstfit", jobs=30, procs=8, load=0.9)
    _advance(window, 10)
    assert window.player.failure is None and window.player.sim.time > 0


def test_a_policy_opened_from_the_command_line_reloads_on_save_to_the_time_shown(window, qtbot, tmp_path):
    path = tmp_path / "live.py"
    shutil.copy(EXAMPLES / "best_fit_slot.py", path)
    # what `gangviz open downey --policy live.py ...` does
    assert window.open_source("downey", str(path), jobs=60, procs=16, load=0.9)
    _advance(window, 25)
    at = window.player.sim.time
    assert at > 0
    old = window.player.sim

    # a broken save: the message bar, not a dialog; the previous version keeps running
    _bump(path, path.read_text().replace("def decide(self, view, act):", "def decide(self, view, act)"))
    qtbot.waitUntil(lambda: window.reloader.last.startswith("Policy not reloaded"), timeout=5000)
    assert window.player.sim is old
    assert "live.py:" in window.statusBar().currentMessage()
    assert "SyntaxError" in window.statusBar().currentMessage()

    # a save that hangs in a bare except: stopped at its limit, the previous version keeps running
    _bump(path, RETRY_LOOP.replace('name = "retry"', 'name = "retry"\n    decision_limit = 0.2'))
    window.reloader.last = ""
    qtbot.waitUntil(lambda: window.reloader.last.startswith("Policy not reloaded"), timeout=15000)
    assert window.player.sim is old

    # a good save: reloaded and replayed to the time shown, not to t = 0
    _bump(path, (EXAMPLES / "best_fit_slot.py").read_text().replace('name = "best-fit-slot"',
                                                                     'name = "best-fit-v3"'))
    qtbot.waitUntil(lambda: window.reloader.last == "reloaded", timeout=5000)
    assert window.player.sim.policy_name == "best-fit-v3"
    assert window.player.sim.time == at
    assert f"replayed to t={at:g}" in window.statusBar().currentMessage()


def test_a_session_or_playlist_policy_file_is_followed_too(window, tmp_path, message_boxes):
    path = tmp_path / "mine.py"
    shutil.copy(EXAMPLES / "best_fit_slot.py", path)
    assert window.open_source("downey", f"{path}:max_slots=8", jobs=30, procs=8, load=0.9)
    assert window.reloader is not None and window.reloader.path == str(path)
    assert str(path) in window.reloader.watcher.files()
    assert window.open_source("downey", "firstfit", jobs=30, procs=8, load=0.9)
    assert window.reloader.path is None and not window.reloader.watcher.files()


def test_a_policy_looping_in_a_bare_except_is_stopped_and_the_window_goes_on(window, qtbot, tmp_path):
    path = tmp_path / "retry.py"
    path.write_text("from gangviz.userpolicy import MatrixPolicy\n\n\nclass Retry(MatrixPolicy):\n"
                    "    def decide(self, view, act):\n        while True:\n            try:\n"
                    "                act.place(10**9, 0, [0])\n            except:\n                pass\n")
    assert window.open_source("downey", jobs=20, procs=16, load=0.9)
    assert window.load_policy(f"{path}:decision_limit=0.3")
    _advance(window, 3)
    qtbot.waitUntil(lambda: "retry.py:" in window.statusBar().currentMessage(), timeout=10000)
    message = window.statusBar().currentMessage()
    assert "stopped at" in message and "limit of 0.3 s" in message
    window.grab().save(os.environ.get("GANGVIZ_SHOT", str(tmp_path / "stopped.png")))
    # the lecture goes on: another policy opens and runs
    assert window.open_source("downey", jobs=20, procs=16, load=0.9)
    _advance(window, 3)
    assert window.player.sim.time > 0
