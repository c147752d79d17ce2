"""The job palette's distances (CIEDE2000, simulated colour vision deficiencies), the policy
colours and the time formatter (all Qt-free)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from gangviz import colours as C
from gangviz.timefmt import format_time, time_unit


def test_ciede2000_matches_the_published_reference_pairs():
    # Sharma, Wu and Dalal (2005), Table 1: pairs 1, 7 and 17
    a = np.array([[50, 2.6772, -79.7751], [50, 0.0, 0.0], [50, 2.5, 0.0]])
    b = np.array([[50, 0.0, -82.7485], [50, -1.0, 2.0], [73, 25, -18]])
    assert C.delta_e2000(a, b) == pytest.approx([2.0425, 2.3669, 27.1492], abs=1e-4)


def test_cvd_simulation_merges_red_and_green():
    rg = C.hex_to_rgb(["#D81B1B", "#2E9E2E"])
    normal = C.pair_distances(["#D81B1B", "#2E9E2E"])[0, 1]
    for kind in ("deuteranopia", "protanopia"):
        sim = C.rgb_to_lab(C.simulate_cvd(rg, kind))
        assert C.delta_e2000(sim[:1], sim[1:])[0] < normal / 2


@pytest.mark.parametrize("kind, least", [(None, C.MIN_DELTA_E), ("deuteranopia", C.MIN_DELTA_E_CVD),
                                         ("protanopia", C.MIN_DELTA_E_CVD)])
def test_every_pair_of_job_colours_is_far_apart(kind, least):
    d = C.pair_distances(C.JOB_HEX, kind)
    np.fill_diagonal(d, np.inf)
    assert d.min() >= least, (kind, d.min())
    assert len(C.JOB_HEX) >= 12


@pytest.mark.parametrize("kind", [None, "deuteranopia", "protanopia"])
def test_idle_cells_look_like_no_job(kind):
    for idle in (C.IDLE_HEX, C.IDLE_ACTIVE_HEX):
        d = C.pair_distances([idle] + C.JOB_HEX, kind)[0, 1:]
        assert d.min() >= 20, (idle, kind, d.min())


def test_a_policy_keeps_its_colour_whatever_its_place_or_parameters():
    from gangviz.core import registry

    assert registry.colour("br") == registry.colour("BR") == registry.colour("br(limit=2)")
    assert registry.colour("random:seed=3") == registry.colour("random")
    assert registry.colour("heuristic(2)") == registry.colour("HEURISTIC-EPOCH(1)")
    known = ["repack", "br", "bc", "brms", "brmms"]
    assert len({registry.colour(n) for n in known}) == len(known)
    # any other name maps by a stable hash of its base name into the extra palette, the same
    # in every process and with any parameters or case
    assert registry.colour("someone-elses") == C.hashed_colour("someone-elses")
    assert C.hashed_colour("someone-elses") in C.EXTRA_POLICY_HEX
    assert C.hashed_colour("Someone-Elses(limit=2)") == C.hashed_colour("someone-elses")
    assert C.hashed_colour("someone-elses") == C.EXTRA_POLICY_HEX[
        zlib.crc32(b"someone-elses") % len(C.EXTRA_POLICY_HEX)]


def test_times_read_in_the_traces_units():
    assert format_time(2961380, 1.0) == "34.3 d"
    assert format_time(90, 1.0) == "90 s"
    assert format_time(100 * 60, 1.0) == "100 min"
    assert format_time(5.5 * 3600, 1.0) == "5.5 h"
    assert format_time(2961380) == "2,961,380 slices"
    assert format_time(1) == "1 slice"
    assert time_unit(10 * 86400, 1.0) == ("d", 86400.0)
    assert time_unit(500) == ("slices", 1.0)
