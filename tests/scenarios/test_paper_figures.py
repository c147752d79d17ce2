"""Each built-in scenario that names a paper figure plays that figure: the starting matrix, every
intermediate matrix the paper draws or narrates, and the final one, compared cell by cell.

Matrices are written top slot first, as the papers print them. The intermediate matrices are
taken after every single change of the run (a shift, a swap, a placement), so a test fails when
a move is missing, extra, or played in another order than the paper's.
"""

from __future__ import annotations

import pytest

from gangviz.core.changes import MatrixChange
from gangviz.factory import build, run_to_end
from gangviz.resources import list_scenarios
from gangviz.workloads.scenario import load_scenario


def norm(rows: list[str]) -> list[list[str]]:
    """Rows as lists of cell tokens ("." idle), so spacing never matters."""
    return [r.split() for r in rows]


def play_from(name: str, start: list[str]):
    """Return ``(snapshots, sim)`` of :func:`play`, asserting the scenario starts as ``start``."""
    first, snaps, sim = play(name)
    assert first == norm(start)
    return snaps, sim


def play(name: str):
    """Return ``(start, snapshots, sim)``: the starting matrix and the matrix after each change
    of the whole run, replayed one change at a time from the scenario's own start."""
    sc = load_scenario(next(p for p in list_scenarios() if p.stem == name))
    sim = build(sc)
    run_to_end(sim)
    m = sc.matrix.copy()
    m.names.update(sim.matrix.names)
    snaps = []
    for step in sim.steps:
        for change in step.changes:
            if isinstance(change, MatrixChange):
                change.apply(m)
                snaps.append(norm(m.to_rows()))
    return norm(sc.matrix.to_rows()), snaps, sim


def assert_in_order(snaps, *figures):
    """Every matrix of ``figures`` appears among ``snaps``, in this order."""
    at = 0
    for fig in figures:
        want = norm(fig)
        try:
            at = snaps.index(want, at) + 1
        except ValueError:
            seen = "\n".join(" ".join(r) for r in snaps[at - 1] if at) if at else "(start)"
            pytest.fail(f"matrix {fig} never drawn after\n{seen}")


def moved_jobs(sim) -> list[str]:
    """The narration lines that move a job between slots, in order."""
    return [line for s in sim.steps for line in s.narration if "shifts" in line or line.startswith("Swap")]


# -- Zhou, Brent, Johnson, Walsh (re-packing) ---------------------------------------------------

FIG1_TRAP = [
    "J4 J4 .  .  .  J4 .  .",
    "J3 .  J3 .  .  J3 .  .",
    ".  .  .  .  .  J2 .  J2",
    ".  J1 J1 .  J1 .  .  J1",
]


def test_zhou99_fig1_random_allocation_trap():
    snaps, sim = play_from("zhou-fig1-random-trap", FIG1_TRAP)
    start = norm(FIG1_TRAP)
    busy = sum(c != "." for r in start for c in r)
    assert busy == 12 and busy / 32 < 0.5, "fewer than half of the cells are busy"
    cols = {}
    for r in start:
        for c, tok in enumerate(r):
            if tok != ".":
                cols.setdefault(tok, set()).add(c)
    jobs = sorted(cols)
    assert all(cols[a] & cols[b] for a in jobs for b in jobs if a < b), \
        "every two jobs share a processor, so no slot can go"
    # Jn (7 processors) gets a fifth slot; when it leaves the picture is Fig. 1 again
    assert max(len(s) for s in snaps) == 5
    assert snaps[-1] == start
    assert moved_jobs(sim) == []


def test_zhou99_fig2_repacking_b_c_d():
    snaps, sim = play_from("fig2-repacking", FIG1_START)  # Zhou99's Fig. 2 is Zhou00's Fig. 1
    assert_in_order(
        snaps,
        # (b) J1 and J2 reallocated from S1 to S2
        ["J5 J5 J5 J6 J6 .  J7 J7", "J1 J1 J2 J2 J4 J4 .  .", ".  .  .  .  .  J3 J3 J3"],
        # (c) J5 and J6 taken down to S1
        [".  .  .  .  .  .  J7 J7", "J1 J1 J2 J2 J4 J4 .  .", "J5 J5 J5 J6 J6 J3 J3 J3"],
        # (d) J7 down to S2; S3 empty and removed
        ["J1 J1 J2 J2 J4 J4 J7 J7", "J5 J5 J5 J6 J6 J3 J3 J3"],
    )
    assert [line.split()[0] for line in moved_jobs(sim)][:5] == ["J1", "J2", "J5", "J6", "J7"]


