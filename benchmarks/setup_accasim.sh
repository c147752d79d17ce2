#!/usr/bin/env bash
# Create a private virtual environment with AccaSim 1.1.3 for benchmarks/bench_easy.py
# (which calls this with --setup). Default location: <temp dir>/gangviz-bench-accasim/venv.
# AccaSim is never a dependency of gangviz; it only serves as the side-by-side reference.
# On Python >= 3.10 accasim/utils/misc.py imports Mapping from collections; it moved to
# collections.abc, so the import is patched after installing.
set -euo pipefail
VENV="${1:-${TMPDIR:-/tmp}/gangviz-bench-accasim/venv}"
mkdir -p "$(dirname "$VENV")"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "accasim==1.1.3"
MISC="$("$VENV/bin/python" - <<'PY'
import importlib.util, os
spec = importlib.util.find_spec("accasim")
print(os.path.join(os.path.dirname(spec.origin), "utils", "misc.py"))
PY
)"
sed -i 's/^from collections import Mapping/from collections.abc import Mapping/' "$MISC"
"$VENV/bin/python" -c "import accasim; from accasim.base.simulator_class import Simulator; print('accasim ready in $VENV')"
