"""Input files, one guard for every reader: regular file, size limit, content sniffed.

A file is read only when it is a regular file no larger than :data:`MAX_FILE_BYTES`; a FIFO,
a device or a directory is refused before anything is read (reading a FIFO would block for
ever, a device such as ``/dev/zero`` never ends), and so is an over-size file (it would be read
whole before being found unusable). Compressed data is recognised by its magic bytes (gzip
``1f 8b``, bzip2 ``BZh``, xz ``fd 37 7a 58 5a 00``) whatever the file is called, and
decompressed with the same size bound, so a small compressed file cannot expand without limit.
:func:`read_text` adds the sniffing of text inputs (no NUL byte, UTF-8) and is what every
reader of sacct output, sweep files, sessions, playlists and scenarios calls.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from typing import Any, Protocol

#: The largest file (and the largest decompressed content) read: 1 GiB, about ten million SWF
#: job lines, the most a workload may hold (:data:`gangviz.core.limits.MAX_JOBS`).
MAX_FILE_BYTES = 1 << 30
#: Bytes read at a time once the expected size is passed (or when there is no guess).
_CHUNK = 1 << 24

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))


class InputFileError(ValueError):
    """A file that cannot be read as input: not a regular file, too large, damaged."""


def check_regular(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> int:
    """Return the size of ``path`` after checking it is a regular file of at most ``limit`` bytes.

    Raises :class:`InputFileError` for a FIFO, socket, device or directory and for an
    over-size file, ``FileNotFoundError``/``OSError`` when it cannot be examined. Nothing is read.
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO (named pipe)"
                if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a special file")
        raise InputFileError(f"{path}: is {kind}, not a regular file; give a file")
    if st.st_size > limit:
        raise InputFileError(f"{path}: is {st.st_size:,} bytes, over the limit of {limit:,} bytes "
                             "for an input file")
    return st.st_size