FIG3_START = ["J3 J3 .  .  .  J5 J5 J5", "J1 .  J2 J2 J2 .  .  ."]
FIG34_END = ["J3 J3 J2 J2 J2 J5 J5 J5", "J1 Jn Jn Jn Jn Jn Jn Jn"]


def test_zhou99_fig3_pairwise_swaps_j1_and_j3_twice():
    snaps, sim = play_from("zhou-fig3-pairwise-cuts", FIG3_START)
    assert_in_order(
        snaps,
        # (a)->(b): cuts at the left end and P2|P3; J1 and J3 exchange, P2..P5 idle in S2
        ["J1 .  .  .  .  J5 J5 J5", "J3 J3 J2 J2 J2 .  .  ."],
        # second step: cuts at the left end and P5|P6; J1 and J3 are back where they started
        ["J3 J3 J2 J2 J2 J5 J5 J5", "J1 .  .  .  .  .  .  ."],
        FIG34_END,
    )
    assert len(moved_jobs(sim)) == 2


def test_zhou99_fig4_swaps_only_the_middle_region_once():
    snaps, sim = play_from("zhou-fig3-4-legal-cuts", FIG3_START)
    # the very first change is the only move: J2 up, J1 and J3 never touched
    assert snaps[0] == norm(["J3 J3 J2 J2 J2 J5 J5 J5", "J1 .  .  .  .  .  .  ."])
    assert_in_order(snaps, FIG34_END)
    lines = moved_jobs(sim)
    assert len(lines) == 1 and lines[0].startswith("J2 shifts from S1 to S2")
    assert "legal cuts at P2|P3 and P5|P6" in lines[0]


FIG5_START = [
    "J6 J6 J6 .  J8 J8 .  .",
    "J5 J5 J5 .  .  J7 J7 .",
    "J2 J2 .  J4 J4 .  .  .",
    "J1 J1 J1 J3 .  .  J9 J9",
]


def test_zhou99_fig5_j4_shifts_to_s3_and_the_job_goes_to_s2():
    snaps, sim = play_from("zhou-fig5-wlv", FIG5_START)
    wlv = [sum(r[c] == "." for r in norm(FIG5_START)) for c in range(8)]
    assert wlv == [0, 0, 1, 2, 2, 2, 2, 3], "the WLV the paper gives"
    assert not any("." * 5 in "".join("." if c == "." else "x" for c in r) for r in norm(FIG5_START)), \
        "no slot has five consecutive idle processors"
    assert_in_order(
        snaps,
        ["J6 J6 J6 .  J8 J8 .  .", "J5 J5 J5 J4 J4 J7 J7 .", "J2 J2 .  .  .  .  .  .",
         "J1 J1 J1 J3 .  .  J9 J9"],
        ["J6 J6 J6 .  J8 J8 .  .", "J5 J5 J5 J4 J4 J7 J7 .", "J2 J2 .  Ja Ja Ja Ja Ja",
         "J1 J1 J1 J3 .  .  J9 J9"],
    )
    # the six-processor job still fits without a fifth slot
    assert max(len(s) for s in snaps) == 4
    assert any("Jb is placed on P3..P8" in line for s in sim.steps for line in s.narration)


def test_zhou99_fig5_other_subset_needs_a_fifth_slot_for_the_six_processor_job():
    snaps, _ = play_from("zhou-fig5-other-subset", FIG5_START)
    assert_in_order(
        snaps,
        ["J6 J6 J6 .  J8 J8 .  .", "J5 J5 J5 J4 J4 J7 J7 .", "J2 J2 Ja Ja Ja Ja Ja .",
         "J1 J1 J1 J3 .  .  J9 J9"],
    )
    assert max(len(s) for s in snaps) == 5


