"""map_runs: one code path for in-process, process-pool and Dask runs."""

import logging
import subprocess
import sys

import pytest

from gangviz.experiments.runner import WORKER_DIED, RunError, RunFailed, map_runs, open_client
from gangviz.experiments.seeds import run_seed
from gangviz.experiments.tasks import RunTask, run_task

from . import helpers


def small_tasks(n=4):
    """Runs of a small downey workload under two policies, one randomised."""
    out = []
    for i in range(n):
        for policy in ("firstfit", "random"):
            out.append(RunTask.make("downey", policy, run_seed(11, (i % 2,), i),
                                    workload_params={"jobs": 25, "procs": 16, "load": 0.8},
                                    replication=i, cell=(i % 2,)))
    return out


def collect(results):
    return dict(results)


def test_same_seeds_same_results_with_one_and_two_workers():
    tasks = small_tasks()
    one = collect(map_runs(run_task, tasks, workers=1))
    two = collect(map_runs(run_task, tasks, workers=2))
    assert sorted(one) == list(range(len(tasks)))
    assert repr(sorted(one.items())) == repr(sorted(two.items()))  # NaN-safe, bit for bit
    # the seeds matter: different replications give different workloads
    assert repr(one[0]) != repr(one[2])


def test_progress_counts_every_task():
    seen = []
    list(map_runs(helpers.square, range(5), progress=lambda d, t: seen.append((d, t))))
    assert seen == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


@pytest.mark.parametrize("workers", [1, 2])
def test_failures_are_returned_or_raised(workers):
    got = collect(map_runs(helpers.square_but_fail_7, range(9), workers=workers, errors="return"))
    assert isinstance(got[7], RunFailed) and "seven is unlucky" in got[7].message
    assert {i: v for i, v in got.items() if i != 7} == {i: i * i for i in range(9) if i != 7}
    with pytest.raises(RunError) as info:
        list(map_runs(helpers.square_but_fail_7, range(9), workers=workers))
    assert info.value.index == 7


def test_a_dying_worker_fails_only_its_task():
    got = collect(map_runs(helpers.square_but_die_on_5, range(10), workers=2, errors="return"))
    assert got[5] == RunFailed(WORKER_DIED)
    assert {i: v for i, v in got.items() if i != 5} == {i: i * i for i in range(10) if i != 5}


@pytest.mark.parametrize("kw", [{"workers": 0}, {"workers": 1.5}, {"errors": "ignore"}])
def test_bad_arguments(kw):
    with pytest.raises(ValueError):
        list(map_runs(helpers.square, [1], **kw))


def test_dask_local_cluster_gives_the_local_results():
    distributed = pytest.importorskip("distributed")
    tasks = small_tasks()
    local = collect(map_runs(run_task, tasks, workers=1))
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  host="127.0.0.1", protocol="tcp", dashboard_address=None) as cluster:
        remote = collect(map_runs(run_task, tasks, scheduler=cluster.scheduler_address))
        failed = collect(map_runs(helpers.square_but_fail_7, range(9),
                                  scheduler=cluster.scheduler_address, errors="return"))
    assert repr(sorted(remote.items())) == repr(sorted(local.items()))  # NaN-safe, bit for bit
    assert isinstance(failed[7], RunFailed) and "seven is unlucky" in failed[7].message
    assert failed[8] == 64


def test_a_vanishing_cluster_fails_the_unfinished_tasks():
    distributed = pytest.importorskip("distributed")
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       host="127.0.0.1", protocol="tcp", dashboard_address=None)
    address = cluster.scheduler_address
    got = {}
    try:
        for i, r in map_runs(run_task, small_tasks(6), scheduler=address, errors="return"):
            got[i] = r
            if len(got) == 1:
                cluster.close()
    finally:
        cluster.close()
    assert len(got) == 12
    failed = [r for r in got.values() if isinstance(r, RunFailed)]
    assert failed and all(address in f.message for f in failed)


def test_unreachable_scheduler_is_a_clear_error():
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        open_client("tcp://127.0.0.1:9", timeout=0.5)


def test_experiments_import_without_qt():
    code = ("import sys; sys.modules['PySide6'] = None; sys.modules['pyqtgraph'] = None\n"
            "import gangviz.experiments.runner, gangviz.experiments.sweep, gangviz.experiments.compare\n"
            "import gangviz.commands.sweep, gangviz.commands.compare\n")
    subprocess.run([sys.executable, "-c", code], check=True)
