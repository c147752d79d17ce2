"""The worked examples of Zhou99, cell for cell."""

from __future__ import annotations

from gangviz.core.allocation import best_window, place_buddy, place_wlv
from gangviz.core.changes import (
    JobPlaced,
    JobRemoved,
    JobShifted,
    RegionSwapped,
    SlotAdded,
    SlotRemoved,
)
from gangviz.core.repack import common_legal_cuts, eliminate_slots, gather, merge_rows

from .helpers import draw, ids


def test_fig2_three_slots_become_two_exactly_as_drawn():
    # Fig. 2(a) after J' and J'' in S2 have terminated.
    m = draw(
        "J5 J5 J5 J6 J6 .  J7 J7",
        ".  .  .  .  J4 J4 .  .",
        "J1 J1 J2 J2 .  J3 J3 J3",
    )
    out: list = []
    assert eliminate_slots(m, out) == 1
    # (d) exactly, because our gather moves the cheaper side at each gap as the paper does:
    # (b) J1, J2 up to S2; (c) J5, J6 down to S1; (d) J7 down to S2; S3 empty and removed.
    assert m.to_rows() == ["J1 J1 J2 J2 J4 J4 J7 J7", "J5 J5 J5 J6 J6 J3 J3 J3"]
    j = ids(m)
    assert out == [
        JobShifted(j["J1"], 0, 1, out[0].reason),
        JobShifted(j["J2"], 0, 1, out[1].reason),
        JobShifted(j["J5"], 2, 0, out[2].reason),
        JobShifted(j["J6"], 2, 0, out[3].reason),
        JobShifted(j["J7"], 2, 1, out[4].reason),
        SlotRemoved(2, out[5].reason),
    ]
    assert "Property 2" in out[-1].reason
    assert "legal cuts at the left end and P4|P5" in out[0].reason
    m.check()


def test_fig3_fig4_alternating_regions_each_moved_once():
    # Four small fragments in two slots: S1 idle on P2 and P5..P6, S2 idle on P3..P4 and P7..P8.
    # Pairwise Property-1 steps would swap J1 with J3 twice (Fig. 3); cutting at every common
    # legal cut at once swaps only the middle region (Fig. 4).
    m = draw(
        "J3 J3 .  .  J5 J5 .  .",
        "J1 .  J2 J2 .  .  J4 J4",
    )
    assert common_legal_cuts(m, 0, 1) == [0, 2, 4, 6, 8]
    out: list = []
    merge_rows(m, 0, 1, range(1, 6), out)
    j = ids(m)
    assert out == [JobShifted(j["J2"], 0, 1, out[0].reason)]
    assert m.to_rows() == ["J3 J3 J2 J2 J5 J5 .  .", "J1 .  .  .  .  .  J4 J4"]
    m.check()


def test_fig4_two_sided_region_is_one_swap():
    m = draw(
        "J3 J3 .  .  J5 J5 .  .",
        "J1 .  J2 J2 .  .  J9 J9",
    )
    out: list = []
    merge_rows(m, 0, 1, range(1, 8), out)
    j = ids(m)
    # Regions [2,4) and [6,8) move (J2 and J9 up); [0,2) and [4,6) between them stay.
    assert [type(c) for c in out] == [JobShifted, JobShifted]
    assert [c.job for c in out] == [j["J2"], j["J9"]]
    assert m.to_rows()[1] == "J1 .  .  .  .  .  .  ."
    # A region with jobs on both sides is exchanged whole, once: J2 and J7 pass each other.
    m2 = draw(
        "J3 J3 .  .  J7 J7 .  .",
        "J1 .  J2 J2 J2 J2 .  .",
    )
    out2: list = []
    merge_rows(m2, 0, 1, range(1, 4), out2)
    assert len(out2) == 1 and isinstance(out2[0], RegionSwapped)
    assert (out2[0].lo, out2[0].hi) == (2, 6)
    assert m2.to_rows() == ["J3 J3 J2 J2 J2 J2 .  .", "J1 .  .  .  J7 J7 .  ."]
    m2.check()