FIG6_START = ["J3 J3 J3 J3 J6 J6 .  .", "J5 J5 J5 J5 J4 J4 J4 J4", "J1 J1 .  .  .  .  J2 J2"]


@pytest.mark.parametrize("name, frames", [
    # the size-four job goes right after J6 comes down: J6 shifts down to S1, freeing P5..P8 in S3
    ("zhou-fig6-wlt", [
        ["J3 J3 J3 J3 .  .  .  .", "J5 J5 J5 J5 J4 J4 J4 J4", "J1 J1 .  .  J6 J6 J2 J2"],
        ["J3 J3 J3 J3 Jn Jn Jn Jn", "J5 J5 J5 J5 J4 J4 J4 J4", "J1 J1 .  .  J6 J6 J2 J2"],
    ]),
    # J1 ends, J2 moves up and S1 is deleted
    ("zhou-fig6-wlt-delete", [
        ["J3 J3 J3 J3 J6 J6 .  .", "J5 J5 J5 J5 J4 J4 J4 J4", ".  .  .  .  .  .  J2 J2"],
        ["J3 J3 J3 J3 J6 J6 J2 J2", "J5 J5 J5 J5 J4 J4 J4 J4", ".  .  .  .  .  .  .  ."],
        ["J3 J3 J3 J3 J6 J6 J2 J2", "J5 J5 J5 J5 J4 J4 J4 J4"],
    ]),
])
def test_zhou99_fig6_the_wlt_places_and_deletes_as_drawn(name, frames):
    snaps, _ = play_from(name, FIG6_START)
    assert_in_order(snaps, *frames)


# -- Zhou, Walsh, Brent (resource allocation schemes) -------------------------------------------

FIG1_START = ["J5 J5 J5 J6 J6 .  J7 J7", "J' J' J' J' J4 J4 J'' J''", "J1 J1 J2 J2 .  J3 J3 J3"]
FIG1_FREED = ["J5 J5 J5 J6 J6 .  J7 J7", ".  .  .  .  J4 J4 .  .", "J1 J1 J2 J2 .  J3 J3 J3"]


def test_zhou00_fig1b_j1_j2_j7_take_the_freed_cells_without_repacking():
    snaps, sim = play_from("zhou00-fig1b-multislot", FIG1_START)
    assert_in_order(
        snaps,
        FIG1_FREED,
        # (b): J1, J2 (from S1) and J7 (from S3) also run in S2; nothing moved
        ["J5 J5 J5 J6 J6 .  J7 J7", "J1 J1 J2 J2 J4 J4 J7 J7", "J1 J1 J2 J2 .  J3 J3 J3"],
    )
    assert snaps[-1] == norm(["J5 J5 J5 J6 J6 .  J7 J7", "J1 J1 J2 J2 J4 J4 J7 J7",
                              "J1 J1 J2 J2 .  J3 J3 J3"])
    assert moved_jobs(sim) == []


def test_zhou00_fig1c_repacking_deletes_s3():
    snaps, sim = play_from("zhou00-fig1c-repacking", FIG1_START)
    fig1c = ["J1 J1 J2 J2 J4 J4 J7 J7", "J5 J5 J5 J6 J6 J3 J3 J3"]
    assert_in_order(
        snaps,
        FIG1_FREED,
        ["J5 J5 J5 J6 J6 .  J7 J7", "J1 J1 J2 J2 J4 J4 .  .", ".  .  .  .  .  J3 J3 J3"],
        [".  .  .  .  .  .  J7 J7", "J1 J1 J2 J2 J4 J4 .  .", "J5 J5 J5 J6 J6 J3 J3 J3"],
        fig1c,
        # Jn then needs a third slot (Fig. 1(b) would need a fourth), and it goes again
        ["Jn Jn .  .  .  .  .  .", *fig1c],
        fig1c,
    )
    assert [line.split()[0] for line in moved_jobs(sim)] == ["J1", "J2", "J5", "J6", "J7"]
