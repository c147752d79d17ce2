"""Tests of Table 1's samples, spreads, saturation, median split and sensitivity, and of the
workload's unpublished choices (Zhang01 §2.1, §2.2, §5.6)."""

import math

import numpy as np
import pytest

from gangviz.core.jobs import JobSpec
from gangviz.experiments.repro import zhang
from gangviz.experiments.repro.zhang_stats import in_range, saturated, spread
from gangviz.workloads.ibm import (
    CLASS_SHARES,
    ZhangChoices,
    large_work_share,
    zhang_workload,
)


@pytest.mark.parametrize("field, value", [("pow2_share", 1.5), ("pow2_share", -0.1), ("interarrival_cv", 0.1),
                                          ("service_cv", 20.0), ("median_run_time", 0.0), ("service_growth", 3.0),
                                          ("service_skew", 1.5), ("service_skew", 25.0)])
def test_a_choice_out_of_range_is_refused(field, value):
    with pytest.raises(ValueError, match=field):
        ZhangChoices(**{field: value})


@pytest.mark.parametrize("choices", [ZhangChoices(), ZhangChoices(service_cv=5.0, service_growth=0.3),
                                     ZhangChoices(median_run_time=1000.0, pow2_share=1.0)])
def test_the_median_run_time_at_workload_5_is_the_one_asked_for(choices):
    w = zhang_workload(20_000, 1.5, seed=4, choices=choices)
    median = float(np.median(w.works())) * w.slice_seconds
    assert median == pytest.approx(choices.median_run_time, rel=0.05)


def test_the_size_spread_within_a_class():
    tops = {hi for _, hi, _ in CLASS_SHARES}
    on_top = zhang_workload(3000, 1.0, seed=2, choices=ZhangChoices(pow2_share=1.0)).sizes()
    assert set(on_top.tolist()) <= tops
    uniform = zhang_workload(3000, 1.0, seed=2, choices=ZhangChoices(pow2_share=0.0)).sizes()
    share_on_top = np.isin(uniform, list(tops)).mean()
    assert 0.3 < share_on_top < 0.6  # classes 1 and 2 are all top; the others 1 in 2..128


def test_class_run_times_grow_with_size_when_asked_and_large_jobs_keep_most_of_the_work():
    flat = zhang_workload(20_000, 1.0, seed=3, choices=ZhangChoices(service_growth=0.0))
    grown = zhang_workload(20_000, 1.0, seed=3, choices=ZhangChoices(service_growth=0.3))
    for w, bigger in ((flat, False), (grown, True)):
        s, e = w.sizes(), w.works()
        ratio = e[s > 128].mean() / e[s == 1].mean()
        assert (ratio > 2.0) if bigger else (0.6 < ratio < 1.6)
    assert large_work_share(ZhangChoices()) > 0.8
    assert large_work_share(ZhangChoices(service_growth=0.3)) > large_work_share(ZhangChoices())


def test_the_run_times_have_the_third_moment_asked_for():
    from gangviz.workloads.ibm import zhang_classes

    for skew in (1.55, 2.0, 4.0):
        for c in zhang_classes(choices=ZhangChoices(service_cv=2.0, service_skew=skew)):
            m1, m2, m3 = c.service.moments()
            assert m2 / m1**2 - 1 == pytest.approx(4.0, rel=1e-9)
            assert m3 * m1 / m2**2 == pytest.approx(skew, rel=1e-9)


def test_a_smaller_skew_spreads_the_run_times_over_more_decades():
    """At one median and CV, a third moment near its least value puts more jobs far below the
    median and more work far above it: the halves' mean 1/t differ more (Zhang01 §5.6's split)."""
    def halves(skew):
        w = zhang_workload(20_000, 1.5, seed=5, choices=ZhangChoices(service_cv=2.0, service_skew=skew))
        t = w.works() * w.slice_seconds
        med = np.median(t)
        assert med == pytest.approx(680.0, rel=0.05)
        return np.mean(1 / np.maximum(t[t < med], 10.0)) / np.mean(1 / t[t >= med])
    assert halves(1.6) > 1.4 * halves(3.0)


