"""Output paths: nothing is overwritten unless asked, a bad location fails before any work, and
no file is ever left half-written.

Every command that writes calls :func:`check_output` (:func:`check_frames_folder` for a folder of
frames) before it loads or renders anything, so an unwritable or existing path costs the user
nothing but a message. Every file is then written
through :func:`atomic`: to a hidden temporary name in the same folder, renamed onto the real
name in one step once complete, and removed when the writing fails or is interrupted (Ctrl-C,
SIGTERM), so an interrupted run leaves no truncated file for the next run to trip on.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: The names of exported frames (see :class:`gangviz.gui.export.video.FramesWriter`).
FRAME_GLOB = "frame_*.png"


def check_output(path: str | os.PathLike[str], *, force: bool, make_parents: bool = False) -> Path:
    """Return the file ``path`` after checking that it can be written.

    It must not be a folder or another special file (a device, a FIFO, a socket: not even
    ``force`` replaces one), must not exist unless ``force``, and its folder must exist and be
    writable. With ``make_parents`` (the writer creates missing folders) its folder may be
    missing too, as long as the nearest existing one is a writable folder. Raises
    ``ValueError`` saying which and how to proceed (a folder of frames:
    :func:`check_frames_folder`).
    """
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{p}: is a folder; give a file name")
    refuse_special(p)
    if (p.exists() or p.is_symlink()) and not force:
        raise ValueError(f"{p}: exists; add --force to overwrite it")
    parent = p.parent if str(p.parent) else Path(".")
    while make_parents and not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{p}: the folder {parent} does not exist" if not parent.exists()
                         else f"{p}: {parent} is not a folder")
    return _writable_in(p, parent)


def check_frames_folder(path: str | os.PathLike[str], *, force: bool) -> Path:
    """Return the folder of frames ``path`` after checking that it can be written: it must not
    be a file, must hold no frames unless ``force`` (then :func:`clear_frames` empties it), and
    the nearest existing folder on its path must be writable. Raises ``ValueError`` saying
    which and how to proceed."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{p}: exists and is not a folder; frames need a folder")
    if p.is_dir() and any(p.glob(FRAME_GLOB)) and not force:
        raise ValueError(f"{p}: the folder already holds frames; add --force to replace them")
    parent = p
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{p}: {parent} is not a folder")
    return _writable_in(p, parent)


def _writable_in(p: Path, parent: Path) -> Path:
    """Return ``p`` when its existing folder ``parent`` may be written; raise ``ValueError``."""
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{p}: cannot write there ({parent}: permission denied)")
    return p


def refuse_special(path: str | os.PathLike[str]) -> None:
    """Raise ``ValueError`` when ``path`` exists and is not a regular file (a device, a FIFO, a
    socket, or a link to one): an output replaces only a regular file, so ``--force`` can never
    turn ``/dev/null`` into a file. A dangling link or a missing path passes."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file")
        raise ValueError(f"{path}: is {kind}, not a regular file; an output replaces only "
                         "a regular file: give another name")


def clear_frames(folder: str | os.PathLike[str]) -> int:
    """Delete the exported frames in ``folder`` (only files named like frames); return how many."""
    n = 0
    for f in Path(folder).glob(FRAME_GLOB):
        if f.is_file():
            f.unlink()
            n += 1
    return n


@contextmanager
def atomic(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path to write ``path``'s content to; rename it onto ``path`` when the
    block ends normally, delete it when the block raises (anything, ``KeyboardInterrupt``
    included) and re-raise.

    The temporary file lies in the folder of ``path`` (so the rename is one step on the same
    file system), is hidden (``.NAME.part-XXXX``) and keeps the extensions of ``path``, so a
    writer that picks its format by the name (``.gz``, ``.parquet``, ``.png``) still does. It
    gets the permissions a newly created file would get. Raises ``OSError`` when the folder is
    not writable, ``ValueError`` when ``path`` is a device, a FIFO or another special file
    (:func:`refuse_special`).
    """
    refuse_special(path)
    tmp = partial_path(path)
    try:
        yield tmp
        refuse_special(path)  # not even one made while the content was written
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def partial_path(path: str | os.PathLike[str]) -> Path:
    """Create and return an empty hidden file next to ``path`` to write it under
    (``.NAME.part-XXXX`` with the extensions of ``path``), with the permissions a new file
    gets; the caller renames it onto ``path`` when complete (:func:`atomic` does both)."""
    target = Path(path)
    suffixes = "".join(target.suffixes)
    base = target.name[: len(target.name) - len(suffixes)] if suffixes else target.name
    fd, name = tempfile.mkstemp(prefix=f".{base}.part-", suffix=suffixes, dir=target.parent)
    os.close(fd)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(name, 0o666 & ~mask)
    return Path(name)


def write_text_atomically(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` through :func:`atomic`; return it."""
    with atomic(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
    return Path(path)
