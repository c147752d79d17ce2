"""Compile every compiled loop once, before the commands that run them are timed.

On a fresh checkout numba's cache is empty: the first process that runs a compiled loop
compiles it, which takes tens of seconds on an idle core and minutes while other processes
compile too. A command under a timeout (a fuzz case, a hostile case) would read that as a
hang, and every pytest worker would compile the same loops at once. :func:`compile_loops` runs
small ``gangviz compare`` commands that go through every compiled loop, with and without a
per-job file, two chains at a time (one per core); later processes load the loops from the
cache in about a second.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: the policies of each chain: the time-slot loops, the buddy loops and space sharing's
CHAINS = (("gs", "bgs", "mgs", "mbgs"), ("bc", "br", "brms", "brmms", "easy", "fcfs", "conservative"))


def compile_loops(gangviz: Sequence[str], env: Mapping[str, str]) -> float:
    """Run the commands that compile every loop of :data:`CHAINS` with the command line
    ``gangviz`` (e.g. ``[python, "-m", "gangviz"]``) under ``env``, the chains in parallel, without a timeout; return the seconds it
    took. Raises ``RuntimeError`` with a command's stderr when one fails."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gv-compile-") as tmp, ThreadPoolExecutor(len(CHAINS)) as pool:
        list(pool.map(lambda policies: _run_chain(gangviz, policies, Path(tmp), env), CHAINS))
    return time.monotonic() - started


def _run_chain(gangviz: Sequence[str], policies: tuple[str, ...], folder: Path, env: Mapping[str, str]) -> None:
    """Run one chain's plain comparison, then the one that writes per-job files."""
    base = [*gangviz, "compare", "downey", "--jobs", "12", "--procs", "16"]
    base += [arg for p in policies for arg in ("--policy", p)]
    for extra in ([], ["--jobs-out", str(folder / f"{policies[0]}.csv"), "--force"]):
        res = subprocess.run(base + extra, cwd=folder, env=dict(env), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(base[len(gangviz):] + extra)} failed: {res.stderr.strip()[-400:]}")