def test_interarrival_cv_makes_arrivals_burstier():
    def cv(choice):
        w = zhang_workload(20_000, 1.0, seed=6, choices=ZhangChoices(interarrival_cv=choice))
        gaps = np.diff([j.arrival for j in w.jobs if j.size == 1])
        return gaps.std() / gaps.mean()
    assert cv(1.5) < cv(3.0)
    assert cv(3.0) == pytest.approx(3.0, rel=0.3)


def test_spread_and_agreement():
    sp = spread([2.0, 4.0, 6.0])
    assert (sp.mean, sp.low, sp.high, sp.n) == (4.0, 2.0, 6.0, 3)
    assert sp.half == pytest.approx(4.303 * 2.0 / math.sqrt(3))
    assert sp.agrees(5.9) and sp.agrees(2.7) and sp.agrees(6.0)  # in the range
    assert not sp.agrees(6.1) and not sp.agrees(1.8)  # outside it and beyond 1.5x of 4
    wide = spread([1.0, 1.0, 10.0])  # mean 4: the range holds values beyond 1.5x of it
    assert wide.agrees(9.0) and wide.agrees(1.2)
    one = spread([3.0])
    assert math.isnan(one.half) and one.agrees(4.4) and not one.agrees(4.6)
    with pytest.raises(ValueError):
        spread([])


def test_saturation_on_the_papers_own_utilisations():
    loads = [0.55 * m for m in zhang.MULTIPLIERS]
    paper = zhang.paper_table()
    gs = saturated([paper[("GS", w)][0] for w in range(9)], loads)
    bgs = saturated([paper[("BGS", w)][0] for w in range(9)], loads)
    mgs = saturated([paper[("MGS", w)][0] for w in range(9)], loads)
    assert gs == [False] * 7 + [True, True]  # 0.86, 0.86, 0.86 from workload 6
    assert bgs == [False] * 8 + [True]  # 0.94 -> 0.96 for 0.055 more load
    assert mgs == [False] * 9
    # once saturated, always: a later rise does not undo it
    assert saturated([0.5, 0.5, 0.6], [0.5, 0.55, 0.6]) == [False, True, True]


def test_the_saturation_range_allows_the_papers_rounding():
    assert in_range(0.8151, zhang.GS_SATURATION) and not in_range(0.814, zhang.GS_SATURATION)
    assert in_range(0.9649, zhang.BGS_SATURATION) and not in_range(0.966, zhang.BGS_SATURATION)


def test_findings_four_and_six_read_the_saturation_point_from_the_longer_runs():
    table = zhang.paper_table()
    # the table's run stops short of the saturation points (eq. 1 counts the drain after the
    # last arrival); the longer runs reach them
    short = {k: (min(r, 0.80) if k[0] == "GS" else min(r, 0.93) if k[0] == "BGS" else r, sd)
             for k, (r, sd) in table.items()}
    assert not zhang.findings(short)[5][1]
    assert zhang.findings(short, longer={"GS": 0.84, "BGS": 0.955})[5][1]
    # a longer run that overshoots the paper's range fails as one that stops short of it
    assert not zhang.findings(short, longer={"GS": 0.84, "BGS": 0.99})[5][1]
    # finding 4 uses the same saturation points: GS reaching BGS in the long runs breaks it
    assert not zhang.findings(short, longer={"GS": 0.94, "BGS": 0.955})[3][1]


def test_longest_utilisation_takes_each_policys_best_cell_at_the_longest_run():
    util = {("GS", 7): [0.78, 0.82, 0.84], ("GS", 8): [0.80, 0.83, 0.83], ("BGS", 8): [0.85, 0.93, 0.95]}
    assert zhang.longest_utilisation(util) == {"GS": 0.84, "BGS": 0.95}
    assert zhang.SATURATION_CELLS == (("GS", 8), ("BGS", 8))


def test_median_split_by_hand():
    # times in slices of 200 s: works 1, 2, 3, 4 slices; the median is 2.5 slices (500 s)
    specs = [JobSpec(i, f"j{i}", 0.0, 1, float(i + 1)) for i in range(4)]
    start = np.zeros(4)
    finish = np.array([2.0, 2.0, 6.0, 4.0])
    out = zhang.median_split(specs, start, finish)
    assert out["median_run_time"] == pytest.approx(500.0)
    assert out["short_slowdown"] == pytest.approx((2 / 1 + 2 / 2) / 2)
    assert out["long_slowdown"] == pytest.approx((6 / 3 + 4 / 4) / 2)


