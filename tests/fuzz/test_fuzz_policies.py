"""Hostile input through the policy doors: ``NAME:key=value`` specs with typed parameters, and
a user's policy file whose ``decide`` raises, exits, loops, returns nonsense or breaks a rule.

A spec is read into values of the declared types (booleans from the six words only, numbers
finite and in range, choices among the declared words) or refused with a ``ParamError`` naming
the policy and the parameter; a key given twice is always refused. A user's policy either runs
to completion or ends with one ``ValueError`` that names the user's file, within its decision
limit. ``GANGVIZ_FUZZ_EXAMPLES`` scales the budgets as in :mod:`tests.fuzz.test_fuzz`.
"""

from __future__ import annotations

import math
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gangviz
from gangviz.core import registry
from gangviz.core.params import QUOTE_CHARS, ParamError, split_spec
from tests.fuzz.strategies import TOKENS

EXAMPLES = int(os.environ.get("GANGVIZ_FUZZ_EXAMPLES", "200"))
#: a fuzz campaign takes minutes: make test runs it, make test-quick does not
pytestmark = pytest.mark.slow


def budget(n: int) -> settings:
    return settings(max_examples=max(3, n), deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


NAMES = ["bc", "br", "brms", "random", "repack", "gs", "mgs", "mbgs", "easy", "fcfs"]
KEYS = ["occupy", "extra_slots_on", "mpl", "decide", "q", "migration_cost", "charge_migration", "kill",
        "estimates", "seed", "window", "cuts", "nope", "OCCUPY", ""]
VALUES = TOKENS + ["true", "false", "yes", "no", "YES", " no ", "maybe", "on", "2", "tru", "size", "block",
                   "BLOCK", "event", "boundary", "exact", "requested", "none", "default", "arrival",
                   "1e13", "1e400", "-inf", "9" * 30, "\u0663", "\uff11", "\x1b[2J", "x" * 200, "5", "0.5"]
_WORDS = {"true", "false", "yes", "no", "1", "0"}


@st.composite
def specs(draw) -> tuple[str, list[tuple[str, str]]]:
    name = draw(st.sampled_from(NAMES))
    items = draw(st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES)), max_size=3))
    sep = draw(st.sampled_from([",", ", ", ",,"]))
    return name + (":" + sep.join(f"{k}={v}" for k, v in items) if items else ""), items


@budget(EXAMPLES * 2)
@given(case=specs())
def test_a_spec_is_read_by_the_declared_types_or_refused_naming_the_parameter(case):
    spec, items = case
    try:
        name, text = split_spec(spec)
        entry = registry.lookup(name)[0]
        declared = entry.declared
        values = {}
        for key, value in text.items():
            if key not in declared:
                raise ParamError(f"unknown parameter {key}")
            values[key] = declared[key].parse(value, entry.title)
    except ParamError as exc:
        message = str(exc)
        assert len(message) < 400 and "\x1b" not in message.replace("\\x1b", "")
        keys = [k.strip() for k, _ in items if k.strip()]
        assert len(keys) != len(set(keys)) or any(k in message for k in keys) or "key=value" in message, message
        return
    keys = [k.strip() for k, _ in items if k.strip()]
    assert len(keys) == len(set(keys)), f"{spec!r}: a key given twice was accepted"
    for key, value in values.items():
        p = declared[key]
        raw = text[key]
        if p.kind == "bool":
            assert isinstance(value, bool) and raw.strip().lower() in _WORDS, (spec, value)
        elif p.kind in ("int", "float") and value is not None:
            assert raw.strip().isascii() and math.isfinite(value), (spec, value)
            assert (p.low is None or value >= p.low) and (p.high is None or value <= p.high), (spec, value)
            assert p.kind == "float" or isinstance(value, int)
        elif p.kind == "choice" and value is not None:
            assert value in p.choices


def test_the_quote_of_a_refused_token_is_cut():
    with pytest.raises(ParamError) as exc:
        registry.lookup("mgs")[0].declared["migration_cost"].parse("9" * 5000, "MGS")
    assert len(str(exc.value)) < 200 + QUOTE_CHARS


HEAD = ("import sys\nfrom gangviz.userpolicy import MatrixPolicy\n"
        "class P(MatrixPolicy):\n    def decide(self, view, act):\n")
PLACE = ("        for job in view.waiting:\n"
         "            for s in range(view.slots):\n"
         "                idle = view.idle(s)\n"
         "                if len(idle) >= job.size and idle[job.size - 1] - idle[0] == job.size - 1:\n"
         "                    act.place(job.id, s, range(idle[0], idle[0] + job.size))\n"
         "                    break\n"
         "            else:\n"
         "                s = act.open_slot()\n"
         "                act.place(job.id, s, range(job.size))\n")
