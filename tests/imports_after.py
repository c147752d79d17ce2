"""What the tests of lazy imports share: a headless ``gangviz run`` in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys

#: Two jobs on four processors, in SWF.
TWO_JOBS = ("; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n"
            "2 1 0 5 4 -1 -1 4 5 -1 1 1 1 1 1 -1 -1 -1\n")


def modules_after_run(tmp_path, policy: str, which: str) -> tuple[int, list[str]]:
    """Run ``gangviz run`` with ``policy`` on :data:`TWO_JOBS` in a new Python; return its exit
    code and the sorted names ``m`` of the modules it imported for which the expression
    ``which`` holds."""
    trace = tmp_path / "t.swf"
    trace.write_text(TWO_JOBS)
    code = ("import sys; from gangviz.cli import main; "
            f"rc = main(['run', {str(trace)!r}, '--policy', {policy!r}]); "
            f"print(repr((rc, sorted(m for m in sys.modules if {which}))))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return ast.literal_eval(res.stdout.strip().splitlines()[-1])
