"""A worker process's result handed back with its arrays' bytes in a file, not through a pipe.

A process pool sends a task's result to the parent pickled, through a pipe of 64 KB: a run's
:class:`~gangviz.experiments.schedule.Schedule` on a big trace (its columns and placement log,
tens of MB) then crosses in hundreds of writes, each waiting for the parent to read, and on
busy cores each waiting for its turn on one. The worker stays blocked meanwhile, before its
next run. :func:`spill` instead pickles the value with its arrays out of band (pickle
protocol 5): the pickle proper, a few kB, goes through the pipe, and the arrays' bytes go to a
file the worker writes at memory speed; :func:`unspill`, in the parent, reads the file back
into one block, removes it, and unpickles the value with its arrays over that block. The value
comes back equal to what the worker pickled, array for array.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Spilled", "spill", "unspill"]

#: every array's bytes start at a multiple of this in the file and in the block read back: an
#: array unpickled over the block is aligned as one numpy allocates (a compiled loop that takes
#: it needs no version of its own for unaligned arrays)
ALIGN = 64


@dataclass(frozen=True)
class Spilled:
    """A value pickled without its arrays' bytes (``head``), which are in the file ``path``:
    array ``i`` is ``sizes[i]`` bytes at ``offsets[i]``."""

    head: bytes
    path: str
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]


def spill(value: Any, folder: str) -> Spilled:
    """Return ``value`` pickled with the bytes of its (contiguous) numpy arrays in a new file
    in ``folder``, for :func:`unspill`. Raises ``OSError`` when the file cannot be written."""
    buffers: list[pickle.PickleBuffer] = []
    head = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    offsets, sizes, at = [], [], 0
    fd, path = tempfile.mkstemp(dir=folder, suffix=".bin")
    with os.fdopen(fd, "wb") as fh:
        for buffer in buffers:
            raw = buffer.raw()
            fh.seek(at)
            fh.write(raw)
            offsets.append(at)
            sizes.append(raw.nbytes)
            at += -(-raw.nbytes // ALIGN) * ALIGN
    return Spilled(head, path, tuple(offsets), tuple(sizes))


def unspill(spilled: Spilled) -> Any:
    """Return the value :func:`spill` wrote, its arrays over one block read from the file
    (writable, aligned), and remove the file. Raises ``OSError`` when the file cannot be read."""
    try:
        size = os.path.getsize(spilled.path)
        raw = np.empty(size + ALIGN, dtype=np.uint8)  # numpy promises 16 bytes: start at 64
        skip = -raw.ctypes.data % ALIGN
        block = raw[skip:skip + size]
        with open(spilled.path, "rb", buffering=0) as fh:
            view, done = block.data, 0
            while done < len(block):
                got = fh.readinto(view[done:])
                if not got:
                    raise OSError(f"{spilled.path}: ended after {done} of {len(block)} bytes")
                done += got
    finally:
        os.unlink(spilled.path)
    return pickle.loads(spilled.head, buffers=[view[at:at + n] for at, n in zip(spilled.offsets, spilled.sizes)])
