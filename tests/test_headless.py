"""One headless run path: :func:`gangviz.experiments.headless.run_headless` chooses the columns of
a trace, the gang loop's columns or the factory, and each gives the same :class:`HeadlessRun`."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest

from gangviz.experiments import headless
from gangviz.experiments.headless import HeadlessRun, run_headless

KTH = Path(__file__).resolve().parents[1] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"


def _factory_only(*args, **kwargs):
    """``run_headless`` with both columns paths declining the run."""
    with mock.patch.object(headless, "_space_sharing_columns", lambda *a, **k: None), \
            mock.patch.object(headless, "_gang_columns", lambda *a, **k: None):
        return run_headless(*args, **kwargs)


@pytest.mark.parametrize(("name", "policy", "options"), [
    (str(KTH), "easy", {}),
    (str(KTH), "gs:mpl=3", {}),
    ("downey", "mgs", {"jobs": 120, "procs": 32, "seed": 5}),
])
def test_a_columns_run_is_the_factory_s_run_figure_for_figure(name, policy, options):
    fast = run_headless(name, policy, **options)
    general = _factory_only(name, policy, **options)
    assert isinstance(fast, HeadlessRun) and fast.finished is None  # no job object was made
    assert general.finished is not None
    assert fast.document() == general.document()
    assert fast.header() == general.header() and fast.provenance() == general.provenance()
    assert fast.figures.text() == general.figures.text()


def test_the_per_job_table_of_a_run_is_the_one_its_jobs_out_writes(tmp_path):
    given = tmp_path / "given.csv"
    done = run_headless(str(KTH), "easy", jobs_out=str(given))
    later = tmp_path / "later.csv"
    done.save_jobs(str(later))
    assert later.read_bytes() == given.read_bytes()


def test_an_epoch_scenario_gives_its_end_state_and_expectation():
    done = run_headless("mccann-fig3-buddy")
    assert done.end is not None and done.expected == []  # the scenario's [expect] is met
    assert done.finished is not None and done.finished.simulation.steps
    other = run_headless("mccann-fig3-buddy", "EQUI-EPOCH")
    assert other.end is not None and other.expected is None  # another policy: not compared
    with pytest.raises(ValueError, match="--jobs-out needs a time-slot workload, not an epoch"):
        run_headless("mccann-fig3-buddy", jobs_out=str(KTH.with_suffix(".csv").name))
