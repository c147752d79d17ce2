"""A column of texts kept as one buffer, for the per-job writers.

A per-job table of a long trace holds a text per job (the processors' interval set): made as
Python strings they cost more than writing the whole file. A compiled pass writes them instead
into one byte buffer with their offsets (:class:`TextColumn`), which the C row writer
(:func:`gangviz.results.jobs.compiled_rows`) copies straight into the file; only a caller that
wants the strings (a per-job table for the API, the numpy writer) makes them, with
:meth:`TextColumn.strings`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TextColumn"]


@dataclass(frozen=True)
class TextColumn:
    """Texts ``0 .. n-1``, text ``i`` the ASCII bytes ``data[offsets[i]:offsets[i + 1]]``;
    ``data`` is ``uint8``, ``offsets`` ``int64`` (``n + 1`` of them, non-decreasing, from 0)."""

    data: np.ndarray
    offsets: np.ndarray

    @classmethod
    def of(cls, texts: list[str]) -> TextColumn:
        """Return the column of ASCII strings ``texts``."""
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
        offsets = np.zeros(len(texts) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return cls(np.frombuffer("".join(texts).encode("ascii"), np.uint8), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def strings(self) -> np.ndarray:
        """Return the texts as an object array of ``str``."""
        text = self.data.tobytes().decode("ascii")
        bounds = self.offsets.tolist()
        out = np.empty(len(self), dtype=object)
        out[:] = [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        return out

    def take(self, rows: np.ndarray) -> TextColumn:
        """Return the texts ``rows[0], rows[1], ...`` as a new column."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = np.diff(self.offsets)[rows]
        offsets = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        at = np.repeat(self.offsets[:-1][rows] - offsets[:-1], lengths) + np.arange(offsets[-1])
        return TextColumn(self.data[at], offsets)