def compression(data: bytes) -> str | None:
    """Return ``"gzip"``, ``"bzip2"`` or ``"xz"`` from the magic bytes of ``data``, else ``None``."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    return None


def decompress(data: bytes, source: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """Return ``data`` decompressed when its magic bytes say it is compressed, else unchanged.

    Raises :class:`InputFileError` for damaged compressed data or content beyond ``limit`` bytes.
    """
    kind = compression(data)
    if kind is None:
        return data
    buf = io.BytesIO(data)
    # gzip's trailer holds the (last member's) size mod 2**32: a good first guess, trusted no
    # further than deflate's largest ratio (about 1032 to 1) allows
    hint = _CHUNK
    if kind == "gzip" and len(data) >= 18:
        hint = min(int.from_bytes(data[-4:], "little"), 1032 * len(data))
    try:
        fh = (gzip.GzipFile(fileobj=buf) if kind == "gzip" else bz2.BZ2File(buf) if kind == "bzip2"
              else lzma.LZMAFile(buf))
        with fh:
            out = read_bounded(fh, limit, hint)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
        raise InputFileError(f"{source}: is a damaged compressed file ({exc})") from None
    if len(out) > limit:
        raise InputFileError(f"{source}: decompresses to more than {limit:,} bytes, the limit for "
                             "an input file")
    return out


def read_input(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> bytes:
    """Return the bytes of ``path`` (decompressed when compressed), after :func:`check_regular`.

    Raises :class:`InputFileError` as described there and in :func:`decompress`, ``OSError``
    when the file cannot be read.
    """
    size = check_regular(path, limit)
    with open(path, "rb") as fh:
        data = read_bounded(fh, limit, size)
    return decompress(data, str(path), limit)


class Readable(Protocol):
    """What :func:`read_bounded` reads: a binary file, plain or decompressing."""

    def read(self, size: int, /) -> bytes:
        """Return at most ``size`` bytes, fewer only at the end."""


def read_bounded(fh: Readable, limit: int, hint: int) -> bytes:
    """Return the bytes of ``fh`` to its end, or its first ``limit + 1`` bytes when it is longer.

    ``hint`` is the expected length: one read of that many bytes (plus one, to see the end)
    does it when the guess is right; past it, the rest comes ``_CHUNK`` bytes at a time. Never
    asks for ``limit`` bytes at once: a read reserves what it asks for, and a process with a
    memory limit (``ulimit -v``, a cluster job's) would fail on a small file.
    """
    first = fh.read(min(max(hint, 0), limit) + 1)
    if len(first) <= hint:  # the end came where expected, or before
        return first
    parts, total = [first], len(first)
    while total <= limit:
        chunk = fh.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts)


def read_text(path: str | os.PathLike[str], what: str, limit: int = MAX_FILE_BYTES) -> str:
    """Return the text of the input file ``path`` (a ``what``: "sacct output", "sweep file", ...).

    The one door of every text input: :func:`read_input` (regular file, at most ``limit``
    bytes, decompressed when compressed), then its content is sniffed: a NUL byte means a
    binary file, and the text must be UTF-8 (a leading byte-order mark is dropped). Raises
    :class:`InputFileError` naming the file (and, for bad UTF-8, the line and byte) and what was
    expected; ``FileNotFoundError``/``OSError`` when it cannot be read.
    """
    data = read_input(path, limit)
    if b"\x00" in data:
        raise InputFileError(f"{path}: is a binary file (it holds NUL bytes); expected {what}, "
                             "UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFileError(f"{path}:{line}: is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                             f"{exc.start:,}); expected {what}, UTF-8 text") from None


def _sniff(path: str | os.PathLike[str], head: bytes, what: str) -> None:
    """Raise :class:`InputFileError` when the first bytes ``head`` of ``path`` hold a NUL byte
    or are not UTF-8 (a character cut at the end of ``head`` is no fault)."""
    if b"\x00" in head:
        raise InputFileError(f"{path}: is a binary file (it holds NUL bytes); expected {what}, "
                             "UTF-8 text")
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError as exc:
        line = head.count(b"\n", 0, exc.start) + 1
        raise InputFileError(f"{path}:{line}: is not UTF-8 text (byte 0x{head[exc.start]:02x} at offset "
                             f"{exc.start:,}); expected {what}, UTF-8 text") from None


def text_lines(path: str | os.PathLike[str], what: str, limit: int = MAX_FILE_BYTES) -> Iterator[str]:
    """Yield the lines of the input file ``path`` (a ``what``) without their line feeds, as
    :func:`read_text` would give them: records end at a line feed only (``\r\n`` too), so a
    field holding a ``\u2028`` or a file separator stays whole.

    The same door as :func:`read_text` (regular file, at most ``limit`` bytes, no NUL byte,
    UTF-8), but an uncompressed file is read a line at a time, so a large one never sits in
    memory whole. Raises :class:`InputFileError` as :func:`read_text` does (for bad UTF-8 or a
    NUL byte, when the line that holds it is reached).
    """
    check_regular(path, limit)
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
        if compression(head) is not None:
            fh.close()
            yield from read_text(path, what, limit).replace("\r\n", "\n").split("\n")
            return
        _sniff(path, head, what)  # a binary file is told before any of its lines is read
        fh.seek(0)
        for number, raw in enumerate(fh, start=1):
            if b"\x00" in raw:
                raise InputFileError(f"{path}: is a binary file (it holds NUL bytes); expected {what}, "
                                     "UTF-8 text")
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise InputFileError(f"{path}:{number}: is not UTF-8 text (byte 0x{raw[exc.start]:02x} "
                                     f"in that line); expected {what}, UTF-8 text") from None
            yield line[:-1] if line.endswith("\n") else line


#: the most characters of a bad token a message quotes
QUOTE_CHARS = 80


def quoted(token: object, limit: int = QUOTE_CHARS) -> str:
    """Return ``token`` as an error message quotes it: text in quotes with control characters
    and other unprintable ones escaped (``'a\\x1b[2J'``), any other value as its ``repr``
    (``7``, ``b'bc'``); cut to ``limit`` characters with the count of the rest, so a 2 MB field
    or an escape sequence never reaches the terminal whole."""
    if isinstance(token, str):
        cut = token[:limit]
        more = len(token) - len(cut)
        return repr(cut) + (f" (and {more:,} more characters)" if more else "")
    text = repr(token)
    more = len(text) - limit
    return text[:limit] + (f"... (and {more:,} more characters)" if more > 0 else "")


def printable(text: str) -> str:
    """Return ``text`` (a title or a name read from a file) with every control character
    escaped (``\\x1b``, ``\\n``, ``\\u2028``), so printing it cannot move the cursor, clear the
    terminal or start a fake line; other characters are kept as they are."""
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii")
                   for c in text)


def shortened(message: str, limit: int = QUOTE_CHARS) -> str:
    """Return ``message`` with every word (a run without spaces) longer than ``limit``
    characters cut in its middle to its first and last characters, ``limit`` in all, with the
    count of what was cut between them, and every control character escaped
    (:func:`printable`): the last guard before a message reaches the user, so no token of any
    input is echoed whole, and none moves the cursor or starts a line, however a message quoted
    it. The end of a word is kept because that is where a long path names its file and line
    (``/a/deep/folder/.../trace.swf:12:``)."""
    tail = limit * 3 // 8

    def cut(word: str) -> str:
        if len(word) <= limit:
            return word
        head = limit - tail
        return f"{word[:head]}... ({len(word) - limit:,} characters cut) ...{word[-tail:]}"
    return " ".join(cut(w) for w in printable(message).split(" "))


def parse_toml(text: str) -> dict[str, Any]:
    """Return ``tomllib.loads(text)``; arrays or tables nested deeper than the parser's
    recursion allows raise ``tomllib.TOMLDecodeError`` at the line where the nesting passes
    100 levels, as any other syntax error, instead of a ``RecursionError``."""
    import tomllib

    try:
        return tomllib.loads(text)
    except RecursionError:
        depth, line = 0, 1
        for ch in text:
            if ch == "\n":
                line += 1
            elif ch in "[{":
                depth += 1
                if depth > 100:
                    break
            elif ch in "]}":
                depth -= 1
        raise tomllib.TOMLDecodeError(f"arrays or tables nested more than 100 deep (at line {line}, column 1)") \
            from None


def read_toml(path: str | os.PathLike[str], what: str, limit: int,
              error: Callable[[str], Exception]) -> tuple[dict[str, Any], str]:
    """Return the parsed TOML of the file ``path`` (a ``what``, at most ``limit`` bytes) and its text.

    :func:`read_text` then :func:`parse_toml`; every failure raises ``error(message)``: the
    message of an :class:`InputFileError` as it is, a syntax error as ``path:line: TOML syntax:
    problem`` (an error at the end of the document names the line after the last one).
    ``FileNotFoundError``/``OSError`` pass through when the file cannot be read.
    """
    import tomllib

    try:
        text = read_text(path, what, limit)
    except InputFileError as exc:
        raise error(str(exc)) from None
    try:
        return parse_toml(text), text
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        found = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(found.group(1)) if found else len(text.splitlines()) + 1
        problem = re.sub(r"\s*\(at [^)]*\)", "", msg)
        raise error(f"{path}:{line}: TOML syntax: {problem}") from None


_POLICY_FILE = re.compile(r"^(.*?\.py)((?::.*)?)$", re.S)


def policy_file(spec: object) -> tuple[str, str] | None:
    """Return ``(file, rest)`` of a policy spec that names a Python file (``my.py``,
    ``my.py:Class``, ``my.py:key=value``), ``rest`` being the text after the file; ``None``
    for any other spec (a built-in's name, ``module:Class``) or a non-text value."""
    if not isinstance(spec, str):
        return None
    m = _POLICY_FILE.match(spec.strip())
    return (m.group(1), m.group(2)) if m else None


def policy_spec_from(spec: str, folder: str | os.PathLike[str]) -> str:
    """Return ``spec`` with a relative policy file made absolute against ``folder`` (the folder
    of the session or playlist naming it) when the file is there; else ``spec`` as given."""
    found = policy_file(spec)
    if found is None or os.path.isabs(found[0]):
        return spec
    full = os.path.join(os.fspath(folder), found[0])
    return os.path.abspath(full) + found[1] if os.path.isfile(full) else spec
