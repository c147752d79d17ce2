"""A compare pane's state line wraps between its parts and never leaves a separator at the end
or the start of a line."""

from __future__ import annotations

from gangviz.gui.compare.state_line import SEPARATOR, StateLine, wrap_parts


def test_parts_fill_lines_and_a_separator_never_ends_one():
    parts = ["t = 279 slices", "3 slots", "6 running", "0 waiting"]
    lines = wrap_parts(parts, 30, len)
    assert lines == ["t = 279 slices  ·  3 slots", "6 running  ·  0 waiting"]
    assert all(not line.strip().endswith("·") and not line.strip().startswith("·") for line in lines)
    assert wrap_parts(parts, 1000, len) == [SEPARATOR.join(parts)]
    assert wrap_parts(parts, 1, len) == parts  # a part is never cut


def test_the_label_lays_its_parts_out_at_its_width(qtbot):
    label = StateLine()
    qtbot.addWidget(label)
    label.show()
    parts = ["t = 279 slices", "3 slots", "6 running", "0 waiting"]
    label.resize(2000, 40)
    label.set_parts(parts)
    assert label.text() == SEPARATOR.join(parts)
    label.resize(label.fontMetrics().horizontalAdvance("t = 279 slices  ·  3 slots") + 20, 80)
    lines = label.text().split("\n")
    assert len(lines) >= 2 and all(not line.endswith("·") for line in lines)
    assert label.parts() == parts