BREAKS = ["        raise ValueError('mine')\n", "        return 42\n", "        sys.exit(0)\n",
          "        while True:\n            pass\n", "        pass\n", "        act.place(-1, 99, range(3))\n",
          "        act.place('x', None, 'abc')\n", "        view.waiting.clear()\n",
          "        return self.decide(view, act)\n", "        1 / 0\n", "        act.delete_slot(0)\n",
          "        return None\n"]
LIMIT = 0.2


@pytest.mark.timing  # the run is timed against the policy's decision limit
@budget(max(12, EXAMPLES // 5))
@given(before=st.booleans(), breaks=st.sampled_from(BREAKS), at=st.integers(0, 3))
def test_a_users_policy_runs_or_ends_with_one_line_naming_its_file_within_the_limit(tmp_path_factory, before,
                                                                                  breaks, at):
    d = tmp_path_factory.mktemp("policy")
    # the break comes once the policy has decided ``at`` times (0: at once), before or after placing
    guard = f"        self.n = getattr(self, 'n', 0) + 1\n        if self.n > {at}:\n" + \
        "".join("    " + ln + "\n" for ln in breaks.rstrip("\n").split("\n"))
    body = (guard + PLACE) if before else (PLACE + guard)
    path = d / "mine.py"
    path.write_text(HEAD + body)
    start = time.perf_counter()
    try:
        result = gangviz.simulate("downey", policy=f"{path}:decision_limit={LIMIT}", jobs=6, procs=8)
    except ValueError as exc:
        assert "mine.py" in str(exc) and "\n" not in str(exc).strip(), str(exc)
    else:
        assert result.metrics["jobs"] == 6  # ran to the end: every job finished
    # ended, and not much later than its limit; the margin is for starting the policy's process
    # on a busy machine
    assert time.perf_counter() - start < 20 * LIMIT + 20


HOSTILE = [
    "        while True:\n            try:\n                act.place(10**9, 0, [0])\n            except:\n                pass\n",
    "        while True:\n            try:\n                pass\n            except BaseException:\n                pass\n",
    "        def f(n):\n            return f(n + 1)\n        f(0)\n",
    "        def f(n):\n            try:\n                return f(n + 1)\n            except RecursionError:\n                return f(n + 1)\n        f(0)\n",
    "        import time\n        time.sleep(3600)\n",
    "        x = []\n        while True:\n            x.append(bytearray(10**7))\n",
    "        x = []\n        while True:\n            try:\n                x.append(bytearray(10**7))\n            except MemoryError:\n                pass\n",
    "        raise type('Odd', (BaseException,), {})('odd')\n",
    "        raise KeyboardInterrupt\n", "        raise GeneratorExit\n", "        raise SystemExit(3)\n",
    "        raise MemoryError\n", "        raise RecursionError\n",
    "        raise type('Bad', (Exception,), {'__str__': lambda s: 1 / 0})()\n",
    "        import os\n        os._exit(0)\n", "        import os, signal\n        os.kill(os.getpid(), signal.SIGSEGV)\n",
    "        import threading, time\n        threading.Thread(target=lambda: time.sleep(3600)).start()\n",
    "        print('x' * 5_000_000)\n", "        import os\n        os.write(1, b'{\"passed\": true}')\n",
    "        act._check = False\n        for j in view.waiting:\n            act.open_slot() if view.slots == 0 else None\n"
    "            act.place(j.id, 0, range(j.size))\n",
    "        act._sim.matrix._cells[:] = 0\n",
    "        import gangviz.userpolicy.actions as a\n        a.MatrixActions._idle = lambda *x: None\n",
    "        return object()\n", "        return (i for i in range(3))\n", "        import numpy\n        return numpy.arange(3)\n",
    "        act.place(view.waiting[0].id if view.waiting else 0, 1.5, [0])\n",
    "        act.place(view.waiting[0].id if view.waiting else 0, 0, [float('nan')])\n",
]


@pytest.mark.slow
@pytest.mark.parametrize("body", HOSTILE)
def test_a_hostile_policy_ends_within_its_limit_with_one_line_naming_its_file(tmp_path, body):
    limit = 0.5
    path = tmp_path / "hostile.py"
    path.write_text(HEAD + body + PLACE)
    start = time.perf_counter()
    try:
        result = gangviz.simulate("downey", policy=f"{path}:decision_limit={limit},memory_limit=256", jobs=6, procs=8)
    except ValueError as exc:
        message = str(exc)
        assert "hostile.py" in message and "\n" not in message.strip() and "\x1b" not in message, message
    else:
        assert result.metrics["jobs"] == 6
    assert time.perf_counter() - start < limit + 20  # + starting the policy's process on a busy machine
