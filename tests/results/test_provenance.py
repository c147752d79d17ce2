"""Every output records what ran: the policy with every parameter (defaults included) under
the registry's one spelling, the queue order with its file's hash, the engine, the machine,
the source with its hash and its reader's warnings, and gangviz's version; the per-job file's
sidecar and the API's results hold the same record."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gangviz import api
from gangviz.cli import main
from gangviz.results.schema import validate

KTH = Path(__file__).resolve().parents[2] / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"
ORDER = "def shortest(job):\n    return job.work\n"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _json(capsys, argv):
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    return doc


def test_run_records_the_order_every_parameter_and_the_source(tmp_path, capsys):
    order = tmp_path / "order.py"
    order.write_text(ORDER)
    doc = _json(capsys, ["run", str(KTH), "--policy", "easy", "--order", f"{order}:shortest", "--json"])
    pol = doc["policy"]
    assert pol["name"] == "easy" and pol["parameters"] == {"estimates": "requested", "kill": True}
    assert pol["order"] == {"file": str(order), "function": "shortest", "sha256": _sha(order)}
    assert doc["source"]["sha256"] == _sha(KTH) and doc["source"]["warnings"] == []
    assert doc["gangviz"]
    assert main(["run", str(KTH), "--policy", "easy", "--order", f"{order}:shortest"]) == 0
    head = capsys.readouterr().out.splitlines()[1]
    assert head.startswith("policy easy:estimates=requested,kill=true (") and "order.py:shortest" in head


def test_a_time_slot_policys_parameters_reach_the_header_and_the_json(capsys):
    assert main(["run", str(KTH), "--policy", "gs:mpl=2"]) == 0
    assert ("policy gs:mpl=2,decide=event,cut_at_departure=true,after_cut=next (compiled:gang)"
            in capsys.readouterr().out)
    doc = _json(capsys, ["run", str(KTH), "--policy", "gs:mpl=2", "--json"])
    assert doc["policy"]["parameters"] == {"mpl": 2, "decide": "event", "cut_at_departure": True,
                                           "after_cut": "next"}


def test_one_spelling_of_every_policy_and_one_engine_name(capsys):
    doc = _json(capsys, ["compare", str(KTH), "--procs", "128", "--padding", "used", "--policy", "GS",
                         "--policy", "easy", "--policy", "BRMMS", "--json"])
    assert [p["name"] for p in doc["policies"]] == ["gs", "easy", "brmms"]
    assert [p["label"] for p in doc["policies"]] == ["GS", "easy", "BRMMS"]
    alone = _json(capsys, ["run", str(KTH), "--policy", "easy", "--json"])
    runs = api.compare(str(KTH), ["easy", "gs"])
    assert alone["engine"] == doc["policies"][1]["engine"] == runs["easy"].engine == "backfill"
    assert runs["easy"].record == {**doc["policies"][1], "machine": {"processors": 100, "absent": 0}}


def test_a_readers_warnings_and_a_models_seed_are_recorded(tmp_path, capsys):
    bad = tmp_path / "t.swf"
    lines = KTH.read_text().splitlines()
    jobs = [i for i, ln in enumerate(lines) if ln.strip() and not ln.startswith(";")]
    fields = lines[jobs[3]].split()
    fields[3] = "-1"  # no run time: the reader skips the job and says so
    lines[jobs[3]] = " ".join(fields)
    bad.write_text("\n".join(lines) + "\n")
    doc = _json(capsys, ["compare", str(bad), "--policy", "gs", "--policy", "easy", "--json"])
    assert doc["source"]["warnings"] and "run time" in doc["source"]["warnings"][0]
    model = _json(capsys, ["compare", "downey", "--jobs", "20", "--seed", "7", "--policy", "bc",
                           "--policy", "easy", "--json"])
    assert model["source"]["seed"] == 7 and model["source"]["sha256"] is None


@pytest.mark.parametrize("argv", [
    ["run", str(KTH), "--policy", "easy"],
    ["run", str(KTH), "--policy", "gs"],
    ["compare", str(KTH), "--policy", "gs", "--policy", "easy"],
])
def test_the_per_job_files_sidecar_holds_the_runs_record(tmp_path, capsys, argv):
    out = tmp_path / "jobs.csv"
    assert main([*argv, "--jobs-out", str(out)]) == 0
    capsys.readouterr()
    files = sorted(tmp_path.glob("jobs*.csv"))
    assert files
    for f in files:
        side = json.loads(Path(f"{f}.json").read_text())
        assert side["policy"]["name"] in ("gs", "easy") and side["policy"]["parameters"]
        assert side["source"]["sha256"] == _sha(KTH) and side["gangviz"] and side["jobs_file"] == f.name


def test_every_kept_sweep_file_has_the_sidecar_of_its_run(tmp_path, capsys):
    """sweep --keep-jobs: each run's per-job file has its sidecar, with the run's own seed
    and policy, all parameters resolved (a randomised policy's seed differs per replication)."""
    sweep = tmp_path / "s.toml"
    sweep.write_text('title = "t"\nseed = 3\nreplications = 2\npolicies = ["bc", "random", "easy"]\n\n'
                     '[workload]\nmodel = "downey"\nprocs = 32\n\n[grid]\nload = [0.6]\njobs = [30]\n')
    out = tmp_path / "results.csv"
    assert main(["sweep", str(sweep), "--out", str(out), "--keep-jobs", "--quiet"]) == 0
    capsys.readouterr()
    files = sorted((tmp_path / "results-jobs").glob("*.csv"))
    assert len(files) == 6
    seeds = {}
    for f in files:
        side = json.loads(Path(f"{f}.json").read_text())
        policy = f.name.split("_")[0]
        assert side["jobs_file"] == f.name and side["gangviz"] and side["time_unit"] == "slice"
        assert side["policy"]["name"] == policy and side["policy"]["parameters"] is not None
        assert side["policy"]["engine"] == {"bc": "compiled:buddy", "easy": "backfill"}.get(policy, "reference")
        assert side["source"]["kind"] == "model" and side["source"]["jobs"] == 30
        seeds[f.name] = side["source"]["seed"]
        if policy == "random":
            assert "seed" in side["policy"]["parameters"]
    # the replications are different workloads, and the sidecars say which
    assert seeds["bc_load-0.6_jobs-30_r0.csv"] != seeds["bc_load-0.6_jobs-30_r1.csv"]
    assert seeds["bc_load-0.6_jobs-30_r0.csv"] == seeds["easy_load-0.6_jobs-30_r0.csv"]


@pytest.mark.parametrize("policy", ["gs", "brms", "easy", "firstfit"])
def test_the_apis_write_jobs_writes_the_sidecar_of_its_result(tmp_path, policy):
    result = api.simulate(KTH, policy, procs=128)
    out = result.write_jobs(tmp_path / "jobs.csv")
    side = json.loads(Path(f"{out}.json").read_text())
    assert side["policy"] == result.record and side["jobs_file"] == "jobs.csv"
    assert side["source"]["sha256"] == _sha(KTH) and side["time_unit"] == "s"
    # the file itself is what 'gangviz run --jobs-out' writes for the same run
    cli_out = tmp_path / "cli.csv"
    assert main(["run", str(KTH), "--procs", "128", "--policy", policy, "--jobs-out", str(cli_out)]) == 0
    assert out.read_bytes() == cli_out.read_bytes()


@pytest.mark.parametrize("layout", ["dist-info", "egg-info"])
def test_the_version_is_the_one_importlib_metadata_reads(tmp_path, monkeypatch, layout):
    """The version read without importing importlib.metadata is the one it reads: of the
    installed package, and of a distribution found first on the path."""
    from importlib.metadata import version as metadata_version

    from gangviz.results.summary import _metadata_version, version

    assert version() == metadata_version("gangviz")
    folder = tmp_path / f"gangviz-9.8.7.{layout}"
    folder.mkdir()
    name = "METADATA" if layout == "dist-info" else "PKG-INFO"
    (folder / name).write_text("Metadata-Version: 2.1\nName: gangviz\nVersion: 9.8.7\n\nVersion: 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _metadata_version("gangviz") == metadata_version("gangviz") == "9.8.7"
    (folder / name).write_text("Name: gangviz\nVersion: 9.8.7\n  folded\n")
    assert _metadata_version("gangviz") is None  # a folded header: importlib.metadata decides