def test_a_sample_runs_every_policy_on_one_workload_as_single_cells_do():
    both = zhang.run_sample(("GS", "MBGS"), 1.4, 120, 5, True)
    assert [m["bounded_slowdown"] for m in both] == [
        zhang.run_cell(p, 1.4, 120, 5, True)["bounded_slowdown"] for p in ("GS", "MBGS")]
    assert {"median_run_time", "short_slowdown", "long_slowdown"} <= set(both[0])


def test_simulate_runs_only_the_cells_asked_for():
    res = zhang.simulate(30, 2, 1, seed=3, cells=[("GS", 8), ("BGS", 7)])
    assert sorted(res) == [("BGS", 7), ("GS", 8)] and all(len(v) == 2 for v in res.values())
    full = zhang.simulate(30, 2, 1, seed=3)
    assert full[("GS", 8)] == res[("GS", 8)]


def test_the_repro_prints_spreads_saturation_and_the_median_split(capsys):
    from gangviz.cli import main

    main(["repro", "zhang-table1", "--jobs", "50", "--reps", "2", "--workers", "1"])
    out = capsys.readouterr().out
    assert "2 samples x 50 jobs" in out and "95% CI" in out
    assert "unsaturated cells agree with the paper" in out
    assert "median split at workload 5" in out and "paper 104.8" in out
    assert "[holds in" in out and "of 2 samples]" in out
    assert out.count("| agrees") + out.count("| differs") + out.count("| saturated") == 36
    # GS and BGS at the highest load are rerun longer, saturated or not, for findings 4 and 6
    assert "highest utilisation with the run's length" in out
    assert "GS   at workload 8:" in out and "BGS  at workload 8:" in out and "at 25 / 50 / 100 jobs" in out


def test_batches_in_one_pool_give_what_separate_runs_give():
    cells = [("GS", 8), ("BGS", 8)]
    batches = [(30, 2, None)] + zhang.growth_batches(30, 3, cells)
    assert [(n, k) for n, k, _ in batches] == [(30, 2), (15, 2), (60, 2)]  # half and twice, two samples
    assert zhang.task_count(batches) == 9 * 2 + 2 + 2  # both cells at one workload: one task per sample
    table, half, double = zhang.simulate_batches(batches, 2, seed=3)
    assert table == zhang.simulate(30, 2, 1, seed=3)
    assert half == zhang.simulate(15, 2, 1, seed=3, cells=cells)
    assert double == zhang.simulate(60, 2, 1, seed=3, cells=cells)
    assert zhang.growth_batches(30, 3, []) == []


def test_a_choice_reaches_the_workload_from_the_command_line(capsys):
    from gangviz.cli import main

    main(["repro", "zhang-table1", "--jobs", "30", "--reps", "1", "--workers", "1", "--pow2-share", "1",
          "--service-cv", "4", "--no-growth", "--json"])
    out = capsys.readouterr().out
    import json

    doc = json.loads(out)
    assert doc["choices"]["pow2_share"] == 1.0 and doc["choices"]["service_cv"] == 4.0
    assert len(doc["cells"]) == 36


