"""The step that deletes a slot: its caption names slots as the final picture does, and playing
it rests on the deletion long enough for a lecture to point at it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gangviz.core.changes import RowActivated, SlotAdded, SlotRemoved
from gangviz.gui.lecture.caption import final_slot_names
from gangviz.gui.playback.player import KEY_PAUSE_SECONDS


def test_a_slot_named_before_a_deletion_is_followed_by_its_final_number():
    lines = ["J2 shifts from S1 to S3 on P7..P8 (S3 is idle on P7..P8).", "Empty slot S1 is eliminated.",
             "Slot S1 runs its time slice."]
    changes = [RowActivated(0), SlotRemoved(0), RowActivated(0)]
    assert final_slot_names(lines, changes) == [
        "J2 shifts from S1 to S3 (now S2) on P7..P8 (S3 is idle on P7..P8).",
        "Empty slot S1 is eliminated.", "Slot S1 runs its time slice."]


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.booleans(), st.integers(0, 8)), max_size=6))))
def test_final_numbers_follow_every_insertion_and_deletion(case):
    n, ops = case
    rows = list(range(n))  # the slots' identities, in row order
    changes, lines, ids = [], [], []
    for add, r in ops:
        ident = rows[r % len(rows)] if rows else None
        if ident is None:
            break
        lines.append(f"Look at S{rows.index(ident) + 1}.")
        ids.append(ident)
        changes.append(RowActivated(0))
        if add:
            at = r % (len(rows) + 1)
            rows.insert(at, 100 + len(changes))  # a new identity, never used before
            changes.append(SlotAdded(at))
        else:
            at = r % len(rows)
            rows.pop(at)
            changes.append(SlotRemoved(at))
        lines.append("A slot changes.")
    out = final_slot_names(lines, changes)
    for line, ident in zip(out[::2], ids):
        if ident in rows and f"(now S{rows.index(ident) + 1})" not in line:
            assert line.endswith(f"S{rows.index(ident) + 1}.")  # it kept its number
        elif ident not in rows:
            assert "(now" not in line  # deleted later in the step: no final number


def test_the_caption_after_the_wlt_deletion_uses_the_final_slot_numbers(window):
    assert window.open_source("zhou-fig6-wlt-delete")
    window.player.step_forward(animate=False)
    text = window.board.caption.full_text
    assert "S3 (now S2)" in text
    assert window.player.sim.snapshot().n_rows == 2


def test_playing_rests_on_the_slot_deletion(window):
    assert window.open_source("zhou-fig6-wlt-delete")
    p = window.player
    p.set_speed_level(2)  # 1x
    p.step_forward(animate=True)
    rest, dt = 0.0, 0.05
    said = False
    while p.busy:
        tr = p.transition
        if tr is not None and tr.change.kind == "slot_removed" and tr.t == 0.0:
            rest += dt
            said = said or "Empty slot S1 is eliminated" in window.board.caption.full_text
        p.advance_animation(dt)
    assert rest >= KEY_PAUSE_SECONDS - dt
    assert said
