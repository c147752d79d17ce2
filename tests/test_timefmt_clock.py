"""The clock's time: days and h:mm:ss on a trace, slices without a clock."""

from __future__ import annotations

import math

from gangviz.timefmt import clock_text


def test_clock_text_reads_days_hours_minutes_seconds():
    assert clock_text(2_693_529, 1.0) == "31 d 04:12:09"
    assert clock_text(100, 1.0) == "00:01:40"
    assert clock_text(10, 200.0) == "00:33:20"  # ten slices of 200 s
    assert clock_text(3.122191e7) == "31,221,910 slices"
    assert clock_text(math.nan, 1.0) == "—"
