"""numba's on-disk cache sees an edit of a shared jitted helper (gangviz.jitcache)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gangviz
from gangviz.fast import placement_log
from gangviz.jitcache import cached_with, source_digest

SHARED = """
from numba import njit


@njit(cache=True)
def value():
    return {value}
"""

CALLER = """
from numba import njit

from gangviz.jitcache import cached_with
from pkg import shared

jit = {decorator}


@jit
def get():
    return shared.value()
"""


def _run(root: Path) -> int:
    """Call ``pkg.caller.get()`` in a new process; return what it returns."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(root / "cache"),
           "PYTHONPATH": os.pathsep.join([str(root), str(Path(gangviz.__file__).parents[1])])}
    done = subprocess.run([sys.executable, "-c", "from pkg.caller import get; print(get())"], env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    return int(done.stdout.strip())


def _package(root: Path, decorator: str) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shared.py").write_text(SHARED.format(value=1))
    (root / "pkg" / "caller.py").write_text(textwrap.dedent(CALLER.format(decorator=decorator)))


def _edit_shared(root: Path) -> None:
    path = root / "pkg" / "shared.py"
    path.write_text(SHARED.format(value=2))
    stamp = path.stat().st_mtime + 5  # a newer stamp even on a coarse clock
    os.utime(path, (stamp, stamp))


@pytest.mark.parametrize("keyed", [True, False])
def test_an_edit_of_a_shared_helper_recompiles_its_callers(tmp_path: Path, keyed: bool) -> None:
    _package(tmp_path, "cached_with(shared)" if keyed else "njit(cache=True)")
    assert _run(tmp_path) == 1
    assert list((tmp_path / "cache").rglob("*.nbi")), "the first run cached nothing"
    _edit_shared(tmp_path)
    if keyed:
        assert _run(tmp_path) == 2
    else:
        # What the keyed cache is for: numba alone loads the caller compiled with the old helper.
        assert _run(tmp_path) == 1


def test_the_kernels_are_keyed_by_the_shared_modules_they_call() -> None:
    from gangviz import sort_kernel
    from gangviz.fast import buddy_kernel, gang_kernel
    from gangviz.multisite import kernel as multisite_kernel
    from gangviz.spacesharing import compiled, profile_kernel

    gang = source_digest(placement_log, profile_kernel, sort_kernel)
    for kernel in (gang_kernel._gang_loop, gang_kernel._plan_earliest, gang_kernel._touch,
                   gang_kernel._sort_small):
        assert kernel._cache._digest == gang
    for kernel in (buddy_kernel._buddy_loop, buddy_kernel.gather):
        assert kernel._cache._digest == source_digest(placement_log)
    assert compiled._run._cache._digest == source_digest(profile_kernel)
    for kernel in (multisite_kernel.run_loop, multisite_kernel.completion_sums):
        assert kernel._cache._digest == source_digest(sort_kernel)


def test_a_module_without_a_source_file_is_refused() -> None:
    with pytest.raises(ValueError, match="no source file"):
        cached_with(sys)
