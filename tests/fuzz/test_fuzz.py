"""Hostile input, generated: no file or option may crash, hang, exhaust memory or answer wrongly.

Every case runs in one child process capped in memory and CPU time, each case under its own
alarm (:mod:`tests.fuzz.harness`). A case passes when the command exits 0 and the run's
invariants hold (turnaround >= work, finish >= arrival, no processor over-used), or exits 1 or 2
with one message line and no traceback. The budget is bounded for CI: ``GANGVIZ_FUZZ_EXAMPLES``
(default 200 per strategy) sets the examples, and the examples are derandomized so a failure
repeats; raise the number locally to search deeper.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gangviz.core.limits import MAX_JOBS
from tests.fuzz.harness import Child, judge
from tests.fuzz.strategies import TOKENS, option_value, scenarios, sweep_files, swf_files

EXAMPLES = int(os.environ.get("GANGVIZ_FUZZ_EXAMPLES", "200"))
#: a fuzz campaign takes minutes: make test runs it, make test-quick does not
pytestmark = pytest.mark.slow
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])
RAN: dict[str, int] = {}


@pytest.fixture(scope="module")
def child():
    c = Child()
    yield c
    c.close()
    print(f"\nfuzz cases run: {RAN}")


def _count(name: str) -> None:
    RAN[name] = RAN.get(name, 0) + 1


@FUZZ
@given(trace=swf_files(), command=st.sampled_from(["run", "validate", "compare", "run-procs", "run-slice"]),
       value=option_value, policy=st.sampled_from(["repack", "br", "bc", "firstfit", "gs"]))
def test_hostile_traces(child, tmp_path_factory, trace, command, value, policy):
    name, data = trace
    path = tmp_path_factory.mktemp("swf") / name
    path.write_bytes(data)
    argv = {"run": ["run", str(path), "--policy", policy],
            "validate": ["validate", str(path)],
            "compare": ["compare", str(path), "--policy", "repack", "--policy", policy, "--procs", "16"],
            "run-procs": ["run", str(path), "--procs", value, "--policy", policy],
            "run-slice": ["run", str(path), "--slice", value]}[command]
    _count("swf")
    judge(argv, child.run(argv))


@FUZZ
@given(text=scenarios(), policy=st.sampled_from([None, "repack", "br", "brmms", "firstfit", "gs"]))
def test_hostile_scenarios(child, tmp_path_factory, text, policy):
    path = tmp_path_factory.mktemp("sc") / "s.toml"
    path.write_text(text)
    argv = ["run", str(path), "--json"] + ([] if policy is None else ["--policy", policy])
    _count("scenario")
    judge(argv, child.run(argv))


@FUZZ
@given(text=sweep_files())
def test_hostile_sweep_files(child, tmp_path_factory, text):
    d = tmp_path_factory.mktemp("sweep")
    (d / "w.toml").write_text(text)
    argv = ["sweep", str(d / "w.toml"), "--out", str(d / "r.csv"), "--quiet"]
    _count("sweep")
    judge(argv, child.run(argv))


_OPTIONS = {
    "run": ["--procs", "--slice", "--jobs", "--load", "--seed", "--policy", "--steps", "--ring"],
    "compare": ["--procs", "--jobs", "--load", "--seed", "--policy", "--ring"],
    "generate downey": ["--jobs", "--seed", "--load", "--procs", "--max-work", "--slice"],
    "generate gangs": ["--jobs", "--sigma", "--lam", "--mu", "--site-procs", "--sites"],
    "generate min-nodes": ["--jobs", "--nodes", "--load", "--count"],
}
_FLAGS = {"--steps", "--ring"}
_COUNTS = {"--jobs", "--count"}
job_count = st.one_of(st.integers(-2, 40).map(str), st.sampled_from(TOKENS),
                      st.sampled_from([str(MAX_JOBS + 1), str(2**63), "1e9"]))


@FUZZ
@given(command=st.sampled_from(sorted(_OPTIONS)), data=st.data())
def test_hostile_command_lines(child, command, data):
    argv = command.split()
    if command in ("run", "compare"):
        argv.append(data.draw(st.sampled_from(["downey", "fig2-repacking", "", "nosuch.swf"])))
    opts = data.draw(st.lists(st.sampled_from(_OPTIONS[command]), max_size=4))
    for opt in opts:
        argv.append(opt)
        if opt not in _FLAGS:
            if opt == "--policy":
                argv.append(data.draw(st.sampled_from(["repack", "bc", "", "br", "nope"])))
            elif opt in _COUNTS:  # a valid count stays small: ten million jobs is slow, not wrong
                argv.append(data.draw(job_count))
            else:
                argv.append(data.draw(option_value))
    if command == "compare" and "--policy" not in opts:
        argv += ["--policy", "repack", "--policy", "firstfit"]
    if command.startswith("generate"):
        if "--jobs" not in opts:
            argv += ["--jobs", "20"]  # keep the valid cases small
    _count("argv")
    judge(argv, child.run(argv))
