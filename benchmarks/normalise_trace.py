"""Write the normalised copy of a Parallel Workloads Archive trace that bench_easy.py compares on.

The copy keeps every job both simulators can run, with the same sizes and submit times, and
makes the fields the two read agree:

* jobs with an unknown submit time, size or run time, or more processors than the machine, are
  dropped (as gangviz's reader skips them);
* the size (field 5) is the allocated processors, else the requested ones; field 8 repeats it;
* a run time of 0 becomes 1 s (both simulators need positive work);
* the requested time (field 9) is the trace's, or the run time when it has none; the run time is
  clipped to it (the job was killed at its limit), so estimates never fall short;
* submit times start at 0, job numbers run 1..n, the requested memory (field 10) is 1 kB per
  processor (AccaSim divides by it), every other field is -1 but the status (1), user and group.

Usage: python benchmarks/normalise_trace.py IN.swf[.gz] OUT.swf.gz
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path


def normalise(text: str, name: str) -> str:
    """Return the normalised SWF text of the trace ``text`` (see the module docstring)."""
    header, rows = {}, []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith(";"):
            key, _, value = s[1:].partition(":")
            header.setdefault(key.strip(), value.strip())
            continue
        rows.append([int(float(v)) for v in s.split()])
    machine = int(header.get("MaxProcs") or header.get("MaxNodes"))
    kept = []
    for f in rows:
        size = f[4] if f[4] != -1 else f[7]
        if f[1] < 0 or size <= 0 or f[3] < 0 or size > machine:
            continue
        run = max(f[3], 1)
        req = f[8] if f[8] > 0 else run
        kept.append((f[1], size, min(run, req), req, f[11], f[12]))
    kept.sort(key=lambda r: r[0])  # stable: equal submit times keep their file order
    first = kept[0][0]
    out = ["; Version: 2.2", f"; Computer: {header.get('Computer', '?')}",
           f"; Note: normalised copy of {name} for the EASY peer benchmark (benchmarks/normalise_trace.py):",
           ";       run times clipped to the request, missing requests set to the run time",
           f"; MaxJobs: {len(kept)}", f"; MaxRecords: {len(kept)}",
           f"; MaxProcs: {machine}", f"; MaxNodes: {machine}", ";"]
    for k, (sub, size, run, req, user, group) in enumerate(kept, 1):
        out.append(f"{k} {sub - first} -1 {run} {size} -1 -1 {size} {req} 1 1 {user} {group} -1 -1 -1 -1 -1")
    return "\n".join(out) + "\n"


def main() -> int:
    """Normalise IN into OUT (gzip-compressed when OUT ends in .gz)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src", metavar="IN", type=Path, help="an SWF trace (.swf or .swf.gz)")
    p.add_argument("dst", metavar="OUT", type=Path, help="the normalised copy to write")
    args = p.parse_args()
    src, dst = args.src, args.dst
    raw = gzip.decompress(src.read_bytes()) if src.suffix == ".gz" else src.read_bytes()
    text = normalise(raw.decode("ascii", "replace"), src.name.removesuffix(".gz"))
    data = text.encode()
    if dst.suffix == ".gz":
        data = gzip.compress(data, compresslevel=9, mtime=0)
    dst.write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