def test_a_bad_choice_on_the_command_line_is_one_line(capsys):
    from gangviz.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["repro", "zhang-table1", "--pow2-share", "2"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "pow2_share must lie in 0..1, got 2" in err and "Traceback" not in err


def test_sensitivity_prints_a_band_per_cell(capsys):
    from gangviz.cli import main

    main(["repro", "zhang-table1", "--sensitivity", "--jobs", "30", "--reps", "1", "--workers", "1"])
    out = capsys.readouterr().out
    assert "band of the means" in out and "pow2_share=" in out and "service_cv=" in out
    rows = [line for line in out.splitlines() if line[:2].strip().isdigit() and (" yes " in line or " no " in line)]
    assert len(rows) == 36


@pytest.mark.parametrize("policy", ["gs", "bgs", "mgs", "mbgs"])
@pytest.mark.parametrize("cut, after", [(False, "next"), (True, "same"), (False, "same")])
def test_the_slice_models_give_the_same_jobs_on_both_engines(policy, cut, after):
    from gangviz.factory import build
    from gangviz.fast.gang import job_arrays, run_gang
    from gangviz.metrics.ibm import run_with_capacity
    from gangviz.workloads.source import Source

    w = zhang_workload(250, 1.6, seed=11, calibrate=True)
    specs = sorted(w.jobs, key=lambda j: j.id)
    params = {"mpl": 4, "cut_at_departure": cut, "after_cut": after}
    fast = run_gang(job_arrays(specs), policy, params, 320)
    sim = build(Source("model", "x", 320, w.jobs), policy, params=params, record=False, watch=False)
    lost = run_with_capacity(sim).lost
    rec = {r.spec.id: r for r in sim.records()}
    assert np.array_equal(fast.finish, [rec[j.id].finish for j in specs])
    assert np.array_equal(fast.start, [rec[j.id].start for j in specs])
    assert fast.lost == lost


def test_a_departure_that_does_not_cut_the_slice_leaves_the_rest_of_it_idle():
    from gangviz.policies.ibm import GS
    from gangviz.sim.engine import Simulation

    # one row: J0 ends at 0.5; J1 arrives at 0.2 and waits for all 4 processors
    jobs = [JobSpec(0, "a", 0.0, 3, 0.5), JobSpec(1, "b", 0.2, 4, 1.0)]
    cut = Simulation(jobs, GS(1), 4, record=False)
    cut.run()
    keep = Simulation(jobs, GS(1, cut_at_departure=False), 4, record=False)
    keep.run()
    assert cut.records()[0].finish == keep.records()[0].finish == pytest.approx(0.5)
    assert cut.records()[1].start == pytest.approx(0.5)  # decided at the departure
    # J1's arrival cut the first slice at 0.2 and started a fresh one: J0 ends 0.3 into it, and
    # its processors idle to that slice's end at 1.2, where the departure is decided
    assert keep.records()[1].start == pytest.approx(1.2)


def test_the_row_after_a_cut_is_the_next_or_the_same():
    from gangviz.policies.ibm import GS
    from gangviz.sim.engine import Simulation

    # 4 processors, MPL 2: J0 (3) in row 0, J1 (2) in row 1; J2 (4) arrives at 0.5, cannot be
    # placed, and its arrival cuts row 0's first slice short
    jobs = [JobSpec(0, "a", 0.0, 3, 5.0), JobSpec(1, "b", 0.0, 2, 5.0), JobSpec(2, "c", 0.5, 4, 1.0)]
    first = {}
    for after in ("next", "same"):
        sim = Simulation(jobs, GS(2, after_cut=after), 4, record=False)
        sim.run()
        first[after] = sim.run_stats()[0][1]
    assert first["next"] == pytest.approx(0.5)  # row 1 runs from the cut
    assert first["same"] == pytest.approx(1.5)  # row 0 runs a fresh slice first


def test_a_bad_slice_model_is_refused():
    from gangviz.policies.ibm import GS

    with pytest.raises(ValueError, match="after_cut must be 'next' or 'same'"):
        GS(after_cut="previous")


def test_the_repro_compares_the_slice_models(capsys):
    from gangviz.cli import main

    main(["repro", "zhang-table1", "--slice-models", "--jobs", "30", "--reps", "1", "--workers", "1"])
    out = capsys.readouterr().out
    assert "slice runs to its end (w_k)" in out and "same row" in out
    assert sum(line.startswith("  departures cut") or line.startswith("  slice runs") for line in out.splitlines()) == 3


def test_the_zhang_model_takes_its_choices_in_a_sweep_task_and_as_a_source():
    from gangviz.experiments.tasks import MODEL_PARAMS, build_jobs
    from gangviz.workloads.ibm import zhang_source

    assert {"pow2_share", "interarrival_cv", "service_cv", "median_run_time", "service_growth", "service_skew"} <= set(
        MODEL_PARAMS["zhang"])
    src = build_jobs("zhang", {"jobs": 200, "multiplier": 1.5, "pow2_share": 1.0}, 4)
    direct = zhang_source(200, 1.5, seed=4, choices=ZhangChoices(pow2_share=1.0))
    assert src.processors == direct.processors == 320 and src.slice_seconds == 200.0
    assert [(j.arrival, j.size, j.work) for j in src.jobs] == [(j.arrival, j.size, j.work) for j in direct.jobs]
    tops = {hi for _, hi, _ in CLASS_SHARES}
    assert {j.size for j in src.jobs} <= tops
    with pytest.raises(ValueError, match="service_cv"):
        build_jobs("zhang", {"service_cv": 50.0}, 1)


def _samples_of_paper(scales):
    """Results whose sample r is the paper's Table 1 with each migrating policy's slowdown at
    workload w times scales[r][w]."""
    paper = zhang.paper_table()
    return {(p, w): [{"bounded_slowdown": paper[(p, w)][1] * (sc[w] if p in ("MGS", "MBGS") else 1.0)}
                     for sc in scales]
            for p in zhang.POLICIES for w in range(9)}


def test_mid_high_holds_on_the_papers_gains_draw_by_draw():
    paper = zhang.paper_table()
    loads = [0.55 * m for m in zhang.MULTIPLIERS]
    gains = np.array([[zhang.gain(paper[(a, w)][1], paper[(b, w)][1]) for w in range(9)] for a, b in zhang.PAIRS])
    holds, means = zhang.mid_high_holds(gains, loads)
    assert holds.tolist() == [True, True]
    assert means["top"][1] == pytest.approx(16.4, abs=0.2)  # BGS->MBGS at workload 8 alone
    flat = gains.copy()
    flat[:, 8] = 99.0  # the gain at the highest load beats the band's: the finding fails there
    assert zhang.mid_high_holds(flat, loads)[0].tolist() == [False, False]
    assert zhang.mid_high_holds(flat[0], loads)[0] == np.False_


def test_finding3_noise_is_none_without_spread_and_grows_with_it():
    same = _samples_of_paper([[1.0] * 9] * 4)
    assert zhang.finding3_noise(same, draws=500) == (4, 4, 1.0, pytest.approx(1.0))
    rng = np.random.default_rng(1)
    noisy = _samples_of_paper(np.exp(rng.normal(0.0, 1.0, (6, 9))).tolist())
    k, n, p, p8 = zhang.finding3_noise(noisy, draws=2000)
    assert n == 6 and k < 6 and p < 0.9 and p8 < p


def test_finding_3_reads_no_gain_of_a_saturated_cell():
    """On the paper's own Table 1 GS is saturated from workload 7 and BGS at 8 (its rho stops
    following the load): "less at very high loads" has no workload left to be read at, and is
    reported as not tested; a gain at a saturated workload cannot flip the verdict, one below
    the band can."""
    paper = zhang.paper_table()
    loads = [0.55 * m for m in zhang.MULTIPLIERS]
    sat = zhang.saturated_cells(paper, loads)
    assert sat == {("GS", 7), ("GS", 8), ("BGS", 8)}
    assert zhang.unsaturated_workloads(sat, "GS", "MGS") == list(range(7))
    assert zhang.unsaturated_workloads(sat, "BGS", "MBGS") == list(range(8))
    text, holds = zhang.findings(paper, sat=sat)[2]
    assert holds and "not tested: no unsaturated workload above" in text and "workloads 7, 8 left out" in text
    table = dict(paper)
    table[("MBGS", 8)] = (0.98, 0.1)  # a 99.9% gain where BGS is saturated: not read
    assert zhang.findings(table, sat=sat)[2][1]
    assert not zhang.findings(table)[2][1]  # read without the saturation, it fails
    table[("MBGS", 0)] = (0.55, 0.1)  # a 96% gain at the lowest load: the band no longer beats it
    assert not zhang.findings(table, sat=sat)[2][1]


def test_mid_high_holds_tests_a_side_only_where_it_has_workloads():
    loads = [0.55 * m for m in zhang.MULTIPLIERS]
    gains = np.array([10.0, 10, 10, 50, 50, 50, 50, 50, 99])
    holds, means = zhang.mid_high_holds(gains, loads, list(range(8)))
    assert holds and math.isnan(float(means["top"])) and float(means["mid"]) == 50.0
    assert not zhang.mid_high_holds(gains, loads)[0]
    assert not zhang.mid_high_holds(gains, loads, [0, 1, 8])[0]  # no workload within the band
