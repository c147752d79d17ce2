"""Reading a scenario is linear in its slots: the parse time of a matrix of N slots, N doubling.

Writes scenarios of 2 processors and N one-job slots (N = 4,096 .. 65,536, the slot limit) to a
temporary directory, reads each with :func:`gangviz.workloads.scenario.load_scenario` (best of 3,
CPU seconds) and prints the time per slot, which stays flat when the reading is linear; then a
scenario of 65,537 slots, refused before its rows are read.

Usage: python benchmarks/bench_scenario_slots.py [--quick]   (--quick: up to 16,384 slots)
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _timing import best_of

from gangviz.core.limits import MAX_SLOTS
from gangviz.workloads.scenario import ScenarioError, load_scenario


def write(folder: Path, slots: int) -> Path:
    rows = ",\n".join(f'  "J{i} J{i}"' for i in range(slots))
    path = folder / f"slots-{slots}.toml"
    path.write_text(f"processors = 2\nmatrix = [\n{rows}\n]\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="up to 16,384 slots, the refusal still at 65,537")
    args = ap.parse_args()
    top = 16_384 if args.quick else MAX_SLOTS
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'slots':>7}  {'parse (s)':>9}  {'per slot (us)':>13}")
        slots = 4096
        while slots <= top:
            path = write(folder, slots)
            t = best_of(lambda p=path: load_scenario(p), clock=time.process_time)
            print(f"{slots:>7,}  {t:>9.3f}  {t / slots * 1e6:>13.1f}")
            slots *= 2
        path = write(folder, MAX_SLOTS + 1)

        def refused() -> None:
            try:
                load_scenario(path)
            except ScenarioError:
                return
            raise AssertionError("a scenario over the slot limit was read")

        print(f"{MAX_SLOTS + 1:>7,}  {best_of(refused, clock=time.process_time):>9.3f}  refused before the rows are read")


if __name__ == "__main__":
    main()
