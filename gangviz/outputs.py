"""Output paths: nothing is overwritten unless asked, and a bad location fails before any work.

Every command that writes calls :func:`check_output` before it loads or renders anything, so an
unwritable or existing path costs the user nothing but a message.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The names of exported frames (see :class:`gangviz.gui.video.FramesWriter`).
FRAME_GLOB = "frame_*.png"


def check_output(path: str | os.PathLike[str], *, force: bool, folder: bool = False,
                 make_parents: bool = False) -> Path:
    """Return ``path`` after checking that it can be written.

    A file: it must not be a folder, must not exist unless ``force``, and its folder must exist
    and be writable. A ``folder`` (of frames): it must not be a file, must hold no frames unless
    ``force`` (then :func:`clear_frames` empties it), and the nearest existing folder on its
    path must be writable. With ``make_parents`` (the writer creates missing folders) a file's
    folder may be missing too, as long as the nearest existing one is a writable folder. Raises ``ValueError`` saying which and how to proceed.
    """
    p = Path(path)
    if folder:
        if p.exists() and not p.is_dir():
            raise ValueError(f"{p}: exists and is not a folder; frames need a folder")
        if p.is_dir() and any(p.glob(FRAME_GLOB)) and not force:
            raise ValueError(f"{p}: the folder already holds frames; add --force to replace them")
        parent = p
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir():
            raise ValueError(f"{p}: {parent} is not a folder")
    else:
        if p.is_dir():
            raise ValueError(f"{p}: is a folder; give a file name")
        if (p.exists() or p.is_symlink()) and not force:
            raise ValueError(f"{p}: exists; add --force to overwrite it")
        parent = p.parent if str(p.parent) else Path(".")
        while make_parents and not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir():
            raise ValueError(f"{p}: the folder {parent} does not exist" if not parent.exists()
                             else f"{p}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{p}: cannot write there ({parent}: permission denied)")
    return p


def clear_frames(folder: str | os.PathLike[str]) -> int:
    """Delete the exported frames in ``folder`` (only files named like frames); return how many."""
    n = 0
    for f in Path(folder).glob(FRAME_GLOB):
        if f.is_file():
            f.unlink()
            n += 1
    return n