# Fig. 5 survives only as prose. This matrix agrees with every number the text gives: four
# slots; P1 has no idle slot and P8 three; six consecutive non-zeros P3..P8; no slot has five
# consecutive idle processors; a 5-processor job fits P3..P7 by shifting J4 to S3, or P4..P8,
# which is less loaded, after which a 6-processor job still fits without a new slot.
FIG5 = (
    "J6 J6 J6 .  .  J8 .  .",
    "J5 J5 J5 .  .  J7 J7 .",
    "J2 J2 .  J4 J4 .  .  .",
    "J1 J1 J1 J3 J3 .  J9 J9",
)


def test_fig5_wlv_and_no_slot_has_five_in_a_row():
    m = draw(*FIG5)
    assert m.wlv.tolist() == [0, 0, 1, 2, 2, 2, 2, 3]
    for row in range(m.n_rows):
        idle = "".join("1" if c < 0 else "0" for c in m.cells[row])
        assert "11111" not in idle
    assert best_window(m.wlv, 5) == 3  # P4..P8 beats P3..P7 (11 idle slots against 9)


def test_fig5_shifting_j4_to_s3_frees_p3_to_p7_in_s2():
    m = draw(*FIG5)
    out: list = []
    row = gather(m, 2, 7, out)
    assert row == 1
    assert out == [JobShifted(ids(m)["J4"], 1, 2, out[0].reason)]


def test_fig5_five_processor_job_needs_no_new_slot_and_six_still_fits():
    m = draw(*FIG5)
    out: list = []
    m.names[100] = "Jnew"
    place_wlv(m, 100, 5, out)
    assert not any(isinstance(c, SlotAdded) for c in out)
    assert tuple(m.job_cols(100)) == tuple(range(3, 8))
    assert best_window(m.wlv, 6) == 2
    m.check()


# Fig. 6 (and Zhou00 Fig. 2) survive only as prose. This matrix agrees with
# every number and move the text of 000 gives: J1 on P1..P2 is the only job whose end makes the
# root non-zero; the two right nodes of the bottom (2-processor) level are non-zero, so J6 and J2
# could run in more slots; the right middle node is non-zero and J4 (P5..P8) could run in S3
# once J6 shifts down to S1 (or J2 up to S3).
FIG6 = (
    "J3 J3 J3 J3 J6 J6 .  .",
    "J5 J5 J5 J5 J4 J4 J4 J4",
    "J1 J1 .  .  .  .  J2 J2",
)


def test_fig6_wlt_values():
    m = draw(*FIG6)
    assert m.tree.as_lists() == [[0], [0, 4], [0, 2, 2, 2], [0, 0, 1, 1, 1, 1, 1, 1]]


def test_fig6_four_processor_job_lands_on_p5_p8_after_j6_shifts():
    m = draw(*FIG6)
    m.names[100] = "Jnew"
    out: list = []
    place_buddy(m, 100, 4, out)
    j = ids(m)
    assert out == [JobShifted(j["J6"], 2, 0, out[0].reason), JobPlaced(100, 2, range(4, 8), out[1].reason)]
    # "the values of the associated node and its children are updated (... all set to zero)"
    assert m.tree.levels[2][1] == 0 and m.tree.levels[1][2] == 0 and m.tree.levels[1][3] == 0
    m.check()


def test_fig6_root_turns_non_zero_when_j1_ends_and_a_slot_goes():
    m = draw(*FIG6)
    j = ids(m)
    JobRemoved(j["J1"], 0, m.job_cols(j["J1"])).apply(m)
    assert m.tree.root > 0
    out: list = []
    assert eliminate_slots(m, out) == 1
    assert out[0] == JobShifted(j["J2"], 0, 2, out[0].reason)  # "J2 legally shifted to S3"
    assert isinstance(out[-1], SlotRemoved) and out[-1].row == 0  # S1 empties and goes
    m.check()
