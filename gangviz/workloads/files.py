"""Workload files by content, not by name: :func:`sniff` tells an SWF trace from a TOML
scenario by the first meaningful line.

Reading goes through the one guard of :mod:`gangviz.inputs` (regular file, size limit,
decompression with the same bound, text sniffed), re-exported here for the readers.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gangviz.inputs import (
    MAX_FILE_BYTES,
    InputFileError,
    check_regular,
    compression,
    decompress,
    read_input,
    read_text,
)

# re-exported: the workload readers' door
__all__ = ["MAX_FILE_BYTES", "InputFileError", "check_regular", "compression", "decompress",
           "read_input", "read_text", "sniff"]

_SWF_LINE = re.compile(rb"^\s*(?:;|[+-]?\d)")


def sniff(path: str | os.PathLike[str]) -> str:
    """Return ``"swf"`` or ``"scenario"`` for the file at ``path``, judged by content.

    Compressed files are traces (scenarios are plain TOML). Otherwise the first line that is
    not blank decides: SWF starts with a ``;`` comment or a job number; anything else (a
    ``key = value``, a ``[table]``, a ``#`` comment) is a scenario. Reads at most 64 KiB
    after :func:`check_regular`; raises like it.
    """
    check_regular(path)
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    if compression(head) is not None:
        return "swf"
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    for line in head.splitlines():
        if line.strip():
            return "swf" if _SWF_LINE.match(line) else "scenario"
    return "swf" if ".swf" in Path(path).name.lower() else "scenario"
