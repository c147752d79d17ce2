"""Every reproduction runs through map_runs: the same numbers on one process, a pool whose
worker is killed mid-run, and a Dask cluster; a run that cannot finish is reported."""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import signal

import pytest

from gangviz.commands.repro import run_target
from gangviz.experiments.repro import mccann, papazachos, zhang, zhou
from gangviz.experiments.runner import WORKER_DIED, RunError
from gangviz.experiments.seeds import run_seed
from gangviz.multisite.batch import RunSpec
from gangviz.multisite.config import MultiSiteConfig


def _zhou(workers=1, scheduler=None, progress=None):
    tasks = [(scheme, 0.7, 40, run_seed(3, (0,), s), "size", None, "python")
             for s in range(3) for scheme in zhou.SCHEMES]
    results, failures = zhou.run_tasks(tasks, workers, scheduler, progress)
    assert not failures
    return results


def _zhang(workers=1, scheduler=None, progress=None):
    return zhang.simulate(60, 1, workers, seed=2, scheduler=scheduler, progress=progress)


def _papazachos(workers=1, scheduler=None, progress=None):
    specs = [RunSpec(MultiSiteConfig(arrival_rate=2.3, migrate=m), (1, 0, 0, r), 200)
             for m in (False, True) for r in range(4)]
    return papazachos.run_specs(specs, workers, scheduler, progress)


def _mccann(workers=1, scheduler=None, progress=None):
    args = argparse.Namespace(seed=4, reps=3, rt_reps=1)
    tasks = [("overhead", ("J", j), (128, j, 1.0, ["BUDDY*", "EQUI-EPOCH"],
                                     mccann.trial_seeds(args, mccann.MINIMA, 128, j, 1.0)))
             for j in range(2, 6)]
    tasks += [("rt", ("rt", j), (128, j, 1.0, "EQUI-EPOCH", False, 10, 2,
                                 mccann.trial_seeds(args, mccann.RESPONSE, 128, j, 1.0)))
              for j in (4, 6)]
    return mccann.run_points(tasks, workers, scheduler, progress)


REPROS = {"zhou": _zhou, "zhang": _zhang, "papazachos": _papazachos, "mccann": _mccann}


@pytest.fixture(scope="module")
def alone():
    """Each reproduction's results in this process, computed once."""
    return {name: run() for name, run in REPROS.items()}


class KillOneWorker:
    """A progress callback that SIGKILLs one worker process of the running pool once the first
    result is in, while the other runs are still queued or in flight."""

    def __init__(self) -> None:
        self.killed: int | None = None

    def __call__(self, done: int, total: int) -> None:
        if self.killed is None and done < total:
            workers = multiprocessing.active_children()
            if workers:
                self.killed = workers[0].pid
                os.kill(self.killed, signal.SIGKILL)


@pytest.mark.parametrize("name", sorted(REPROS))
def test_killing_a_worker_mid_run_loses_no_run(name, alone):
    kill = KillOneWorker()
    assert REPROS[name](workers=2, progress=kill) == alone[name]
    assert kill.killed is not None  # a worker did die under the reproduction


@pytest.mark.parametrize("name", sorted(REPROS))
def test_a_dask_cluster_gives_the_local_results(name, alone, cluster):
    assert REPROS[name](scheduler=cluster) == alone[name]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  host="127.0.0.1", protocol="tcp", dashboard_address=None) as c:
        yield c.scheduler_address


def test_a_run_that_keeps_killing_its_worker_is_reported(capsys):
    class Dying:
        @staticmethod
        def run(target, args):
            raise RunError(5, WORKER_DIED)

    args = argparse.Namespace(target="zhang-table1", strict=False)
    assert run_target(Dying, args) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"gangviz: repro zhang-table1: run 5 failed: {WORKER_DIED}"


@pytest.mark.parametrize("target", ["zhou-table1", "zhou-table2", "zhang-table1", "papazachos",
                                    "mccann"])
def test_every_reproduction_takes_workers_or_a_scheduler(target, capsys):
    from gangviz.cli import build_parser

    parser = build_parser(only="repro")
    args = parser.parse_args(["repro", target, "--scheduler", "tcp://127.0.0.1:8786"])
    assert args.scheduler == "tcp://127.0.0.1:8786"
    with pytest.raises(SystemExit):
        parser.parse_args(["repro", target, "--scheduler", "tcp://h:1", "--workers", "2"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_reproductions_seed_their_runs_with_the_one_scheme(alone):
    assert alone["zhang"][("GS", 0)][0]["seed"] == run_seed(2, (), 0)
    assert alone["zhang"][("MBGS", 8)][0]["seed"] == run_seed(2, (), 0)  # one sample per replication
    args = argparse.Namespace(seed=4, reps=3, rt_reps=2)
    assert mccann.trial_seeds(args, mccann.MINIMA, 128, 7, 2.0) == [run_seed(4, (0, 128, 7, 2000), r)
                                                                   for r in range(3)]
    assert mccann.trial_seeds(args, mccann.RESPONSE, 64, 8, 1.0) == [run_seed(4, (1, 64, 8, 1000), r)
                                                                     for r in range(2)]


def test_the_command_line_runs_a_reproduction_on_a_cluster(cluster, capsys):
    from gangviz.cli import main

    argv = ["repro", "papazachos", "--reps", "1", "--jobs", "200"]
    assert main(argv + ["--workers", "1"]) == 0
    local = capsys.readouterr().out
    assert main(argv + ["--scheduler", cluster]) == 0
    remote = capsys.readouterr()
    assert f"on the Dask cluster at {cluster}" in remote.err

    def table(out):
        return [line for line in out.splitlines() if "|" in line or line.startswith("  [")]

    assert table(remote.out) == table(local) and table(local)
